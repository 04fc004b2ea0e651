#include "forces.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "pscr/pscr.hpp"

namespace pscr::halftone {
namespace {

using Z = std::complex<double>;

// q (y − p)/r² · weight(r²) summed into f; r = 0 contributes nothing.
template <class W> inline void add_pair(double q, double dx, double dy, W&& weight, double& fx, double& fy) {
  const double r2 = dx * dx + dy * dy;
  if (r2 == 0) return;
  const double s = q * weight(r2) / r2;
  fx += s * dx;
  fy += s * dy;
}

// The attraction of all pixels at pixel centre (i, j), the pixel itself excluded.
Point attraction_at(const Charges& c, int i0, int j0) {
  double fx = 0, fy = 0;
  auto one = [](double) { return 1.0; };
  for (int j = 0; j < c.height; ++j)
    for (int i = 0; i < c.width; ++i) {
      const double q = c.q[std::size_t(j) * c.width + i];
      if (q != 0) add_pair(q, i - i0, j - j0, one, fx, fy);
    }
  return {fx, fy};
}

// Bilinear interpolation of a field given at the pixel centres (x, y interleaved).
template <class Sample> Point bilinear(double x, double y, int w, int h, Sample&& at) {
  const int i = std::clamp(int(std::floor(x)), 0, std::max(0, w - 2)), j = std::clamp(int(std::floor(y)), 0, std::max(0, h - 2));
  const double s = std::clamp(x - i, 0.0, 1.0), t = std::clamp(y - j, 0.0, 1.0);
  const int i1 = std::min(i + 1, w - 1), j1 = std::min(j + 1, h - 1);
  const Point a = at(i, j), b = at(i1, j), c = at(i, j1), d = at(i1, j1);
  return {(1 - t) * ((1 - s) * a.x + s * b.x) + t * ((1 - s) * c.x + s * d.x),
          (1 - t) * ((1 - s) * a.y + s * b.y) + t * ((1 - s) * c.y + s * d.y)};
}

}  // namespace

double Charges::total() const {
  double s = 0;
  for (double v : q) s += v;
  return s;
}

std::vector<Point> direct_forces(const Charges& image, const std::vector<Point>& dots) {
  std::vector<long> all(dots.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = long(i);
  return direct_forces_at(image, dots, all);
}

std::vector<Point> direct_forces_at(const Charges& image, const std::vector<Point>& dots, const std::vector<long>& which,
                                    std::vector<double>* attraction) {
  const long M = long(dots.size()), W = long(which.size());
  std::vector<Point> f(W);
  if (attraction) attraction->assign(W, 0.0);
  auto one = [](double) { return 1.0; };
#pragma omp parallel for schedule(dynamic, 4)
  for (long w = 0; w < W; ++w) {
    const long a = which[w];
    const Point p = dots[a];
    Point att = bilinear(p.x, p.y, image.width, image.height, [&](int i, int j) { return attraction_at(image, i, j); });
    if (attraction) (*attraction)[w] = std::hypot(att.x, att.y);
    double fx = att.x, fy = att.y;
    for (long b = 0; b < M; ++b)
      if (b != a) add_pair(-1.0, dots[b].x - p.x, dots[b].y - p.y, one, fx, fy);
    f[w] = {fx, fy};
  }
  return f;
}

ForceError force_error(const std::vector<Point>& f, const std::vector<Point>& ref, const std::vector<double>* scale) {
  if (f.size() != ref.size() || f.empty() || (scale && scale->size() != f.size()))
    throw std::invalid_argument("force_error: sizes differ or are zero");
  std::vector<double> e(f.size());
  for (std::size_t a = 0; a < f.size(); ++a)
    e[a] = std::hypot(f[a].x - ref[a].x, f[a].y - ref[a].y) /
           std::max(scale ? (*scale)[a] : std::hypot(ref[a].x, ref[a].y), 1e-300);
  ForceError out;
  out.max = *std::max_element(e.begin(), e.end());
  std::nth_element(e.begin(), e.begin() + e.size() / 2, e.end());
  out.median = e[e.size() / 2];
  return out;
}

// A mesh of step h over the image and its margin, with the plan of its
// Poisson equation. Node (a, b) (0-based, interior) sits at
// (x0 + (a+1) h, y0 + (b+1) h); (x0, y0) is the boundary node (−1, −1).
struct Mesh {
  double h = 0, x0 = 0, y0 = 0;
  int nx = 0, ny = 0;
  int reach = 0;  // the Gaussian's support in nodes
  std::unique_ptr<pscr::Plan<double>> plan;
  double node_x(int a) const { return x0 + (a + 1) * h; }
  double node_y(int b) const { return y0 + (b + 1) * h; }
};

namespace {
std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}
// v within [lo, hi], or std::invalid_argument "what = v is outside [lo, hi] (bounds): why".
void check_range(const std::string& what, double v, double lo, double hi, const std::string& bounds,
                 const std::string& why) {
  if (!(v >= lo && v <= hi))
    throw std::invalid_argument(what + " = " + number(v) + " is outside [" + number(lo) + ", " + number(hi) + "]" +
                                (bounds.empty() ? "" : " (" + bounds + ")") + ": " + why);
}
}  // namespace

void check_mesh_parameters(const MeshParameters& p) {
  check_range("sigma", p.sigma, kMinSigma, kMaxSigma, "",
              "narrower needs a mesh finer than the pixels for no accuracy, wider loses accuracy");
  check_range("step", p.step, kMinStepPerSigma * p.sigma, kMaxStepPerSigma * p.sigma, "sigma/8 ... sigma",
              "a coarser mesh does not resolve the Gaussians (wrong forces), a finer one gains nothing");
  const double sigma_e = p.sigma * std::sqrt(2.0);
  if (p.cutoff != 0)
    check_range("cutoff", p.cutoff, kMinCutoffPerSigmaE * sigma_e, kMaxCutoffPerSigmaE * sigma_e,
                "3 ... 12 sigma sqrt(2)", "a closer cut drops the near field, beyond it nothing is left to add");
  if (p.margin != 0)
    check_range("margin", p.margin, kMinMarginPerSigma * p.sigma, INFINITY, "6.5 sigma or more",
                "the Gaussians of charges at the border must stay on the mesh");
  check_range("multipole_order", p.multipole_order, 0, kMaxMultipoleOrder, "",
              "more terms change no boundary value in double precision");
}

MeshGeometry mesh_geometry(int width, int height, const MeshParameters& p, bool fine) {
  if (width < 2 || height < 2) throw std::invalid_argument("the image must be at least 2 x 2 pixels");
  check_mesh_parameters(p);
  const double sigma_e = p.sigma * std::sqrt(2.0);
  const double margin = p.margin > 0 ? p.margin : 0.25 * std::max(width, height) + 6 * p.sigma;
  // the attraction's mesh, step h/2, is the larger: checked before either is built
  const double fine_h = p.step / 2;
  const double fine_nodes =
      (std::ceil((width + 2 * margin) / fine_h) - 1) * (std::ceil((height + 2 * margin) / fine_h) - 1);
  if (!(fine_nodes <= kMaxMeshNodes))
    throw std::invalid_argument("the attraction's mesh (step/2 = " + number(fine_h) + " px over the " +
                                std::to_string(width) + " x " + std::to_string(height) + " image and margins of " +
                                number(margin) + " px) would have " + number(fine_nodes) +
                                " nodes, more than 2^29 (4 GiB per array of doubles): raise step");
  MeshGeometry g;
  g.h = fine ? fine_h : p.step;
  g.sigma = p.sigma;
  g.cutoff = p.cutoff > 0 ? p.cutoff : 6.0 * sigma_e;
  if (fine) g.cutoff = std::max(g.cutoff, 6.0 * sigma_e);
  g.reach = int(std::ceil((fine ? 6.5 : 6.0) * p.sigma / g.h)) + 1;
  g.x0 = -0.5 - margin;
  g.y0 = -0.5 - margin;
  g.nx = int(std::ceil((width + 2 * margin) / g.h)) - 1;
  g.ny = int(std::ceil((height + 2 * margin) / g.h)) - 1;
  g.cx = 0.5 * (width - 1);
  g.cy = 0.5 * (height - 1);
  g.radius = 0.5 * std::hypot(width, height) + 1;
  return g;
}

std::vector<double> multipole_moments(const std::vector<Point>& at, const std::vector<double>& q,
                                      const MeshGeometry& g, int order) {
  std::vector<Z> mom(order + 1, Z(0));
  const Z centre(g.cx, g.cy);
  for (std::size_t j = 0; j < at.size(); ++j) {
    const Z w = (Z(at[j].x, at[j].y) - centre) / g.radius;
    Z pw = 1;
    for (auto& m : mom) {
      m += q[j] * pw;
      pw *= w;
    }
  }
  std::vector<double> out;
  for (const Z& m : mom) {
    out.push_back(m.real());
    out.push_back(m.imag());
  }
  return out;
}

// The plan of the compact scheme on a mesh: A = −D²/h², M = I + h² D²/12 per axis.
std::unique_ptr<pscr::Plan<double>> compact_plan(const MeshGeometry& g, const pscr::Options& o) {
  auto factor = [&](int n) {
    pscr::Factor<double> f;
    f.A.diag.assign(n, 2 / (g.h * g.h));
    f.A.off.assign(n - 1, -1 / (g.h * g.h));
    f.M.diag.assign(n, 10.0 / 12);
    f.M.off.assign(n - 1, 1.0 / 12);
    return f;
  };
  return std::make_unique<pscr::Plan<double>>(pscr::Problem<double>::make2d(factor(g.ny), factor(g.nx), 0.0), o);
}

struct ParticleMesh::Impl {
  const Charges& image;
  MeshParameters p;
  double sigma_e = 0, cutoff = 0, margin = 0;
  Mesh mesh;  // of the dots' repulsion (the attraction's, twice as fine, lives during set-up only)
  MeshGeometry geo;                                        // of the repulsion's mesh (also the expansion's centre)
  std::vector<double> attraction;                          // A at the pixel centres
  mutable double t_spread = 0, t_rhs = 0, t_solve = 0, t_near = 0;

