// The HDR client's device pipeline (PoCL in CI): the PSCR reconstruction
// solves the discrete Neumann Poisson equation, the right-hand side is the
// divergence of the attenuated gradients, every iterative solver converges to
// the PSCR answer, and odd inputs give errors or defined results.
#define BOOST_TEST_MODULE hdr_pipeline
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <numeric>

#include "pscr/errors.hpp"
#include "scenes.hpp"
#include "tonemap.hpp"

using namespace pscr::hdr;

namespace {

double norm(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}
std::vector<double> minus_mean(std::vector<double> v) {
  const double m = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
  for (double& x : v) x -= m;
  return v;
}
// b − A u with A = −Δ, 5-point, unit spacing, Neumann (written independently of the kernels).
std::vector<double> residual(const std::vector<double>& u, const std::vector<double>& b, int w, int h) {
  std::vector<double> r(b.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const std::size_t i = std::size_t(y) * w + x;
      double Au = 0;
      if (x > 0) Au += u[i] - u[i - 1];
      if (x + 1 < w) Au += u[i] - u[i + 1];
      if (y > 0) Au += u[i] - u[i - w];
      if (y + 1 < h) Au += u[i] - u[i + w];
      r[i] = b[i] - Au;
    }
  return r;
}
// −div(Φ∇H), forward differences, Φ averaged on faces, zero flux across the border.
std::vector<double> divergence(const std::vector<double>& H, const std::vector<double>& P, int w, int h) {
  std::vector<double> b(H.size(), 0.0);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const std::size_t i = std::size_t(y) * w + x;
      if (x + 1 < w) {  // flux through the face between i and i+1
        const double g = 0.5 * (P[i] + P[i + 1]) * (H[i + 1] - H[i]);
        b[i] -= g, b[i + 1] += g;
      }
      if (y + 1 < h) {
        const double g = 0.5 * (P[i] + P[i + w]) * (H[i + w] - H[i]);
        b[i] -= g, b[i + w] += g;
      }
    }
  return b;
}

// 8-bit sRGB code of a linear display value, computed on the host.
int srgb8(double v) {
  v = std::clamp(v, 0.0, 1.0);
  return int(std::lround(255 * (v <= 0.0031308 ? 12.92 * v : 1.055 * std::pow(v, 1 / 2.4) - 0.055)));
}

void check_reconstruction(int w, int h, const FattalParameters& fp) {
  const Image img = synthetic_scene("window", w, h);
  Pipeline pipe(w, h);
  const ToneMapped out = pipe.fattal(img, fp);
  BOOST_TEST(out.rgb8.size() == 3 * img.pixels());
  const auto f = pipe.fields();
  // b is the divergence of the attenuated gradients of H
  const auto bref = divergence(f.H, f.Phi, w, h);
  std::vector<double> d(bref.size());
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = f.b[i] - bref[i];
  BOOST_TEST(norm(d) <= 1e-13 * norm(bref) + 1e-300);
  for (double p : f.Phi) BOOST_REQUIRE(std::isfinite(p) && p > 0);
  // I solves A I = b − mean(b) to 1e-10 and has zero mean
  const auto bc = minus_mean(f.b);
  const double rel = norm(residual(f.I, bc, w, h)) / norm(bc);
  BOOST_TEST(rel <= 1e-10, w << "x" << h << ": relative residual " << rel);
  BOOST_TEST(std::fabs(std::accumulate(f.I.begin(), f.I.end(), 0.0)) <= 1e-9 * norm(f.I) + 1e-300);
}

}  // namespace

BOOST_AUTO_TEST_CASE(pscr_reconstruction_solves_the_poisson_equation) {
  check_reconstruction(160, 120, {});
  check_reconstruction(67, 45, {});
  FattalParameters strong;
  strong.alpha = 0.1;
  strong.beta = 0.8;
  check_reconstruction(96, 33, strong);
  check_reconstruction(1, 50, {});
  check_reconstruction(50, 1, {});
}

