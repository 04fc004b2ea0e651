// Forces of electrostatic halftoning (docs/halftone.md): on every dot p_α,
//   F_α = A(p_α) − Σ_β≠α (p_β − p_α)/|p_β − p_α|²,
// the attraction of the image and the repulsion of the other dots, update
// (1) of the seed. The attraction is that of (1),
//   A(x0) = Σ_x≠x0 q_x (x − x0)/|x − x0|²   (q_x the darkness of pixel x),
// sampled at the pixel centres x0 and interpolated bilinearly between them,
// as the seed's method does: point charges at the pixel centres would pull
// dots into singular wells at every pixel. Both are the 2D Coulomb force,
// −∇ of the logarithmic potential Φ = Σ_j q_j log|y − y_j|, ΔΦ = 2π ρ.
//
// ParticleMesh splits each charge into a Gaussian of width σ (the far field,
// on a mesh) and the rest (the near field, summed directly):
//   mesh: the Gaussians sampled on a mesh of step h over the image and a
//     margin, ΔΦ = 2πρ solved by libpscr with the fourth-order compact
//     (Mehrstellen) scheme (A1⊗M2 + M1⊗A2) Φ = −2π (M1⊗M2) ρ,
//     A = −D²/h², M = I + h² D²/12, whose boundary values are the free-space
//     potential of the charges from their multipole expansion about the
//     image centre; the force is −∇ of the potential smoothed once more by
//     the same Gaussian (Σ_g Φ_g ∇G_σ), i.e. the exact force of charges
//     smeared to σ_e = σ√2: q (y − p)/r² (1 − exp(−r²/2σ_e²));
//   near field: the remainder q (y − p)/r² exp(−r²/2σ_e²) of every pixel and
//     dot within the cut-off radius, from a cell list.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pscr/plan.hpp"

