// OpenCL handles are owned from their creation: failed program builds (the
// KernelBuildError path the tuner meets for every rejected candidate) and
// finished runtimes leave the reference counts of a caller's context and
// queue as they were, and every query error is reported.
#define BOOST_TEST_MODULE opencl_resources
#include <boost/test/unit_test.hpp>

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
  BOOST_TEST(context_refs(ctx.get()) == c0);
  BOOST_TEST(queue_refs(q.get()) == q0);
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
  BOOST_TEST(context_refs(ctx.get()) == c0);
  BOOST_TEST(queue_refs(q.get()) == q0);
  // Profiling asked of a queue made without it is refused, not silently zero.
  BOOST_CHECK_THROW(pscr::ocl::Runtime(q.get(), kGood, "", true), pscr::InvalidArgument);
  BOOST_TEST(queue_refs(q.get()) == q0);
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
