#include "pscr/parameters.hpp"

#include <sstream>

#include "pscr/errors.hpp"

namespace pscr {

const std::vector<ParameterInfo>& parameter_table() {
  using P = KernelParameters;
  static const std::vector<ParameterInfo> table = {
      {"work_group", &P::work_group, 1, 1024, true, "work-items per group, element-wise kernels"},
      {"sum_work_group", &P::sum_work_group, 1, 1024, true, "work-items per group, weighted vector sums"},
      {"sum_terms", &P::sum_terms, 1, 4096, true, "terms per work-item before a sum is split"},
      {"cr_work_group", &P::cr_work_group, 1, 1024, true, "lines per group, global CR stages"},
      {"local_size", &P::local_size, 4, 1024, true, "longest system solved in local memory"},
      {"local_lines", &P::local_lines, 1, 256, true, "lines per group, local-memory stage"},
      {"cr_two_levels", &P::cr_two_levels, 0, 1, false, "1: two global CR levels per kernel"},
      {"pcr_steps", &P::pcr_steps, 0, 8, false, "PCR steps before Thomas in local memory"},
      {"newton_raphson", &P::newton_raphson, 0, 1, false, "Newton-Raphson reciprocal instead of division"},
      {"line_rows", &P::line_rows, 0, 32, false, "rows per work-item, whole lines on chip (0: global CR)"},
      {"halve_lines", &P::halve_lines, 0, 2, false, "lines past local memory: 1 halved on chip, 0 global CR, 2 always"},
      {"line_group", &P::line_group, 32, 1024, true, "work-items per group, whole lines on chip"},
      {"rhs_modes", &P::rhs_modes, 1, 16, true, "modes per work-item forming right-hand sides in a batch"},
      {"radix", &P::radix, 2, 16, false, "radix q of the reduction when Options::radix is 0"},
      {"halved_rows_once", &P::halved_rows_once, 0, 1, false, "1: halved lines form each row once (a barrier per pass)"},
      {"register_cap", &P::register_cap, 0, 255, false, "registers per work-item, NVIDIA compilers (0: theirs)"},
      {"rhs_apart", &P::rhs_apart, 0, 1, false, "1: 2D lines' right-hand sides formed apart by tiles of modes"},
      {"dense_top", &P::dense_top, 0, 2, false, "k: the first k leading dimensions in one level, dense eigenvector products"},
      {"transforms", &P::transforms, 0, 1, false, "1: uniform Dirichlet dimensions by fast sine transforms"},
      {"sine_group", &P::sine_group, 64, 1024, true, "work-items per group, sine transforms"},
      {"sine_halves", &P::sine_halves, 0, 1, false, "1: sine transforms exchange real and imaginary parts apart"},
      {"sine_split", &P::sine_split, 0, 1, false, "1: every sine transform of 64 or more in two halves"},
      {"tensor_cores", &P::tensor_cores, 0, 1, false, "1: real double dense products by FP64 tensor cores (NVIDIA 8.0+)"},
  };
  return table;
}

namespace {
// p: the other parameters' values, or null for "some values".
bool applies(const ParameterInfo& e, int dims, const KernelParameters* p) {
  using P = KernelParameters;
  const auto m = e.member;
  const bool lines = !p || p->line_rows > 0;  // whole lines on chip (TridiagonalSolver)
  if (m == &P::sine_group || m == &P::sine_halves || m == &P::sine_split) return !p || p->transforms == 1;
  if (m == &P::halve_lines || m == &P::line_group) return lines;
  if (m == &P::halved_rows_once) return lines && (!p || p->halve_lines > 0);
  // 3D's leaf lines come in batches (the modes of dimension 1): never apart
  if (m == &P::rhs_apart) return dims == 2 && lines;
  // tiles of modes: 3D's batches of nested problems, 2D's lines formed apart
  if (m == &P::rhs_modes) return dims == 3 || (lines && (!p || p->rhs_apart == 1));
  return true;
}
}  // namespace

bool parameter_applies(const ParameterInfo& e, int dims) { return applies(e, dims, nullptr); }
bool parameter_applies(const ParameterInfo& e, int dims, const KernelParameters& p) { return applies(e, dims, &p); }

void validate(const KernelParameters& p, const std::string& where) {
  for (const auto& e : parameter_table()) {
    const int v = p.*(e.member);
    if (v < e.min || v > e.max || (e.power_of_two && (v & (v - 1)) != 0)) {
      std::ostringstream os;
      os << where << ": " << e.name << " = " << v << " is out of range (" << e.min << " .. " << e.max
         << (e.power_of_two ? ", a power of two" : "") << ")";
      throw InvalidArgument(os.str());
    }
  }
}

bool operator==(const KernelParameters& a, const KernelParameters& b) {
  for (const auto& e : parameter_table())
    if (a.*(e.member) != b.*(e.member)) return false;
  return true;
}

std::string to_string(const KernelParameters& p) {
  std::ostringstream os;
  for (const auto& e : parameter_table()) os << (&e == &parameter_table().front() ? "" : " ") << e.name << '=' << p.*(e.member);
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const KernelParameters& p) { return os << to_string(p); }

}  // namespace pscr
