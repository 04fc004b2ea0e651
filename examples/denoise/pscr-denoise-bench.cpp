// pscr-denoise-bench: seconds per iteration of the L1MC denoiser on the
// OpenCL device, split as the tables of article [PV] (whole, subproblems 1-4,
// misc), for square images of several sizes, beside PV's Tesla K40c times.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "../common/cli.hpp"
#include "device_l1mc.hpp"
#include "image.hpp"
#include "l1mc.hpp"
#include "pscr/errors.hpp"

namespace {

const char* kTool = "pscr-denoise-bench";
const char* kHelp =
    "usage: pscr-denoise-bench [--sizes 256,512,1024,2048] [--image FILE.png] [--noise S] [--r0 R]\n"
    "                          [--device SEL] [--host] [--precision double|float]\n"
    "For each size n: the image (default: a synthetic scene) resampled to n x n, Gaussian noise of\n"
    "standard deviation S (0.1) added, denoised on the device twice: with the queue finished after\n"
    "each stage (the subproblem columns; the device solves subproblems 2 and 4 as one shifted\n"
    "pair, shown under sub2) and without (the whole column). Prints iterations and\n"
    "seconds per iteration beside article PV's Tesla K40c times (sigma = 0.1), and the host's\n"
    "seconds per iteration spent enqueuing (near whole_s, the host bounds the speed). --host also\n"
    "runs the host reference and prints its iteration count and time.\n";

// PV Table 3 (Mercado, sigma = 0.1): whole, sub 1-4, misc.
struct K40c {
  int n;
  double t[6];
};
const K40c kK40c[] = {{256, {0.0088, 0.0045, 0.0031, 0.0000, 0.0010, 0.0003}},
                      {512, {0.0274, 0.0149, 0.0077, 0.0001, 0.0037, 0.0009}},
                      {1024, {0.0996, 0.0530, 0.0267, 0.0003, 0.0162, 0.0032}},
                      {2048, {0.3721, 0.1826, 0.1033, 0.0012, 0.0721, 0.0127}}};

std::vector<double> resample(const std::vector<double>& src, int sw, int sh, int n) {
  std::vector<double> out(std::size_t(n) * n);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const double fx = (x + 0.5) * sw / n - 0.5, fy = (y + 0.5) * sh / n - 0.5;
      const int x0 = std::clamp(int(std::floor(fx)), 0, sw - 1), y0 = std::clamp(int(std::floor(fy)), 0, sh - 1);
      const int x1 = std::min(x0 + 1, sw - 1), y1 = std::min(y0 + 1, sh - 1);
      const double ax = std::clamp(fx - x0, 0.0, 1.0), ay = std::clamp(fy - y0, 0.0, 1.0);
      auto at = [&](int i, int j) { return src[std::size_t(j) * sw + i]; };
      out[std::size_t(y) * n + x] = (1 - ay) * ((1 - ax) * at(x0, y0) + ax * at(x1, y0)) +
                                    ay * ((1 - ax) * at(x0, y1) + ax * at(x1, y1));
    }
  return out;
}

