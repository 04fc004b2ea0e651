// The electrostatic halftoning client (examples/halftone): fast forces
// against direct summation of (1) on both engines, the free-space boundary
// values, the dot density of a flat grey image, determinism, bad input.
#define BOOST_TEST_MODULE halftone
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "device_forces.hpp"
#include "halftone.hpp"

using namespace pscr::halftone;

namespace {

GreyImage ramp(int w, int h) {
  GreyImage g;
  g.width = w;
  g.height = h;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double v = 0.15 + 0.75 * x / (w - 1);
      if ((x - w / 2) * (x - w / 2) + (y - h / 2) * (y - h / 2) < (w / 5) * (w / 5)) v = 0.2;
      g.v.push_back(v);
    }
  return g;
}

std::vector<Point> random_dots(int w, int h, long n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> ux(0, w - 1), uy(0, h - 1);
  std::vector<Point> d(n);
  for (auto& p : d) p = {ux(g), uy(g)};
  return d;
}

}  // namespace

// Random dots (not in equilibrium) and the process's starting dots, host and device.
BOOST_AUTO_TEST_CASE(fast_forces_against_direct_summation) {
  const GreyImage img = ramp(56, 44);
  const long M = default_dots(img);
  const Charges c = charges_for(img, M);
  const auto engines = {std::string("host"), std::string("device")};
  for (const auto& which : engines) {
    auto engine = which == "host" ? host_engine(c, {}) : device_engine(c, {}, "");
    for (int set = 0; set < 2; ++set) {
      const auto dots = set == 0 ? random_dots(img.width, img.height, M, 5) : initial_dots(img, M, 3);
      const ForceError e = force_error(engine->forces(dots), direct_forces(c, dots));
      BOOST_TEST_CONTEXT(which << (set == 0 ? " random dots" : " initial dots")) {
        BOOST_TEST(e.median <= 1e-3);
        BOOST_TEST(e.max <= 5e-2);
      }
      BOOST_TEST_MESSAGE(which << (set == 0 ? " random" : " initial") << ": median " << e.median << " max " << e.max);
    }
  }
}

// The free-space boundary values matter: with zero boundary values (a
// grounded box) the same mesh is far off.
BOOST_AUTO_TEST_CASE(boundary_values_from_the_multipole_expansion) {
  const GreyImage img = ramp(40, 40);
  const Charges c = charges_for(img, 500);  // fewer dots than ink: a net charge
  const auto dots = random_dots(40, 40, 500, 9);
  const auto ref = direct_forces(c, dots);
  MeshParameters with, without;
  without.multipole_order = 0;
  const double e_with = force_error(ParticleMesh(c, with).forces(dots), ref).median;
  const double e_without = force_error(ParticleMesh(c, without).forces(dots), ref).median;
  BOOST_TEST_MESSAGE("median error: multipole " << e_with << ", zero boundary " << e_without);
  BOOST_TEST(e_with <= 1e-3);
  BOOST_TEST(e_without >= 10 * e_with);
}

// A flat grey image: after the process the dot density, blurred by a
// Gaussian of 2 px (the eye's view of a halftone), is the grey level's
// darkness within a few percent at every pixel away from the border.
BOOST_AUTO_TEST_CASE(flat_grey_gives_the_grey_density) {
  GreyImage img;
  img.width = img.height = 64;
  img.v.assign(64 * 64, 0.6);
  Settings s;
  s.iterations = 60;
  const Result r = halftone(img, s);
  BOOST_TEST(r.dots.size() == std::size_t(std::lround(0.4 * 64 * 64)));
  const double sigma = 2.0;
  double worst = 0;
  for (int y = 10; y < 54; ++y)
    for (int x = 10; x < 54; ++x) {
      double d = 0;
      for (const Point& p : r.dots) {
        const double r2 = (p.x - x) * (p.x - x) + (p.y - y) * (p.y - y);
        if (r2 < 100) d += std::exp(-r2 / (2 * sigma * sigma)) / (2 * M_PI * sigma * sigma);
      }
      worst = std::max(worst, std::abs(d - 0.4) / 0.4);
    }
  BOOST_TEST_MESSAGE("largest relative deviation of the blurred dot density: " << worst);
  BOOST_TEST(worst <= 0.05);
}

