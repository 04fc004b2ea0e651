// A transpose on the device (internal; kernels/sine_transform.cl transpose):
// lines between the [line][row] layout of whole-line solves and the
// [row][line] one of global CR and of dense products.
#pragma once
#include <cstddef>

#include "runtime.hpp"

namespace pscr::ocl {

// out[c][r] = in[r][c] for a rows × cols array of the plan's scalars (tiles
// of 16 × 16 through local memory: both sides coalesced).
inline void transpose(const Runtime& rt, cl_mem in, cl_mem out, std::size_t rows, std::size_t cols) {
  constexpr std::size_t tile = 16;
  rt.count(0, 2.0 * double(rows) * double(cols));
  rt.launch("transpose", 2, {round_up(cols, tile), round_up(rows, tile), 1}, {tile, tile, 1}, in, out, int(rows),
            int(cols));
}

}  // namespace pscr::ocl
