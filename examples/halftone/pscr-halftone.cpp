// pscr-halftone: electrostatic halftoning of a PNG image (docs/halftone.md):
// dots repel each other and are drawn to the image darkness; the far field of
// their forces by a particle mesh whose Poisson equation libpscr solves.
#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <cstdio>
#include <random>
#include <string>

#include "../common/cli.hpp"
#include "device_forces.hpp"
#include "halftone.hpp"
#include "image.hpp"
#include "pscr/errors.hpp"

namespace {

const char* kTool = "pscr-halftone";

void help() {
  std::printf(
      "usage: pscr-halftone [options] INPUT.png OUTPUT.png\n"
      "  INPUT.png             grey or colour PNG (converted to grey: Rec. 709 luma)\n"
      "  OUTPUT.png            the dots as black discs on white, same size\n"
      "  --dots N              number of dots (default: the image's ink, round(sum(1 - grey)))\n"
      "  --iterations K        update steps p <- p + tau F (200)\n"
      "  --tau T               time step (0.1)\n"
      "  --shake-every K       shake the dots every K iterations during the first 80%% (10; 0: never)\n"
      "  --shake A             shaking amplitude in pixels, decreasing linearly (0.5)\n"
      "  --seed S              initial dots and shaking (1)\n"
      "  --points FILE         also write the dot coordinates, one 'x y' per line, in pixels: x the\n"
      "                        column, y the row from the top; pixel (row i, column j) has its centre\n"
      "                        at x = j, y = i and covers [j - 1/2, j + 1/2] x [i - 1/2, i + 1/2]\n"
      "  --host                forces on the host (default: on the OpenCL device)\n"
      "  --direct              forces by direct summation of (1) on the device (O(dots^2) per\n"
      "                        iteration: the timing comparison)\n"
      "  --device SEL          OpenCL device (index P:D or name part; default: GPU, else PoCL)\n"
      "  --step H --sigma S    mesh step and Gaussian split width in pixels (0.75, 1.5); sigma in\n"
      "                        [0.5, 16] (narrower needs a mesh finer than the pixels for no accuracy,\n"
      "                        wider loses accuracy), step in [sigma/8, sigma] (coarser does not resolve\n"
      "                        the Gaussians: wrong forces; finer gains nothing), and the attraction's\n"
      "                        mesh, step/2 over the image and its margins, at most 2^29 nodes (4 GiB\n"
      "                        per array)\n"
      "  --check-forces N      median/max relative error of the fast forces against direct\n"
      "                        summation on N random dots, at the start and at the end\n"
      "  --compare FILE        also write Floyd-Steinberg error diffusion of the input and print\n"
      "                        both PSNRs after a Gaussian blur of 1.5 px against the input\n"
      "  --bench               print milliseconds per iteration split into stages\n");
}

// Force error on up to n dots (a random subset), against direct summation:
// relative to the net force, and relative to the attraction |A| (near
// equilibrium the net force is a small remainder of forces of that size).
std::pair<pscr::halftone::ForceError, pscr::halftone::ForceError> check_forces(
    const pscr::halftone::Charges& c, pscr::halftone::ForceEngine& engine,
    const std::vector<pscr::halftone::Point>& dots, long n) {
  using namespace pscr::halftone;
  const std::vector<Point> fast = engine.forces(dots);
  std::vector<long> pick(dots.size());
  for (std::size_t i = 0; i < pick.size(); ++i) pick[i] = long(i);
  std::mt19937_64 g(7);
  std::shuffle(pick.begin(), pick.end(), g);
  pick.resize(std::min<std::size_t>(pick.size(), std::size_t(n)));
  std::vector<double> scale;
  const std::vector<Point> ref = direct_forces_at(c, dots, pick, &scale);
  std::vector<Point> sub;
  for (long i : pick) sub.push_back(fast[i]);
  return {force_error(sub, ref), force_error(sub, ref, &scale)};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace pscr::halftone;
  std::string input, output, points, compare;
  Settings s;
  s.device = true;
  long check = 0;
  bool bench = false, direct = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) pscr::cli::usage(kTool, a + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") { help(); return 0; }
    else if (a == "--dots") s.dots = pscr::cli::integer(kTool, a, val(), 1, 1L << 40);
    else if (a == "--iterations") s.iterations = int(pscr::cli::integer(kTool, a, val(), 0, 1000000));
    else if (a == "--tau") s.tau = pscr::cli::number(kTool, a, val());
    else if (a == "--shake-every") s.shake_every = int(pscr::cli::integer(kTool, a, val(), 0, 1000000));
    else if (a == "--shake") s.shake = pscr::cli::number(kTool, a, val());
    else if (a == "--seed") s.seed = std::uint64_t(pscr::cli::integer(kTool, a, val(), 0, 1L << 50));
    else if (a == "--points") points = val();
    else if (a == "--host") s.device = false;
    else if (a == "--direct") direct = true;
    else if (a == "--device") s.opencl_device = val();
    else if (a == "--step") s.mesh.step = pscr::cli::number(kTool, a, val());
    else if (a == "--sigma") s.mesh.sigma = pscr::cli::number(kTool, a, val());
    else if (a == "--check-forces") check = pscr::cli::integer(kTool, a, val(), 1, 1L << 40);
    else if (a == "--compare") compare = val();
    else if (a == "--bench") bench = true;
    else if (a.rfind("--", 0) == 0) pscr::cli::usage(kTool, "unknown option " + a);
    else if (input.empty()) input = a;
    else if (output.empty()) output = a;
    else pscr::cli::usage(kTool, "unexpected argument '" + a + "'");
  }
  if (input.empty() || output.empty()) pscr::cli::usage(kTool, "needs INPUT.png and OUTPUT.png");
  if (!(s.tau > 0)) pscr::cli::usage(kTool, "--tau must be > 0");
  if (!(s.shake >= 0)) pscr::cli::usage(kTool, "--shake must be >= 0");
  try {
    check_mesh_parameters(s.mesh);  // the mesh's size, which needs the image, is checked with it
  } catch (const std::invalid_argument& e) {
    pscr::cli::usage(kTool, std::string("--step/--sigma: ") + e.what());
  }
  try {
    int w = 0, h = 0;
    const auto rgb = pscr::image::read_png(input, w, h);
    const GreyImage img = grey_from_rgb8(rgb, w, h);
    const long dots = s.dots < 0 ? default_dots(img) : s.dots;
    if (dots == 0 && s.dots < 0) {
      // An all-white image holds no ink: the result is white, with no dots.
      pscr::image::write_png(output, w, h, std::vector<std::uint8_t>(std::size_t(w) * h * 3, 255));
      if (!points.empty()) write_points(points, {});
      std::printf("%s: %dx%d, no darkness: 0 dots, white output\n", input.c_str(), w, h);
      return 0;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const Charges charges = charges_for(img, dots);
    std::unique_ptr<ForceEngine> engine =
        direct ? direct_device_engine(charges, s.opencl_device)
               : s.device ? device_engine(charges, s.mesh, s.opencl_device) : host_engine(charges, s.mesh);
    const double setup = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s: %dx%d, %ld dots (ink %.0f px), %d iterations, forces: %s\n", input.c_str(), w, h, dots,
                charges.total(), s.iterations, engine->name().c_str());
    if (check > 0) {
      const auto [e, es] = check_forces(charges, *engine, initial_dots(img, dots, s.seed), check);
      std::printf("force error at the start (%ld dots): median %.2e, max %.2e; relative to |A|: median %.2e, max %.2e\n",
                  std::min(check, dots), e.median, e.max, es.median, es.max);
    }
    engine->reset_times();
    engine->set_stage_timing(bench);
    const Result r = halftone(img, s, *engine);
    if (check > 0) {
      const auto [e, es] = check_forces(charges, *engine, r.dots, check);
      std::printf("force error at the end (%ld dots): median %.2e, max %.2e; relative to |A|: median %.2e, max %.2e\n",
                  std::min(check, dots), e.median, e.max, es.median, es.max);
    }
    const auto out = render_dots(r.dots, r.dot_area, w, h);
    std::vector<std::uint8_t> rgb_out(out.size() * 3);
    for (std::size_t i = 0; i < out.size(); ++i) rgb_out[3 * i] = rgb_out[3 * i + 1] = rgb_out[3 * i + 2] = out[i];
    pscr::image::write_png(output, w, h, rgb_out);
    if (!points.empty()) write_points(points, r.dots);
    const double per = r.times.iterations ? 1e3 / r.times.iterations : 0;
    std::printf("time: setup %.3f s, %.3f ms per iteration\n", setup, r.times.iterating * per);
    if (bench) {
      for (const auto& [stage, seconds] : engine->stage_times())
        std::printf("  %-28s %8.3f ms per iteration\n", stage.c_str(), seconds * per);
    }
    if (!compare.empty()) {
      const auto fs = floyd_steinberg(img);
      std::vector<std::uint8_t> rgb_fs(fs.size() * 3);
      for (std::size_t i = 0; i < fs.size(); ++i) rgb_fs[3 * i] = rgb_fs[3 * i + 1] = rgb_fs[3 * i + 2] = fs[i];
      pscr::image::write_png(compare, w, h, rgb_fs);
      std::printf("PSNR after a 1.5 px Gaussian blur: electrostatic %.2f dB, Floyd-Steinberg %.2f dB\n",
                  blurred_psnr(out, img, 1.5), blurred_psnr(fs, img, 1.5));
    }
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s: %s\n", kTool, e.what());
    return 2;
  } catch (const pscr::Error& e) {
    std::fprintf(stderr, "%s: error: %s\n", kTool, e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", kTool, e.what());
    return 1;
  }
  return 0;
}