std::vector<double> scene(int n) {
  std::vector<double> f(std::size_t(n) * n);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const double X = double(x) / n, Y = double(y) / n;
      double v = 0.2 + 0.3 * X;
      if (X > 0.25 && X < 0.75 && Y > 0.25 && Y < 0.75) v = 0.85;
      if ((X - 0.3) * (X - 0.3) + (Y - 0.7) * (Y - 0.7) < 0.02) v = 0.5 + 0.4 * std::sin(20 * X);
      f[std::size_t(y) * n + x] = v;
    }
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  pscr::cli::help(argc, argv, kHelp);
  using namespace pscr::denoise;
  std::vector<int> sizes{256, 512, 1024, 2048};
  std::string image, device;
  double noise = 0.1;
  bool host = false, single = false;
  Parameters par;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) pscr::cli::usage(kTool, a + " needs a value");
      return argv[++i];
    };
    if (a == "--sizes") {
      sizes.clear();
      for (const auto& s : pscr::cli::split(val())) sizes.push_back(int(pscr::cli::integer(kTool, a, s, 2, 1 << 15)));
    } else if (a == "--image") image = val();
    else if (a == "--noise") {
      noise = pscr::cli::number(kTool, a, val());
      if (!(noise >= 0)) pscr::cli::usage(kTool, "--noise must be >= 0");
    } else if (a == "--r0") {
      par.r0 = pscr::cli::number(kTool, a, val());
      if (!(par.r0 > 0)) pscr::cli::usage(kTool, "--r0 must be > 0");
    } else if (a == "--device") device = val();
    else if (a == "--host") host = true;
    else if (a == "--precision") {
      const std::string p = val();
      if (p != "double" && p != "float") pscr::cli::usage(kTool, "--precision must be double or float");
      single = p == "float";
    }
    else pscr::cli::usage(kTool, "unknown argument " + a);
  }
  try {
    std::vector<double> src;
    int sw = 0, sh = 0;
    if (!image.empty()) {
      const auto rgb = pscr::image::read_png(image, sw, sh);
      src.resize(rgb.size() / 3);
      for (std::size_t i = 0; i < src.size(); ++i)
        src[i] = (0.2126 * rgb[3 * i] + 0.7152 * rgb[3 * i + 1] + 0.0722 * rgb[3 * i + 2]) / 255;
    }
    std::printf("%6s %6s %9s %9s %9s %9s %9s %9s %10s %8s %10s\n", "n", "iter", "whole_s", "sub1_s", "sub2_s", "sub3_s",
                "sub4_s", "misc_s", "K40c_s", "K40c/us", "enqueue_s");
    std::string device_name;
    for (int n : sizes) {
      std::vector<double> f = image.empty() ? scene(n) : resample(src, sw, sh, n);
      std::mt19937_64 g(1);
      std::normal_distribution<double> d(0, noise);
      for (double& v : f) v += d(g);
      DeviceL1mc dev(n, n, par, device, single);
      device_name = dev.device_name();
      std::vector<double> u;
      dev.set_stage_timing(true);
      const Result staged = dev.denoise(f, u);
      dev.set_stage_timing(false);
      const Result whole = dev.denoise(f, u);
      double k40 = 0;
      for (const auto& k : kK40c)
        if (k.n == n) k40 = k.t[0];
      const double per = whole.mean.misc;  // without stage timing: the whole iteration
      std::printf("%6d %6d %9.5f %9.5f %9.5f %9.5f", n, whole.iterations, per, staged.mean.sub[0], staged.mean.sub[1],
                  staged.mean.sub[2]);
      if (staged.mean.joint_solves) std::printf(" %9s", "(in 2)");
      else std::printf(" %9.5f", staged.mean.sub[3]);
      std::printf(" %9.5f", staged.mean.misc);
      if (k40 > 0) std::printf(" %10.4f %8.1f", k40, k40 / per);
      else std::printf(" %10s %8s", "-", "-");
      std::printf(" %10.5f\n", whole.enqueue);
      if (host) {
        L1mc ref(n, n, par);
        std::vector<double> uh;
        const Result r = ref.denoise(f, uh);
        double diff = 0;
        for (std::size_t i = 0; i < u.size(); ++i) diff = std::max(diff, std::abs(u[i] - uh[i]));
        std::printf("       host reference: %d iterations, %.4f s per iteration; max |u_device - u_host| %.2e\n",
                    r.iterations, r.mean.whole(), diff);
      }
      std::fflush(stdout);
    }
    std::printf("device: %s\n", device_name.c_str());
  } catch (const pscr::Error& e) {
    std::fprintf(stderr, "%s: %s\n", kTool, e.what());
    return 2;
  }
  return 0;
}
