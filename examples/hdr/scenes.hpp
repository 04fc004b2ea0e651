// Deterministic synthetic HDR scenes for tests, demos and benchmarks: no
// downloads, the same pixels on every machine.
#pragma once
#include <string>

#include "image.hpp"

// The shared image I/O (examples/image/) is this client's Image.
namespace pscr::hdr {
using namespace pscr::image;
}

namespace pscr::hdr {

// "window": a dim textured room (luminance ~1e-3..1e-2) with a bright window
// (sky ~10..100, sun disc ~1e4), coloured objects and fine stripes;
// dynamic range above 1e6.
// "lamps": point lights of 1e3..1e5 over a dark gradient with text-like detail.
Image synthetic_scene(const std::string& kind, int width, int height);
// max/min of the positive luminances (0 when there are none)
double dynamic_range(const Image& img);

}  // namespace pscr::hdr
