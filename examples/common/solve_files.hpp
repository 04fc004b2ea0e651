// What pscr-solve and pscr-solve-mpi share: their options, the NumPy files
// of a separable system, and the report they print.
#pragma once
#include <algorithm>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <initializer_list>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "pscr/npy.hpp"
#include "pscr/pscr.hpp"

namespace pscr::solve_files {

struct Usage : std::runtime_error { using std::runtime_error::runtime_error; };

inline const char* kOptions =
    "--A1 F --M1 F --A2 F --M2 F [--A3 F --M3 F] --rhs F --out F\n"
    "                  [--c VALUE] [--radix Q] [--backend reference|opencl] [--device SEL] [--threads N]\n"
    "                  [--refine K]  (K steps of iterative refinement, 0 ... 10: recovers the digits\n"
    "                  that a plan's accuracy warning says a solve loses)\n"
    "                  [--periodic D[,D...]]  (periodic dimensions, 1-based: their factor files'\n"
    "                  row 1 holds the corner, row n-1 with row 0, in its last entry; n >= 3)\n"
    "                  [--repeat K]  (K more solves of the same right-hand side after the first,\n"
    "                  0 ... 1000: their median time is reported)\n"
    "  VALUE is a real number or a complex one written as 1.5+2j, (1.5+2j) or (1.5,2)\n";

// --key value or --key=value pairs (the latter for values that begin with
// a minus: --c=-1.5 as well as --c -1.5), each key once; --help returns an
// empty map with help set.
// extra: options of one program beside the common ones.
inline std::map<std::string, std::string> parse_args(int argc, char** argv, bool& help,
                                                     std::initializer_list<const char*> extra = {}) {
  std::map<std::string, std::string> args;
  help = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") { help = true; return args; }
    if (a.rfind("--", 0) != 0 || a.size() == 2) throw Usage("unexpected argument '" + a + "'");
    const std::size_t eq = a.find('=');
    std::string key = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2), value;
    if (eq != std::string::npos) {
      value = a.substr(eq + 1);
    } else {
      if (i + 1 >= argc) throw Usage("--" + key + " needs a value");
      value = argv[++i];
    }
    if (!args.emplace(key, value).second) throw Usage("--" + key + " given twice");
  }
  static const char* known[] = {"A1", "M1", "A2", "M2", "A3", "M3", "rhs", "out", "c", "radix", "backend", "device", "threads", "refine", "periodic", "repeat"};
  for (auto& [k, v] : args)
    if (std::find(std::begin(known), std::end(known), k) == std::end(known) &&
        std::find_if(extra.begin(), extra.end(), [&](const char* e) { return k == e; }) == extra.end())
      throw Usage("unknown option --" + k);
  for (const char* k : {"A1", "M1", "A2", "M2", "rhs", "out"})
    if (!args.count(k)) throw Usage(std::string("missing --") + k);
  if (args.count("A3") != args.count("M3")) throw Usage("--A3 and --M3 go together");
  return args;
}

inline int dims_of(const std::map<std::string, std::string>& args) { return args.count("A3") ? 3 : 2; }

// An integer option in [lo, hi]; Usage (not an exit: over MPI every rank
// reads the same arguments, and only the first failing rank reports).
// accepts: what the message says is accepted (default "an integer from lo to hi")
inline int int_option(const std::map<std::string, std::string>& args, const char* key, long lo, long hi, int otherwise,
                      const std::string& accepts = "") {
  if (!args.count(key)) return otherwise;
  const std::string& text = args.at(key);
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < lo || v > hi)
    throw Usage(std::string("--") + key + " needs " +
                (accepts.empty() ? "an integer from " + std::to_string(lo) + " to " + std::to_string(hi) : accepts) +
                ", got '" + text + "'");
  return int(v);
}

inline int repeat_of(const std::map<std::string, std::string>& args) { return int_option(args, "repeat", 0, 1000, 0); }
inline double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