  Impl(const Charges& img, const MeshParameters& params) : image(img), p(params) {
    geo = mesh_geometry(img.width, img.height, p, false);
    sigma_e = p.sigma * std::sqrt(2.0);
    cutoff = geo.cutoff;
    margin = -0.5 - geo.x0;
    p.cutoff = cutoff;
    p.margin = margin;
    mesh = make_mesh(false);
    // The attraction at every pixel centre, once, on a mesh twice as fine
    // (its error enters every iteration): the pixels as charges, their
    // centres as probes.
    const Mesh fine = make_mesh(true);
    std::vector<Point> centres, sources;
    std::vector<double> q;
    for (int j = 0; j < img.height; ++j)
      for (int i = 0; i < img.width; ++i) {
        centres.push_back({double(i), double(j)});
        const double v = img.q[std::size_t(j) * img.width + i];
        if (v != 0) {
          sources.push_back({double(i), double(j)});
          q.push_back(v);
        }
      }
    const std::vector<Point> a = field(fine, sources, q, centres, /*pixels*/ true, mesh_geometry(img.width, img.height, p, true).cutoff);
    attraction.resize(2 * a.size());
    for (std::size_t k = 0; k < a.size(); ++k) {
      attraction[2 * k] = a[k].x;
      attraction[2 * k + 1] = a[k].y;
    }
    reset();
  }
  void reset() { t_spread = t_rhs = t_solve = t_near = 0; }

