// OpenCL status codes by name (internal).
#pragma once
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <string>

#include "pscr/errors.hpp"
#include "pscr/export.hpp"

namespace pscr::ocl {

PSCR_API const char* status_name(cl_int status);

// Throws BackendError naming the call and the status.
inline void check(cl_int status, const char* call) {
  if (status != CL_SUCCESS) {
    if (status == CL_MEM_OBJECT_ALLOCATION_FAILURE || status == CL_OUT_OF_RESOURCES || status == CL_INVALID_BUFFER_SIZE)
      throw AllocationTooLarge(std::string(call) + " failed: " + status_name(status));
    throw BackendError(std::string(call) + " failed: " + status_name(status));
  }
}

}  // namespace pscr::ocl
