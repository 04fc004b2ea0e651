// OpenCL handles are owned from their creation: failed program builds (the
// KernelBuildError path the tuner meets for every rejected candidate) and
// finished runtimes leave the reference counts of a caller's context and
// queue as they were, and every query error is reported; host copies through
// page-locked chunks move every byte where it belongs.
#define BOOST_TEST_MODULE opencl_resources
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <complex>
#include <limits>
#include <numeric>
#include <thread>

#include "opencl/host_staging.hpp"
#include "opencl/runtime.hpp"

namespace {

cl_uint context_refs(cl_context c) {
  cl_uint n = 0;
  BOOST_REQUIRE(clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof n, &n, nullptr) == CL_SUCCESS);
  return n;
}
cl_uint queue_refs(cl_command_queue q) {
  cl_uint n = 0;
  BOOST_REQUIRE(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof n, &n, nullptr) == CL_SUCCESS);
  return n;
}

// PoCL drops the references its finished commands hold on the queue (and so
// on the context) from its own worker thread, after clFinish has returned:
// wait up to two seconds for the count to come back. A reference we leak
// never comes back, so the check still fails on a leak.
template <class Count>
cl_uint settled(Count count, cl_uint expected) {
  cl_uint n = count();
  for (int wait = 0; wait < 200 && n != expected; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    n = count();
  }
  return n;
}

const char* const kBroken = "__kernel void broken(__global float* x) { x[0] = undeclared_name; }";
const char* const kGood = "__kernel void fill(__global float* x, float v) { x[get_global_id(0)] = v; }";

}  // namespace

BOOST_AUTO_TEST_CASE(failed_builds_release_everything) {
  const pscr::ocl::Device dev = pscr::ocl::select_device("");
  cl_int st;
  pscr::ocl::Context ctx(clCreateContext(nullptr, 1, &dev.device, nullptr, nullptr, &st));
  BOOST_REQUIRE(st == CL_SUCCESS);
  pscr::ocl::Queue q(clCreateCommandQueue(ctx.get(), dev.device, 0, &st));
  BOOST_REQUIRE(st == CL_SUCCESS);
  const cl_uint c0 = context_refs(ctx.get()), q0 = queue_refs(q.get());
  for (int i = 0; i < 40; ++i)
    BOOST_CHECK_EXCEPTION(pscr::ocl::Runtime(q.get(), kBroken, "", false), pscr::KernelBuildError,
                          [](auto& e) { return std::string(e.what()).find("undeclared_name") != std::string::npos; });
  BOOST_TEST(settled([&] { return context_refs(ctx.get()); }, c0) == c0);
  BOOST_TEST(settled([&] { return queue_refs(q.get()); }, q0) == q0);
  // Working runtimes with buffers and launches give their references back too.
  for (int i = 0; i < 10; ++i) {
    pscr::ocl::Runtime rt(q.get(), kGood, "", false);
    BOOST_TEST(context_refs(ctx.get()) > c0);
    pscr::ocl::Mem m = rt.alloc(64 * sizeof(float), "test buffer");
    rt.run("fill", 64, {64}, m.get(), 1.5f);
    std::vector<float> v(64);
    rt.read(m.get(), v.data(), v.size() * sizeof(float));
    BOOST_TEST(v[63] == 1.5f);
  }
  BOOST_TEST(settled([&] { return context_refs(ctx.get()); }, c0) == c0);
  BOOST_TEST(settled([&] { return queue_refs(q.get()); }, q0) == q0);
  // Profiling asked of a queue made without it is refused, not silently zero.
  BOOST_CHECK_THROW(pscr::ocl::Runtime(q.get(), kGood, "", true), pscr::InvalidArgument);
  BOOST_TEST(settled([&] { return queue_refs(q.get()); }, q0) == q0);
}

BOOST_AUTO_TEST_CASE(own_context_failed_builds) {
  // The runtime's own context and queue: the build error carries the log, and
  // repeating it many times keeps working (nothing exhausted).
  const pscr::ocl::Device dev = pscr::ocl::select_device("");
  for (int i = 0; i < 40; ++i)
    BOOST_CHECK_THROW(pscr::ocl::Runtime(dev, kBroken, "", false), pscr::KernelBuildError);
  pscr::ocl::Runtime rt(dev, kGood, "", true);
  BOOST_TEST(rt.max_group("fill") >= 1u);
}

BOOST_AUTO_TEST_CASE(bad_handles_are_named) {
  BOOST_CHECK_THROW(pscr::ocl::Runtime(static_cast<cl_command_queue>(nullptr), kGood, "", false),
                    pscr::InvalidArgument);
  BOOST_CHECK_EXCEPTION(pscr::ocl::describe_device(nullptr), pscr::BackendError,
                        [](auto& e) { return std::string(e.what()).find("clGetDeviceInfo") != std::string::npos; });
}

