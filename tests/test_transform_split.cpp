// The transformed split (src/distributed/transform_split.hpp,
// kernels/partitioned_lines.cl): a solve split over devices by rows of
// dimension 1 whose other dimensions are sine or Fourier transforms. Each
// result is compared with a banded direct solve in double precision and with
// the plan on one device, on 1 … 4 PoCL devices (uneven slabs, slabs of two
// rows, slabs cut into parts), float and double, graded and uniform dimension 1, and the problems
// it leaves to the reduction's split (indefinite lines, too few lines).
#define BOOST_TEST_MODULE transform_split
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <tuple>

#include "distributed/transform_split.hpp"
#include "pscr/pscr.hpp"
#include "support.hpp"

namespace {

const std::string kPartitioned = "tridiagonal (partitioned over ranks)";

pscr::Options split_options(int devices) {
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  o.devices.assign(std::size_t(devices), "0:0");
  o.device_split = pscr::DeviceSplit::rows;
  return o;
}

// The split plan's error against the banded direct solve is at most four
// times the one-device plan's (and 20 ε where that is smaller): the
// partitioned lines lose no more than the whole ones.
template <class T>
void against_direct(const pscr::Problem<T>& p, int devices, const std::string& name, bool partitioned = true,
                    std::size_t count = 1) {
  pscr::Options one;
  one.backend = pscr::Backend::opencl;
  const pscr::Plan<T> single(p, one);
  const pscr::Plan<T> plan(p, split_options(devices));
  const auto& methods = plan.info().dimension_methods;
  BOOST_TEST((methods.front() == kPartitioned) == partitioned,
             name << " on " << devices << " devices: dimension 1 taken by " << methods.front());
  const auto f = test::random_vector<T>(p.unknowns() * count, 17);
  std::vector<T> a(f.size()), b(f.size());
  single.solve_batch(f.data(), a.data(), count);
  plan.solve_batch(f.data(), b.data(), count);
  const double eps = double(std::numeric_limits<pscr::real_t<T>>::epsilon());
  for (std::size_t c = 0; c < count; ++c) {
    const std::vector<T> fc(f.begin() + c * p.unknowns(), f.begin() + (c + 1) * p.unknowns());
    const auto ref = test::band_solve(p, fc);
    const std::vector<T> ac(a.begin() + c * p.unknowns(), a.begin() + (c + 1) * p.unknowns());
    const std::vector<T> bc(b.begin() + c * p.unknowns(), b.begin() + (c + 1) * p.unknowns());
    const double e_single = test::rel_error(ac, ref), e_split = test::rel_error(bc, ref);
    BOOST_TEST(e_split <= 4 * std::max(e_single, 20 * eps),
               name << " on " << devices << " devices, right-hand side " << c << ": error " << e_split
                    << " against the direct solve, one device's " << e_single);
  }
}

// n unknowns on a uniform or graded mesh
std::vector<double> uniform(int n) { return pscr::graded_mesh(n + 2, 1.0, 1.0); }
std::vector<double> graded(int n) { return pscr::graded_mesh(n + 2, 1.0, 1.15); }

}  // namespace

