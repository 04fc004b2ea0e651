// pscr-solve: solves a separable system given as NumPy files.
//   pscr-solve --A1 a1.npy --M1 m1.npy --A2 a2.npy --M2 m2.npy [--A3 a3.npy --M3 m3.npy]
//              --rhs f.npy --out u.npy [--c VALUE] [--radix Q] [--backend reference|opencl]
//              [--device SEL] [--threads N]
// Factor files are (2, n) arrays: row 0 the diagonal, row 1 the off-diagonal in
// its first n-1 entries. The right-hand side is (n1, n2) or (n1, n2, n3), with an
// optional leading batch axis. All arrays share one dtype. Exit status 2 on bad input.
// pscr-solve-mpi takes the same arguments on several MPI ranks.
#include "common/solve_files.hpp"

namespace {

using namespace pscr::solve_files;

template <class T> int run(const std::map<std::string, std::string>& args, const pscr::npy::Array& rhs) {
  std::size_t batch = 1;
  const pscr::Problem<T> problem = load_problem<T>(args, rhs.shape, rhs.dtype, batch);
  const pscr::Options o = load_options(args, "pscr-solve");
  pscr::Plan<T> plan(problem, o);
  const auto f = rhs.as<T>();
  std::vector<T> u(f.size());
  const auto st = plan.solve_batch(f.data(), u.data(), batch);
  pscr::npy::save(args.at("out"), rhs.shape, u.data());
  report(problem, batch, plan.info(), st, solved_residual(problem, plan.info().pure_neumann, f.data(), u.data(), batch));
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
    const auto rhs = pscr::npy::load(args.at("rhs"));
    switch (rhs.dtype) {
      case pscr::npy::DType::float32: return run<float>(args, rhs);
      case pscr::npy::DType::float64: return run<double>(args, rhs);
      case pscr::npy::DType::complex64: return run<std::complex<float>>(args, rhs);
      case pscr::npy::DType::complex128: return run<std::complex<double>>(args, rhs);
    }
  } catch (const std::exception& e) {
    return failure("pscr-solve", e);
  }
  return 1;
}
