// pscr-tune: discrete differential evolution over pscr::KernelParameters for
// one device and one problem class, writing the JSON tuning file that plans
// load (merged into an existing file).
//
//   pscr-tune [--dim 2|3] [--type double|float|complex-double|complex-float]
//             [--n N] [--range MIN:MAX] [--device SEL] [--budget SECONDS]
//             [--evals MAX] [--population P] [--seed S] [--reps R]
//             [--fix KEY=VALUE,...] [--start defaults|database] [--out FILE]
//
// The problem tuned on is Poisson (real types) or Helmholtz (complex types)
// on a uniform n^dim mesh; the entry written covers largest dimensions in
// MIN..MAX (default: all). Each parameter is searched over its table range
// (powers of two where the table says so); one that does not take effect on
// the class's plans, or not with the other values of a candidate
// (pscr::parameter_applies: rhs_apart in 3D, line_group without whole lines,
// ...), holds its default (search_space.hpp); a candidate the device cannot run
// (work-group size, local memory) is repaired before it is ever timed, and a
// candidate already timed is not timed again. The default parameters are in
// the first population, so the result is never a candidate slower than the
// defaults were measured. The seed fixes the random choices; which candidate
// wins still depends on the measured times.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../examples/common/cli.hpp"
#include "pscr/opencl.hpp"
#include "pscr/pscr.hpp"
#include "pscr/tuning.hpp"
#include "search_space.hpp"

namespace {

using pscr::tune::Genome;
using clk = std::chrono::steady_clock;
double since(clk::time_point t) { return std::chrono::duration<double>(clk::now() - t).count(); }

struct Config {
  int dim = 2, n = 0, population = 12, reps = 5;
  std::string type = "double", device, out = "pscr-tuning.json";
  std::size_t min_n = 0, max_n = std::numeric_limits<std::size_t>::max();
  double budget = 300;
  int evals = 1000;
  unsigned long long seed = 1;
  std::vector<std::pair<std::string, int>> fix;  // parameters held at one value
  bool from_database = false;  // start from (and compare against) the entry plans resolve now, not the defaults
};

const char* kTool = "pscr-tune";
const char* kUsage =
    "usage: pscr-tune [--dim 2|3] [--type double|float|complex-double|complex-float] [--n N]\n"
    "                 [--device SEL] [--budget SECONDS] [--evals E] [--population P] [--seed S]\n"
    "                 [--reps R] [--range MIN:MAX] [--fix KEY=VALUE,...] [--start defaults|database]\n"
    "                 [--out FILE]\n"
    "Searches the KernelParameters table by discrete differential evolution for one device and\n"
    "problem class and writes (merging) the tuning JSON that plans read. Parameters that do not\n"
    "take effect on the class's plans (rhs_apart in 3D, ...) hold their defaults; --fix refuses them.\n";
[[noreturn]] void usage(const std::string& why) { pscr::cli::usage(kTool, why); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

class Progress {
 public:
  Progress(double budget, int evals) : budget_(budget), evals_(evals), t0_(clk::now()) {}
  void show(int done, double best, double def) const {
    const double f = std::min(1.0, std::max(since(t0_) / budget_, double(done) / evals_));
    const int w = 30, filled = int(f * w);
    std::fprintf(stderr, "\r[%s%s] %3d%%  %4d timed  best %.4f ms  start %.4f ms ", std::string(filled, '#').c_str(),
                 std::string(w - filled, '.').c_str(), int(100 * f), done, 1e3 * best, 1e3 * def);
    std::fflush(stderr);
  }
  bool over(int done) const { return since(t0_) >= budget_ || done >= evals_; }

 private:
  double budget_;
  int evals_;
  clk::time_point t0_;
};

template <class T> pscr::Problem<T> make_problem(const Config& c) {
  if constexpr (pscr::is_complex_v<T>) {
    const auto x = pscr::graded_mesh(c.n, 1.0, 1.0);
    auto p = c.dim == 2 ? pscr::helmholtz2d(x, x, 40.0) : pscr::helmholtz3d(x, x, x, 40.0);
    return p.template cast<T>();
  } else {
    const auto x = pscr::graded_mesh(c.n + 2, 1.0, 1.0);
    auto p = c.dim == 2 ? pscr::poisson2d(x, x) : pscr::poisson3d(x, x, x);
    return p.template cast<T>();
  }
}

// Whether the plan's device takes register caps (cl_nv_compiler_options);
// elsewhere register_cap is ignored and the search holds it at 0.
template <class T> bool takes_register_caps(const pscr::Plan<T>& plan) {
  cl_device_id dev = nullptr;
  std::size_t size = 0;
  if (clGetCommandQueueInfo(pscr::opencl::queue(plan), CL_QUEUE_DEVICE, sizeof dev, &dev, nullptr) != CL_SUCCESS ||
      clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, nullptr, &size) != CL_SUCCESS)
    return false;
  std::string ext(size, '\0');
  if (clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, size, ext.data(), nullptr) != CL_SUCCESS) return false;
  return ext.find("cl_nv_compiler_options") != std::string::npos;
}