BOOST_AUTO_TEST_CASE(two_dimensions) {
  // dimension 1 graded (any tridiagonal pencil), dimension 2 a sine transform
  const auto p = pscr::poisson2d(graded(30), uniform(63));
  // one device: the plan of one device (dimension 1 graded: the reduction)
  against_direct(p, 1, "2D double", false);
  for (int devices : {2, 3, 4}) against_direct(p, devices, "2D double");
  for (int devices : {2, 3}) against_direct(p.cast<float>(), devices, "2D float");
  // partitioned lines along a strongly graded mesh in float: rows short of
  // zero excess by their rounding are taken as they are (they were lifted
  // to zero, and the split lost 4.7e-4 against one device's 5.8e-7)
  against_direct(pscr::poisson2d(pscr::graded_mesh(302, 1.0, 1.02), uniform(31)).cast<float>(), 2,
                 "2D float, lines along a graded mesh");
  against_direct(p, 3, "2D double, a batch of 3", true, 3);
  // slabs of two rows each; too few rows for that, or too few lines for
  // the rows of a part (distributed::kTransformSplitLinesPerRow): the
  // reduction's split
  against_direct(pscr::poisson2d(uniform(6), uniform(15)), 3, "2D 6 rows");
  against_direct(pscr::poisson2d(uniform(5), uniform(15)), 3, "2D 5 rows", false);
  against_direct(pscr::poisson2d(uniform(30), uniform(15)), 2, "2D 15 lines, slabs of 15 rows in 7 parts");
  against_direct(pscr::poisson2d(uniform(30), uniform(7)), 2, "2D 7 lines, parts of 3 rows", false);
}

// Slabs cut into parts (distributed::transform_split_parts): as many as give
// a device its work-items, each at least two rows, at most
// kTransformSplitMaxParts in all; the bounds cover every row once, slab by slab.
BOOST_AUTO_TEST_CASE(parts_of_slabs) {
  using pscr::distributed::kTransformSplitMaxParts;
  using pscr::distributed::partition_bounds;
  using pscr::distributed::transform_split_parts;
  BOOST_TEST(transform_split_parts(8191, 8191, 2) == 16);    // 16 · 8191 lines ≥ 2^17 work-items
  BOOST_TEST(transform_split_parts(511, 261121, 4) == 1);    // lines enough
  BOOST_TEST(transform_split_parts(30, 63, 2) == 7);         // parts of two rows (15 a slab)
  BOOST_TEST(transform_split_parts(8191, 100, 4) == int(kTransformSplitMaxParts / 4));
  BOOST_TEST(transform_split_parts(5, 100, 2) == 1);
  for (const auto& [n1, ranks, parts] : {std::tuple{30, 2, 7}, {8191, 3, 16}, {9, 4, 1}, {101, 7, 5}}) {
    const auto b = partition_bounds(std::size_t(n1), ranks, parts);
    BOOST_TEST_REQUIRE(b.size() == std::size_t(ranks * parts + 1));
    BOOST_TEST(b.front() == 0u);
    BOOST_TEST(b.back() == std::size_t(n1));
    for (int r = 0; r < ranks; ++r)
      BOOST_TEST(b[std::size_t(r * parts)] == pscr::slab_rows(std::size_t(n1), ranks, r).begin);
    for (std::size_t q = 0; q + 1 < b.size(); ++q)
      BOOST_TEST(b[q + 1] - b[q] >= std::size_t(n1 / ranks / parts), "part " << q << " of " << n1);
  }
  // the plan says how many parts a rank eliminates
  const pscr::Plan<double> plan(pscr::poisson2d(uniform(30), uniform(63)), split_options(2));
  BOOST_TEST(plan.info().line_solver == "partitioned over ranks, 7 parts each");
}

// Ranks of one process read each other's eliminated rows in place (2 rows
// per part, by every other rank's device); ranks that share no memory sum
// and send them. Both give the same answer, a batch included (the rows of
// one right-hand side stay in place while the next is eliminated), and the
// traffic says which rows move.
class MessagesOnly final : public pscr::Communicator {  // the local ranks' messages, without their memory
 public:
  explicit MessagesOnly(std::shared_ptr<pscr::Communicator> c) : c_(std::move(c)) {}
  int rank() const override { return c_->rank(); }
  int size() const override { return c_->size(); }
  void exchange(const std::vector<pscr::Transfer>& s, const std::vector<pscr::Transfer>& r) override {
    c_->exchange(s, r);
  }
  void sum(double* v, std::size_t n) override { c_->sum(v, n); }
  void max(double* v, std::size_t n) override { c_->max(v, n); }

 private:
  std::shared_ptr<pscr::Communicator> c_;
};

