// OpenCL platform/device selection and program building (internal).
#pragma once
#include <string>

#include "handles.hpp"

namespace pscr::ocl {

struct Device {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  std::string name;         // "platform / device", for messages
  std::string device_name;  // CL_DEVICE_NAME, the key of tuning entries
  bool fp64 = false;
  bool gpu = false;  // CL_DEVICE_TYPE_GPU
  bool nv_compiler_options = false;  // cl_nv_compiler_options: -cl-nv-maxrregcount
  // NVIDIA's compute capability (major·10 + minor, through
  // cl_nv_device_attribute_query; 0 elsewhere) and whether it has FP64
  // tensor cores (8.0 or later: mma.m8n8k4.f64 by inline PTX, 9.0 m16n8k8)
  int nv_compute_capability = 0;
  bool fp64_tensor_cores = false;
  std::size_t max_work_group = 1;
  std::size_t max_items[3] = {1, 1, 1};  // CL_DEVICE_MAX_WORK_ITEM_SIZES (NVIDIA: 1024, 1024, 64)
  cl_ulong local_mem = 0;  // usable per work-group: CL_DEVICE_LOCAL_MEM_SIZE less 1 KiB (device.cpp)
  cl_ulong max_alloc = 0;
  cl_ulong global_mem = 0;
  std::size_t base_align_bytes = 1;  // CL_DEVICE_MEM_BASE_ADDR_ALIGN: sub-buffer offsets must be multiples
};

// The device's architecture, the key by which devices without tuning entries
// of their own share those of others (TuningEntry::architecture):
// "nvidia-sm" and the compute capability (major·10 + minor) for NVIDIA's
// devices, empty for others.
std::string device_architecture(const Device& dev);

// selector: "P:D" (platform and device indices), or a case-insensitive
// substring of "platform name / device name"; empty = $PSCR_DEVICE, else the
// first GPU, else the first device. Throws BackendError naming what exists.
PSCR_API Device select_device(const std::string& selector);

// A text property of a device or platform; BackendError when the query fails.
std::string device_text(cl_device_id d, cl_device_info what);
std::string platform_text(cl_platform_id p, cl_platform_info what);

// The properties of one device; BackendError when a query fails.
PSCR_API Device describe_device(cl_device_id id);

// Builds `source` with `options`; KernelBuildError carries the compiler log.
PSCR_API Program build_program(cl_context ctx, const Device& dev, const char* source, const std::string& options);

}  // namespace pscr::ocl