BOOST_AUTO_TEST_CASE(beta_one_reconstructs_the_log_luminance) {
  // Φ ≡ 1: b = −ΔH, so I = H − mean(H) exactly (an end-to-end check of the
  // whole chain, independent of the attenuation).
  const int w = 90, h = 70;
  Pipeline pipe(w, h);
  FattalParameters fp;
  fp.beta = 1;
  pipe.fattal(synthetic_scene("lamps", w, h), fp);
  const auto f = pipe.fields();
  for (double p : f.Phi) BOOST_REQUIRE(p == 1.0);
  const auto H0 = minus_mean(f.H);
  double err = 0, scale = 0;
  for (std::size_t i = 0; i < H0.size(); ++i) err = std::max(err, std::fabs(f.I[i] - H0[i])), scale = std::max(scale, std::fabs(H0[i]));
  BOOST_TEST(err <= 1e-10 * scale);
}

BOOST_AUTO_TEST_CASE(iterative_solvers_converge_to_the_pscr_answer) {
  for (auto [w, h] : {std::pair{72, 56}, {40, 9}}) {
    Pipeline pipe(w, h);
    pipe.fattal(synthetic_scene("window", w, h));
    const std::vector<double> b = pipe.fields().b;
    SolveReport ref;
    const auto u0 = pipe.solve_poisson(b, {}, &ref);
    BOOST_TEST(ref.relative_residual <= 1e-10);
    const double bc = norm(minus_mean(b));
    // ‖u − u*‖ ≤ ‖r‖ / λ_min on the zero-mean subspace: λ_min = 4 sin²(π / 2 max(w, h))
    const double lmin = 4 * std::pow(std::sin(M_PI / (2 * std::max(w, h))), 2);
    for (Solver s : all_solvers()) {
      if (s == Solver::pscr) continue;
      SolverControls c;
      c.solver = s;
      c.tolerance = 1e-8;
      c.max_seconds = 120;
      SolveReport rep;
      const auto u = pipe.solve_poisson(b, c, &rep);
      BOOST_TEST_CONTEXT(solver_name(s) << " " << w << "x" << h << ": " << rep.iterations << " iterations, residual "
                                        << rep.relative_residual) {
        BOOST_TEST(rep.converged);
        BOOST_TEST(rep.relative_residual <= 1e-8);
        // the reported residual is the true one
        BOOST_TEST(std::fabs(norm(residual(u, minus_mean(b), w, h)) / bc - rep.relative_residual) <= 1e-9);
        std::vector<double> e(u.size());
        for (std::size_t i = 0; i < e.size(); ++i) e[i] = u[i] - u0[i];
        BOOST_TEST(norm(e) <= rep.relative_residual * bc / lmin * 1.001 + 1e-12 * norm(u0));
      }
    }
    // multigrid needs far fewer iterations than the point smoothers
    SolverControls v;
    v.solver = Solver::multigrid_v;
    v.tolerance = 1e-8;
    SolveReport rv, rg;
    pipe.solve_poisson(b, v, &rv);
    v.solver = Solver::gauss_seidel;
    pipe.solve_poisson(b, v, &rg);
    BOOST_TEST(rv.iterations * 10 < rg.iterations);
  }
}

BOOST_AUTO_TEST_CASE(limits_of_iterative_solvers_are_reported) {
  Pipeline pipe(64, 64);
  pipe.fattal(synthetic_scene("window", 64, 64));
  const auto b = pipe.fields().b;
  SolverControls c;
  c.solver = Solver::jacobi;
  c.max_iterations = 5;
  SolveReport rep;
  pipe.solve_poisson(b, c, &rep);
  BOOST_TEST(!rep.converged);
  BOOST_TEST(rep.iterations == 5);
  BOOST_TEST(rep.relative_residual > 1e-6);
  const ToneMapped out = pipe.fattal(synthetic_scene("window", 64, 64), {}, c);
  BOOST_TEST(!out.solve.converged);
}

