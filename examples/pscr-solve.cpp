// pscr-solve: solves a separable system given as NumPy files.
//   pscr-solve --A1 a1.npy --M1 m1.npy --A2 a2.npy --M2 m2.npy [--A3 a3.npy --M3 m3.npy]
//              --rhs f.npy --out u.npy [--c VALUE] [--radix Q] [--backend reference|opencl]
//              [--device SEL] [--threads N]
// Factor files are (2, n) arrays: row 0 the diagonal, row 1 the off-diagonal in
// its first n-1 entries. The right-hand side is (n1, n2) or (n1, n2, n3), with an
// optional leading batch axis. All arrays share one dtype. Exit status 2 on bad input.
// pscr-solve-mpi takes the same arguments on several MPI ranks.
#include <chrono>
#include <memory>

#include "common/solve_files.hpp"

namespace {

using namespace pscr::solve_files;

// Where the time goes, printed after the report: the files read (the
// right-hand side: `read_rhs` seconds), the plan, the copies in and out of
// the device and the solve between them (OpenCL host arrays: SolveStats; in
// a batch the copies of one right-hand side overlap the solve of the next),
// the solution written and the residual checked.
template <class T>
int run(const std::map<std::string, std::string>& args, const pscr::npy::Array& rhs, double read_rhs) {
  using clk = std::chrono::steady_clock;
  auto since = [](clk::time_point t) { return std::chrono::duration<double>(clk::now() - t).count(); };
  std::size_t batch = 1;
  const int repeat = repeat_of(args);
  auto t = clk::now();
  const pscr::Problem<T> problem = load_problem<T>(args, rhs.shape, rhs.dtype, batch);
  const pscr::Options o = load_options(args);
  const double reading = read_rhs + since(t);
  t = clk::now();
  pscr::Plan<T> plan(problem, o);
  const double planning = since(t);
  // the file's bytes are the right-hand sides (same dtype: no converted copy)
  const T* f = reinterpret_cast<const T*>(rhs.bytes.data());
  // not zeroed first (real types): the solve maps its pages while the device works
  const std::unique_ptr<T[]> u(new T[rhs.size()]);
  const auto st = plan.solve_batch(f, u.get(), batch);
  std::vector<double> again;
  for (int r = repeat; r > 0; --r) again.push_back(plan.solve_batch(f, u.get(), batch).seconds);
  t = clk::now();
  pscr::npy::save(args.at("out"), rhs.shape, u.get());
  const double writing = since(t);
  t = clk::now();
  const double residual = solved_residual(problem, plan.info().pure_neumann, f, u.get(), batch);
  const double checking = since(t);
  report(problem, batch, plan.info(), st, residual, o.radix);
  if (!again.empty()) std::printf("repeated solves: %zu, median %.6f s\n", again.size(), median_of(again));
  const bool copies = st.copy_in_seconds > 0 || st.copy_out_seconds > 0;
  std::printf("time spent: reading %.6f s, planning %.6f s, copies in %.6f s, solve %.6f s, copies out %.6f s, "
              "writing %.6f s, residual check %.6f s%s\n",
              reading, planning, st.copy_in_seconds, copies ? st.solve_seconds : st.seconds, st.copy_out_seconds,
              writing, checking, copies && batch > 1 ? " (a batch: copies overlap the solves)" : "");
  if (!st.staging.empty()) std::printf("staging: %s\n", st.staging.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    bool help = false;
    const auto args = parse_args(argc, argv, help);
    if (help) {
      std::cout << "usage: pscr-solve " << kOptions;
      return 0;
    }
    const auto t = std::chrono::steady_clock::now();
    const auto rhs = pscr::npy::load(args.at("rhs"));
    const double read = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    switch (rhs.dtype) {
      case pscr::npy::DType::float32: return run<float>(args, rhs, read);
      case pscr::npy::DType::float64: return run<double>(args, rhs, read);
      case pscr::npy::DType::complex64: return run<std::complex<float>>(args, rhs, read);
      case pscr::npy::DType::complex128: return run<std::complex<double>>(args, rhs, read);
    }
  } catch (const std::exception& e) {
    return failure("pscr-solve", e);
  }
  return 1;
}