inline std::complex<double> parse_c(const std::string& s) {
  std::string t;
  for (char ch : s) if (ch != ' ') t += ch;
  double re = 0, im = 0;
  char tail = 0;
  // std::stod, a value beyond double's range named as such
  const auto number = [&](const std::string& text, std::size_t* used) {
    try {
      return std::stod(text, used);
    } catch (const std::out_of_range&) {
      throw Usage("--c: '" + s + "' is out of the range of double");
    }
  };
  // Python's str(complex): "(-50+1j)", the parentheses around the j form
  if (t.size() > 2 && t.front() == '(' && t.back() == ')' && t.find(',') == std::string::npos)
    t = t.substr(1, t.size() - 2);
  if (!t.empty() && t.front() == '(') {
    if (std::sscanf(t.c_str(), "(%lf,%lf)%c", &re, &im, &tail) == 2) return {re, im};
  } else if (!t.empty() && (t.back() == 'j' || t.back() == 'i')) {
    std::size_t pos = t.size() - 1;
    // split at the last sign that is not an exponent sign
    std::size_t split = std::string::npos;
    for (std::size_t i = pos; i-- > 1;)
      if ((t[i] == '+' || t[i] == '-') && t[i - 1] != 'e' && t[i - 1] != 'E') { split = i; break; }
    try {
      if (split == std::string::npos) return {0, number(t.substr(0, pos), nullptr)};
      std::size_t u1, u2;
      re = number(t.substr(0, split), &u1);
      std::string ims = t.substr(split, pos - split);
      im = (ims == "+" || ims == "-") ? (ims == "+" ? 1 : -1) : number(ims, &u2);
      if (u1 == split) return {re, im};
    } catch (const std::invalid_argument&) {
    }
  } else {
    try {
      std::size_t used;
      re = number(t, &used);
      if (used == t.size()) return {re, 0};
    } catch (const std::invalid_argument&) {
    }
  }
  throw Usage("--c: cannot parse '" + s + "' as a number");
}

// --periodic "1,3": the periodic dimensions (1-based), each named once.
inline std::vector<bool> periodic_dims(const std::map<std::string, std::string>& args, int dims) {
  std::vector<bool> out(std::size_t(dims), false);
  if (!args.count("periodic")) return out;
  std::stringstream ss(args.at("periodic"));
  std::string item;
  const std::string& text = args.at("periodic");
  if (text.empty() || text.back() == ',') throw Usage("--periodic: '" + text + "' names no dimension after a comma or none at all");
  while (std::getline(ss, item, ',')) {
    if (item.size() != 1 || item[0] < '1' || item[0] > char('0' + dims))
      throw Usage("--periodic: '" + item + "' is not a dimension 1 ... " + std::to_string(dims));
    if (out[std::size_t(item[0] - '1')]) throw Usage("--periodic: dimension " + item + " named twice");
    out[std::size_t(item[0] - '1')] = true;
  }
  return out;
}

template <class T>
pscr::Factor<T> load_factor(const std::map<std::string, std::string>& args, int d, pscr::npy::DType dtype,
                            bool periodic = false) {
  pscr::Factor<T> f;
  for (int which = 0; which < 2; ++which) {
    const std::string key = (which == 0 ? "A" : "M") + std::to_string(d);
    const std::string& path = args.at(key);
    const auto a = pscr::npy::load(path);
    if (a.dtype != dtype)
      throw pscr::FileFormatError(path + ": dtype " + pscr::npy::dtype_name(a.dtype) + " differs from the rhs dtype " +
                                  pscr::npy::dtype_name(dtype) + " (all arrays must share one dtype)");
    if (a.shape.size() != 2 || a.shape[0] != 2 || a.shape[1] == 0)
      throw pscr::FileFormatError(path + ": a factor matrix must be a (2, n) array with n >= 1");
    const std::size_t n = a.shape[1];
    const auto v = a.as<T>();
    // row 1: the off-diagonal, and a periodic factor's corner last
    pscr::Tridiagonal<T> t(std::vector<T>(v.begin(), v.begin() + n),
                           std::vector<T>(v.begin() + n, v.begin() + 2 * n - (periodic ? 0 : 1)));
    // a corner given for a dimension that is not --periodic would be dropped
    if (!periodic && v[2 * n - 1] != T(0))
      throw pscr::FileFormatError(path + ": row 1 ends in a non-zero corner entry, but dimension " +
                                  std::to_string(d) + " is not periodic (--periodic " + std::to_string(d) +
                                  " makes it so; a 0 there leaves it as it is)");
    (which == 0 ? f.A : f.M) = std::move(t);
  }
  return f;
}


