#include "device.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace pscr::ocl {
namespace {

// A string property through an OpenCL getter (clGetDeviceInfo / clGetPlatformInfo).
template <class Handle, class Info, class Getter> std::string info_text(Getter get, Handle h, Info what, const char* call) {
  size_t n = 0;
  check(get(h, what, 0, nullptr, &n), call);
  std::string s(n, '\0');
  check(get(h, what, n, s.data(), nullptr), call);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}
template <class V> V device_value(cl_device_id d, cl_device_info what, const char* name) {
  V v{};
  check(clGetDeviceInfo(d, what, sizeof v, &v, nullptr), (std::string("clGetDeviceInfo(") + name + ")").c_str());
  return v;
}
std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::string device_text(cl_device_id d, cl_device_info what) {
  return info_text(clGetDeviceInfo, d, what, "clGetDeviceInfo");
}
std::string platform_text(cl_platform_id p, cl_platform_info what) {
  return info_text(clGetPlatformInfo, p, what, "clGetPlatformInfo");
}

Device select_device(const std::string& selector_in) {
  // The ICD loader's first enumeration is not safe on several threads at
  // once: ranks on threads, each selecting its device, found no device or
  // crashed in it. Selections here run one at a time.
  static std::mutex enumeration;
  const std::lock_guard<std::mutex> one_at_a_time(enumeration);
  std::string selector = selector_in;
  if (selector.empty())
    if (const char* env = std::getenv("PSCR_DEVICE")) selector = env;
  cl_uint np = 0;
  const cl_int st = clGetPlatformIDs(0, nullptr, &np);
  if (st != CL_SUCCESS || np == 0) throw BackendError("no OpenCL platform found (is an ICD such as PoCL installed?)");
  std::vector<cl_platform_id> plats(np);
  check(clGetPlatformIDs(np, plats.data(), nullptr), "clGetPlatformIDs");
  struct Cand { cl_platform_id p; cl_device_id d; unsigned pi, di; std::string label; bool gpu; };
  std::vector<Cand> all;
  for (unsigned pi = 0; pi < np; ++pi) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(plats[pi], CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
    std::vector<cl_device_id> devs(nd);
    check(clGetDeviceIDs(plats[pi], CL_DEVICE_TYPE_ALL, nd, devs.data(), nullptr), "clGetDeviceIDs");
    for (unsigned di = 0; di < nd; ++di) {
      const auto t = device_value<cl_device_type>(devs[di], CL_DEVICE_TYPE, "CL_DEVICE_TYPE");
      all.push_back({plats[pi], devs[di], pi, di, platform_text(plats[pi], CL_PLATFORM_NAME) + " / " + device_text(devs[di], CL_DEVICE_NAME),
                     (t & CL_DEVICE_TYPE_GPU) != 0});
    }
  }
  if (all.empty()) throw BackendError("no OpenCL device found");
  const Cand* pick = nullptr;
  if (selector.empty()) {
    auto it = std::find_if(all.begin(), all.end(), [](const Cand& c) { return c.gpu; });
    pick = it != all.end() ? &*it : &all.front();
  } else {
    unsigned a, b;
    char tail;
    if (std::sscanf(selector.c_str(), "%u:%u%c", &a, &b, &tail) == 2) {
      for (auto& c : all) if (c.pi == a && c.di == b) pick = &c;
    } else {
      for (auto& c : all) if (!pick && lower(c.label).find(lower(selector)) != std::string::npos) pick = &c;
    }
    if (!pick) {
      std::string list;
      for (auto& c : all) list += "\n  " + std::to_string(c.pi) + ":" + std::to_string(c.di) + "  " + c.label;
      throw BackendError("no OpenCL device matches '" + selector + "'; available:" + list);
    }
  }
  return describe_device(pick->d);
}

std::string device_architecture(const Device& dev) {
  return dev.nv_compute_capability > 0 ? "nvidia-sm" + std::to_string(dev.nv_compute_capability) : std::string();
}

Device describe_device(cl_device_id id) {
  Device d;
  d.device = id;
  d.platform = device_value<cl_platform_id>(id, CL_DEVICE_PLATFORM, "CL_DEVICE_PLATFORM");
  d.device_name = device_text(id, CL_DEVICE_NAME);
  d.name = platform_text(d.platform, CL_PLATFORM_NAME) + " / " + d.device_name;
  d.max_work_group = device_value<std::size_t>(id, CL_DEVICE_MAX_WORK_GROUP_SIZE, "CL_DEVICE_MAX_WORK_GROUP_SIZE");
  // What a work-group may ask for: the reported size less 1 KiB. NVIDIA's
  // driver keeps part of it: on the H100 a whole-line group of 49152 bytes
  // (all of the 48 KiB reported) was refused at launch with
  // CL_OUT_OF_RESOURCES, one of 49024 bytes ran.
  const cl_ulong reported = device_value<cl_ulong>(id, CL_DEVICE_LOCAL_MEM_SIZE, "CL_DEVICE_LOCAL_MEM_SIZE");
  d.local_mem = reported > 2048 ? reported - 1024 : reported;
  d.gpu = (device_value<cl_device_type>(id, CL_DEVICE_TYPE, "CL_DEVICE_TYPE") & CL_DEVICE_TYPE_GPU) != 0;
  check(clGetDeviceInfo(id, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof d.max_items, d.max_items, nullptr),
        "clGetDeviceInfo(CL_DEVICE_MAX_WORK_ITEM_SIZES)");
  const std::string extensions = device_text(id, CL_DEVICE_EXTENSIONS);
  d.fp64 = extensions.find("cl_khr_fp64") != std::string::npos;
  d.nv_compiler_options = extensions.find("cl_nv_compiler_options") != std::string::npos;
  if (extensions.find("cl_nv_device_attribute_query") != std::string::npos) {
    // CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, _MINOR_NV
    constexpr cl_device_info kMajorNV = 0x4000, kMinorNV = 0x4001;
    cl_uint major = 0, minor = 0;
    if (clGetDeviceInfo(id, kMajorNV, sizeof major, &major, nullptr) == CL_SUCCESS &&
        clGetDeviceInfo(id, kMinorNV, sizeof minor, &minor, nullptr) == CL_SUCCESS)
      d.nv_compute_capability = int(10 * major + minor);
    d.fp64_tensor_cores = d.fp64 && d.nv_compute_capability >= 80;
  }
  d.max_alloc = device_value<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, "CL_DEVICE_MAX_MEM_ALLOC_SIZE");
  d.global_mem = device_value<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE, "CL_DEVICE_GLOBAL_MEM_SIZE");
  d.base_align_bytes = device_value<cl_uint>(id, CL_DEVICE_MEM_BASE_ADDR_ALIGN, "CL_DEVICE_MEM_BASE_ADDR_ALIGN") / 8;
  return d;
}

Program build_program(cl_context ctx, const Device& dev, const char* source, const std::string& options) {
  cl_int st;
  Program prog(clCreateProgramWithSource(ctx, 1, &source, nullptr, &st));
  check(st, "clCreateProgramWithSource");
  st = clBuildProgram(prog.get(), 1, &dev.device, options.c_str(), nullptr, nullptr);
  if (st != CL_SUCCESS) {
    size_t n = 0;
    std::string log;
    if (clGetProgramBuildInfo(prog.get(), dev.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) == CL_SUCCESS) {
      log.assign(n, '\0');
      if (clGetProgramBuildInfo(prog.get(), dev.device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr) != CL_SUCCESS)
        log = "(build log unavailable)";
    }
    throw KernelBuildError("OpenCL program build failed on " + dev.name + " (" + status_name(st) +
                           ") with options '" + options + "'; compiler log:\n" + log);
  }
  return prog;
}

}  // namespace pscr::ocl
