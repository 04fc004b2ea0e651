// pscr-hdr: tone-maps an HDR image (Radiance .hdr, OpenEXR .exr, .pfm, or a
// synthetic scene) to an 8-bit sRGB PNG (or a linear EXR, HDR or PFM) by gradient-domain compression with an
// exact PSCR Poisson solve (or an iterative solver), or by Reinhard's operator.
#include <chrono>
#include <future>
#include <cstdio>
#include <string>

#include "cli.hpp"
#include "pscr/opencl.hpp"
#include "tonemap.hpp"

namespace {

const std::chrono::steady_clock::time_point g_process_start = std::chrono::steady_clock::now();  // before main

const char* kTool = "pscr-hdr";

void help() {
  std::printf(
      "usage: pscr-hdr [options] INPUT OUTPUT\n"
      "  INPUT                 .hdr/.pic, .exr or .pfm file, or scene:window|lamps:WxH\n"
      "  OUTPUT                .png: 8-bit sRGB; .exr, .hdr or .pfm: the linear result\n"
      "                        (display white = 1, highlights above it kept)\n"
      "  --operator fattal|reinhard   (default fattal)\n"
      "Fattal (gradient domain):\n"
      "  --alpha A             alpha as a fraction of the mean gradient (1)\n"
      "  --beta B              attenuation exponent, 0 < B <= 1 (0.9)\n"
      "  --saturation S        colour saturation (0.8; Reinhard: 1)\n"
      "  --black P --white P   exposure percentiles (0.1, 99.5)\n"
      "  --noise N             gradient magnitude treated as noise (0.001)\n"
      "  --detail-level D      finest levels left unattenuated (0: the paper)\n"
      "  --coarsest N          smallest pyramid side (8)\n"
      "  --solver NAME         pscr|jacobi|gauss-seidel|sor|mg-v|mg-w|mg-f (pscr)\n"
      "  --tol T --max-iter N --max-seconds S --omega W   iterative solver controls\n"
      "Reinhard (global):\n"
      "  --key A               key value (0.18)\n"
      "  --white-point L       white luminance after scaling (default: the maximum)\n"
      "Other:\n"
      "  --device SEL          OpenCL device (index P:D or name part; default: GPU, else PoCL)\n"
      "  --save-input FILE     also write the input as .hdr, .exr or .pfm\n"
      "  --times               print the time of each stage\n"
      "  --precision P         double (default) or float: the precision of the PSCR Poisson solve\n");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace pscr::hdr;
  std::string op = "fattal", input, output, device, save_input;
  FattalParameters fp;
  ReinhardParameters rp;
  SolverControls sc;
  bool times = false, saturation_set = false, float_solve = false;
  double saturation = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) cli::usage(kTool, a + " needs a value");
      return argv[++i];
    };
    auto num = [&]() { return cli::number(kTool, a, val()); };
    if (a == "--help" || a == "-h") { help(); return 0; }
    else if (a == "--operator") op = val();
    else if (a == "--alpha") fp.alpha = num();
    else if (a == "--beta") fp.beta = num();
    else if (a == "--saturation") saturation = num(), saturation_set = true;
    else if (a == "--black") fp.black_percentile = num();
    else if (a == "--white") fp.white_percentile = num();
    else if (a == "--noise") fp.noise = num();
    else if (a == "--detail-level") fp.detail_level = int(cli::integer(kTool, a, val()));
    else if (a == "--coarsest") fp.coarsest = int(cli::integer(kTool, a, val()));
    else if (a == "--solver") {
      try { sc.solver = parse_solver(val()); } catch (const std::exception& e) { cli::usage(kTool, e.what()); }
    }
    else if (a == "--tol") sc.tolerance = num();
    else if (a == "--max-iter") sc.max_iterations = cli::integer(kTool, a, val());
    else if (a == "--max-seconds") sc.max_seconds = num();
    else if (a == "--omega") sc.omega = num();
    else if (a == "--key") rp.key = num();
    else if (a == "--white-point") rp.white = num();
    else if (a == "--device") device = val();
    else if (a == "--save-input") save_input = val();
    else if (a == "--times") times = true;
    else if (a == "--precision") {
      const std::string v = val();
      if (v != "double" && v != "float") cli::usage(kTool, "--precision is double or float, got '" + v + "'");
      float_solve = v == "float";
    }
    else if (!a.empty() && a[0] == '-') cli::usage(kTool, "unknown option " + a);
    else if (input.empty()) input = a;
    else if (output.empty()) output = a;
    else cli::usage(kTool, "too many arguments");
  }
  if (input.empty() || output.empty()) cli::usage(kTool, "needs INPUT and OUTPUT");
  const bool png = file_extension(output) == "png";
  if (!png && !can_write_image(output))
    cli::usage(kTool, "OUTPUT '" + output + "' needs the extension .png, .exr, .hdr, .pic or .pfm");
  if (op != "fattal" && op != "reinhard") cli::usage(kTool, "--operator is fattal or reinhard, got '" + op + "'");
  if (saturation_set) fp.saturation = rp.saturation = saturation;
  try {
    using wall = std::chrono::steady_clock;
    auto seconds = [](wall::time_point a, wall::time_point b) { return std::chrono::duration<double>(b - a).count(); };
    const auto t_main = wall::now();
    // The image is read (or generated) in another thread while the OpenCL
    // driver starts and creates the context (on a GPU both take a fraction of
    // a second); a bad scene spec is refused here, before either starts.
    cli::check_source(kTool, input);
    auto loading = std::async(std::launch::async, [&] { return cli::load_source(kTool, input); });
    try {
      pscr::opencl::prepare_device(device);
    } catch (...) {
      loading.wait();  // the load's own error, if any, is not the one to report
      throw;
    }
    const Image img = loading.get();
    if (!save_input.empty()) write_image(save_input, img);
    const auto t_input = wall::now();
    PipelineOptions po;
    po.device = device;
    po.stage_timing = times;
    po.float_solve = float_solve;
    po.linear_output = !png;
    Pipeline pipe(img.width, img.height, po);
    const auto t_plan = wall::now();
    const ToneMapped out = op == "fattal" ? pipe.fattal(img, fp, sc) : pipe.reinhard(img, rp);
    const auto t_map = wall::now();
    if (png) write_png(output, out.width, out.height, out.rgb8);
    else write_image(output, out.linear);
    const auto t_output = wall::now();
    std::printf("%s: %dx%d, dynamic range %.3g, %s on %s: %.2f ms (plan %.2f s)\n", output.c_str(), img.width,
                img.height, dynamic_range(img), op.c_str(), pipe.device().c_str(), 1e3 * out.seconds,
                pipe.plan_seconds());
    if (op == "fattal") {
      const SolveReport& r = out.solve;
      std::printf("  solver %s: %ld iteration(s), %.2f ms, %s", solver_name(r.solver).c_str(), r.iterations,
                  1e3 * r.seconds, r.converged ? "converged" : "NOT converged");
      if (r.relative_residual >= 0) std::printf(", relative residual %.2e", r.relative_residual);
      std::printf("\n");
    }
    for (const auto& s : out.stages) std::printf("  %-14s %9.3f ms\n", s.stage.c_str(), 1e3 * s.seconds);
    if (times) {
      const auto t = pipe.plan_times();
      std::printf("  plan %.3f s: eigen data %.3f s, solver program %.3f s (cache %s), pipeline program %.3f s "
                  "(cache %s), set-up %.3f s\n",
                  t.total, t.eigen, t.solver_program, t.solver_cache.c_str(), t.client_program, t.client_cache.c_str(),
                  t.total - t.eigen - t.solver_program - t.client_program);
      std::printf("  wall from process start to the output written: %.3f s (start to main %.3f s, input with device start-up %.3f s, "
                  "pipeline and plan %.3f s, tone mapping %.3f s, output %.3f s)\n",
                  seconds(g_process_start, t_output), seconds(g_process_start, t_main), seconds(t_main, t_input),
                  seconds(t_input, t_plan), seconds(t_plan, t_map), seconds(t_map, t_output));
    }
    return op == "fattal" && !out.solve.converged ? 3 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", kTool, e.what());
    return 1;
  }
}