template <class T> int tune(Config c) {
  const auto problem = make_problem<T>(c);
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  o.device = c.device;
  o.parameters = pscr::KernelParameters{};
  pscr::Plan<T> plan(problem, o);
  if (!takes_register_caps(plan) &&
      std::none_of(c.fix.begin(), c.fix.end(), [](const auto& f) { return f.first == "register_cap"; }))
    c.fix.emplace_back("register_cap", 0);
  // the starting point and anchor: the defaults, or what plans resolve now
  // (the tuning file, else the shipped database)
  pscr::KernelParameters start;
  if (c.from_database) {
    pscr::Options resolved = o;
    resolved.parameters.reset();
    start = pscr::Plan<T>(problem, resolved).info().parameters;
  }
  for (const auto& [key, value] : c.fix)
    for (const auto& e : pscr::parameter_table())
      if (key == e.name) start.*(e.member) = value;
  const std::string device = plan.info().device;
  const std::string cls = pscr::problem_class(c.dim, pscr::is_complex_v<T>, std::is_same_v<pscr::real_t<T>, double>);
  std::printf("pscr-tune: %s, class %s, n = %d (entry for n in %zu..%s), seed %llu\n", plan.info().backend.c_str(),
              cls.c_str(), c.n, c.min_n,
              c.max_n == std::numeric_limits<std::size_t>::max() ? "any" : std::to_string(c.max_n).c_str(), c.seed);
  std::vector<T> f(problem.unknowns());
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = T(std::sin(0.37 * double(i)) + 0.1);

  const pscr::tune::SearchSpace space = pscr::tune::search_space(c.dim, c.fix);
  const std::size_t D = space.values.size();
  auto decode = [&](const Genome& g) { return space.decode(g); };
  std::mt19937_64 rng(c.seed);
  std::map<Genome, double> timed;  // every candidate timed so far
  std::set<Genome> refused;        // candidates a rebuilt program could not run
  int rejected = 0;
  auto feasible = [&](const Genome& g) {
    return !refused.count(g) && plan.check_parameters(decode(g)).empty();
  };
  auto measure = [&](const Genome& g) {
    auto it = timed.find(g);
    if (it != timed.end()) return it->second;
    try {
      plan.set_parameters(decode(g));
    } catch (const pscr::Error& e) {
      // a program built with other options can have a smaller work-group
      // limit than check_parameters saw, and an indefinite problem's shifted
      // systems can be hopeless at another radix (docs/accuracy.md section
      // 8): refused before any timing
      if (!dynamic_cast<const pscr::InvalidArgument*>(&e) && !dynamic_cast<const pscr::NumericalBreakdown*>(&e)) throw;
      refused.insert(g);
      ++rejected;
      return std::numeric_limits<double>::infinity();
    }
    const double t = median(pscr::opencl::time_solves(plan, f.data(), c.reps));
    timed[g] = t;
    return t;
  };
  auto random_genome = [&] {
    for (;;) {
      Genome g(D);
      for (std::size_t i = 0; i < D; ++i) g[i] = int(rng() % space.values[i].size());
      g = space.canonical(std::move(g));
      if (feasible(g)) return g;
      ++rejected;
    }
  };

  const Genome defaults = space.encode(start);
  Progress bar(c.budget, c.evals);
  const double t_default = measure(defaults);
  std::vector<Genome> pop{defaults};
  std::vector<double> fit{t_default};
  while (int(pop.size()) < c.population && !bar.over(int(timed.size()))) {
    pop.push_back(random_genome());
    fit.push_back(measure(pop.back()));
    bar.show(int(timed.size()), *std::min_element(fit.begin(), fit.end()), t_default);
  }
  // rand/1/bin on the value indices: v = x_r1 + F (x_r2 − x_r3), rounded and
  // clamped; an infeasible trial is drawn again (at most 20 times, then a
  // random feasible one), so no evaluation is spent on it.
  const double F = 0.6, CR = 0.7;
  const int NP = int(pop.size());
  int generations = 0;
  while (NP >= 4 && !bar.over(int(timed.size()))) {
    for (int i = 0; i < NP && !bar.over(int(timed.size())); ++i) {
      Genome trial;
      for (int attempt = 0;; ++attempt) {
        if (attempt == 20) {
          trial = random_genome();
          break;
        }
        int r1, r2, r3;
        do r1 = int(rng() % NP); while (r1 == i);
        do r2 = int(rng() % NP); while (r2 == i || r2 == r1);
        do r3 = int(rng() % NP); while (r3 == i || r3 == r1 || r3 == r2);
        trial = pop[i];
        const std::size_t forced = rng() % D;
        for (std::size_t j = 0; j < D; ++j) {
          if (j != forced && std::uniform_real_distribution<double>(0, 1)(rng) >= CR) continue;
          const double v = pop[r1][j] + F * (pop[r2][j] - pop[r3][j]);
          trial[j] = std::clamp(int(std::lround(v)), 0, int(space.values[j].size()) - 1);
        }
        trial = space.canonical(std::move(trial));
        if (feasible(trial)) break;
        ++rejected;
      }
      const double t = measure(trial);
      if (t <= fit[i]) {
        pop[i] = trial;
        fit[i] = t;
      }
      bar.show(int(timed.size()), *std::min_element(fit.begin(), fit.end()), t_default);
    }
    ++generations;
  }
  std::fprintf(stderr, "\n");
  const Genome best = pop[std::size_t(std::min_element(fit.begin(), fit.end()) - fit.begin())];

  // Final comparison: best and start timed alternately, so drift on a
  // shared machine affects both alike.
  std::vector<double> tb, td;
  for (int round = 0; round < 5; ++round) {
    plan.set_parameters(decode(best));
    tb.push_back(median(pscr::opencl::time_solves(plan, f.data(), c.reps)));
    plan.set_parameters(decode(defaults));
    td.push_back(median(pscr::opencl::time_solves(plan, f.data(), c.reps)));
  }
  const double best_s = median(tb), default_s = median(td);
  // as the plan runs them: a value a plan overrides (dense_top where the
  // tuned problem's dimensions are all transforms, sine_halves where a column
  // needs them) is written as it ran, so that the entry reads back the same
  plan.set_parameters(decode(best));
  const pscr::KernelParameters bp = plan.info().parameters;
  plan.set_parameters(decode(defaults));
  const pscr::KernelParameters dp = plan.info().parameters;
  std::printf("%d candidates timed in %d generations (%d infeasible draws repaired, none timed)\n", int(timed.size()),
              generations, rejected);
  const char* anchor = c.from_database ? "database" : "defaults";
  std::printf("%-16s %8s %8s\n", "parameter", c.from_database ? "start" : "default", "best");
  for (const auto& e : pscr::parameter_table())
    std::printf("%-16s %8d %8d%s\n", e.name, dp.*(e.member), bp.*(e.member), dp.*(e.member) != bp.*(e.member) ? "  *" : "");
  std::printf("solve median: %s %.4f ms, best %.4f ms, gain %+.1f %%\n", anchor, 1e3 * default_s, 1e3 * best_s,
              100 * (default_s / best_s - 1));

  pscr::TuningEntry e;
  e.device = device;
  e.architecture = plan.info().device_architecture;
  e.problem_class = cls;
  e.min_n = c.min_n;
  e.max_n = c.max_n;
  // Keep the start when the winner does not hold up in the final comparison.
  e.parameters = best_s < default_s ? bp : dp;
  e.seconds = std::min(best_s, default_s);
  e.default_seconds = default_s;
  if (!(best_s < default_s))
    std::printf("the best candidate did not beat the %s in the final comparison: the entry keeps them\n", anchor);
  pscr::write_tuning(c.out, {e});
  std::printf("wrote %s: %s %s -> %s\n", c.out.c_str(), device.c_str(), cls.c_str(), pscr::to_string(e.parameters).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  pscr::cli::help(argc, argv, kUsage);
  Config c;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    auto num = [&](double lo) {
      const std::string s = val();
      const double v = pscr::cli::number(kTool, a, s);
      if (!(v >= lo)) usage(a + " needs a number >= " + std::to_string(int(lo)) + ", got '" + s + "'");
      return v;
    };
    // whole numbers in range: 2.5 or 99999999999 are refused, not truncated
    auto whole = [&](long lo, long hi) { return pscr::cli::integer(kTool, a, val(), lo, hi); };
    if (a == "--dim") c.dim = int(whole(2, 3));
    else if (a == "--type") c.type = val();
    else if (a == "--n") c.n = int(whole(1, 1 << 20));
    else if (a == "--device") c.device = val();
    else if (a == "--budget") c.budget = num(0);
    else if (a == "--evals") c.evals = int(whole(1, 1000000));
    else if (a == "--population") c.population = int(whole(4, 10000));
    else if (a == "--seed") c.seed = (unsigned long long)whole(0, 1L << 48);
    else if (a == "--reps") c.reps = int(whole(1, 1000000));
    else if (a == "--out") c.out = val();
    else if (a == "--start") {
      const std::string v = val();
      if (v != "defaults" && v != "database") usage("--start must be defaults or database, got '" + v + "'");
      c.from_database = v == "database";
    } else if (a == "--fix") {
      for (const std::string& kv : pscr::cli::split(val())) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos) usage("--fix needs KEY=VALUE, got '" + kv + "'");
        const std::string key = kv.substr(0, eq);
        const auto& table = pscr::parameter_table();
        const auto e = std::find_if(table.begin(), table.end(), [&](const auto& t) { return key == t.name; });
        if (e == table.end()) usage("--fix: unknown parameter '" + key + "'");
        c.fix.emplace_back(key, int(pscr::cli::integer(kTool, "--fix " + key, kv.substr(eq + 1), e->min, e->max)));
      }
    }
    else if (a == "--range") {
      const std::string r = val();
      const auto colon = r.find(':');
      if (colon == std::string::npos) usage("--range needs MIN:MAX (either may be empty)");
      const std::string lo = r.substr(0, colon), hi = r.substr(colon + 1);
      if (!lo.empty()) c.min_n = std::size_t(pscr::cli::integer(kTool, "--range MIN", lo, 0, 1L << 40));
      if (!hi.empty()) c.max_n = std::size_t(pscr::cli::integer(kTool, "--range MAX", hi, 0, 1L << 40));
      if (c.min_n > c.max_n) usage("--range: MIN > MAX");
    } else usage("unknown argument '" + a + "'");
  }
  if (c.dim != 2 && c.dim != 3) usage("--dim must be 2 or 3");
  const std::string unused = pscr::tune::held_value_unused(c.dim, c.fix);
  if (!unused.empty()) usage("--fix " + unused);
  if (c.n == 0) c.n = c.dim == 2 ? 1023 : 127;
  try {
    if (c.type == "double") return tune<double>(c);
    if (c.type == "float") return tune<float>(c);
    if (c.type == "complex-double") return tune<std::complex<double>>(c);
    if (c.type == "complex-float") return tune<std::complex<float>>(c);
    usage("--type must be double, float, complex-double or complex-float");
  } catch (const pscr::Error& e) {
    std::fprintf(stderr, "\npscr-tune: %s\n", e.what());
    return 1;
  }
}