BOOST_AUTO_TEST_CASE(odd_pixels_and_sizes) {
  // no light at all: black, not NaN
  {
    Pipeline pipe(8, 5);
    const ToneMapped out = pipe.fattal(make_image(8, 5));
    for (auto v : out.rgb8) BOOST_REQUIRE(v == 0);
    for (auto v : pipe.reinhard(make_image(8, 5)).rgb8) BOOST_REQUIRE(v == 0);
  }
  // negative components count as 0
  {
    Image img = synthetic_scene("lamps", 30, 20), clipped = img;
    for (std::size_t i = 0; i < img.rgb.size(); i += 7) img.rgb[i] = -img.rgb[i], clipped.rgb[i] = 0;
    Pipeline pipe(30, 20);
    BOOST_TEST(pipe.fattal(img).rgb8 == pipe.fattal(clipped).rgb8);
  }
  // NaN and infinity: an error naming the pixel
  for (float bad : {NAN, INFINITY}) {
    Image img = synthetic_scene("lamps", 30, 20);
    img.pixel(7, 3)[1] = bad;
    Pipeline pipe(30, 20);
    BOOST_CHECK_EXCEPTION(pipe.fattal(img), pscr::NonFiniteInput,
                          [](const pscr::NonFiniteInput& e) { return std::string(e.what()).find("(7, 3)") != std::string::npos; });
    BOOST_CHECK_THROW(pipe.reinhard(img), pscr::NonFiniteInput);
  }
  // 1x1: a constant image maps to middle grey (0.5 -> sRGB 188)
  {
    Image one = make_image(1, 1);
    one.rgb = {2, 2, 2};
    Pipeline pipe(1, 1);
    BOOST_TEST(pipe.fattal(one).rgb8 == (std::vector<std::uint8_t>{188, 188, 188}));
    BOOST_TEST(pipe.reinhard(one).rgb8.size() == 3u);
  }
  // 1xN and Nx1 images run through every solver
  for (auto [w, h] : {std::pair{1, 37}, {37, 1}, {2, 2}}) {
    Pipeline pipe(w, h);
    for (Solver s : all_solvers()) {
      SolverControls c;
      c.solver = s;
      const ToneMapped out = pipe.fattal(synthetic_scene("window", w, h), {}, c);
      BOOST_TEST(out.solve.converged, solver_name(s) << " " << w << "x" << h);
    }
  }
}

BOOST_AUTO_TEST_CASE(reinhard_matches_the_formula) {
  const int w = 23, h = 11;
  const Image img = synthetic_scene("window", w, h);
  Pipeline pipe(w, h);
  for (double saturation : {0.9, 1.0, 0.0}) {  // 1 and 0 take their own branches in the kernel
    ReinhardParameters rp;
    rp.key = 0.3;
    rp.saturation = saturation;
    const auto out = pipe.reinhard(img, rp).rgb8;
    // the same operator on the host, in double
    std::vector<double> L(img.pixels());
    double logsum = 0, lmax = 0;
    for (std::size_t i = 0; i < L.size(); ++i) {
      const float* p = img.rgb.data() + 3 * i;
      L[i] = 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
      logsum += std::log(rp.delta + L[i]);
      lmax = std::max(lmax, L[i]);
    }
    const double scale = rp.key / std::exp(logsum / double(L.size())), white = scale * lmax;
    int worst = 0;
    for (std::size_t i = 0; i < L.size(); ++i) {
      const double Ls = scale * L[i], Ld = Ls * (1 + Ls / (white * white)) / (1 + Ls);
      for (int c = 0; c < 3; ++c) {
        const int want = srgb8(std::pow(img.rgb[3 * i + c] / L[i], rp.saturation) * Ld);
        worst = std::max(worst, std::abs(want - int(out[3 * i + c])));
      }
    }
    BOOST_TEST(worst <= 1, "saturation " << saturation << ": worst difference " << worst);
  }
}

