// Command-line helpers of the image tools: the shared ones (common/cli.hpp)
// and image sources.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../common/cli.hpp"
#include "image.hpp"

// The shared image I/O (examples/image/) is this client's Image.
namespace pscr::hdr {
using namespace pscr::image;
}
#include "scenes.hpp"

namespace pscr::hdr::cli {

using namespace pscr::cli;  // usage, help, number, integer, split

// "scene:NAME:WxH" (a synthetic scene) or an image file. check_source
// validates the form of the argument (a bad scene spec exits through usage);
// load_source then reads or generates the image (errors as exceptions).
inline void check_source(const char* tool, const std::string& spec, std::string* name = nullptr, int* width = nullptr,
                         int* height = nullptr) {
  if (spec.rfind("scene:", 0) != 0) return;
  const std::string rest = spec.substr(6);
  const auto colon = rest.find(':');
  int w = 0, h = 0;
  char tail = 0;
  if (colon == std::string::npos || std::sscanf(rest.c_str() + colon + 1, "%dx%d%c", &w, &h, &tail) != 2 || w < 1 ||
      h < 1)
    usage(tool, "a scene is scene:NAME:WxH (e.g. scene:window:1024x768), got '" + spec + "'");
  if (name) *name = rest.substr(0, colon);
  if (width) *width = w;
  if (height) *height = h;
}

inline Image load_source(const char* tool, const std::string& spec) {
  if (spec.rfind("scene:", 0) == 0) {
    std::string name;
    int w = 0, h = 0;
    check_source(tool, spec, &name, &w, &h);
    return synthetic_scene(name, w, h);
  }
  return read_image(spec);
}

}  // namespace pscr::hdr::cli
