// Host copy probe (not part of the library): bandwidth of copies between
// host memory and two GPUs from pageable memory, from memory page-locked in
// the copying device's own OpenCL context, and from memory page-locked in the
// other device's context; one device at a time and both at once; and the
// host's own memcpy into page-locked memory on 1, 8 and 16 threads (what
// HostStaging's copies cost). docs/host-arrays.md quotes it. Build and run:
//   g++ -O2 -std=c++17 scripts/probes/pinned_copies.cpp -lOpenCL -lpthread -o build/pinned_copies
//   ../shared/tools/gpu-bundle -o .gpu build/pinned_copies   (then .gpu/run pinned_copies on two GPUs)
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
#define CK(x) do { cl_int e_ = (x); if (e_) { std::printf("error %d at %s:%d\n", e_, __FILE__, __LINE__); std::exit(1); } } while (0)
struct Dev { cl_context ctx; cl_command_queue q; cl_mem d; cl_mem pin_mem[2]; void* pin[2]; };
static const size_t B = size_t(256) << 20;
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
double copy(Dev& v, const void* src, bool read, int reps = 5) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    double t0 = now();
    if (read) CK(clEnqueueReadBuffer(v.q, v.d, CL_TRUE, 0, B, const_cast<void*>(src), 0, nullptr, nullptr));
    else CK(clEnqueueWriteBuffer(v.q, v.d, CL_TRUE, 0, B, src, 0, nullptr, nullptr));
    t.push_back(now() - t0);
  }
  std::sort(t.begin(), t.end());
  return B / t[t.size() / 2] / 1e9;
}
#include <algorithm>
int main() {
  cl_uint np; CK(clGetPlatformIDs(0, nullptr, &np)); std::vector<cl_platform_id> ps(np); CK(clGetPlatformIDs(np, ps.data(), nullptr));
  std::vector<cl_device_id> ds;
  for (auto p : ps) { cl_uint n = 0; if (clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 0, nullptr, &n) == CL_SUCCESS && n >= 2) { ds.resize(n); CK(clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, n, ds.data(), nullptr)); break; } }
  if (ds.size() < 2) { std::printf("need two GPUs\n"); return 1; }
  Dev v[2];
  for (int i = 0; i < 2; ++i) {
    cl_int e; v[i].ctx = clCreateContext(nullptr, 1, &ds[i], nullptr, nullptr, &e); CK(e);
    v[i].q = clCreateCommandQueue(v[i].ctx, ds[i], 0, &e); CK(e);
    v[i].d = clCreateBuffer(v[i].ctx, CL_MEM_READ_WRITE, B, nullptr, &e); CK(e);
    for (int k = 0; k < 2; ++k) {
      v[i].pin_mem[k] = clCreateBuffer(v[i].ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, B, nullptr, &e); CK(e);
      v[i].pin[k] = clEnqueueMapBuffer(v[i].q, v[i].pin_mem[k], CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, B, 0, nullptr, nullptr, &e); CK(e);
      std::memset(v[i].pin[k], 1, B);
    }
  }
  std::vector<char> h(B, 1), h2(B, 2);
  for (int read = 0; read < 2; ++read) {
    const char* dir = read ? "device->host" : "host->device";
    std::printf("%s, 256 MiB, GB/s (median of 5)\n", dir);
    std::printf("  dev0 pageable %.1f | own pinned %.1f | dev1's pinned %.1f\n", copy(v[0], h.data(), read), copy(v[0], v[0].pin[0], read), copy(v[0], v[1].pin[0], read));
    std::printf("  dev1 pageable %.1f | own pinned %.1f | dev0's pinned %.1f\n", copy(v[1], h.data(), read), copy(v[1], v[1].pin[0], read), copy(v[1], v[0].pin[1], read));
    auto both = [&](const void* a, const void* b) {
      double ga = 0, gb = 0, t0 = now();
      std::thread ta([&] { ga = copy(v[0], a, read, 9); }), tb([&] { gb = copy(v[1], b, read, 9); });
      ta.join(); tb.join();
      return std::make_pair(ga, gb);
    };
    auto p1 = both(h.data(), h2.data());
    std::printf("  both at once, pageable: %.1f + %.1f\n", p1.first, p1.second);
    auto p2 = both(v[0].pin[0], v[1].pin[0]);
    std::printf("  both at once, each from its own pinned: %.1f + %.1f\n", p2.first, p2.second);
    auto p3 = both(v[0].pin[0], v[0].pin[1]);
    std::printf("  both at once, both from dev0's pinned: %.1f + %.1f\n", p3.first, p3.second);
  }
  // host memcpy, pageable -> pinned, 1 and 16 threads
  for (int th : {1, 8, 16}) {
    double t0 = now();
    std::vector<std::thread> ts;
    for (int k = 0; k < th; ++k) ts.emplace_back([&, k] { size_t a = B / th * k; std::memcpy((char*)v[0].pin[0] + a, h.data() + a, B / th); });
    for (auto& t : ts) t.join();
    std::printf("memcpy pageable->pinned, %d threads: %.1f GB/s\n", th, B / (now() - t0) / 1e9);
  }
}