BOOST_AUTO_TEST_CASE(errors_name_the_problem) {
  BOOST_CHECK_THROW(Pipeline(0, 5), pscr::InvalidArgument);
  BOOST_CHECK_THROW(Pipeline(1 << 17, 2), pscr::InvalidArgument);
  Pipeline pipe(10, 8);
  BOOST_CHECK_THROW(pipe.fattal(make_image(8, 10)), pscr::SizeMismatch);
  const Image img = synthetic_scene("lamps", 10, 8);
  auto bad = [&](auto edit) {
    FattalParameters p;
    edit(p);
    BOOST_CHECK_THROW(pipe.fattal(img, p), pscr::InvalidArgument);
  };
  bad([](FattalParameters& p) { p.alpha = 0; });
  bad([](FattalParameters& p) { p.beta = 1.5; });
  bad([](FattalParameters& p) { p.black_percentile = 60, p.white_percentile = 50; });
  bad([](FattalParameters& p) { p.saturation = NAN; });
  bad([](FattalParameters& p) { p.coarsest = 0; });
  bad([](FattalParameters& p) { p.noise = -1e-3; });
  bad([](FattalParameters& p) { p.detail_level = -1; });
  ReinhardParameters r;
  r.key = -1;
  BOOST_CHECK_THROW(pipe.reinhard(img, r), pscr::InvalidArgument);
  BOOST_CHECK_THROW(parse_solver("cg"), pscr::InvalidArgument);
  SolverControls c;
  c.tolerance = 0;
  BOOST_CHECK_THROW(pipe.fattal(img, {}, c), pscr::InvalidArgument);
  c = {};
  c.omega = 2.5;
  BOOST_CHECK_THROW(pipe.fattal(img, {}, c), pscr::InvalidArgument);
  BOOST_CHECK_THROW(pipe.solve_poisson(std::vector<double>(79), {}), pscr::SizeMismatch);
  std::vector<double> nan(80, 0.0);
  nan[3] = NAN;
  BOOST_CHECK_THROW(pipe.solve_poisson(nan, {}), pscr::NonFiniteInput);
  BOOST_CHECK_THROW(synthetic_scene("forest", 4, 4), pscr::InvalidArgument);
}

BOOST_AUTO_TEST_CASE(exposure_percentiles) {
  // a grey ramp over 4 decades: with black 0 % and white 100 % the darkest
  // pixel is black and the brightest white; with white 50 % half the pixels clip
  const int n = 200;
  Image img = make_image(n, 1);
  for (int x = 0; x < n; ++x) img.pixel(x, 0)[0] = img.pixel(x, 0)[1] = img.pixel(x, 0)[2] = float(std::pow(10.0, 4.0 * x / (n - 1)));
  Pipeline pipe(n, 1);
  FattalParameters fp;
  fp.black_percentile = 0;
  fp.white_percentile = 100;
  auto out = pipe.fattal(img, fp).rgb8;
  BOOST_TEST(int(out[0]) == 0);
  BOOST_TEST(int(out[3 * (n - 1)]) == 255);
  for (int x = 1; x < n; ++x) BOOST_REQUIRE(out[3 * x] >= out[3 * (x - 1)]);  // monotone
  fp.white_percentile = 50;
  out = pipe.fattal(img, fp).rgb8;
  int white = 0;
  for (int x = 0; x < n; ++x) white += out[3 * x] == 255;
  BOOST_TEST(std::abs(white - n / 2) <= 3);
}

