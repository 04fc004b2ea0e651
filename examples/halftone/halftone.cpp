#include "halftone.hpp"

#include <algorithm>
#include <cstdio>
#include <chrono>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace pscr::halftone {
namespace {

using clock_type = std::chrono::steady_clock;
double since(clock_type::time_point t) { return std::chrono::duration<double>(clock_type::now() - t).count(); }

// splitmix64: counter-based random numbers (the same for any thread count).
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
double uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t k) {
  return double(mix(seed ^ mix(stream * 0x632be59bd9b4e019ull + k)) >> 11) * 0x1.0p-53;
}

class HostEngine final : public ForceEngine {
 public:
  HostEngine(const Charges& c, const MeshParameters& p) : charges_(c), mesh_(charges_, p) {}
  std::vector<Point> forces(const std::vector<Point>& dots) override { return mesh_.forces(dots); }
  std::vector<std::pair<std::string, double>> stage_times() const override { return mesh_.stage_times(); }
  void reset_times() override { mesh_.reset_times(); }
  std::string name() const override {
    return "host particle mesh " + std::to_string(mesh_.mesh_width()) + " x " + std::to_string(mesh_.mesh_height());
  }

 private:
  Charges charges_;
  ParticleMesh mesh_;
};

}  // namespace

double reflect(double v, double hi) {
  if (v < 0) v = -v;
  if (v > hi) v = 2 * hi - v;
  return std::clamp(v, 0.0, hi);  // a step longer than the image
}

void move_dot(Point& p, const Point& f, const Motion& m, int k, long a) {
  p.x += m.tau * f.x;
  p.y += m.tau * f.y;
  if (m.shake_every > 0 && k > 0 && k % m.shake_every == 0 && k < m.shake_until) {
    const double amp = m.shake * (1 - double(k) / std::max(1, m.shake_until));
    const double phi = 2 * M_PI * uniform(m.seed, 4 + std::uint64_t(k), std::uint64_t(a));
    p.x += amp * std::cos(phi);
    p.y += amp * std::sin(phi);
  }
  p.x = reflect(p.x, double(m.width - 1));
  p.y = reflect(p.y, double(m.height - 1));
}

void ForceEngine::iterate(std::vector<Point>& dots, const Motion& m, int k0, int k1) {
  for (int k = k0; k < k1; ++k) {
    const std::vector<Point> f = forces(dots);
    for (std::size_t a = 0; a < dots.size(); ++a) move_dot(dots[a], f[a], m, k, long(a));
  }
}

std::unique_ptr<ForceEngine> host_engine(const Charges& charges, const MeshParameters& p) {
  return std::make_unique<HostEngine>(charges, p);
}

GreyImage grey_from_rgb8(const std::vector<std::uint8_t>& rgb, int width, int height) {
  GreyImage g;
  g.width = width;
  g.height = height;
  g.v.resize(std::size_t(width) * height);
  for (std::size_t i = 0; i < g.v.size(); ++i)
    // integer weights: white is exactly 1, a grey pixel exactly its value
    g.v[i] = double(2126 * rgb[3 * i] + 7152 * rgb[3 * i + 1] + 722 * rgb[3 * i + 2]) / 2550000.0;
  return g;
}

long default_dots(const GreyImage& img) {
  double ink = 0;
  for (double v : img.v) ink += 1 - v;
  return std::lround(ink);
}

Charges charges_for(const GreyImage& img, long dots) {
  const long pixels = long(img.width) * img.height;
  if (dots <= 0) throw std::invalid_argument("the number of dots must be at least 1 (got " + std::to_string(dots) + ")");
  if (dots > pixels)
    throw std::invalid_argument("more dots (" + std::to_string(dots) + ") than pixels (" + std::to_string(pixels) + ")");
  double ink = 0;
  for (double v : img.v) ink += 1 - v;
  if (!(ink > 0)) throw std::invalid_argument("the image is all white: no darkness to attract " + std::to_string(dots) + " dots");
  Charges c;
  c.width = img.width;
  c.height = img.height;
  c.q.resize(img.v.size());
  const double scale = double(dots) / ink;
  for (std::size_t i = 0; i < c.q.size(); ++i) c.q[i] = (1 - img.v[i]) * scale;
  return c;
}

std::vector<Point> initial_dots(const GreyImage& img, long count, std::uint64_t seed) {
  std::vector<double> cum(img.v.size());
  double s = 0;
  for (std::size_t i = 0; i < img.v.size(); ++i) cum[i] = s += 1 - img.v[i];
  std::vector<Point> dots(count);
  const double step = s / double(count), offset = uniform(seed, 1, 0) * step;
  for (long k = 0; k < count; ++k) {
    const double target = offset + k * step;
    const std::size_t i = std::min<std::size_t>(std::lower_bound(cum.begin(), cum.end(), target) - cum.begin(),
                                                 cum.size() - 1);
    const int x = int(i % img.width), y = int(i / img.width);
    dots[k] = {x + uniform(seed, 2, k) - 0.5, y + uniform(seed, 3, k) - 0.5};
    dots[k].x = std::clamp(dots[k].x, 0.0, double(img.width - 1));
    dots[k].y = std::clamp(dots[k].y, 0.0, double(img.height - 1));
  }
  return dots;
}

Result halftone(const GreyImage& img, const Settings& s, const std::function<void(int)>& progress) {
  const auto t0 = clock_type::now();
  const long count = s.dots < 0 ? default_dots(img) : s.dots;
  const Charges charges = charges_for(img, count);
  auto engine = host_engine(charges, s.mesh);
  Result r = halftone(img, s, *engine, progress);
  r.times.setup += since(t0) - r.times.total;
  r.times.total = since(t0);
  return r;
}

