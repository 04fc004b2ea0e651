// The command-line helper of every program (drivers, tuner, clients): usage
// errors exit 2 with "tool: why (see --help)", --help prints the usage and
// exits 0, and numbers are parsed strictly (the whole text, finite, in range),
// a bad one named with its flag.
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace pscr::cli {

[[noreturn]] inline void usage(const char* tool, const std::string& why) {
  std::fprintf(stderr, "%s: %s (see --help)\n", tool, why.c_str());
  std::exit(2);
}

// Prints `text` and exits 0 when the command line asks for help.
inline void help(int argc, char** argv, const char* text) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(text, stdout);
      std::exit(0);
    }
  }
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
// An integer in [lo, hi].
inline long integer(const char* tool, const std::string& flag, const std::string& text, long lo, long hi) {
  const long v = integer(tool, flag, text);
  if (v < lo || v > hi)
    usage(tool, flag + " needs an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got '" +
                    text + "'");
  return v;
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

}  // namespace pscr::cli
