// Portable float map: "PF" (RGB) or "Pf" (grey), width, height, scale (its
// sign gives the byte order: negative = little-endian), one whitespace
// character, then rows of 32-bit floats, bottom row first.
#include <cmath>
#include <cstring>
#include <sstream>

#include "image.hpp"
#include "pscr/errors.hpp"

namespace pscr::image {

Image decode_pfm(const std::string& bytes, const std::string& name, const ReadLimits& limits) {
  auto fail = [&](const std::string& why) -> void { throw FileFormatError(name + ": PFM file " + why); };
  if (bytes.size() < 3 || bytes[0] != 'P' || (bytes[1] != 'F' && bytes[1] != 'f')) fail("does not start with PF or Pf");
  const int channels = bytes[1] == 'F' ? 3 : 1;
  // the header is three whitespace-separated tokens after the magic
  std::size_t pos = 2;
  auto token = [&](const char* what) {
    while (pos < bytes.size() && std::isspace(static_cast<unsigned char>(bytes[pos]))) ++pos;
    const std::size_t start = pos;
    while (pos < bytes.size() && pos - start < 64 && !std::isspace(static_cast<unsigned char>(bytes[pos]))) ++pos;
    if (pos == start || pos >= bytes.size()) fail(std::string("has no ") + what + " in its header");
    return bytes.substr(start, pos - start);
  };
  auto integer = [&](const char* what) {
    const std::string t = token(what);
    if (t.find_first_not_of("0123456789") != std::string::npos || t.size() > 9)
      fail(std::string("has an invalid ") + what + " '" + t + "'");
    return std::stol(t);
  };
  const long w = integer("width"), h = integer("height");
  const std::string st = token("scale");
  char* end = nullptr;
  const double scale = std::strtod(st.c_str(), &end);
  if (end != st.c_str() + st.size() || !std::isfinite(scale) || scale == 0) fail("has an invalid scale '" + st + "'");
  ++pos;  // the single whitespace character that ends the header
  if (const std::string why = limits.refusal(w, h); !why.empty()) fail(why);
  const std::size_t need = std::size_t(w) * std::size_t(h) * channels * 4;
  if (bytes.size() < pos || bytes.size() - pos < need)
    fail("is truncated: " + std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(channels) + " floats need " +
         std::to_string(need) + " bytes after the header, " + std::to_string(bytes.size() > pos ? bytes.size() - pos : 0) +
         " present");
  const bool little = scale < 0;
  const std::uint32_t probe = 1;
  const bool host_little = *reinterpret_cast<const std::uint8_t*>(&probe) == 1;
  Image img = make_image(int(w), int(h));
  const char* p = bytes.data() + pos;
  for (long y = 0; y < h; ++y)
    for (long x = 0; x < w; ++x)
      for (int c = 0; c < channels; ++c) {
        char b[4];
        std::memcpy(b, p, 4);
        p += 4;
        if (little != host_little) std::swap(b[0], b[3]), std::swap(b[1], b[2]);
        float v;
        std::memcpy(&v, b, 4);
        float* px = img.pixel(int(x), int(h - 1 - y));
        if (channels == 3) px[c] = v;
        else px[0] = px[1] = px[2] = v;
      }
  return img;
}

std::string encode_pfm(const Image& img) {
  if (img.width < 1 || img.height < 1 || img.rgb.size() != 3 * img.pixels())
    throw InvalidArgument("encode_pfm: image of " + std::to_string(img.width) + "x" + std::to_string(img.height) +
                          " with " + std::to_string(img.rgb.size()) + " values");
  const std::uint32_t probe = 1;
  const bool host_little = *reinterpret_cast<const std::uint8_t*>(&probe) == 1;
  std::ostringstream out;
  out << "PF\n" << img.width << " " << img.height << "\n" << (host_little ? "-1.0" : "1.0") << "\n";
  std::string s = out.str();
  for (int y = img.height - 1; y >= 0; --y) s.append(reinterpret_cast<const char*>(img.pixel(0, y)), 12 * std::size_t(img.width));
  return s;
}

}  // namespace pscr::image
