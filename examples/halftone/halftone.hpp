// Electrostatic halftoning (docs/halftone.md): dots are negative unit
// charges that repel each other and are attracted by the image darkness;
// update (1) of the seed, p ← p + τ F(p), with occasional shaking.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "forces.hpp"

namespace pscr::halftone {

// Grey values in [0, 1] (1 = white), row-major, top row first.
struct GreyImage {
  int width = 0, height = 0;
  std::vector<double> v;
};

// Rec. 709 luma of 8-bit RGB (the encoded values, as error diffusion uses them).
GreyImage grey_from_rgb8(const std::vector<std::uint8_t>& rgb, int width, int height);

struct Settings {
  long dots = -1;          // −1: the image's ink, round(Σ (1 − u)), one dot per black pixel's worth
  int iterations = 200;
  double tau = 0.1;        // the seed's time step
  int shake_every = 10;    // shake every this many iterations during the first 80 % (0: never)
  double shake = 0.5;      // shaking amplitude in pixels at the start, decreasing linearly
  std::uint64_t seed = 1;  // initial dots and shaking
  bool device = false;     // forces on the OpenCL device (else the host particle mesh)
  std::string opencl_device;  // device selector, as Options::device
  MeshParameters mesh;
};

// The update rule: p ← p + τ F(p), and at iterations k > 0 with
// k % shake_every == 0 and k < shake_until a step of length
// shake·(1 − k/shake_until) in a uniform random direction; a dot that leaves
// the image [0, w − 1] × [0, h − 1] is reflected back into it (clamping would
// pile dots onto the border, and onto the same corner point, where
// coincident dots no longer repel).
struct Motion {
  double tau = 0.1;
  int shake_every = 0, shake_until = 0;
  double shake = 0;
  std::uint64_t seed = 1;
  int width = 0, height = 0;
};
// Moves one dot (index a) at iteration k under force f (the host rule; the
// device's move_dots kernel is the same).
void move_dot(Point& p, const Point& f, const Motion& m, int k, long a);
double reflect(double v, double hi);  // into [0, hi]

// What a force engine computes: the forces (1) on all dots.
class ForceEngine {
 public:
  virtual ~ForceEngine() = default;
  virtual std::vector<Point> forces(const std::vector<Point>& dots) = 0;
  // Iterations [k0, k1) of the update rule; by default through forces() on
  // the host (the device engine keeps the dots on the device meanwhile).
  virtual void iterate(std::vector<Point>& dots, const Motion& m, int k0, int k1);
  virtual std::string name() const = 0;
  // Seconds per stage since construction or reset_times().
  virtual std::vector<std::pair<std::string, double>> stage_times() const { return {}; }
  // Stage times on the device need a wait after each stage; off by default.
  virtual void set_stage_timing(bool) {}
  virtual void reset_times() {}
};
std::unique_ptr<ForceEngine> host_engine(const Charges& charges, const MeshParameters& p);

// Times of one run, seconds: the set-up (charges, engine, initial dots), the
// iterations (forces and moves) and the whole.
struct Timings {
  double setup = 0, iterating = 0, total = 0;
  int iterations = 0;
};

struct Result {
  std::vector<Point> dots;
  double ink = 0;          // Σ (1 − u): darkness in pixels
  double dot_area = 0;     // ink / dots: the area of one dot's disc in pixels
  Timings times;
  std::string engine;
};

// The darkness charges of the image scaled to the dot count (net charge 0).
// Throws std::invalid_argument naming the problem: no dots, more dots than
// pixels, dots requested on an image without darkness.
Charges charges_for(const GreyImage& img, long dots);
long default_dots(const GreyImage& img);

// Dots placed by stratified sampling of the darkness (systematic sampling of
// its cumulative sum, jittered within the pixel).
std::vector<Point> initial_dots(const GreyImage& img, long count, std::uint64_t seed);

// The whole process; `progress` (if set) is called after each iteration.
Result halftone(const GreyImage& img, const Settings& s, const std::function<void(int)>& progress = {});
// The same with a given force engine (tests, the benchmark).
Result halftone(const GreyImage& img, const Settings& s, ForceEngine& engine,
                const std::function<void(int)>& progress = {});

// One "x y" line per dot (pixel units); std::runtime_error when the file cannot be written.
void write_points(const std::string& path, const std::vector<Point>& dots);

// Black discs of area `dot_area` at the dots on white, anti-aliased by 4 × 4
// supersampling; 8-bit grey values, row-major.
std::vector<std::uint8_t> render_dots(const std::vector<Point>& dots, double dot_area, int width, int height);
// Floyd–Steinberg error diffusion (serpentine), the comparison: 0 or 255.
std::vector<std::uint8_t> floyd_steinberg(const GreyImage& img);
// PSNR in dB between an 8-bit image (as grey in [0, 1]) and the original,
// both blurred by a Gaussian of width `sigma` pixels (mirrored edges).
double blurred_psnr(const std::vector<std::uint8_t>& out, const GreyImage& original, double sigma);

}  // namespace pscr::halftone
