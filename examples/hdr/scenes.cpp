#include "scenes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "pscr/errors.hpp"

namespace pscr::hdr {
namespace {

// Value noise from an integer hash: the same on every machine and thread count.
double hash01(std::uint32_t x, std::uint32_t y, std::uint32_t seed) {
  std::uint32_t h = x * 0x8da6b343u ^ y * 0xd8163841u ^ seed * 0xcb1ab31fu;
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return (h & 0xffffff) / double(0x1000000);
}
double smooth_noise(double u, double v, std::uint32_t seed) {
  const double fu = std::floor(u), fv = std::floor(v);
  const double a = u - fu, b = v - fv;
  const auto X = std::uint32_t(std::int64_t(fu) & 0xffffffff), Y = std::uint32_t(std::int64_t(fv) & 0xffffffff);
  const double s00 = hash01(X, Y, seed), s10 = hash01(X + 1, Y, seed), s01 = hash01(X, Y + 1, seed),
               s11 = hash01(X + 1, Y + 1, seed);
  const double sa = a * a * (3 - 2 * a), sb = b * b * (3 - 2 * b);
  return (s00 * (1 - sa) + s10 * sa) * (1 - sb) + (s01 * (1 - sa) + s11 * sa) * sb;
}
double fractal(double u, double v, std::uint32_t seed) {
  double s = 0, amp = 0.5;
  for (int o = 0; o < 5; ++o, u *= 2, v *= 2, amp *= 0.5) s += amp * smooth_noise(u, v, seed + o);
  return s;
}

// Rows over the host threads: every pixel is a function of its position only.
void window_scene(Image& img) {
  const double W = img.width, H = img.height;
#pragma omp parallel for schedule(static)
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x) {
      const double u = (x + 0.5) / W, v = (y + 0.5) / H;
      // room: dim, textured walls and a floor of planks
      double tex = 0.4 + 0.8 * fractal(24 * u, 24 * v, 7);
      double r = 3e-3 * tex, g = 2.5e-3 * tex, b = 2e-3 * tex;
      if (v > 0.72) {  // floor planks with fine grain
        const double grain = 0.7 + 0.3 * std::sin(400 * u + 10 * fractal(4 * u, 40 * v, 3));
        const double plank = (int(v * 40) % 2) ? 1.0 : 0.8;
        r = 8e-3 * grain * plank, g = 5e-3 * grain * plank, b = 2.5e-3 * grain * plank;
      }
      // window: sky gradient, clouds, the sun, and a window cross
      if (u > 0.55 && u < 0.92 && v > 0.12 && v < 0.6) {
        const double sky = 10 + 90 * (0.6 - v) / 0.48;
        const double cloud = std::max(0.0, fractal(6 * u, 10 * v, 11) - 0.45) * 4;
        r = sky * (0.45 + 0.55 * cloud), g = sky * (0.6 + 0.4 * cloud), b = sky * (1.0 + 0.1 * cloud);
        const double du = u - 0.8, dv = (v - 0.25) * H / W;
        const double d = std::sqrt(du * du + dv * dv);
        if (d < 0.03) r = 1.2e4, g = 1.1e4, b = 0.9e4;
        else if (d < 0.08) {  // halo
          const double k = 3e3 * std::pow(0.03 / d, 3);
          r += k, g += 0.9 * k, b += 0.7 * k;
        }
        if (std::fabs(u - 0.735) < 0.006 || std::fabs(v - 0.36) < 0.006) r = 0.02, g = 0.015, b = 0.01;
      }
      // sunlit patch on the floor and a coloured vase in the light
      if (v > 0.78 && v < 0.95 && u > 0.35 - 0.3 * (v - 0.78) && u < 0.7 - 0.3 * (v - 0.78)) {
        r *= 400, g *= 380, b *= 330;
      }
      const double vu = (u - 0.25) / 0.06, vv = (v - 0.62) / 0.12;
      if (vu * vu + vv * vv < 1) {
        const double shade = 0.3 + 0.7 * std::max(0.0, vu);
        r = 0.05 * shade, g = 0.01 * shade, b = 0.004 * shade;
      }
      // fine stripes (a picture on the wall): single-pixel detail
      if (u > 0.08 && u < 0.4 && v > 0.15 && v < 0.4) {
        const double s = ((x / 2 + y / 3) % 2) ? 1.0 : 0.25;
        r = 6e-3 * s, g = 9e-3 * s, b = 1.2e-2 * s;
      }
      float* p = img.pixel(x, y);
      p[0] = float(r), p[1] = float(g), p[2] = float(b);
    }
}

void lamps_scene(Image& img) {
  const double W = img.width, H = img.height;
  const double lamps[5][4] = {{0.2, 0.3, 1e5, 0.010}, {0.5, 0.5, 3e3, 0.02}, {0.8, 0.25, 2e4, 0.008},
                              {0.35, 0.8, 1e3, 0.03}, {0.75, 0.75, 6e4, 0.005}};
#pragma omp parallel for schedule(static)
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x) {
      const double u = (x + 0.5) / W, v = (y + 0.5) / H;
      double L = 1e-3 * (0.5 + v) * (0.6 + 0.8 * fractal(12 * u, 12 * v, 5));
      // text-like detail: blocks of thin glyph strokes
      const int gx = int(u * 96), gy = int(v * 48);
      if (hash01(gx, gy, 9) > 0.6 && (x % 3 == 0 || y % 4 == 0)) L *= 3;
      double r = L, g = L, b = 1.3 * L;
      for (const auto& l : lamps) {
        const double du = u - l[0], dv = (v - l[1]) * H / W, d2 = du * du + dv * dv;
        const double k = l[2] * (std::exp(-d2 / (l[3] * l[3])) + 1e-4 * l[3] * l[3] / (d2 + l[3] * l[3]));  // core and a faint halo
        r += k, g += 0.8 * k, b += 0.55 * k;
      }
      float* p = img.pixel(x, y);
      p[0] = float(r), p[1] = float(g), p[2] = float(b);
    }
}

}  // namespace

Image synthetic_scene(const std::string& kind, int width, int height) {
  Image img = make_image(width, height);
  if (kind == "window") window_scene(img);
  else if (kind == "lamps") lamps_scene(img);
  else throw InvalidArgument("unknown synthetic scene '" + kind + "' (use window or lamps)");
  return img;
}

double dynamic_range(const Image& img) {
  double lo = INFINITY, hi = 0;
  for (std::size_t i = 0; i < img.pixels(); ++i) {
    const float* p = img.rgb.data() + 3 * i;
    const double L = 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
    if (L > 0) lo = std::min(lo, L), hi = std::max(hi, L);
  }
  return hi > 0 ? hi / lo : 0;
}

}  // namespace pscr::hdr