  Mesh make_mesh(bool fine) const {
    const MeshGeometry g = mesh_geometry(image.width, image.height, p, fine);
    Mesh m;
    m.h = g.h;
    m.reach = g.reach;
    m.x0 = g.x0;
    m.y0 = g.y0;
    m.nx = g.nx;
    m.ny = g.ny;
    pscr::Options o;
    o.threads = p.threads;
    m.plan = compact_plan(g, o);
    return m;
  }

  // Adds q·G_σ(node − (x, y)) to the density.
  void spread(const Mesh& m, double x, double y, double q, std::vector<double>& rho) const {
    const double h = m.h, x0 = m.x0, y0 = m.y0;
    const int nx = m.nx, ny = m.ny, reach = m.reach;
    auto node_x = [&](int a) { return m.node_x(a); };
    auto node_y = [&](int b) { return m.node_y(b); };
    const int ca = int(std::lround((x - x0) / h)) - 1, cb = int(std::lround((y - y0) / h)) - 1;
    const double inv = 1 / (2 * p.sigma * p.sigma), norm = q / (2 * M_PI * p.sigma * p.sigma);
    for (int b = std::max(0, cb - reach); b <= std::min(ny - 1, cb + reach); ++b) {
      const double dy = node_y(b) - y, wy = std::exp(-dy * dy * inv);
      double* row = rho.data() + std::size_t(b) * nx;
      for (int a = std::max(0, ca - reach); a <= std::min(nx - 1, ca + reach); ++a) {
        const double dx = node_x(a) - x;
        row[a] += norm * wy * std::exp(-dx * dx * inv);
      }
    }
  }

  // Free-space potential Σ q log|z − z_j| from the moments (z outside the charges).
  double far_potential(Z z, const std::vector<double>& mom) const {
    const Z centre(geo.cx, geo.cy), u = (z - centre) / geo.radius;
    double phi = mom[0] * std::log(std::abs(z - centre));
    Z inv = 1.0 / u, pw = inv;
    for (std::size_t k = 1; 2 * k < mom.size(); ++k) {
      phi -= (Z(mom[2 * k], mom[2 * k + 1]) * pw).real() / double(k);
      pw *= inv;
    }
    return phi;
  }

