// Shared by the probes of this folder (not part of the library): the device
// a probe measures, the first GPU of any platform, else the first device,
// and the error check they use.
#pragma once
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <cstdio>

#define CK(x)                                                                  \
  do {                                                                         \
    cl_int e_ = (x);                                                           \
    if (e_) {                                                                  \
      std::printf("error %d at %s:%d\n", e_, __FILE__, __LINE__);              \
      return 1;                                                                \
    }                                                                          \
  } while (0)

// The first GPU, else the first device of the first platform; nullptr if none.
inline cl_device_id probe_device() {
  cl_platform_id plat[4];
  cl_uint np = 0;
  if (clGetPlatformIDs(4, plat, &np) != CL_SUCCESS || np == 0) return nullptr;
  cl_device_id dev = nullptr;
  for (cl_uint p = 0; p < np && !dev; ++p)
    if (clGetDeviceIDs(plat[p], CL_DEVICE_TYPE_GPU, 1, &dev, nullptr) != CL_SUCCESS) dev = nullptr;
  if (!dev && clGetDeviceIDs(plat[0], CL_DEVICE_TYPE_ALL, 1, &dev, nullptr) != CL_SUCCESS) dev = nullptr;
  return dev;
}
