// pscr-denoise: L1-mean-curvature denoising of a PNG image (docs/denoise.md),
// the augmented Lagrangian method whose scalar subproblem libpscr solves.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../common/cli.hpp"
#include "image.hpp"
#include "device_l1mc.hpp"
#include "l1mc.hpp"
#include "pscr/errors.hpp"

namespace {

const char* kTool = "pscr-denoise";

const char* kHelp =
    "usage: pscr-denoise [options] INPUT.png OUTPUT.png\n"
    "  INPUT.png             grey or colour PNG; colour channels are denoised one by one\n"
    "  OUTPUT.png            the denoised image, same size\n"
    "  --model l1mc          the model (L1-mean curvature; the only one)\n"
    "  --r0 R                the articles' coupling: epsilon = r0 h, r1 = 10 r0 h,\n"
    "                        r2 = 5 r0, r3 = 5 r0 h^2 (0.005)\n"
    "  --h H                 grid spacing (0.005)\n"
    "  --epsilon E --r1 R --r2 R --r3 R   set one value directly instead\n"
    "  --iterations K        at most K iterations (1000)\n"
    "  --tol T               stop when the augmented Lagrangian changes by less than T\n"
    "                        relative (1e-4)\n"
    "  --add-noise SIGMA     first add Gaussian noise of this standard deviation (values in [0, 1])\n"
    "  --seed S              of the noise (1)\n"
    "  --noisy FILE          also write the noisy input (with --add-noise)\n"
    "  --clean FILE          a clean image of the same size: print PSNR of input and output\n"
    "  --times               print seconds per iteration of each subproblem\n"
    "  --host                run on the host (the reference implementation; default: the OpenCL device)\n"
    "  --device SEL          OpenCL device (index P:D or name part; default: GPU, else PoCL)\n"
    "  --precision P         double or float on the device (double; the host reference is double)\n";

std::vector<double> channel(const std::vector<std::uint8_t>& rgb, int c) {
  std::vector<double> v(rgb.size() / 3);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = rgb[3 * i + c] / 255.0;
  return v;
}

double psnr(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  double se = 0;
  for (std::size_t i = 0; i < a.size(); ++i) se += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
  const double mse = se / double(a.size());
  return mse > 0 ? 10 * std::log10(255.0 * 255.0 / mse) : INFINITY;
}

}  // namespace

