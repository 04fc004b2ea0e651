// Mutation fuzzing of the image readers (Radiance, PFM, OpenEXR, and PNG
// through libpng) under AddressSanitizer and UndefinedBehaviorSanitizer, for
// a bounded time: every mutated file must decode to a consistent image or
// throw pscr::FileFormatError, quickly.
//   fuzz_image_readers [seconds = 20] [seed = 1]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>
#include <vector>

#include "image.hpp"
#include "mutate.hpp"
#include "pscr/errors.hpp"

using namespace pscr::image;

namespace {

Image seed_image(int w, int h) {
  Image img = make_image(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) img.pixel(x, y)[c] = float(std::pow(10.0, (x * 7 + y * 3 + c) % 9 - 4)) * ((x / 3) % 2 ? 1 : 0.5f);
  return img;
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 20;
  const unsigned long long seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  std::vector<std::string> seeds;
  for (auto [w, h] : {std::pair{12, 5}, {9, 2}, {1, 3}, {3, 1}}) {
    const Image img = seed_image(w, h);
    seeds.push_back(encode_radiance(img, RadianceEncoding::flat));
    seeds.push_back(encode_radiance(img, RadianceEncoding::old_rle));
    seeds.push_back(encode_radiance(img, RadianceEncoding::new_rle));
    seeds.push_back(encode_pfm(img));
    seeds.push_back(encode_exr(img));
    seeds.push_back(encode_exr(img, true));
  }
  ReadLimits limits;  // small, so that each input is decoded quickly
  limits.max_side = 4096;
  limits.max_pixels = 1 << 20;
  const auto file_format_error = [](const std::exception& e) {
    return dynamic_cast<const pscr::FileFormatError*>(&e) != nullptr;
  };
  const int hdr = pscr::fuzz::run(
      "image readers", seeds, seconds, seed,
      [&](const std::string& input) -> std::string {
        const Image img = decode_image(input, "fuzz", limits);
        if (img.width < 1 || img.height < 1 || img.rgb.size() != 3 * img.pixels())
          return "image " + std::to_string(img.width) + "x" + std::to_string(img.height) + " with " +
                 std::to_string(img.rgb.size()) + " values";
        return "";
      },
      file_format_error);
  // PNG (libpng through read_png, from a file): half the time of the others
  const std::string path = "/tmp/pscr-fuzz-" + std::to_string(getpid()) + ".png";
  std::vector<std::string> png_seeds;
  for (auto [w, h] : {std::pair{12, 5}, {9, 2}, {1, 3}, {3, 1}, {40, 40}}) {
    std::vector<std::uint8_t> rgb8(3 * std::size_t(w) * std::size_t(h));
    for (std::size_t i = 0; i < rgb8.size(); ++i) rgb8[i] = std::uint8_t(i * 37 % 251);
    write_png(path, w, h, rgb8);
    png_seeds.push_back(read_file(path));
  }
  const int png = pscr::fuzz::run(
      "png reader", png_seeds, seconds / 2, seed + 1,
      [&](const std::string& input) -> std::string {
        write_file(path, input);
        int w = 0, h = 0;
        const std::vector<std::uint8_t> rgb8 = read_png(path, w, h, limits);
        if (w < 1 || h < 1 || rgb8.size() != 3 * std::size_t(w) * std::size_t(h))
          return "png " + std::to_string(w) + "x" + std::to_string(h) + " with " + std::to_string(rgb8.size()) +
                 " bytes";
        return "";
      },
      file_format_error);
  std::remove(path.c_str());
  return hdr || png;
}
