// Electrostatic halftoning on the device (examples/halftone/device_forces.cpp,
// docs/halftone.md): the dots' charges on the mesh, the right-hand side of
// the compact scheme and its boundary values, the force on every dot (mesh
// force, near field, the image's attraction) and the update (1).
// Double precision throughout; the mesh density is summed in 64-bit fixed
// point with integer atomics, so that it does not depend on the order in
// which the dots arrive.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable

#define FIXED_SCALE 1099511627776.0  // 2^40

typedef struct {
  double x0, y0, h;      // node (a, b) at (x0 + (a+1) h, y0 + (b+1) h)
  int nx, ny, reach;     // interior nodes per side; the Gaussian's support in nodes
  int width, height;     // the image
  double sigma;          // Gaussian width
} mesh_t;

// splitmix64, as the host's (halftone.cpp)
ulong mix64(ulong x) {
  x += 0x9e3779b97f4a7c15UL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9UL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebUL;
  return x ^ (x >> 31);
}
double uniform01(ulong seed, ulong stream, ulong k) {
  return (double)(mix64(seed ^ mix64(stream * 0x632be59bd9b4e019UL + k)) >> 11) * 0x1.0p-53;
}

// Adds q·G_σ(node − p) to the nodes within reach of p (fixed point).
void spread_one(double2 p, double q, __global long* density, double x0, double y0, double h, int nx, int ny, int reach,
                double sigma) {
  const int ca = (int)round((p.x - x0) / h) - 1, cb = (int)round((p.y - y0) / h) - 1;
  const double inv = 1.0 / (2 * sigma * sigma), norm = q * FIXED_SCALE / (2 * M_PI * sigma * sigma);
  for (int b = max(0, cb - reach); b <= min(ny - 1, cb + reach); ++b) {
    const double dy = y0 + (b + 1) * h - p.y, wy = norm * exp(-dy * dy * inv);
    for (int g = max(0, ca - reach); g <= min(nx - 1, ca + reach); ++g) {
      const double dx = x0 + (g + 1) * h - p.x;
      atom_add(density + (size_t)b * nx + g, convert_long_rte(wy * exp(-dx * dx * inv)));
    }
  }
}

// The dots, charge −1 each.
__kernel void spread_dots(__global const double2* dots, int count, __global long* density, double x0, double y0,
                          double h, int nx, int ny, int reach, double sigma) {
  const int a = get_global_id(0);
  if (a < count) spread_one(dots[a], -1.0, density, x0, y0, h, nx, ny, reach, sigma);
}

// The image's pixels, charge q at their centres (once, for the attraction).
__kernel void spread_pixels(__global const double* q, int width, int height, __global long* density, double x0,
                            double y0, double h, int nx, int ny, int reach, double sigma) {
  const int i = get_global_id(0), j = get_global_id(1);
  if (i >= width || j >= height) return;
  const double v = q[(size_t)j * width + i];
  if (v != 0) spread_one((double2)(i, j), v, density, x0, y0, h, nx, ny, reach, sigma);
}

// rhs = −2π (M⊗M) ρ, M = tridiag(1, 10, 1)/12, ρ zero outside; ρ in fixed point.
__kernel void compact_rhs(__global const long* density, __global double* rhs, int nx, int ny) {
  const int a = get_global_id(0), b = get_global_id(1);
  if (a >= nx || b >= ny) return;
  double s = 0;
  for (int db = -1; db <= 1; ++db) {
    const int bb = b + db;
    if (bb < 0 || bb >= ny) continue;
    const double wb = db == 0 ? 10.0 : 1.0;
    for (int da = -1; da <= 1; ++da) {
      const int aa = a + da;
      if (aa < 0 || aa >= nx) continue;
      s += wb * (da == 0 ? 10.0 : 1.0) * (double)density[(size_t)bb * nx + aa];
    }
  }
  rhs[(size_t)b * nx + a] = -2 * M_PI * s / (144.0 * FIXED_SCALE);
}

// Partial sums of the dots' multipole moments −Σ ((z − c)/radius)^k, k = 0..order,
// one per work-group (local size a power of two): partial[group][k] (real, imag).
__kernel void dot_moments(__global const double2* dots, int count, double cx, double cy, double radius, int order,
                          __global double2* partial, __local double2* scratch) {
  const int lid = get_local_id(0), lsz = get_local_size(0), gid = get_global_id(0);
  double2 w = (double2)(0, 0);
  if (gid < count) w = (double2)((dots[gid].x - cx) / radius, (dots[gid].y - cy) / radius);
  double2 pw = (double2)(gid < count ? -1.0 : 0.0, 0);
  for (int k = 0; k <= order; ++k) {
    scratch[lid] = pw;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = lsz / 2; s > 0; s >>= 1) {
      if (lid < s) scratch[lid] += scratch[lid + s];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) partial[(size_t)get_group_id(0) * (order + 1) + k] = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    pw = (double2)(pw.x * w.x - pw.y * w.y, pw.x * w.y + pw.y * w.x);
  }
}

