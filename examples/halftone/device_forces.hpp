// The particle mesh of forces.hpp on an OpenCL device (kernels/halftone.cl):
// dots spread onto the mesh, the right-hand side and its boundary values,
// the Poisson solve (libpscr, device-resident), the mesh force and the near
// field (a cell list built on the device) in double precision.
#pragma once
#include <memory>
#include <string>

#include "halftone.hpp"

namespace pscr::halftone {

// `device`: an OpenCL device selector as Options::device (empty: the default).
std::unique_ptr<ForceEngine> device_engine(const Charges& charges, const MeshParameters& p, const std::string& device);
// Direct summation of (1) on the device (O(M²) per iteration): the timing
// comparison, and the reference where the host's direct sum is too slow.
std::unique_ptr<ForceEngine> direct_device_engine(const Charges& charges, const std::string& device);

}  // namespace pscr::halftone