// By messages the rows go in four ranges of the lines (exchange_ranges:
// 16, 16, 16 and 15 of R = 63), each while the next is eliminated.
template <class T> void rows_in_place_and_by_messages() {
  const auto p = pscr::poisson2d(graded(30), uniform(63)).cast<T>();
  const int ranks = 3;
  const std::size_t count = 3, R = 63, n1 = 30;
  BOOST_TEST(pscr::distributed::exchange_ranges(R).size() == 4u);
  const int parts = pscr::distributed::transform_split_parts(n1, R, ranks);
  const auto f = test::random_vector<T>(p.unknowns() * count, 29);
  std::vector<T> in_place(f), messages(f);
  // no device selected before the threads: the ranks select theirs at once
  for (const bool share : {true, false}) {
    auto comms = pscr::local_communicators(ranks);
    std::vector<std::thread> threads;
    std::vector<std::string> failures(ranks);
    std::vector<pscr::DistributedInfo> infos(ranks);
    for (int r = 0; r < ranks; ++r)
      threads.emplace_back([&, r] {
        try {
          std::shared_ptr<pscr::Communicator> c = comms[std::size_t(r)];
          if (!share) c = std::make_shared<MessagesOnly>(c);
          pscr::Options o;
          o.backend = pscr::Backend::opencl;
          o.devices.assign(std::size_t(ranks), "0:0");  // rank r takes devices[r]
          pscr::DistributedPlan<T> plan(c, p, o);
          infos[std::size_t(r)] = plan.info();
          // this rank's rows of every right-hand side, solved in place
          const pscr::RowRange rows = plan.rows();
          std::vector<T> mine;
          for (std::size_t b = 0; b < count; ++b)
            mine.insert(mine.end(), f.begin() + long(b * n1 * R + rows.begin * R),
                        f.begin() + long(b * n1 * R + rows.end * R));
          plan.solve_batch(mine.data(), mine.data(), count);
          auto& out = share ? in_place : messages;
          for (std::size_t b = 0; b < count; ++b)
            std::copy(mine.begin() + long(b * rows.size() * R), mine.begin() + long((b + 1) * rows.size() * R),
                      out.begin() + long(b * n1 * R + rows.begin * R));
        } catch (const std::exception& e) {
          failures[std::size_t(r)] = e.what();
        }
      });
    for (auto& t : threads) t.join();
    for (const auto& e : failures) BOOST_TEST_REQUIRE(e.empty(), e);
    for (int r = 0; r < ranks; ++r) {
      const auto& info = infos[std::size_t(r)];
      BOOST_TEST(info.plan.dimension_methods.front() == kPartitioned);
      const std::size_t others = std::size_t(ranks - 1), before = r > 0 ? 1 : 0;
      const std::size_t rows_sent = share ? others * 2 * std::size_t(parts) : others * std::size_t(parts) + before;
      BOOST_TEST(info.bytes_per_solve == rows_sent * R * sizeof(T),
                 (share ? "in place" : "by messages") << ", rank " << r);
    }
  }
  BOOST_TEST(test::rel_error(in_place, messages) == 0.0, "the sums are the same either way");
  const double eps = double(std::numeric_limits<pscr::real_t<T>>::epsilon());
  for (std::size_t b = 0; b < count; ++b) {
    const std::vector<T> fb(f.begin() + long(b * p.unknowns()), f.begin() + long((b + 1) * p.unknowns()));
    const std::vector<T> ub(in_place.begin() + long(b * p.unknowns()), in_place.begin() + long((b + 1) * p.unknowns()));
    const double err = test::rel_error(ub, test::band_solve(p, fb));
    BOOST_TEST_MESSAGE(pscr::scalar_name<T>() << " right-hand side " << b << ": " << err / eps << " eps");
    BOOST_TEST(err <= 450 * eps, "right-hand side " << b);
  }
}

