// pscr-hdr-bench: per-stage times of the gradient-domain pipeline on the
// synthetic window scene at several sizes, and the Poisson solve by PSCR
// against each iterative solver run to a relative residual (default 1e-6).
// Stage times take the input from the pipeline's page-locked frame; whole
// calls are timed from the frame and from an Image in pageable memory.
// Medians over --reps runs after one warm-up; the PSCR solve of the same run
// is the anchor of the solver ratios.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "cli.hpp"
#include "tonemap.hpp"
#include "video.hpp"

namespace {
const char* kTool = "pscr-hdr-bench";

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : (v[(v.size() - 1) / 2] + v[v.size() / 2]) / 2;
}
}  // namespace

int main(int argc, char** argv) {
  using namespace pscr::hdr;
  std::vector<int> sizes;
  int reps = 5;
  double tol = 1e-6, max_seconds = 30;
  std::string device, solvers_arg = "all", scene = "window", video;
  int frames = 64, streams = 2;
  std::vector<std::string> devices;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) cli::usage(kTool, a + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      std::printf(
          "usage: pscr-hdr-bench [--sizes 1024,2048,4096] [--reps 5] [--tol 1e-6] [--max-seconds 30]\n"
          "                      [--solvers all|none|NAME,...] [--scene window|lamps] [--device SEL]\n"
          "       pscr-hdr-bench --video WxH [--frames N] [--devices SEL,SEL,...] [--streams S]\n"
          "  --video: Reinhard on a synthetic video, frames spread over the devices (each with S\n"
          "  streams); frames per second on the first 1, 2, ... of the devices, and a check that\n"
          "  every frame's result is the same whichever device computed it (an empty item in\n"
          "  --devices is the default device)\n");
      return 0;
    } else if (a == "--sizes") {
      for (const std::string& item : cli::split(val())) sizes.push_back(int(cli::integer(kTool, a, item)));
    } else if (a == "--reps") reps = int(cli::integer(kTool, a, val()));
    else if (a == "--tol") tol = cli::number(kTool, a, val());
    else if (a == "--max-seconds") max_seconds = cli::number(kTool, a, val());
    else if (a == "--solvers") solvers_arg = val();
    else if (a == "--scene") scene = val();
    else if (a == "--device") device = val();
    else if (a == "--video") video = val();
    else if (a == "--frames") frames = int(cli::integer(kTool, a, val(), 1, 1000000));
    else if (a == "--devices") devices = cli::split(val());
    else if (a == "--streams") streams = int(cli::integer(kTool, a, val(), 1, 16));
    else cli::usage(kTool, "unknown option " + a);
  }
  if (!video.empty()) {
    int w = 0, h = 0;
    char tail = 0;
    if (std::sscanf(video.c_str(), "%dx%d%c", &w, &h, &tail) != 2 || w < 2 || h < 2)
      cli::usage(kTool, "--video needs WxH, got '" + video + "'");
    if (devices.empty()) devices = {device};
    try {
      const std::vector<Image> src = video_frames(w, h, 8);
      VideoRun first;
      for (std::size_t d = 1; d <= devices.size(); ++d) {
        const std::vector<std::string> use(devices.begin(), devices.begin() + d);
        const VideoRun r = reinhard_video(src, frames, use, streams);
        if (d == 1) first = r;
        const bool same = r.checksums == first.checksums;
        std::printf("reinhard video %dx%d, %d frames: %zu device(s) x %d stream(s): %.1f frames/s (%.2f ms per frame), "
                    "speed-up %.2f, results %s\n",
                    w, h, frames, d, streams, r.fps(), 1e3 * r.seconds / frames, r.fps() / first.fps(),
                    same ? "identical to one device's" : "DIFFER from one device's");
        if (!same) return 1;
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", kTool, e.what());
      return 1;
    }
    return 0;
  }
  if (sizes.empty()) sizes = {1024, 2048, 4096};
  if (reps < 1) cli::usage(kTool, "--reps needs >= 1");
  std::vector<Solver> solvers;
  if (solvers_arg == "all") {
    for (Solver s : all_solvers()) if (s != Solver::pscr) solvers.push_back(s);
  } else if (solvers_arg != "none") {
    for (const std::string& item : cli::split(solvers_arg)) {
      try { solvers.push_back(parse_solver(item)); } catch (const std::exception& e) { cli::usage(kTool, e.what()); }
    }
  }
  try {
    for (int n : sizes) {
      const Image img = synthetic_scene(scene, n, n);
      PipelineOptions timed;
      timed.device = device;
      timed.stage_timing = true;
      Pipeline pipe(n, n, timed);
      std::printf("== %s %dx%d (dynamic range %.3g) on %s; plan %.2f s, %d pyramid levels, %.0f MB on the device\n",
                  scene.c_str(), n, n, dynamic_range(img), pipe.device().c_str(), pipe.plan_seconds(),
                  pipe.pyramid_levels(), 1e-6 * double(pipe.device_bytes()));
      // per-stage times (each stage waited for) with the input in the page-locked
      // frame, and whole-call times without stage syncs from the frame and from
      // the Image (pageable memory)
      std::map<std::string, std::vector<double>> st;
      std::vector<std::string> order;
      const Frame timed_frame = pipe.frame();
      std::copy(img.rgb.begin(), img.rgb.end(), timed_frame.rgb);
      pipe.fattal(timed_frame);
      for (int r = 0; r < reps; ++r)
        for (const auto& s : pipe.fattal(timed_frame).stages) {
          if (!st.count(s.stage)) order.push_back(s.stage);
          st[s.stage].push_back(s.seconds);
        }
      PipelineOptions plain;
      plain.device = device;
      Pipeline fast(n, n, plain);
      std::vector<double> whole, reinhard, whole_frame, reinhard_frame;
      const Frame frame = fast.frame();
      std::copy(img.rgb.begin(), img.rgb.end(), frame.rgb);
      fast.fattal(img);
      fast.fattal(frame);
      for (int r = 0; r < reps; ++r) {
        whole_frame.push_back(fast.fattal(frame).seconds);
        reinhard_frame.push_back(fast.reinhard(frame).seconds);
        whole.push_back(fast.fattal(img).seconds);
        reinhard.push_back(fast.reinhard(img).seconds);
      }
      double sum = 0, transfers = 0;
      std::printf("  %-16s %10s\n", "stage", "median ms");
      for (const auto& name : order) {
        const double m = median(st[name]);
        sum += m;
        if (name == "upload" || name == "download") transfers += m;
        std::printf("  %-16s %10.3f\n", name.c_str(), 1e3 * m);
      }
      std::printf("  %-16s %10.3f  (sum of stages; on the device without transfers: %.3f)\n", "total", 1e3 * sum,
                  1e3 * (sum - transfers));
      auto line = [](const char* what, const std::vector<double>& t) {
        std::printf("  %-44s median %8.3f ms (min %.3f)\n", what, 1e3 * median(t), 1e3 * *std::min_element(t.begin(), t.end()));
      };
      line("whole fattal call, frame (page-locked):", whole_frame);
      line("whole fattal call, Image (pageable):", whole);
      line("whole reinhard call, frame (page-locked):", reinhard_frame);
      line("whole reinhard call, Image (pageable):", reinhard);
      {  // the PSCR solve in float: its time, and the result against the double pipeline's
        PipelineOptions fo = plain;
        fo.float_solve = true;
        Pipeline single(n, n, fo);
        const Frame sf = single.frame();
        std::copy(img.rgb.begin(), img.rgb.end(), sf.rgb);
        const ToneMapped ref = fast.fattal(frame);
        std::vector<std::uint8_t> ref8(ref.rgb8.begin(), ref.rgb8.end());
        const std::vector<double> Iref = fast.fields().I;
        single.fattal(sf);
        std::vector<double> wf, sf_solve, df_solve;
        ToneMapped got;
        for (int r = 0; r < reps; ++r) {
          got = single.fattal(sf);
          wf.push_back(got.seconds);
          sf_solve.push_back(got.solve.seconds);
          df_solve.push_back(fast.fattal(frame).solve.seconds);
        }
        const std::vector<double> I32 = single.fields().I;
        double se = 0, di = 0, range = 0, lo = Iref[0], hi = Iref[0];
        for (std::size_t k = 0; k < ref8.size(); ++k) se += std::pow(double(got.rgb8[k]) - double(ref8[k]), 2);
        for (std::size_t k = 0; k < Iref.size(); ++k) {
          di = std::max(di, std::abs(I32[k] - Iref[k]));
          lo = std::min(lo, Iref[k]);
          hi = std::max(hi, Iref[k]);
        }
        range = hi - lo;
        const double mse = se / double(ref8.size());
        std::printf("  float PSCR solve: whole call %.3f ms, solve %.3f ms (double %.3f ms); 8-bit result against "
                    "double: PSNR %s, max |I_float - I_double| / range(I) = %.1e\n",
                    1e3 * median(wf), 1e3 * median(sf_solve), 1e3 * median(df_solve),
                    mse > 0 ? (std::to_string(10 * std::log10(255.0 * 255.0 / mse)) + " dB").c_str() : "inf (identical bytes)",
                    di / range);
      }
      std::fflush(stdout);
      if (solvers.empty()) continue;
      // the Poisson problem of this image, solved by each solver
      const std::vector<double> b = fast.fields().b;
      std::vector<double> anchor;
      SolveReport rep;
      fast.solve_poisson(b, {}, &rep);
      for (int r = 0; r < reps; ++r) {
        fast.solve_poisson(b, {}, &rep);
        anchor.push_back(rep.seconds);
      }
      const double t_pscr = median(anchor);
      std::printf("  %-13s %10s %12s %12s %10s\n", "solver", "iterations", "residual", "median ms", "/pscr");
      std::printf("  %-13s %10d %12.2e %12.3f %10.2f\n", "pscr", 1, rep.relative_residual, 1e3 * t_pscr, 1.0);
      for (Solver s : solvers) {
        SolverControls c;
        c.solver = s;
        c.tolerance = tol;
        c.max_seconds = max_seconds;
        std::vector<double> ts;
        const int runs = s == Solver::jacobi || s == Solver::gauss_seidel ? 1 : std::min(reps, 3);
        for (int r = 0; r < runs; ++r) {
          fast.solve_poisson(b, c, &rep);
          ts.push_back(rep.seconds);
          if (!rep.converged) break;
        }
        std::printf("  %-13s %10ld %12.2e %12.3f %10.1f%s\n", solver_name(s).c_str(), rep.iterations,
                    rep.relative_residual, 1e3 * median(ts), median(ts) / t_pscr,
                    rep.converged ? "" : "  (stopped: time limit, not converged)");
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", kTool, e.what());
    return 1;
  }
  return 0;
}