// The problem of the factor files and --c, checked against the rhs shape
// (n1, n2[, n3]) with an optional leading batch axis.
template <class T>
pscr::Problem<T> load_problem(const std::map<std::string, std::string>& args, const std::vector<std::size_t>& rhs_shape,
                              pscr::npy::DType dtype, std::size_t& batch) {
  const int dims = dims_of(args);
  std::vector<pscr::Factor<T>> factors;
  const std::vector<bool> periodic = periodic_dims(args, dims);
  for (int d = 1; d <= dims; ++d) factors.push_back(load_factor<T>(args, d, dtype, periodic[std::size_t(d - 1)]));
  std::complex<double> cz = args.count("c") ? parse_c(args.at("c")) : 0.0;
  T c;
  if constexpr (pscr::is_complex_v<T>) c = T(cz.real(), cz.imag());
  else {
    if (cz.imag() != 0) throw Usage("--c is complex but the arrays are real (" + std::string(pscr::scalar_name<T>()) + ")");
    c = T(cz.real());
  }
  pscr::Problem<T> problem(std::move(factors), c);
  batch = 1;
  std::vector<std::size_t> expect;
  for (int d = 0; d < dims; ++d) expect.push_back(problem.size(d));
  std::vector<std::size_t> shape = rhs_shape;
  if (shape.size() == expect.size() + 1) { batch = shape[0]; shape.erase(shape.begin()); }
  if (shape != expect) {
    // as NumPy writes shapes: (150, 126), (5,)
    const auto tuple = [](const std::vector<std::size_t>& v) {
      std::ostringstream t;
      t << "(";
      for (std::size_t i = 0; i < v.size(); ++i) t << (i ? ", " : "") << v[i];
      t << (v.size() == 1 ? ",)" : ")");
      return t.str();
    };
    throw pscr::SizeMismatch(args.at("rhs") + ": rhs shape " + tuple(rhs_shape) + " does not match the factor sizes " +
                             tuple(expect) + " with an optional leading batch axis");
  }
  return problem;
}

inline pscr::Options load_options(const std::map<std::string, std::string>& args) {
  pscr::Options o;
  // q = 1 passes to the plan, which says why it needs q >= 2
  o.radix = int_option(args, "radix", 0, 1 << 20, o.radix, "0 (automatic) or a radix q from 2 to 1048576");
  o.threads = int_option(args, "threads", 0, pscr::kMaxThreads, o.threads);
  if (args.count("device")) o.device = args.at("device");
  o.refine = int_option(args, "refine", 0, 10, o.refine);
  if (args.count("backend")) {
    const auto& b = args.at("backend");
    if (b == "reference") o.backend = pscr::Backend::reference;
    else if (b == "opencl") o.backend = pscr::Backend::opencl;
    else throw Usage("--backend must be 'reference' or 'opencl', got '" + b + "'");
  }
  return o;
}