BOOST_AUTO_TEST_CASE(rows_in_place_and_by_messages_double) { rows_in_place_and_by_messages<double>(); }
BOOST_AUTO_TEST_CASE(rows_in_place_and_by_messages_float) { rows_in_place_and_by_messages<float>(); }

BOOST_AUTO_TEST_CASE(refinement) {
  // the Plan refines around the split's solves, as its accuracy warning
  // suggests: float solves, double residuals
  const auto p = pscr::poisson2d(graded(30), uniform(63)).cast<float>();
  pscr::Options o = split_options(2);
  const auto f = test::random_vector<float>(p.unknowns(), 5);
  const auto ref = test::band_solve(p, f);
  std::vector<float> plain(f.size()), refined(f.size());
  pscr::Plan<float>(p, o).solve(f.data(), plain.data());
  o.refine = 2;
  const pscr::Plan<float> plan(p, o);
  BOOST_TEST(plan.info().dimension_methods.front() == kPartitioned);
  plan.solve(f.data(), refined.data());
  const double e_plain = test::rel_error(plain, ref), e_refined = test::rel_error(refined, ref);
  // refined to the float rounding of the answer
  BOOST_TEST(e_refined <= 2 * double(std::numeric_limits<float>::epsilon()),
             "refined " << e_refined << ", one solve " << e_plain);
}

BOOST_AUTO_TEST_CASE(three_dimensions) {
  const auto p = pscr::poisson3d(uniform(21), uniform(15), uniform(7));
  for (int devices : {2, 4}) against_direct(p, devices, "3D double");
  against_direct(p.cast<float>(), 3, "3D float");
  against_direct(pscr::poisson3d(graded(13), uniform(7), uniform(15)), 2, "3D graded dimension 1");
}

// Rows longer than a sine-transform work-group holds (8191 in double, 16383
// in float on PoCL's 256 work-items, and four times a work-group): each
// row's transform split into a butterfly and two of half the length, the
// even half split again where still too long (contiguous lines), the modes
// in the split's order. The band of a direct solve is a row wide, so the
// answer is another backend's or plan's: the reference backend's reduction,
// or at 16383 in double (where the reference differs from every OpenCL plan
// by 1e-13, κ ≈ 1e8, each backward stable) the one-device plan's, which
// takes this problem by the reduction; and the backward error is ε's.
template <class T>
void against(const pscr::Problem<T>& p, pscr::Backend other, double tol, const char* name) {
  pscr::Options ref;
  ref.backend = other;
  const pscr::Plan<T> plan(p, split_options(2));
  BOOST_TEST(plan.info().dimension_methods.front() == kPartitioned, name);
  BOOST_TEST(plan.info().dimension_methods.back() == "sine transform", name);
  const auto f = test::random_vector<T>(p.unknowns(), 23);
  std::vector<T> u(f.size()), v(f.size());
  plan.solve(f.data(), u.data());
  const pscr::Plan<T> reference(p, ref);
  BOOST_TEST(reference.info().dimension_methods.back() != "sine transform", name);
  reference.solve(f.data(), v.data());
  const double e = test::rel_error(u, v);
  BOOST_TEST(e <= tol, name << ": " << e << " from the " << reference.info().backend << " plan's answer");
  const double eps = double(std::numeric_limits<pscr::real_t<T>>::epsilon());
  BOOST_TEST(p.backward_error(f.data(), u.data()) <= 20 * eps, name << ": backward error");
}

BOOST_AUTO_TEST_CASE(rows_longer_than_a_work_group) {
  const double eps = std::numeric_limits<double>::epsilon(), feps = std::numeric_limits<float>::epsilon();
  against(pscr::poisson2d(graded(16), uniform(8191)), pscr::Backend::reference, 100 * eps, "2D double");
  against(pscr::poisson2d(graded(16), uniform(16383)).cast<float>(), pscr::Backend::reference, 100 * feps,
          "2D float");
  // four times a work-group: split twice
  against(pscr::poisson2d(graded(8), uniform(16383)), pscr::Backend::opencl, 100 * eps, "2D double, two split steps");
  against(pscr::poisson2d(graded(8), uniform(32767)).cast<float>(), pscr::Backend::reference, 100 * feps,
          "2D float, two split steps");
}