  // The force Σ_j q_j (y_j − p)/|y_j − p|² at each probe p, a source at the
  // probe's own position excluded: `pixels` says the sources are the image's
  // pixel centres (near field from the image), else they are the dots
  // themselves (near field from a cell list; probe k is source k).
  std::vector<Point> field(const Mesh& m, const std::vector<Point>& src, const std::vector<double>& q,
                           const std::vector<Point>& probes, bool pixels, double cutoff) const {
    const double h = m.h, x0 = m.x0, y0 = m.y0;
    const int nx = m.nx, ny = m.ny, reach = m.reach;
    auto node_x = [&](int a) { return m.node_x(a); };
    auto node_y = [&](int b) { return m.node_y(b); };
    using clk = std::chrono::steady_clock;
    auto lap = [](clk::time_point& t) {
      const auto now = clk::now();
      const double s = std::chrono::duration<double>(now - t).count();
      t = now;
      return s;
    };
    auto clock = clk::now();
    const std::size_t N = std::size_t(nx) * ny;
    std::vector<double> rho(N, 0.0);
    for (std::size_t j = 0; j < src.size(); ++j) {
      const Point& d = src[j];
      if (!(d.x >= -0.5 && d.x <= image.width - 0.5 && d.y >= -0.5 && d.y <= image.height - 0.5))
        throw std::invalid_argument("particle mesh: a charge lies outside the image");
      spread(m, d.x, d.y, q[j], rho);
    }
    const std::vector<double> mom = multipole_moments(src, q, geo, p.multipole_order);
    t_spread += lap(clock);
    // rhs = −2π (M⊗M) ρ + the boundary values' couplings.
    std::vector<double> t(N), rhs(N);
    for (int b = 0; b < ny; ++b)
      for (int a = 0; a < nx; ++a) {
        const std::size_t i = std::size_t(b) * nx + a;
        t[i] = (10 * rho[i] + (a > 0 ? rho[i - 1] : 0) + (a + 1 < nx ? rho[i + 1] : 0)) / 12;
      }
    for (int b = 0; b < ny; ++b)
      for (int a = 0; a < nx; ++a) {
        const std::size_t i = std::size_t(b) * nx + a;
        rhs[i] = -2 * M_PI * (10 * t[i] + (b > 0 ? t[i - nx] : 0) + (b + 1 < ny ? t[i + nx] : 0)) / 12;
      }
    const double edge = 4 / (6 * h * h), corner = 1 / (6 * h * h);
    // multipole_order 0: zero boundary values (no free-space correction; for comparison)
    auto boundary = [&](int a, int b) {
      return p.multipole_order > 0 ? far_potential(Z(node_x(a), node_y(b)), mom) : 0.0;
    };
    for (int b = 0; b < ny; ++b)
      for (int a = 0; a < nx; ++a) {
        if (a > 0 && a + 1 < nx && b > 0 && b + 1 < ny) continue;
        double add = 0;
        for (int db = -1; db <= 1; ++db)
          for (int da = -1; da <= 1; ++da) {
            if (da == 0 && db == 0) continue;
            const int aa = a + da, bb = b + db;
            if (aa >= 0 && aa < nx && bb >= 0 && bb < ny) continue;
            add += (da == 0 || db == 0 ? edge : corner) * boundary(aa, bb);
          }
        rhs[std::size_t(b) * nx + a] += add;
      }
    std::vector<double> phi(N);
    t_rhs += lap(clock);
    m.plan->solve(rhs.data(), phi.data());
    t_solve += lap(clock);

    // Mesh force (Σ_g Φ_g ∇G_σ) plus the near field.
    const long P = long(probes.size());
    std::vector<Point> f(P);
    // cell list of the dots (sources that are dots)
    const double cell = cutoff;
    const int cw = std::max(1, int(std::ceil((image.width + 1) / cell)));
    const int chh = std::max(1, int(std::ceil((image.height + 1) / cell)));
    auto cell_of = [&](double v, int n) { return std::clamp(int(std::floor((v + 0.5) / cell)), 0, n - 1); };
    std::vector<int> head(std::size_t(cw) * chh, -1), next(src.size(), -1);
    if (!pixels)
      for (std::size_t a = 0; a < src.size(); ++a) {
        int& hd = head[std::size_t(cell_of(src[a].y, chh)) * cw + cell_of(src[a].x, cw)];
        next[a] = hd;
        hd = int(a);
      }
    const double inv_s2 = 1 / (p.sigma * p.sigma), inv2 = 1 / (2 * p.sigma * p.sigma);
    const double inv2e = 1 / (2 * sigma_e * sigma_e), rc2 = cutoff * cutoff;
    auto near = [&](double r2) { return r2 < rc2 ? std::exp(-r2 * inv2e) : 0.0; };
    const double scale = h * h * inv_s2 / (2 * M_PI * p.sigma * p.sigma);
#pragma omp parallel for schedule(dynamic, 64)
    for (long k = 0; k < P; ++k) {
      const Point d = probes[k];
      double fx = 0, fy = 0;
      const int ca = int(std::lround((d.x - x0) / h)) - 1, cb = int(std::lround((d.y - y0) / h)) - 1;
      for (int b = std::max(0, cb - reach); b <= std::min(ny - 1, cb + reach); ++b) {
        const double dy = d.y - node_y(b), wy = std::exp(-dy * dy * inv2);
        const double* row = phi.data() + std::size_t(b) * nx;
        for (int g = std::max(0, ca - reach); g <= std::min(nx - 1, ca + reach); ++g) {
          const double dx = d.x - node_x(g), w = row[g] * wy * std::exp(-dx * dx * inv2);
          fx += w * dx;
          fy += w * dy;
        }
      }
      fx *= scale;
      fy *= scale;
      if (pixels) {
        const int i0 = std::max(0, int(std::ceil(d.x - cutoff))), i1 = std::min(image.width - 1, int(std::floor(d.x + cutoff)));
        const int j0 = std::max(0, int(std::ceil(d.y - cutoff))), j1 = std::min(image.height - 1, int(std::floor(d.y + cutoff)));
        for (int j = j0; j <= j1; ++j)
          for (int i = i0; i <= i1; ++i) {
            const double qq = image.q[std::size_t(j) * image.width + i];
            if (qq != 0) add_pair(qq, i - d.x, j - d.y, near, fx, fy);
          }
      } else {
        const int cx = cell_of(d.x, cw), cy = cell_of(d.y, chh);
        for (int yy = std::max(0, cy - 1); yy <= std::min(chh - 1, cy + 1); ++yy)
          for (int xx = std::max(0, cx - 1); xx <= std::min(cw - 1, cx + 1); ++xx)
            for (int b = head[std::size_t(yy) * cw + xx]; b >= 0; b = next[b])
              if (b != k) add_pair(q[b], src[b].x - d.x, src[b].y - d.y, near, fx, fy);
      }
      f[k] = {fx, fy};
    }
    t_near += lap(clock);
    return f;
  }