// The largest relative residual of the batch's solutions u against what the
// plan solved: f, or for pure-Neumann problems its compatible part
// f_c = f − mean(f) (docs/guide/problems.md, "Pure Neumann"; against f itself a correct
// solve would show the incompatible part, which the report gives apart).
template <class T>
double solved_residual(const pscr::Problem<T>& problem, bool pure_neumann, const T* f, const T* u, std::size_t batch) {
  const std::size_t N = problem.unknowns();
  std::vector<T> fc(pure_neumann ? N : 0);
  double worst = 0;
  for (std::size_t b = 0; b < batch; ++b) {
    const T* fb = f + b * N;
    if (pure_neumann) {
      pscr::wide_t<T> sum = 0;  // in double, as the plan's projection
      for (std::size_t i = 0; i < N; ++i) sum += pscr::wide_t<T>(fb[i]);
      const T mean = T(sum / double(N));
      for (std::size_t i = 0; i < N; ++i) fc[i] = fb[i] - mean;
      fb = fc.data();
    }
    worst = std::max(worst, problem.relative_residual(fb, u + b * N));
  }
  return worst;
}

// The report both programs print; residual: solved_residual; asked_radix:
// --radix as given (0: automatic), so that a radix the plan did not run as
// given is said (a plan without reduction levels has none).
template <class T>
void report(const pscr::Problem<T>& problem, std::size_t batch, const pscr::PlanInfo& info,
            const pscr::SolveStats& st, double residual, int asked_radix) {
  const int dims = problem.dims();
  std::printf("problem: %dD %s, n = ", dims, pscr::scalar_name<T>());
  for (int d = 0; d < dims; ++d) std::printf(d ? " x %zu" : "%zu", problem.size(d));
  if (info.radix > 0) std::printf(", batch %zu, radix %d, backend %s\n", batch, info.radix, info.backend.c_str());
  else std::printf(", batch %zu, no reduction levels, backend %s\n", batch, info.backend.c_str());
  std::string methods;  // how each dimension was taken
  for (auto& m : info.dimension_methods) methods += (methods.empty() ? "" : ", ") + m;
  std::printf("methods: %s\n", methods.c_str());
  if (asked_radix > 0 && info.radix <= 0)
    std::printf("note: --radix %d is not used: no dimension takes the reduction's levels\n", asked_radix);
  else if (asked_radix > 0 && info.radix != asked_radix)
    std::printf("note: --radix %d ran as radix %d (the same levels: docs/method.md, choosing the radix)\n",
                asked_radix, info.radix);
  std::printf("init time: %.6f s\nsolve time: %.6f s\ntransfer time: %.6f s\n", info.init_seconds, st.seconds,
              st.transfer_seconds);
  if (batch == 0) std::printf("relative residual: none (empty batch: nothing solved)\n");
  else if (info.pure_neumann) std::printf("relative residual: %.3e (against the compatible part f - mean(f))\n", residual);
  else std::printf("relative residual: %.3e\n", residual);
  // how much nearer to singular the partial solutions' shifted systems come
  // than the operator (1: definite; errors grow by its square, docs/accuracy.md),
  // and how much the lines' unpivoted eliminations grow (1: nothing grows)
  std::printf("shift amplification: %.3g\nelimination growth: %.3g\npredicted error: %.3g\n",
              info.shift_amplification, info.elimination_growth, info.predicted_error);
  if (!st.warning.empty()) std::printf("warning: %s\n", st.warning.c_str());
  if (info.pure_neumann)
    std::printf("pure Neumann: removed incompatible part %.3e (relative); solution has zero weighted mean\n",
                st.incompatible_part);
}

// Exit status of an exception: 2 for bad input, 1 for anything else.
// extra_options: the program's own options, after the common ones in its usage
inline int failure(const char* program, const std::exception& e, const char* extra_options = "") {
  if (dynamic_cast<const Usage*>(&e)) {
    std::cerr << program << ": " << e.what() << "\nusage: " << program << " " << kOptions << extra_options;
    return 2;
  }
  if (dynamic_cast<const pscr::Error*>(&e)) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return 2;
  }
  if (dynamic_cast<const std::invalid_argument*>(&e)) {
    std::cerr << program << ": error: bad number in an option (" << e.what() << ")\n";
    return 2;
  }
  std::cerr << program << ": internal error: " << e.what() << "\n";
  return 1;
}

}  // namespace pscr::solve_files