int main(int argc, char** argv) {
  pscr::cli::help(argc, argv, kHelp);
  using namespace pscr::denoise;
  Parameters par;
  std::string input, output, noisy, clean;
  double noise = 0;
  long seed = 1;
  bool times = false, on_host = false, single = false;
  std::string device;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) pscr::cli::usage(kTool, a + " needs a value");
      return argv[++i];
    };
    auto positive = [&](double& into) {
      into = pscr::cli::number(kTool, a, val());
      if (!(into > 0)) pscr::cli::usage(kTool, a + " must be > 0");
    };
    if (a == "--model") {
      if (val() != "l1mc") pscr::cli::usage(kTool, "unknown model (only l1mc)");
    } else if (a == "--r0") positive(par.r0);
    else if (a == "--h") positive(par.h);
    else if (a == "--epsilon") positive(par.epsilon);
    else if (a == "--r1") positive(par.r1);
    else if (a == "--r2") positive(par.r2);
    else if (a == "--r3") positive(par.r3);
    else if (a == "--tol") positive(par.tol);
    else if (a == "--iterations") par.max_iterations = int(pscr::cli::integer(kTool, a, val(), 1, 1000000));
    else if (a == "--add-noise") {
      noise = pscr::cli::number(kTool, a, val());
      if (!(noise >= 0)) pscr::cli::usage(kTool, "--add-noise must be >= 0");
    } else if (a == "--seed") seed = pscr::cli::integer(kTool, a, val(), 0, 1L << 40);
    else if (a == "--noisy") noisy = val();
    else if (a == "--clean") clean = val();
    else if (a == "--times") times = true;
    else if (a == "--host") on_host = true;
    else if (a == "--device") device = val();
    else if (a == "--precision") {
      const std::string p = val();
      if (p != "double" && p != "float") pscr::cli::usage(kTool, "--precision must be double or float, got '" + p + "'");
      single = p == "float";
    }
    else if (!a.empty() && a[0] == '-') pscr::cli::usage(kTool, "unknown option " + a);
    else if (input.empty()) input = a;
    else if (output.empty()) output = a;
    else pscr::cli::usage(kTool, "too many arguments");
  }
  if (output.empty()) pscr::cli::usage(kTool, "needs INPUT.png and OUTPUT.png");
  if (!noisy.empty() && !(noise > 0)) pscr::cli::usage(kTool, "--noisy needs --add-noise");
  if (on_host && single) pscr::cli::usage(kTool, "--precision float runs on the device (the host reference is double)");
  try {
    int w = 0, h = 0;
    std::vector<std::uint8_t> rgb = pscr::image::read_png(input, w, h);
    std::vector<std::uint8_t> reference;
    if (!clean.empty()) {
      int cw = 0, ch = 0;
      reference = pscr::image::read_png(clean, cw, ch);
      if (cw != w || ch != h)
        throw pscr::InvalidArgument("--clean " + clean + " is " + std::to_string(cw) + "x" + std::to_string(ch) +
                                    ", the input " + std::to_string(w) + "x" + std::to_string(h));
    }
    bool grey = true;
    for (std::size_t i = 0; i < rgb.size(); i += 3) grey = grey && rgb[i] == rgb[i + 1] && rgb[i] == rgb[i + 2];
    const int channels = grey ? 1 : 3;
    std::vector<std::vector<double>> f(channels);
    for (int c = 0; c < channels; ++c) f[c] = channel(rgb, c);
    if (noise > 0) {
      std::mt19937_64 g(seed);
      std::normal_distribution<double> n(0, noise);
      for (auto& v : f)
        for (double& x : v) x += n(g);
      std::vector<std::uint8_t> out(rgb.size());
      for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = std::uint8_t(std::lround(std::clamp(f[grey ? 0 : i % 3][i / 3], 0.0, 1.0) * 255));
      rgb = out;
      if (!noisy.empty()) pscr::image::write_png(noisy, w, h, out);
    }
    std::unique_ptr<L1mc> host;
    std::unique_ptr<DeviceL1mc> gpu;
    if (on_host) host = std::make_unique<L1mc>(w, h, par);
    else {
      gpu = std::make_unique<DeviceL1mc>(w, h, par, device, single);
      gpu->set_stage_timing(times);
    }
    std::vector<std::uint8_t> result(rgb.size());
    for (int c = 0; c < channels; ++c) {
      std::vector<double> u;
      const Result r = host ? host->denoise(f[c], u) : gpu->denoise(f[c], u);
      std::printf("%s channel %d: %d iterations%s, objective %.6g -> %.6g\n", kTool, c, r.iterations,
                  r.converged ? "" : " (limit reached)", r.objective.front(), r.objective.back());
      if (times && r.mean.joint_solves)
        std::printf("  seconds per iteration on %s: whole %.5f, sub 1 %.5f, sub 2 and 4 (one solve) %.5f, sub 3 %.5f, "
                    "misc %.5f\n",
                    gpu->device_name().c_str(), r.mean.whole(), r.mean.sub[0], r.mean.sub[1], r.mean.sub[2], r.mean.misc);
      else if (times)
        std::printf("  seconds per iteration on %s: whole %.5f, sub 1 %.5f, sub 2 %.5f, sub 3 %.5f, sub 4 %.5f, misc %.5f\n",
                    host ? "the host" : gpu->device_name().c_str(), r.mean.whole(), r.mean.sub[0], r.mean.sub[1],
                    r.mean.sub[2], r.mean.sub[3], r.mean.misc);
      for (std::size_t i = 0; i < u.size(); ++i) {
        const auto v = std::uint8_t(std::lround(std::clamp(u[i], 0.0, 1.0) * 255));
        for (int k = 0; k < 3; ++k)
          if (grey || k == c) result[3 * i + k] = v;
      }
    }
    pscr::image::write_png(output, w, h, result);
    if (!reference.empty())
      std::printf("PSNR against %s: input %.2f dB, output %.2f dB\n", clean.c_str(), psnr(rgb, reference),
                  psnr(result, reference));
  } catch (const pscr::Error& e) {  // bad input, unreadable or unwritable files: named, exit 2
    std::fprintf(stderr, "%s: %s\n", kTool, e.what());
    return 2;
  }
  return 0;
}