BOOST_AUTO_TEST_CASE(deterministic_for_a_fixed_seed) {
  const GreyImage img = ramp(40, 32);
  Settings s;
  s.iterations = 25;
  const Charges c = charges_for(img, default_dots(img));
  for (const std::string which : {"host", "device"}) {
    auto e1 = which == "host" ? host_engine(c, {}) : device_engine(c, {}, "");
    auto e2 = which == "host" ? host_engine(c, {}) : device_engine(c, {}, "");
    const Result a = halftone(img, s, *e1), b = halftone(img, s, *e2);
    bool same = a.dots.size() == b.dots.size();
    for (std::size_t i = 0; same && i < a.dots.size(); ++i) same = a.dots[i].x == b.dots[i].x && a.dots[i].y == b.dots[i].y;
    BOOST_TEST_CONTEXT(which) { BOOST_TEST(same); }
    Settings other = s;
    other.seed = 2;
    const Result d = halftone(img, other, *e1);
    BOOST_TEST_CONTEXT(which) { BOOST_TEST(d.dots[0].x != a.dots[0].x); }
  }
}

// Device and host engines compute the same forces to rounding, measured
// against the largest attraction (the net force near equilibrium is a
// small remainder of forces of that size; the device sums the mesh density
// in fixed point, 2^-40).
BOOST_AUTO_TEST_CASE(device_engine_matches_host) {
  const GreyImage img = ramp(48, 40);
  const Charges c = charges_for(img, default_dots(img));
  const auto dots = initial_dots(img, default_dots(img), 4);
  auto host = host_engine(c, {});
  auto dev = device_engine(c, {}, "");
  std::vector<long> all(dots.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = long(i);
  std::vector<double> scale;
  direct_forces_at(c, dots, all, &scale);
  scale.assign(scale.size(), *std::max_element(scale.begin(), scale.end()));
  const ForceError e = force_error(dev->forces(dots), host->forces(dots), &scale);
  BOOST_TEST_MESSAGE("device against host, relative to max |A|: max " << e.max);
  BOOST_TEST(e.max <= 1e-10);
}

// A black image with one dot per pixel, dark up to its border: the dots stay
// apart (reflected at the border, never piled onto it or onto a corner), on
// both engines.
BOOST_AUTO_TEST_CASE(dark_border_keeps_dots_apart) {
  GreyImage img;
  img.width = 30;
  img.height = 26;
  img.v.assign(30 * 26, 0.0);
  Settings s;
  s.iterations = 40;
  const Charges c = charges_for(img, default_dots(img));
  for (const std::string which : {"host", "device"}) {
    auto engine = which == "host" ? host_engine(c, {}) : device_engine(c, {}, "");
    const Result r = halftone(img, s, *engine);
    double closest = 1e9;
    int on_border = 0;
    for (std::size_t a = 0; a < r.dots.size(); ++a) {
      const Point& p = r.dots[a];
      on_border += p.x == 0 || p.y == 0 || p.x == img.width - 1 || p.y == img.height - 1;
      for (std::size_t b = a + 1; b < r.dots.size(); ++b)
        closest = std::min(closest, std::hypot(p.x - r.dots[b].x, p.y - r.dots[b].y));
    }
    BOOST_TEST_CONTEXT(which) {
      BOOST_TEST(closest >= 0.3);
      BOOST_TEST(on_border <= 2);
    }
  }
}

// Dots crowded far beyond the density of a black image (300 within 1.5 px;
// the device's near-field cells once held 128 and refused more): the device
// engine computes the host's forces, to rounding.
BOOST_AUTO_TEST_CASE(device_engine_takes_crowded_cells) {
  const GreyImage img = ramp(40, 32);
  const Charges c = charges_for(img, 300);
  std::mt19937 g(13);
  std::uniform_real_distribution<double> u(0, 1.5);
  std::vector<Point> dots(300);
  for (auto& p : dots) p = {20 + u(g), 16 + u(g)};
  const auto host = host_engine(c, {})->forces(dots);
  const ForceError e = force_error(device_engine(c, {}, "")->forces(dots), host);
  BOOST_TEST_MESSAGE("crowded cells, device against host: max " << e.max);
  BOOST_TEST(e.max <= 1e-10);
}

// A time step that throws every dot across the image (--tau 1e10): the
// reflection piles them up (here all at one point, far beyond any fixed
// cell capacity), on the device as on the host.
BOOST_AUTO_TEST_CASE(long_steps_pile_dots_alike_on_both_engines) {
  const GreyImage img = ramp(40, 32);
  Settings s;
  s.tau = 1e10;
  s.iterations = 3;
  const Charges c = charges_for(img, default_dots(img));
  auto host = host_engine(c, {});
  auto dev = device_engine(c, {}, "");
  const Result a = halftone(img, s, *host), b = halftone(img, s, *dev);
  BOOST_REQUIRE(a.dots.size() == b.dots.size());
  double worst = 0;
  for (std::size_t i = 0; i < a.dots.size(); ++i)
    worst = std::max({worst, std::abs(a.dots[i].x - b.dots[i].x), std::abs(a.dots[i].y - b.dots[i].y)});
  BOOST_TEST_MESSAGE(a.dots.size() << " dots, largest difference of the device's from the host's: " << worst);
  BOOST_TEST(worst <= 1e-9);
}

// Mesh parameters out of their bounds are refused naming the value, before
// any mesh is built: a step longer than the mesh (no interior node), one far
// finer than the Gaussians (a mesh without bound), a mesh past 2^29 nodes.
BOOST_AUTO_TEST_CASE(mesh_parameters_are_checked) {
  auto refused = [](const MeshParameters& p, int w, int h, const std::string& names) {
    try {
      mesh_geometry(w, h, p, false);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what()).find(names) != std::string::npos;
    }
    return false;
  };
  MeshParameters p;
  BOOST_TEST(!refused(p, 40, 32, ""));
  p.step = 100;
  BOOST_TEST(refused(p, 40, 32, "step = 100"));
  p.step = 0.01;
  BOOST_TEST(refused(p, 40, 32, "step = 0.01"));
  p = {};
  p.step = p.sigma;  // the bounds themselves are allowed
  BOOST_TEST(!refused(p, 40, 32, ""));
  p.step = p.sigma / 8;
  BOOST_TEST(!refused(p, 40, 32, ""));
  for (const double sigma : {0.0, -1.0, 0.25, 17.0, std::nan("")}) {
    p = {};
    p.sigma = sigma;
    BOOST_TEST_CONTEXT("sigma " << sigma) { BOOST_TEST(refused(p, 40, 32, "sigma = ")); }
  }
  p = {};
  p.cutoff = -1;
  BOOST_TEST(refused(p, 40, 32, "cutoff = -1"));
  p = {};
  p.margin = 1;
  BOOST_TEST(refused(p, 40, 32, "margin = 1"));
  p = {};
  p.multipole_order = 1000;
  BOOST_TEST(refused(p, 40, 32, "multipole_order = 1000"));
  BOOST_TEST(refused(MeshParameters{}, 20000, 20000, "more than 2^29"));
  MeshParameters far;
  far.step = 100;
  BOOST_CHECK_THROW(host_engine(charges_for(ramp(40, 32), 100), far), std::invalid_argument);
  BOOST_CHECK_THROW(device_engine(charges_for(ramp(40, 32), 100), far, ""), std::invalid_argument);
}