// moments[k] = Σ over the groups' partial sums, in group order.
__kernel void sum_moments(__global const double2* partial, int groups, int order, __global double2* moments) {
  const int k = get_global_id(0);
  if (k > order) return;
  double2 s = (double2)(0, 0);
  for (int g = 0; g < groups; ++g) s += partial[(size_t)g * (order + 1) + k];
  moments[k] = s;
}

double far_potential(double x, double y, double cx, double cy, double radius, int order,
                     __global const double2* moments) {
  const double zx = x - cx, zy = y - cy;
  double phi = moments[0].x * log(sqrt(zx * zx + zy * zy));
  const double ux = zx / radius, uy = zy / radius, n = ux * ux + uy * uy;
  const double ix = ux / n, iy = -uy / n;  // 1/u
  double px = ix, py = iy;
  for (int k = 1; k <= order; ++k) {
    phi -= (moments[k].x * px - moments[k].y * py) / k;
    const double t = px * ix - py * iy;
    py = px * iy + py * ix;
    px = t;
  }
  return phi;
}

// The boundary values' couplings (4/(6h²) across an edge, 1/(6h²) across a
// corner) added to the perimeter nodes' right-hand sides.
__kernel void boundary_rhs(__global double* rhs, double x0, double y0, double h, int nx, int ny, double cx, double cy,
                           double radius, int order, __global const double2* moments) {
  const int t = get_global_id(0), perimeter = 2 * nx + 2 * (ny - 2);
  if (t >= perimeter) return;
  int a, b;
  if (t < nx) { a = t; b = 0; }
  else if (t < 2 * nx) { a = t - nx; b = ny - 1; }
  else if (t < 2 * nx + ny - 2) { a = 0; b = t - 2 * nx + 1; }
  else { a = nx - 1; b = t - 2 * nx - (ny - 2) + 1; }
  const double edge = 4.0 / (6 * h * h), corner = 1.0 / (6 * h * h);
  double add = 0;
  for (int db = -1; db <= 1; ++db)
    for (int da = -1; da <= 1; ++da) {
      if (da == 0 && db == 0) continue;
      const int aa = a + da, bb = b + db;
      if (aa >= 0 && aa < nx && bb >= 0 && bb < ny) continue;
      add += (da == 0 || db == 0 ? edge : corner) *
             far_potential(x0 + (aa + 1) * h, y0 + (bb + 1) * h, cx, cy, radius, order, moments);
    }
  rhs[(size_t)b * nx + a] += add;
}

// Cell list of the near field in compressed rows: cells of side `cell`
// pixels, cell c's dots at members[start[c] .. start[c] + fill[c]), by dot
// index. No capacity: a cell holds as many dots as land in it (dots piled up
// by a long step, --tau 1e10, put hundreds into one).
int cell_of(double2 p, double cell, int cw, int ch) {
  const int cx = clamp((int)floor((p.x + 0.5) / cell), 0, cw - 1);
  const int cy = clamp((int)floor((p.y + 0.5) / cell), 0, ch - 1);
  return cy * cw + cx;
}

// fill[c]: the dots in cell c; slot[a]: dot a's place among them (in the
// order the atomics land; sort_cells restores the index order).
__kernel void count_cells(__global const double2* dots, int count, double cell, int cw, int ch, __global int* fill,
                          __global int* slot) {
  const int a = get_global_id(0);
  if (a < count) slot[a] = atomic_inc(fill + cell_of(dots[a], cell, cw, ch));
}

// The dots of each row of cells.
__kernel void row_fill(__global const int* fill, int cw, int ch, __global int* row_total) {
  const int y = get_global_id(0);
  if (y >= ch) return;
  int s = 0;
  for (int x = 0; x < cw; ++x) s += fill[y * cw + x];
  row_total[y] = s;
}

// start[c] = the dots of the cells before c: the rows before c's row, then
// c's row up to c.
__kernel void cell_starts(__global const int* fill, __global const int* row_total, int cw, int ch,
                          __global int* start) {
  const int y = get_global_id(0);
  if (y >= ch) return;
  int s = 0;
  for (int r = 0; r < y; ++r) s += row_total[r];
  for (int x = 0; x < cw; ++x) {
    start[y * cw + x] = s;
    s += fill[y * cw + x];
  }
}

__kernel void scatter_dots(__global const double2* dots, int count, double cell, int cw, int ch,
                           __global const int* start, __global const int* slot, __global int* members) {
  const int a = get_global_id(0);
  if (a < count) members[start[cell_of(dots[a], cell, cw, ch)] + slot[a]] = a;
}

