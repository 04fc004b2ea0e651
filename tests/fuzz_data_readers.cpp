// Mutation fuzzing of the library's own file readers under AddressSanitizer
// and UndefinedBehaviorSanitizer, for a bounded time: NumPy .npy files
// (pscr::npy::load, what pscr-solve and the clients read) and tuning JSON
// (pscr::parse_tuning, what every OpenCL plan reads). Every mutated file must
// load to a consistent result or be refused with the documented error
// (FileFormatError; tuning files also InvalidArgument for a parameter out of
// range), quickly. The readers' sources are compiled into this program with
// the sanitizers.
//   fuzz_data_readers [seconds = 10 per reader] [seed = 1]
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

#include "mutate.hpp"
#include "pscr/errors.hpp"
#include "pscr/npy.hpp"
#include "pscr/tuning.hpp"

// database.cpp's compiled-in database, empty here (the library embeds
// tuning/shipped/*.json)
namespace pscr::tuning_files {
extern const char* const shipped[] = {nullptr};
extern const char* const shipped_names[] = {nullptr};
}  // namespace pscr::tuning_files

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void spill(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));
}

template <class T> std::string npy_file(const std::string& path, const std::vector<std::size_t>& shape) {
  std::size_t n = 1;
  for (auto s : shape) n *= s;
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = T(double(i) * 0.75 - 2.0);
  pscr::npy::save(path, shape, v.data());
  return slurp(path);
}

// The same array with a version 2.0 header (a four-byte header length).
std::string as_version2(const std::string& v1) {
  const std::size_t hlen = static_cast<unsigned char>(v1[8]) | (static_cast<unsigned char>(v1[9]) << 8);
  std::string out = v1.substr(0, 6) + std::string("\x02\x00", 2);
  for (int b = 0; b < 4; ++b) out += char((hlen >> (8 * b)) & 0xff);
  return out + v1.substr(10);
}

std::string npy_consistent(const pscr::npy::Array& a) {
  if (a.bytes.size() != a.size() * pscr::npy::dtype_size(a.dtype))
    return std::to_string(a.bytes.size()) + " bytes for " + std::to_string(a.size()) + " values";
  if (a.as<std::complex<double>>().size() != a.size()) return "converted size";
  const bool complex = a.dtype == pscr::npy::DType::complex64 || a.dtype == pscr::npy::DType::complex128;
  if (!complex && a.as<double>().size() != a.size()) return "converted size";
  return "";
}

std::string tuning_consistent(const std::vector<pscr::TuningEntry>& entries) {
  for (const auto& e : entries) {
    if (e.min_n > e.max_n) return "entry with min_n > max_n";
    pscr::validate(e.parameters, "an entry the reader accepted");  // an unexpected InvalidArgument if out of range
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 10;
  const unsigned long long seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  const std::string path = "/tmp/pscr-fuzz-" + std::to_string(getpid()) + ".npy";

  std::vector<std::string> npy_seeds{npy_file<double>(path, {3, 4}), npy_file<float>(path, {2, 3, 1}),
                                     npy_file<std::complex<double>>(path, {5}),
                                     npy_file<std::complex<float>>(path, {2, 2}), npy_file<double>(path, {0, 3}),
                                     npy_file<double>(path, {})};
  npy_seeds.push_back(as_version2(npy_seeds[0]));
  const int npy = pscr::fuzz::run(
      "npy reader", npy_seeds, seconds, seed,
      [&](const std::string& input) {
        spill(path, input);
        return npy_consistent(pscr::npy::load(path));
      },
      [](const std::exception& e) { return dynamic_cast<const pscr::FileFormatError*>(&e) != nullptr; });
  std::remove(path.c_str());

  std::vector<pscr::TuningEntry> entries(3);
  entries[0].device = "NVIDIA H100 80GB HBM3";
  entries[0].architecture = "nvidia-sm90";
  entries[0].problem_class = "2d-real-double";
  entries[0].min_n = 1024;
  entries[0].max_n = 8191;
  entries[0].parameters.radix = 16;
  entries[0].seconds = 0.0041;
  entries[1].device = "pthread-cpu";
  entries[1].problem_class = "3d-complex-float";
  entries[1].parameters.line_rows = 0;
  entries[1].parameters.register_cap = 80;
  entries[2].device = "x";
  entries[2].problem_class = "2d-real-float";
  entries[2].max_n = 63;
  pscr::write_tuning(path, entries);
  const std::vector<std::string> json_seeds{slurp(path)};
  std::remove(path.c_str());
  const int json = pscr::fuzz::run(
      "tuning reader", json_seeds, seconds, seed + 1,
      [](const std::string& input) { return tuning_consistent(pscr::parse_tuning(input, "fuzz")); },
      [](const std::exception& e) {
        return dynamic_cast<const pscr::FileFormatError*>(&e) != nullptr ||
               (dynamic_cast<const pscr::InvalidArgument*>(&e) != nullptr &&
                std::string(e.what()).rfind("fuzz", 0) == 0);  // out of range, naming the file
      });
  return npy || json;
}
