// Command-line helpers of the image tools: strict numbers and image sources.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "image.hpp"
#include "scenes.hpp"

namespace pscr::hdr::cli {

[[noreturn]] inline void usage(const char* tool, const std::string& why) {
  std::fprintf(stderr, "%s: %s (see --help)\n", tool, why.c_str());
  std::exit(2);
}

// The whole text must be a finite number.
inline double number(const char* tool, const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v))
    usage(tool, flag + " needs a number, got '" + text + "'");
  return v;
}
inline long integer(const char* tool, const std::string& flag, const std::string& text) {
  const double v = number(tool, flag, text);
  if (v != std::floor(v) || std::fabs(v) > 1e15) usage(tool, flag + " needs an integer, got '" + text + "'");
  return long(v);
}

// The comma-separated items of text, empty ones included ("a,,b" has three).
inline std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> items;
  for (std::size_t p = 0; p <= text.size();) {
    const auto q = std::min(text.find(',', p), text.size());
    items.push_back(text.substr(p, q - p));
    p = q + 1;
  }
  return items;
}

// "scene:NAME:WxH" (a synthetic scene) or an image file.
inline Image load_source(const char* tool, const std::string& spec) {
  if (spec.rfind("scene:", 0) == 0) {
    const std::string rest = spec.substr(6);
    const auto colon = rest.find(':');
    int w = 0, h = 0;
    char tail = 0;
    if (colon == std::string::npos || std::sscanf(rest.c_str() + colon + 1, "%dx%d%c", &w, &h, &tail) != 2 || w < 1 ||
        h < 1)
      usage(tool, "a scene is scene:NAME:WxH (e.g. scene:window:1024x768), got '" + spec + "'");
    return synthetic_scene(rest.substr(0, colon), w, h);
  }
  return read_image(spec);
}

}  // namespace pscr::hdr::cli