// m[root] moved down the max-heap m[0 .. n).
void sift_down(__global int* m, int root, int n) {
  const int v = m[root];
  for (int child = 2 * root + 1; child < n; child = 2 * root + 1) {
    if (child + 1 < n && m[child + 1] > m[child]) ++child;
    if (m[child] <= v) break;
    m[root] = m[child];
    root = child;
  }
  m[root] = v;
}

// Each cell's members in index order (the near-field sums then do not depend
// on the order of the atomics above); heap sort, O(n log n) however many
// dots a cell holds.
__kernel void sort_cells(__global const int* fill, __global const int* start, __global int* members, int cells) {
  const int c = get_global_id(0);
  if (c >= cells) return;
  __global int* m = members + start[c];
  const int n = fill[c];
  for (int i = n / 2 - 1; i >= 0; --i) sift_down(m, i, n);
  for (int end = n - 1; end > 0; --end) {
    const int top = m[0];
    m[0] = m[end];
    m[end] = top;
    sift_down(m, 0, end);
  }
}

// A field given at the pixel centres, interpolated bilinearly at p (as the host's bilinear()).
double2 bilinear(__global const double2* field, int width, int height, double2 p) {
  const int i = clamp((int)floor(p.x), 0, max(0, width - 2)), j = clamp((int)floor(p.y), 0, max(0, height - 2));
  const double s = clamp(p.x - i, 0.0, 1.0), t = clamp(p.y - j, 0.0, 1.0);
  const int i1 = min(i + 1, width - 1), j1 = min(j + 1, height - 1);
  const double2 A = field[(size_t)j * width + i], B = field[(size_t)j * width + i1];
  const double2 C = field[(size_t)j1 * width + i], D = field[(size_t)j1 * width + i1];
  return (1 - t) * ((1 - s) * A + s * B) + t * ((1 - s) * C + s * D);
}

// The mesh force at p: Σ_g Φ_g ∇_p G_σ(p − g) h², the field of charges smeared to σ√2.
double2 mesh_force(double2 p, __global const double* phi, double x0, double y0, double h, int nx, int ny, int reach,
                   double sigma) {
  double fx = 0, fy = 0;
  const int ca = (int)round((p.x - x0) / h) - 1, cb = (int)round((p.y - y0) / h) - 1;
  const double inv2 = 1.0 / (2 * sigma * sigma);
  for (int b = max(0, cb - reach); b <= min(ny - 1, cb + reach); ++b) {
    const double dy = p.y - (y0 + (b + 1) * h), wy = exp(-dy * dy * inv2);
    __global const double* row = phi + (size_t)b * nx;
    double sx = 0, sw = 0;
    for (int g = max(0, ca - reach); g <= min(nx - 1, ca + reach); ++g) {
      const double dx = p.x - (x0 + (g + 1) * h), w = row[g] * exp(-dx * dx * inv2);
      sx += w * dx;
      sw += w;
    }
    fx += wy * sx;
    fy += wy * dy * sw;
  }
  const double scale = h * h / (sigma * sigma) / (2 * M_PI * sigma * sigma);
  return (double2)(fx * scale, fy * scale);
}

// The attraction at every pixel centre: the mesh force of the pixels plus
// their near field q (x − p)/r² exp(−r²/2σ_e²) within the cut-off, the pixel
// itself excluded.
__kernel void pixel_attraction(__global const double* q, int width, int height, __global const double* phi, double x0,
                               double y0, double h, int nx, int ny, int reach, double sigma, double cutoff,
                               __global double2* attraction) {
  const int i0 = get_global_id(0), j0 = get_global_id(1);
  if (i0 >= width || j0 >= height) return;
  double2 f = mesh_force((double2)(i0, j0), phi, x0, y0, h, nx, ny, reach, sigma);
  const double inv2e = 1.0 / (4 * sigma * sigma), rc2 = cutoff * cutoff;
  const int span = (int)floor(cutoff);
  for (int j = max(0, j0 - span); j <= min(height - 1, j0 + span); ++j)
    for (int i = max(0, i0 - span); i <= min(width - 1, i0 + span); ++i) {
      const double v = q[(size_t)j * width + i];
      const double dx = i - i0, dy = j - j0, r2 = dx * dx + dy * dy;
      if (v == 0 || r2 == 0 || r2 >= rc2) continue;
      const double s = v * exp(-r2 * inv2e) / r2;
      f.x += s * dx;
      f.y += s * dy;
    }
  attraction[(size_t)j0 * width + i0] = f;
}