namespace pscr::halftone {

struct Point {
  double x = 0, y = 0;  // pixel units: pixel (i, j) is centred at (i, j)
};

// Darkness charges of a width × height image (row-major, top row first).
struct Charges {
  int width = 0, height = 0;
  std::vector<double> q;
  double total() const;
};

// Direct summation of (1): the attraction at the four pixel centres around
// each dot summed over all pixels, the repulsion over all dots; O(M ·
// (pixels + M)), the reference. _at: on the dots listed in `which` only (the
// others still act on them).
std::vector<Point> direct_forces(const Charges& image, const std::vector<Point>& dots);
// `attraction` (if given) receives |A| at each of those dots: the size of the
// forces whose small remainder the net force is near equilibrium.
std::vector<Point> direct_forces_at(const Charges& image, const std::vector<Point>& dots, const std::vector<long>& which,
                                    std::vector<double>* attraction = nullptr);

struct MeshParameters {
  double step = 0.75;       // mesh step h in pixels (the attraction, computed once, on h/2)
  double sigma = 1.5;       // Gaussian width σ in pixels (σ_e = σ√2 is the split width)
  double cutoff = 0.0;      // near-field radius in pixels; 0: 6 σ_e
  double margin = 0.0;      // mesh margin around the image in pixels; 0: a quarter of the larger side + 6σ
  int multipole_order = 24; // terms of the boundary values' expansion (0: zero boundary values)
  int threads = 0;          // host threads for the solve (0: all)
};

// The bounds of MeshParameters, with their reasons (forces against direct
// summation on a 96² image, docs/halftone.md):
//   σ in [0.5, 16] px: narrower Gaussians need a mesh finer than the pixels
//     (h ≤ σ) and gain no accuracy (median error 8e-5 at σ = 0.5 as at 1.5);
//     wider ones lose it (8e-4 at σ = 16) while the near field, within 6σ_e,
//     approaches direct summation;
//   h in [σ/8, σ]: a coarser mesh does not resolve the Gaussians it carries
//     (median error 9e-4 at h = σ, 15 at h = 1.5σ: wrong forces); a finer one
//     gains nothing (1e-5 at σ/8 and σ/4) and each dot spreads onto
//     (2⌈6σ/h⌉ + 3)² nodes;
//   cutoff 0 or in [3σ_e, 12σ_e]: the near field's remainder exp(−r²/2σ_e²)
//     is 1e-2 at 3σ_e (a closer cut drops it) and 1e-31 at 12σ_e;
//   margin 0 or at least 6.5σ: the Gaussians of charges at the border stay on
//     the (attraction's) mesh;
//   multipole_order in [0, 128]: with the default margin the expansion's ratio
//     is at most 3/4, and 0.75^128 < 1e-16;
//   the attraction's mesh (step h/2 over the image and its margins) at most
//     2^29 nodes: 4 GiB per array of doubles, of which the host engine holds
//     four (the 1024² image of docs/halftone.md takes 2^24).
constexpr double kMinSigma = 0.5, kMaxSigma = 16;
constexpr double kMinStepPerSigma = 1.0 / 8, kMaxStepPerSigma = 1;
constexpr double kMinCutoffPerSigmaE = 3, kMaxCutoffPerSigmaE = 12, kMinMarginPerSigma = 6.5;
constexpr int kMaxMultipoleOrder = 128;
constexpr double kMaxMeshNodes = 536870912.0;  // 2^29
// std::invalid_argument naming the value, its bounds and their reason.
void check_mesh_parameters(const MeshParameters& p);

// A mesh over the image and its margin: node (a, b), 0-based, at
// (x0 + (a+1) h, y0 + (b+1) h); the Gaussians cut `reach` nodes from the node
// nearest their centre; the near field within `cutoff` pixels. The
// repulsion's mesh has step h and cuts at 6σ; the attraction's (`fine`),
// computed once, step h/2, cuts at 6.5σ and a near field of at least 6σ_e.
// The boundary values come from the multipole expansion about (cx, cy)
// scaled by `radius` (the image's centre and half diagonal).
struct MeshGeometry {
  double x0 = 0, y0 = 0, h = 0, sigma = 0, cutoff = 0;
  int nx = 0, ny = 0, reach = 0;
  double cx = 0, cy = 0, radius = 1;
};
// std::invalid_argument for an image smaller than 2 × 2, parameters out of
// their bounds (check_mesh_parameters), or an attraction's mesh of more than
// kMaxMeshNodes nodes (checked whichever mesh is asked for: before any is built).
MeshGeometry mesh_geometry(int width, int height, const MeshParameters& p, bool fine);
// The expansion's moments Σ_j q_j ((z_j − c)/radius)^k, k = 0..order, as
// (real, imaginary) pairs.
std::vector<double> multipole_moments(const std::vector<Point>& at, const std::vector<double>& q,
                                      const MeshGeometry& g, int order);
// The compact scheme's plan on that mesh (Options: backend, device, threads).
std::unique_ptr<pscr::Plan<double>> compact_plan(const MeshGeometry& g, const pscr::Options& o);

// The attraction A at every pixel centre (the image's charges on the mesh,
// once) and the repulsion of the dots (on the mesh, every call).
class ParticleMesh {
 public:
  ParticleMesh(const Charges& image, const MeshParameters& p = {});
  // A at the pixel centres, x and y interleaved, row-major.
  const std::vector<double>& attraction() const;
  MeshGeometry geometry() const;  // the repulsion's mesh
  ~ParticleMesh();
  std::vector<Point> forces(const std::vector<Point>& dots) const;
  // Mesh size (unknowns per side) and the parameters in use.
  int mesh_width() const;
  int mesh_height() const;
  const MeshParameters& parameters() const;
  // Seconds spent per stage since construction or reset_times().
  std::vector<std::pair<std::string, double>> stage_times() const;
  void reset_times();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// max and median over the dots of |F − F_ref| / |F_ref|, or of
// |F − F_ref| / scale[α] when a scale is given.
struct ForceError {
  double median = 0, max = 0;
};
ForceError force_error(const std::vector<Point>& f, const std::vector<Point>& ref,
                       const std::vector<double>* scale = nullptr);

}  // namespace pscr::halftone