  std::vector<Point> forces(const std::vector<Point>& dots) const {
    const std::vector<double> minus(dots.size(), -1.0);
    std::vector<Point> f = field(mesh, dots, minus, dots, false, cutoff);
    const int w = image.width, hh = image.height;
    for (std::size_t k = 0; k < dots.size(); ++k) {
      const Point a = bilinear(dots[k].x, dots[k].y, w, hh, [&](int i, int j) {
        const std::size_t at = 2 * (std::size_t(j) * w + i);
        return Point{attraction[at], attraction[at + 1]};
      });
      f[k].x += a.x;
      f[k].y += a.y;
    }
    return f;
  }
};

ParticleMesh::ParticleMesh(const Charges& image, const MeshParameters& p) : impl_(std::make_unique<Impl>(image, p)) {}
ParticleMesh::~ParticleMesh() = default;
std::vector<Point> ParticleMesh::forces(const std::vector<Point>& dots) const { return impl_->forces(dots); }
const std::vector<double>& ParticleMesh::attraction() const { return impl_->attraction; }
MeshGeometry ParticleMesh::geometry() const { return impl_->geo; }
int ParticleMesh::mesh_width() const { return impl_->mesh.nx; }
int ParticleMesh::mesh_height() const { return impl_->mesh.ny; }
const MeshParameters& ParticleMesh::parameters() const { return impl_->p; }
std::vector<std::pair<std::string, double>> ParticleMesh::stage_times() const {
  return {{"charges to mesh", impl_->t_spread},
          {"right-hand side, boundary", impl_->t_rhs},
          {"Poisson solve (libpscr)", impl_->t_solve},
          {"mesh force + near field", impl_->t_near}};
}
void ParticleMesh::reset_times() { impl_->reset(); }

}  // namespace pscr::halftone