Result halftone(const GreyImage& img, const Settings& s, ForceEngine& engine, const std::function<void(int)>& progress) {
  if (s.iterations < 0) throw std::invalid_argument("iterations must be >= 0");
  if (!(s.tau > 0)) throw std::invalid_argument("the time step tau must be > 0");
  const auto t0 = clock_type::now();
  Result r;
  const long count = s.dots < 0 ? default_dots(img) : s.dots;
  for (double v : img.v) r.ink += 1 - v;
  r.dot_area = r.ink / double(count);
  r.engine = engine.name();
  r.dots = initial_dots(img, count, s.seed);
  r.times.setup = since(t0);
  Motion m;
  m.tau = s.tau;
  m.shake_every = s.shake_every;
  m.shake_until = int(0.8 * s.iterations);
  m.shake = s.shake;
  m.seed = s.seed;
  m.width = img.width;
  m.height = img.height;
  const auto t1 = clock_type::now();
  if (progress) {
    for (int k = 0; k < s.iterations; ++k) {
      engine.iterate(r.dots, m, k, k + 1);
      progress(k);
    }
  } else {
    engine.iterate(r.dots, m, 0, s.iterations);
  }
  r.times.iterating = since(t1);
  r.times.iterations = s.iterations;
  r.times.total = since(t0);
  return r;
}

void write_points(const std::string& path, const std::vector<Point>& dots) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error(path + ": cannot open for writing");
  for (const Point& p : dots) std::fprintf(f, "%.6f %.6f\n", p.x, p.y);
  if (std::fclose(f) != 0) throw std::runtime_error(path + ": write failed");
}

std::vector<std::uint8_t> render_dots(const std::vector<Point>& dots, double dot_area, int width, int height) {
  constexpr int S = 4;  // samples per pixel side
  std::vector<int> hits(std::size_t(width) * height, 0);
  const double rad = std::sqrt(dot_area / M_PI), r2 = rad * rad;
  for (const Point& p : dots) {
    const int i0 = std::max(0, int(std::floor(p.x - rad + 0.5))), i1 = std::min(width - 1, int(std::floor(p.x + rad + 0.5)));
    const int j0 = std::max(0, int(std::floor(p.y - rad + 0.5))), j1 = std::min(height - 1, int(std::floor(p.y + rad + 0.5)));
    for (int j = j0; j <= j1; ++j)
      for (int i = i0; i <= i1; ++i)
        for (int sy = 0; sy < S; ++sy)
          for (int sx = 0; sx < S; ++sx) {
            const double x = i - 0.5 + (sx + 0.5) / S, y = j - 0.5 + (sy + 0.5) / S;
            if ((x - p.x) * (x - p.x) + (y - p.y) * (y - p.y) <= r2) ++hits[std::size_t(j) * width + i];
          }
  }
  std::vector<std::uint8_t> out(hits.size());
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = std::uint8_t(std::lround(255.0 * (1 - std::min(1.0, double(hits[i]) / (S * S)))));
  return out;
}

std::vector<std::uint8_t> floyd_steinberg(const GreyImage& img) {
  const int w = img.width, h = img.height;
  std::vector<double> v = img.v;
  std::vector<std::uint8_t> out(v.size());
  for (int y = 0; y < h; ++y) {
    const bool rev = y % 2 == 1;
    for (int t = 0; t < w; ++t) {
      const int x = rev ? w - 1 - t : t, dir = rev ? -1 : 1;
      const std::size_t i = std::size_t(y) * w + x;
      const double q = v[i] < 0.5 ? 0.0 : 1.0, e = v[i] - q;
      out[i] = q > 0 ? 255 : 0;
      auto spread = [&](int dx, int dy, double wgt) {
        const int xx = x + dx * dir, yy = y + dy;
        if (xx >= 0 && xx < w && yy < h) v[std::size_t(yy) * w + xx] += e * wgt;
      };
      spread(1, 0, 7.0 / 16);
      spread(-1, 1, 3.0 / 16);
      spread(0, 1, 5.0 / 16);
      spread(1, 1, 1.0 / 16);
    }
  }
  return out;
}

namespace {
// Separable Gaussian blur with mirrored edges.
std::vector<double> blur(const std::vector<double>& in, int w, int h, double sigma) {
  const int R = int(std::ceil(4 * sigma));
  std::vector<double> k(2 * R + 1);
  double s = 0;
  for (int i = -R; i <= R; ++i) s += k[i + R] = std::exp(-0.5 * i * i / (sigma * sigma));
  for (auto& v : k) v /= s;
  auto mirror = [](int i, int n) {
    while (i < 0 || i >= n) i = i < 0 ? -i - 1 : 2 * n - i - 1;
    return i;
  };
  std::vector<double> tmp(in.size()), out(in.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double a = 0;
      for (int i = -R; i <= R; ++i) a += k[i + R] * in[std::size_t(y) * w + mirror(x + i, w)];
      tmp[std::size_t(y) * w + x] = a;
    }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double a = 0;
      for (int i = -R; i <= R; ++i) a += k[i + R] * tmp[std::size_t(mirror(y + i, h)) * w + x];
      out[std::size_t(y) * w + x] = a;
    }
  return out;
}
}  // namespace

double blurred_psnr(const std::vector<std::uint8_t>& out, const GreyImage& original, double sigma) {
  std::vector<double> a(out.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = out[i] / 255.0;
  const auto ba = blur(a, original.width, original.height, sigma), bo = blur(original.v, original.width, original.height, sigma);
  double mse = 0;
  for (std::size_t i = 0; i < ba.size(); ++i) mse += (ba[i] - bo[i]) * (ba[i] - bo[i]);
  mse /= double(ba.size());
  return 10 * std::log10(1 / std::max(mse, 1e-300));
}

}  // namespace pscr::halftone