BOOST_AUTO_TEST_CASE(periodic_and_indefinite) {
  // a periodic dimension 2 (Fourier transform; 32 = 2·16 points), c > 0
  std::vector<double> ring(33);
  for (int i = 0; i <= 32; ++i) ring[std::size_t(i)] = i / 32.0;
  const pscr::Problem<double> periodic({pscr::poisson_factor(graded(12)), pscr::poisson_periodic_factor(ring)}, 0.5);
  for (int devices : {2, 3}) against_direct(periodic, devices, "periodic dimension 2");
  // Helmholtz with a real shift between eigenvalues: indefinite lines, which
  // a slab's sweep without pivoting would eliminate unstably, take the
  // reduction's split (2D 200 × 255 at c = −424.44 on four devices lost four
  // digits with no warning when they were partitioned)
  const auto h = pscr::poisson2d(uniform(23), uniform(63));
  const pscr::Problem<double> indefinite(h.factors(), -35.0);
  for (int devices : {2, 3}) against_direct(indefinite, devices, "indefinite", false);
  const auto wide = pscr::poisson2d(uniform(200), uniform(255));
  against_direct(pscr::Problem<double>(wide.factors(), -424.4384135124456), 4, "indefinite 200 x 255", false);
  // a positive shift keeps the lines dominant
  against_direct(pscr::Problem<double>(h.factors(), 35.0), 2, "c = 35");
  // positive definite lines whose pencil is not diagonally dominant:
  // 2 > 2·1.0025·cos(π/31), though 2 < 2·1.0025
  pscr::Factor<double> spd;
  spd.A.diag.assign(30, 2.0 * 31 * 31);
  spd.A.off.assign(29, -1.0025 * 31 * 31);
  spd.M.diag.assign(30, 1.0);
  spd.M.off.assign(29, 0.0);
  const pscr::Problem<double> definite({spd, pscr::poisson_factor(uniform(63))}, 0.0);
  BOOST_TEST(pscr::Plan<double>(definite, split_options(2)).info().elimination == "ordinary");
  for (int devices : {2, 3}) against_direct(definite, devices, "definite, not dominant");
}

BOOST_AUTO_TEST_CASE(bad_input_and_breakdown) {
  const auto p = pscr::poisson2d(uniform(20), uniform(31));
  const pscr::Plan<double> plan(p, split_options(3));
  BOOST_TEST(plan.info().dimension_methods.front() == kPartitioned);
  auto f = test::random_vector<double>(p.unknowns(), 3);
  std::vector<double> u(f.size());
  f[p.unknowns() - 5] = std::nan("");
  BOOST_CHECK_EXCEPTION(plan.solve(f.data(), u.data()), pscr::NonFiniteInput, [&](const auto& e) {
    return std::string(e.what()).find("index " + std::to_string(p.unknowns() - 5)) != std::string::npos;
  });
  // in a batch: the index into the whole batch, as one device names it
  std::vector<double> batch(2 * p.unknowns(), 1.0), out(batch.size());
  batch[p.unknowns() + 7] = std::numeric_limits<double>::infinity();
  BOOST_CHECK_EXCEPTION(plan.solve_batch(batch.data(), out.data(), 2), pscr::NonFiniteInput, [&](const auto& e) {
    const std::string what = e.what();
    return what.find("right-hand side 1 of the batch") != std::string::npos &&
           what.find("index " + std::to_string(p.unknowns() + 7)) != std::string::npos;
  });
  std::vector<double> big(p.unknowns(), 1e308);
  BOOST_CHECK_THROW(plan.solve(big.data(), u.data()), pscr::NumericalBreakdown);
  // the plan stays usable
  f[p.unknowns() - 5] = 0.25;
  plan.solve(f.data(), u.data());
  BOOST_TEST(p.backward_error(f.data(), u.data()) < 1e-13);
}

