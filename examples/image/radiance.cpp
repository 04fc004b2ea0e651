// Radiance RGBE (.hdr, .pic): header lines, a resolution string, then
// scanlines that are flat, old-style run-length encoded (repeat markers
// 1,1,1,n whose counts grow by 8 bits per consecutive marker) or new-style
// (per component runs and literals, announced by 2,2,width).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <sstream>

#include "image.hpp"
#include "pscr/errors.hpp"

namespace pscr::image {
namespace {

using Rgbe = std::array<std::uint8_t, 4>;

void rgbe_to_float(const std::uint8_t* e, float* out) {
  if (e[3] == 0) {
    out[0] = out[1] = out[2] = 0.0f;
    return;
  }
  const double f = std::ldexp(1.0, int(e[3]) - (128 + 8));
  for (int c = 0; c < 3; ++c) out[c] = float((e[c] + 0.5) * f);
}

Rgbe float_to_rgbe(const float* in) {
  const float r = std::max(in[0], 0.0f), g = std::max(in[1], 0.0f), b = std::max(in[2], 0.0f);
  const float v = std::max({r, g, b});
  if (!(v >= 1e-32f)) return {0, 0, 0, 0};
  int e;
  const double m = std::frexp(double(v), &e);
  if (e > 127) e = 127;  // clamp values beyond 2^127 (not reached by finite floats scaled here)
  const double scale = m * 256.0 / v;
  auto q = [&](float c) { return std::uint8_t(std::min(255.0, c * scale)); };
  return {q(r), q(g), q(b), std::uint8_t(e + 128)};
}

struct Reader {
  const std::string& s;
  const std::string& name;
  std::size_t pos = 0;
  [[noreturn]] void fail(const std::string& why) const {
    throw FileFormatError(name + ": Radiance file " + why + " (at byte " + std::to_string(pos) + ")");
  }
  std::uint8_t byte() {
    if (pos >= s.size()) fail("is truncated inside the pixel data");
    return std::uint8_t(s[pos++]);
  }
  bool line(std::string& out) {
    const auto nl = s.find('\n', pos);
    if (nl == std::string::npos) return false;
    out = s.substr(pos, nl - pos);
    pos = nl + 1;
    return true;
  }
};

// Old-style (and flat) scanline of w pixels into out (4 bytes per pixel).
void old_scanline(Reader& r, int w, std::uint8_t* out) {
  int shift = 0;
  for (int x = 0; x < w;) {
    std::uint8_t p[4];
    for (auto& b : p) b = r.byte();
    if (p[0] == 1 && p[1] == 1 && p[2] == 1) {
      if (x == 0) r.fail("has a repeat marker at the start of a scanline");
      if (shift > 16) r.fail("has a repeat count beyond 2^24");
      const long count = long(p[3]) << shift;
      if (x + count > w) r.fail("has a repeat run past the end of a scanline");
      for (long k = 0; k < count; ++k, ++x) std::memcpy(out + 4 * x, out + 4 * (x - 1), 4);
      shift += 8;
    } else {
      std::memcpy(out + 4 * x, p, 4);
      ++x;
      shift = 0;
    }
  }
}

// New-style scanline (header 2,2,w already consumed): 4 component planes.
void new_scanline(Reader& r, int w, std::uint8_t* out) {
  for (int c = 0; c < 4; ++c) {
    for (int x = 0; x < w;) {
      const int count = r.byte();
      if (count > 128) {
        const int run = count - 128;
        if (x + run > w) r.fail("has a run past the end of a scanline");
        const std::uint8_t v = r.byte();
        for (int k = 0; k < run; ++k) out[4 * (x++) + c] = v;
      } else {
        if (count == 0) r.fail("has a zero-length literal in a scanline");
        if (x + count > w) r.fail("has a literal past the end of a scanline");
        for (int k = 0; k < count; ++k) out[4 * (x++) + c] = r.byte();
      }
    }
  }
}

}  // namespace

Image decode_radiance(const std::string& bytes, const std::string& name, const ReadLimits& limits) {
  Reader r{bytes, name};
  std::string ln;
  if (!r.line(ln) || ln.rfind("#?", 0) != 0) r.fail("does not start with a #? line");
  bool xyze = false;
  for (;;) {
    if (r.pos > 65536) r.fail("has a header longer than 64 KiB");
    if (!r.line(ln)) r.fail("ends inside the header (no blank line before the resolution)");
    if (ln.empty()) break;
    if (ln.rfind("FORMAT=", 0) == 0) {
      const std::string f = ln.substr(7);
      if (f == "32-bit_rle_xyze") xyze = true;
      else if (f != "32-bit_rle_rgbe") r.fail("has unsupported FORMAT=" + f.substr(0, 64));
    }
  }
  if (xyze) r.fail("is in XYZE, not RGBE (convert it to RGB first)");
  if (!r.line(ln)) r.fail("has no resolution line");
  char ys, yc, xs, xc;
  long h = 0, w = 0;
  char tail = 0;
  if (std::sscanf(ln.c_str(), " %c%c %ld %c%c %ld %c", &ys, &yc, &h, &xs, &xc, &w, &tail) != 6 || yc != 'Y' ||
      xc != 'X' || (ys != '-' && ys != '+') || (xs != '-' && xs != '+'))
    r.fail("has an unsupported resolution line '" + ln.substr(0, 64) +
           "' (expected -Y H +X W or a flip of it; transposed images are not supported)");
  if (const std::string why = limits.refusal(w, h); !why.empty()) r.fail(why);
  // Every scanline takes at least 4 bytes: refuse impossible sizes before allocating.
  if (bytes.size() - r.pos < std::size_t(h) * 4) r.fail("is truncated: too few bytes for " + std::to_string(h) + " scanlines");
  Image img;
  img.width = int(w);
  img.height = int(h);
  std::vector<std::uint8_t> line(4 * std::size_t(w));
  for (long y = 0; y < h; ++y) {
    const bool adaptive = w >= 8 && w <= 0x7fff && r.pos + 4 <= bytes.size() && bytes[r.pos] == 2 &&
                          bytes[r.pos + 1] == 2 && (std::uint8_t(bytes[r.pos + 2]) & 0x80) == 0;
    if (adaptive) {
      const int lw = (std::uint8_t(bytes[r.pos + 2]) << 8) | std::uint8_t(bytes[r.pos + 3]);
      if (lw != w) r.fail("has a scanline of width " + std::to_string(lw) + " in an image of width " + std::to_string(w));
      r.pos += 4;
      new_scanline(r, int(w), line.data());
    } else {
      old_scanline(r, int(w), line.data());
    }
    // grows with the decoded data only, so a short file cannot force a large allocation
    for (long x = 0; x < w; ++x) {
      float px[3];
      rgbe_to_float(line.data() + 4 * (xs == '+' ? x : w - 1 - x), px);
      img.rgb.insert(img.rgb.end(), px, px + 3);
    }
  }
  if (ys == '+')  // bottom row first in the file
    for (long y = 0; y < h / 2; ++y)
      std::swap_ranges(img.rgb.begin() + 3 * w * y, img.rgb.begin() + 3 * w * (y + 1), img.rgb.begin() + 3 * w * (h - 1 - y));
  return img;
}

std::string encode_radiance(const Image& img, RadianceEncoding enc) {
  if (img.width < 1 || img.height < 1 || img.rgb.size() != 3 * img.pixels())
    throw InvalidArgument("encode_radiance: image of " + std::to_string(img.width) + "x" + std::to_string(img.height) +
                          " with " + std::to_string(img.rgb.size()) + " values");
  for (std::size_t i = 0; i < img.rgb.size(); ++i)
    if (!std::isfinite(img.rgb[i]))
      throw NonFiniteInput("encode_radiance: non-finite value at pixel " + std::to_string(i / 3) +
                           " (RGBE has no NaN or infinity)");
  std::ostringstream out;
  out << "#?RADIANCE\n# written by libpscr pscr-hdr\nFORMAT=32-bit_rle_rgbe\n\n-Y " << img.height << " +X "
      << img.width << "\n";
  std::string s = out.str();
  const int w = img.width;
  const bool adaptive = enc == RadianceEncoding::new_rle && w >= 8 && w <= 0x7fff;
  std::vector<Rgbe> line(std::size_t(w), Rgbe{});
  for (int y = 0; y < img.height; ++y) {
    for (int x = 0; x < w; ++x) line[x] = float_to_rgbe(img.pixel(x, y));
    if (adaptive) {
      s += char(2);
      s += char(2);
      s += char(w >> 8);
      s += char(w & 255);
      for (int c = 0; c < 4; ++c) {
        int x = 0;
        while (x < w) {
          // a run of >= 4 equal bytes is worth a run code; else gather literals
          int run = 1;
          while (x + run < w && run < 127 && line[x + run][c] == line[x][c]) ++run;
          if (run >= 4) {
            s += char(128 + run);
            s += char(line[x][c]);
            x += run;
            continue;
          }
          int lit = 0;
          while (x + lit < w && lit < 128) {
            int ahead = 1;
            while (x + lit + ahead < w && ahead < 4 && line[x + lit + ahead][c] == line[x + lit][c]) ++ahead;
            if (ahead >= 4) break;
            ++lit;
          }
          s += char(lit);
          for (int k = 0; k < lit; ++k) s += char(line[x + k][c]);
          x += lit;
        }
      }
    } else {
      for (int x = 0; x < w;) {
        for (int c = 0; c < 4; ++c) s += char(line[x][c]);
        int rep = 0;
        if (enc == RadianceEncoding::old_rle)
          while (x + 1 + rep < w && line[x + 1 + rep] == line[x]) ++rep;
        // base-256 digits, least significant first: 1,1,1,d repeats d << 8k
        for (int r = rep; r > 0; r >>= 8) {
          s += "\x01\x01\x01";
          s += char(r & 255);
        }
        x += 1 + rep;
      }
    }
  }
  return s;
}

}  // namespace pscr::image