// Copies through the page-locked chunks (the path of a rank's slabs), with
// chunks of 1008 bytes so that one call takes 1, 2, 3 and 7 chunks, the last
// one short, at offsets that are not whole chunks: what goes in reads back
// with a plain read, what comes out equals the buffer, and the bytes around
// the copied range are left alone.
BOOST_AUTO_TEST_CASE(chunked_copies_through_page_locked_memory) {
  const pscr::ocl::Device dev = pscr::ocl::select_device("");
  pscr::ocl::Runtime rt(dev, kGood, "", false);
  const std::size_t total = 8192;
  pscr::ocl::Mem m = rt.alloc(total, "test buffer");
  pscr::ocl::HostStaging staging(4 * 1008, pscr::ocl::StagingMode::pinned);
  BOOST_TEST(staging.bound() == 4 * 1008u);
  for (std::size_t bytes : {std::size_t(1), std::size_t(999), std::size_t(1000), std::size_t(1001), std::size_t(2000),
                            std::size_t(2500), std::size_t(6543)}) {
    for (std::size_t offset : {std::size_t(0), std::size_t(3), std::size_t(total) - bytes}) {
      std::vector<unsigned char> before(total), in(bytes), out(bytes, 0), after(total);
      for (std::size_t i = 0; i < total; ++i) before[i] = static_cast<unsigned char>(i * 7 + bytes);
      for (std::size_t i = 0; i < bytes; ++i) in[i] = static_cast<unsigned char>(i * 13 + offset + 1);
      rt.write(m.get(), before.data(), total);
      BOOST_REQUIRE(staging.chunked_copy(rt, m.get(), offset, bytes, in.data(), true));
      rt.read(m.get(), after.data(), total);
      std::copy(in.begin(), in.end(), before.begin() + std::ptrdiff_t(offset));
      BOOST_TEST(after == before, "copy in of " << bytes << " bytes at " << offset);
      BOOST_REQUIRE(staging.chunked_copy(rt, m.get(), offset, bytes, out.data(), false));
      BOOST_TEST(out == in, "copy out of " << bytes << " bytes at " << offset);
    }
  }
}

// The copy that scans what it copies: the copy is exact, and the index of the
// first non-finite value is found in any piece (the pieces of 512 KiB run on
// several threads), npos when there is none.
BOOST_AUTO_TEST_CASE(copy_with_scan_names_the_first_nonfinite_value) {
  const std::size_t n = (std::size_t(3) << 20) / sizeof(double) + 5;  // seven pieces, the last short
  std::vector<double> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = double(i % 977) - 3.5;
  auto scan = &pscr::ocl::first_nonfinite_bytes<double>;
  BOOST_TEST(pscr::ocl::parallel_copy_scan(y.data(), x.data(), n * sizeof(double), sizeof(double), scan) ==
             std::size_t(-1));
  BOOST_TEST(x == y);
  for (std::size_t bad : {n - 1, std::size_t(300000), std::size_t(131072), std::size_t(7)}) {
    x[bad] = std::numeric_limits<double>::quiet_NaN();
    x[n - 2] = std::numeric_limits<double>::infinity();  // a later one is not named
    BOOST_TEST(pscr::ocl::parallel_copy_scan(y.data(), x.data(), n * sizeof(double), sizeof(double), scan) ==
               std::min(bad, n - 2));
  }
  // the other types' scans: the largest finite values pass, an infinity or a
  // NaN in either part of a complex value is named by the value's index
  std::vector<float> s(1000, std::numeric_limits<float>::max());
  BOOST_TEST(pscr::ocl::first_nonfinite_bytes<float>(s.data(), 4000) == std::size_t(-1));
  s[999] = -std::numeric_limits<float>::infinity();
  BOOST_TEST(pscr::ocl::first_nonfinite_bytes<float>(s.data(), 4000) == 999u);
  std::vector<std::complex<float>> z(500, {-std::numeric_limits<float>::max(), std::numeric_limits<float>::min()});
  BOOST_TEST(pscr::ocl::first_nonfinite_bytes<std::complex<float>>(z.data(), 4000) == std::size_t(-1));
  z[321].imag(std::numeric_limits<float>::quiet_NaN());
  z[400].real(std::numeric_limits<float>::infinity());
  BOOST_TEST(pscr::ocl::first_nonfinite_bytes<std::complex<float>>(z.data(), 4000) == 321u);
  std::vector<std::complex<double>> w(10, {1e308, -1e308});
  w[7].real(std::numeric_limits<double>::quiet_NaN());
  BOOST_TEST(pscr::ocl::first_nonfinite_bytes<std::complex<double>>(w.data(), 160) == 7u);
}