// The device's direct summation is the host's, to rounding.
BOOST_AUTO_TEST_CASE(direct_summation_on_the_device) {
  const GreyImage img = ramp(36, 30);
  const Charges c = charges_for(img, default_dots(img));
  const auto dots = random_dots(36, 30, default_dots(img), 11);
  const ForceError e = force_error(direct_device_engine(c, "")->forces(dots), direct_forces(c, dots));
  BOOST_TEST(e.max <= 1e-12);
}

BOOST_AUTO_TEST_CASE(bad_input) {
  GreyImage img;
  img.width = img.height = 8;
  img.v.assign(64, 0.5);
  BOOST_CHECK_THROW(charges_for(img, 0), std::invalid_argument);
  BOOST_CHECK_THROW(charges_for(img, 65), std::invalid_argument);
  GreyImage white = img;
  white.v.assign(64, 1.0);
  BOOST_TEST(default_dots(white) == 0);
  BOOST_CHECK_THROW(charges_for(white, 3), std::invalid_argument);
  Settings s;
  s.tau = 0;
  BOOST_CHECK_THROW(halftone(img, s), std::invalid_argument);
  GreyImage tiny;
  tiny.width = tiny.height = 1;
  tiny.v = {0.0};
  BOOST_CHECK_THROW(halftone(tiny, Settings{}), std::invalid_argument);
}

// Floyd–Steinberg conserves the ink; the blurred PSNR sees a flat image as flat.
BOOST_AUTO_TEST_CASE(comparison_tools) {
  const GreyImage img = ramp(64, 48);
  const auto fs = floyd_steinberg(img);
  double ink_fs = 0, ink = 0;
  for (auto v : fs) ink_fs += 1 - v / 255.0;
  for (double v : img.v) ink += 1 - v;
  BOOST_TEST(std::abs(ink_fs - ink) / ink <= 0.01);
  std::vector<std::uint8_t> same(img.v.size());
  for (std::size_t i = 0; i < same.size(); ++i) same[i] = std::uint8_t(std::lround(img.v[i] * 255));
  BOOST_TEST(blurred_psnr(same, img, 1.5) >= 50.0);
  BOOST_TEST(blurred_psnr(fs, img, 1.5) <= blurred_psnr(same, img, 1.5));
}