// Per-kernel times of a split plan (Options::profile): the first device's
// kernels of the transformed split, each launched once a solve; none
// without profiling.
BOOST_AUTO_TEST_CASE(kernel_times_of_a_split_plan) {
  const auto p = pscr::poisson2d(uniform(30), uniform(63));
  pscr::Options o = split_options(2);
  const auto f = test::random_vector<double>(p.unknowns(), 5);
  std::vector<double> u(f.size());
  BOOST_TEST(pscr::Plan<double>(p, o).kernel_times().empty());
  o.profile = true;
  pscr::Plan<double> plan(p, o);
  const auto before = plan.kernel_times();  // the set-up's eliminations
  for (int s = 0; s < 3; ++s) plan.solve(f.data(), u.data());
  std::map<std::string, pscr::KernelTime> after;
  for (const auto& k : plan.kernel_times()) after[k.kernel] = k;
  for (const char* name : {"partition_eliminate", "partition_reduced", "partition_back", "sine_transform"}) {
    BOOST_TEST_REQUIRE(after.count(name) == 1u, name << " is missing from the kernel times");
    std::size_t earlier = 0;
    for (const auto& k : before)
      if (k.kernel == name) earlier = k.launches;
    BOOST_TEST(after[name].launches - earlier >= 3u, name << ": " << after[name].launches - earlier << " launches");
    BOOST_TEST(after[name].seconds > 0.0, name);
  }
  BOOST_TEST(p.relative_residual(f.data(), u.data()) < 1e-12);
  // turned off and on again on a plan made without profiling
  auto launches = [](const pscr::Plan<double>& pl) {
    std::size_t all = 0;
    for (const auto& k : pl.kernel_times()) all += k.launches;
    return all;
  };
  plan.set_profiling(false);
  const std::size_t counted = launches(plan);
  plan.solve(f.data(), u.data());
  BOOST_TEST(launches(plan) == counted, "launches counted with profiling off");
  pscr::Plan<double> later(p, split_options(2));
  later.set_profiling(true);
  later.solve(f.data(), u.data());
  BOOST_TEST(launches(later) >= 4u, "set_profiling(true) on a split plan");
}

// A solution that overflows is named as on one device: its index in the
// whole problem and, in a batch, its right-hand side; the same whichever
// rank finds it first.
BOOST_AUTO_TEST_CASE(non_finite_solutions_are_named_in_problem_numbering) {
  const auto p = pscr::poisson2d(uniform(31), uniform(63));
  const std::size_t N = p.unknowns();
  std::vector<double> f(3 * N, 1.0), u(f.size());
  for (std::size_t i = 2 * N + 1700; i < 2 * N + 1800; ++i) f[i] = 1e308;  // rows 26–28 of rhs 2: rank 1 of 2
  for (int run = 0; run < 3; ++run) {
    try {
      pscr::Plan<double>(p, split_options(2)).solve_batch(f.data(), u.data(), 3);
      BOOST_FAIL("no error for an overflowing solution");
    } catch (const pscr::NumericalBreakdown& e) {
      const std::string what = e.what();
      BOOST_TEST(what.find("right-hand side 2 of the batch") != std::string::npos, what);
      BOOST_TEST(what.find("rank") == std::string::npos, what);
      const std::size_t at = what.find("at index ");
      BOOST_TEST_REQUIRE(at != std::string::npos, what);
      const std::size_t i = std::stoull(what.substr(at + 9));
      BOOST_TEST(i >= 2 * N, what);  // the flat index in the batch, as one device names it
      BOOST_TEST(i < 3 * N, what);
    }
  }
}
