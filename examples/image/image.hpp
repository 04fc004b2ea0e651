// Image I/O shared by the image clients (hdr, halftone): linear RGB in memory, the file
// formats it reads (Radiance RGBE, OpenEXR, PFM) and writes (the same, plus
// 8-bit sRGB PNG). Every reader failure is a pscr::FileFormatError naming the
// file and the problem; readers never allocate more than the data can fill.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pscr::image {

// Linear RGB, row-major, top row first, 3 floats per pixel.
struct Image {
  int width = 0, height = 0;
  std::vector<float> rgb;
  std::size_t pixels() const { return std::size_t(width) * std::size_t(height); }
  float* pixel(int x, int y) { return rgb.data() + 3 * (std::size_t(y) * width + x); }
  const float* pixel(int x, int y) const { return rgb.data() + 3 * (std::size_t(y) * width + x); }
};
Image make_image(int width, int height);  // zero-filled; InvalidArgument for sizes < 1

// What a reader accepts: larger headers are refused before anything is read.
struct ReadLimits {
  int max_side = 1 << 16;
  std::size_t max_pixels = std::size_t(1) << 27;
  // "" when a header of w x h pixels is accepted, else why not ("declares
  // ... pixels, outside the accepted ..."), for the reader's message
  std::string refusal(long long w, long long h) const;
};

// By content (magic bytes), whatever the file's extension. `name` is used in
// messages only.
Image decode_image(const std::string& bytes, const std::string& name, const ReadLimits& limits = {});
Image read_image(const std::string& path, const ReadLimits& limits = {});

Image decode_radiance(const std::string& bytes, const std::string& name, const ReadLimits& limits = {});
Image decode_pfm(const std::string& bytes, const std::string& name, const ReadLimits& limits = {});
Image decode_exr(const std::string& bytes, const std::string& name, const ReadLimits& limits = {});

// Radiance scanline encodings: flat 4-byte RGBE, the original run-length
// encoding (repeat markers 1,1,1,n) and the per-component adaptive one.
enum class RadianceEncoding { flat, old_rle, new_rle };
std::string encode_radiance(const Image& img, RadianceEncoding enc = RadianceEncoding::new_rle);
std::string encode_pfm(const Image& img);
std::string encode_exr(const Image& img, bool half = false);
// Writes by extension: .hdr/.pic, .pfm, .exr. InvalidArgument for other
// extensions; FileFormatError when the file cannot be written.
void write_image(const std::string& path, const Image& img);
bool can_write_image(const std::string& path);     // whether write_image takes its extension
std::string file_extension(const std::string& path);  // lower case, without the dot; "" when none

// 8-bit RGB PNG (3 bytes per pixel, top row first). The reader converts any
// PNG (grey, palette, 16-bit, alpha) and refuses a header beyond `limits`
// before it allocates the pixels.
void write_png(const std::string& path, int width, int height, const std::vector<std::uint8_t>& rgb8);
std::vector<std::uint8_t> read_png(const std::string& path, int& width, int& height, const ReadLimits& limits = {});

// Whole-file helpers shared by the readers and writers.
std::string read_file(const std::string& path, std::size_t max_bytes = std::size_t(1) << 32);
void write_file(const std::string& path, const std::string& bytes);

}  // namespace pscr::image