BOOST_AUTO_TEST_CASE(frames_give_the_results_of_images) {
  // the page-locked frame is only a faster route: the same bytes as from an Image
  const int w = 45, h = 31;
  const Image img = synthetic_scene("window", w, h);
  Pipeline pipe(w, h);
  const Frame f = pipe.frame();
  BOOST_TEST(f.width == w);
  BOOST_TEST(f.height == h);
  BOOST_TEST(pipe.frame().rgb == f.rgb);  // the same memory on every call
  std::copy(img.rgb.begin(), img.rgb.end(), f.rgb);
  FattalParameters fp;
  fp.beta = 0.8;
  const std::vector<std::uint8_t> want = pipe.fattal(img, fp).rgb8;
  const ToneMapped got = pipe.fattal(f, fp);
  BOOST_TEST(got.rgb8.empty());
  BOOST_TEST(std::equal(want.begin(), want.end(), f.rgb8));
  const std::vector<std::uint8_t> want_r = pipe.reinhard(img).rgb8;
  pipe.reinhard(f);
  BOOST_TEST(std::equal(want_r.begin(), want_r.end(), f.rgb8));
  // a second image through the same frame
  const Image lamps = synthetic_scene("lamps", w, h);
  std::copy(lamps.rgb.begin(), lamps.rgb.end(), f.rgb);
  pipe.fattal(f);
  const std::vector<std::uint8_t> want_l = pipe.fattal(lamps).rgb8;
  BOOST_TEST(std::equal(want_l.begin(), want_l.end(), f.rgb8));
  // NaN in the frame names the pixel
  f.rgb[3 * (2 * w + 9)] = NAN;
  BOOST_CHECK_EXCEPTION(pipe.fattal(f), pscr::NonFiniteInput,
                        [](const pscr::NonFiniteInput& e) { return std::string(e.what()).find("(9, 2)") != std::string::npos; });
  // frames of another pipeline, or made up, are refused
  Pipeline other(w, h);
  BOOST_CHECK_THROW(other.fattal(f), pscr::InvalidArgument);
  const Frame theirs = other.frame();
  BOOST_CHECK_THROW(pipe.reinhard(theirs), pscr::InvalidArgument);
  BOOST_CHECK_THROW(pipe.fattal(Frame{}), pscr::InvalidArgument);
}

BOOST_AUTO_TEST_CASE(iterative_solver_buffers_are_allocated_by_their_first_use) {
  const int w = 64, h = 48;
  const std::size_t image = std::size_t(w) * h * sizeof(double);
  Pipeline pipe(w, h);
  const Image img = synthetic_scene("window", w, h);
  const std::size_t planned = pipe.device_bytes();
  BOOST_TEST(planned > 6 * image);  // at least the pyramid, L, Φ (2), b, I
  pipe.fattal(img);
  BOOST_TEST(pipe.device_bytes() == planned);  // PSCR needs nothing more
  SolverControls c;
  c.solver = Solver::jacobi;
  c.tolerance = 1e-3;
  pipe.fattal(img, {}, c);
  BOOST_TEST(pipe.device_bytes() == planned + 2 * image);  // residual and the second iterate
  c.solver = Solver::multigrid_v;
  pipe.fattal(img, {}, c);
  const std::size_t with_mg = pipe.device_bytes();
  BOOST_TEST(with_mg >= planned + 2 * image + 3 * image / 4);  // u, b, r on the levels below
  pipe.fattal(img, {}, c);
  c.solver = Solver::multigrid_w;
  pipe.fattal(img, {}, c);
  BOOST_TEST(pipe.device_bytes() == with_mg);  // one hierarchy for every cycle
}

BOOST_AUTO_TEST_CASE(linear_output_is_the_result_before_srgb) {
  const int w = 40, h = 30;
  const Image img = synthetic_scene("window", w, h);
  PipelineOptions po;
  po.linear_output = true;
  Pipeline pipe(w, h, po);
  for (bool fattal : {true, false}) {
    const ToneMapped out = fattal ? pipe.fattal(img) : pipe.reinhard(img);
    BOOST_REQUIRE(out.linear.width == w && out.linear.height == h && out.linear.rgb.size() == 3u * w * h);
    int worst = 0, above_white = 0;
    for (std::size_t i = 0; i < out.linear.rgb.size(); ++i) {
      const double v = out.linear.rgb[i];
      BOOST_REQUIRE(std::isfinite(v) && v >= 0);
      above_white += v > 1;
      worst = std::max(worst, std::abs(srgb8(v) - int(out.rgb8[i])));
    }
    BOOST_TEST(worst <= 1, (fattal ? "fattal" : "reinhard"));
    if (fattal) BOOST_TEST(above_white > 0);  // the white percentile (99.5 %) leaves highlights above 1, kept
  }
  // without the option nothing extra is returned
  Pipeline plain(w, h);
  BOOST_TEST(plain.fattal(img).linear.rgb.empty());
}