// The force on every dot: the mesh force Σ_g Φ_g ∇G_σ, the near field of the
// other dots, q (y − p)/r² exp(−r²/2σ_e²) within the cut-off, and the image's
// attraction interpolated bilinearly between the pixel centres.
__kernel void dot_forces(__global const double2* dots, int count, __global const double* phi, double x0, double y0,
                         double h, int nx, int ny, int reach, double sigma, __global const int* fill,
                         __global const int* start, __global const int* members, double cell, int cw, int ch,
                         double cutoff,
                         __global const double2* attraction, int width, int height, __global double2* force) {
  const int a = get_global_id(0);
  if (a >= count) return;
  const double2 p = dots[a];
  const double2 mf = mesh_force(p, phi, x0, y0, h, nx, ny, reach, sigma);
  double fx = mf.x, fy = mf.y;
  // near field of the other dots
  const double inv2e = 1.0 / (4 * sigma * sigma), rc2 = cutoff * cutoff;
  const int home = cell_of(p, cell, cw, ch), cx = home % cw, cy = home / cw;
  const int span = (int)ceil(cutoff / cell);
  for (int yy = max(0, cy - span); yy <= min(ch - 1, cy + span); ++yy)
    for (int xx = max(0, cx - span); xx <= min(cw - 1, cx + span); ++xx) {
      const int c = yy * cw + xx, n = fill[c];
      __global const int* in_cell = members + start[c];
      for (int i = 0; i < n; ++i) {
        const int b = in_cell[i];
        if (b == a) continue;
        const double dx = dots[b].x - p.x, dy = dots[b].y - p.y, r2 = dx * dx + dy * dy;
        if (r2 >= rc2 || r2 == 0) continue;
        const double s = -exp(-r2 * inv2e) / r2;
        fx += s * dx;
        fy += s * dy;
      }
    }
  // the attraction, bilinear between pixel centres
  const double2 att = bilinear(attraction, width, height, p);
  force[a] = (double2)(fx + att.x, fy + att.y);
}

// Into [0, hi] by reflection at the ends (the host's reflect()).
double reflect(double v, double hi) {
  if (v < 0) v = -v;
  if (v > hi) v = 2 * hi - v;
  return clamp(v, 0.0, hi);
}

// p ← p + τ F + shake, reflected into the image: the shake, when on, a step of
// length `amp` in a uniform direction (the host's random numbers).
__kernel void move_dots(__global double2* dots, __global const double2* force, int count, double tau, int shake,
                        double amp, ulong seed, ulong stream, int width, int height) {
  const int a = get_global_id(0);
  if (a >= count) return;
  double2 p = dots[a] + tau * force[a];
  if (shake) {
    const double phi = 2 * M_PI * uniform01(seed, stream, (ulong)a);
    p += amp * (double2)(cos(phi), sin(phi));
  }
  p.x = reflect(p.x, (double)(width - 1));
  p.y = reflect(p.y, (double)(height - 1));
  dots[a] = p;
}

// ---- Direct summation of (1) on the device: the reference and the timing
// comparison (O(pixels²) once, O(M²) per iteration).

// The attraction at every pixel centre, all pixels summed (the pixel itself excluded).
__kernel void direct_attraction(__global const double* q, int width, int height, __global double2* attraction) {
  const int i0 = get_global_id(0), j0 = get_global_id(1);
  if (i0 >= width || j0 >= height) return;
  double fx = 0, fy = 0;
  for (int j = 0; j < height; ++j)
    for (int i = 0; i < width; ++i) {
      const double v = q[(size_t)j * width + i], dx = i - i0, dy = j - j0, r2 = dx * dx + dy * dy;
      if (v == 0 || r2 == 0) continue;
      fx += v * dx / r2;
      fy += v * dy / r2;
    }
  attraction[(size_t)j0 * width + i0] = (double2)(fx, fy);
}

// The force on every dot: the repulsion of all other dots (tiles of the dots
// in local memory) and the attraction interpolated bilinearly.
__kernel void direct_forces(__global const double2* dots, int count, __global const double2* attraction, int width,
                            int height, __global double2* force, __local double2* tile) {
  const int a = get_global_id(0), lid = get_local_id(0), lsz = get_local_size(0);
  const double2 p = a < count ? dots[a] : (double2)(0, 0);
  double fx = 0, fy = 0;
  for (int base = 0; base < count; base += lsz) {
    if (base + lid < count) tile[lid] = dots[base + lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    const int n = min(lsz, count - base);
    for (int t = 0; t < n; ++t) {
      const double dx = tile[t].x - p.x, dy = tile[t].y - p.y, r2 = dx * dx + dy * dy;
      if (base + t == a || r2 == 0) continue;
      fx -= dx / r2;
      fy -= dy / r2;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (a >= count) return;
  const double2 att = bilinear(attraction, width, height, p);
  force[a] = (double2)(fx + att.x, fy + att.y);
}