BOOST_AUTO_TEST_CASE(attenuation_follows_the_formula) {
  // one pyramid level (coarsest above the image): Φ = φ_0 exactly, checked
  // against the formula on the host from the returned H
  const int w = 37, h = 29;
  Pipeline pipe(w, h);
  for (double noise : {0.0, 1e-3, 0.05}) {
    FattalParameters fp;
    fp.alpha = 0.7;
    fp.beta = 0.85;
    fp.noise = noise;
    fp.coarsest = 1000;
    pipe.fattal(synthetic_scene("window", w, h), fp);
    const auto f = pipe.fields();
    std::vector<double> g(f.H.size());
    auto H = [&](int x, int y) { return f.H[std::size_t(std::clamp(y, 0, h - 1)) * w + std::clamp(x, 0, w - 1)]; };
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        g[std::size_t(y) * w + x] = std::hypot(H(x + 1, y) - H(x - 1, y), H(x, y + 1) - H(x, y - 1)) / 2;
    const double a = fp.alpha * std::accumulate(g.begin(), g.end(), 0.0) / double(g.size());
    double worst = 0;
    for (std::size_t i = 0; i < g.size(); ++i) {
      const double want = std::pow(std::max(g[i] + noise, 1e-3 * a) / a, fp.beta - 1);
      worst = std::max(worst, std::fabs(f.Phi[i] - want) / want);
    }
    BOOST_TEST(worst <= 1e-12, "noise " << noise << ": worst relative error " << worst);
  }
}

BOOST_AUTO_TEST_CASE(detail_level_keeps_the_finest_gradients) {
  // with detail level 1, Φ_0 is the bilinear upsampling of Φ_1 alone: along a
  // row, every odd pixel is the mean of its even neighbours. Level 0's own
  // factors break that.
  const int w = 64, h = 40;
  Pipeline pipe(w, h);
  auto odd_pixel_defect = [&](int detail) {
    FattalParameters fp;
    fp.detail_level = detail;
    fp.coarsest = 8;
    pipe.fattal(synthetic_scene("window", w, h), fp);
    const auto P = pipe.fields().Phi;
    double worst = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 1; x + 1 < w; x += 2) {
        const std::size_t i = std::size_t(y) * w + x;
        worst = std::max(worst, std::fabs(P[i] - 0.5 * (P[i - 1] + P[i + 1])) / P[i]);
      }
    return worst;
  };
  BOOST_TEST(odd_pixel_defect(1) <= 1e-13);
  BOOST_TEST(odd_pixel_defect(2) <= 1e-13);
  BOOST_TEST(odd_pixel_defect(0) > 1e-3);
}

// The PSCR solve in float (PipelineOptions::float_solve): the reconstruction
// I matches the double pipeline's to float accuracy relative to its range,
// and the 8-bit results differ by at most one code.
BOOST_AUTO_TEST_CASE(float_solve_matches_double) {
  const int w = 181, h = 97;
  const Image img = synthetic_scene("window", w, h);
  Pipeline dbl(w, h);
  PipelineOptions fo;
  fo.float_solve = true;
  Pipeline flt(w, h, fo);
  const ToneMapped a = dbl.fattal(img), b = flt.fattal(img);
  const auto Ia = dbl.fields().I, Ib = flt.fields().I;
  double lo = Ia[0], hi = Ia[0], diff = 0;
  for (std::size_t i = 0; i < Ia.size(); ++i) {
    lo = std::min(lo, Ia[i]);
    hi = std::max(hi, Ia[i]);
    diff = std::max(diff, std::abs(Ia[i] - Ib[i]));
  }
  BOOST_TEST(diff <= 1e-5 * (hi - lo));
  int worst = 0;
  for (std::size_t k = 0; k < a.rgb8.size(); ++k) worst = std::max(worst, std::abs(int(a.rgb8[k]) - int(b.rgb8[k])));
  BOOST_TEST(worst <= 1);
  BOOST_TEST(b.solve.converged);
}
