// 8-bit RGB PNG through libpng's simplified API (Debian libpng-dev).
#include <png.h>

#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstring>

#include "image.hpp"
#include "pscr/errors.hpp"

namespace pscr::hdr {

// zlib level 1 and the Sub filter: a 2048² result is written several times
// faster than with the defaults (level 6, adaptive filters), for a file about
// a quarter larger.
void write_png(const std::string& path, int width, int height, const std::vector<std::uint8_t>& rgb8) {
  if (width < 1 || height < 1 || rgb8.size() != 3 * std::size_t(width) * std::size_t(height))
    throw InvalidArgument("write_png: " + std::to_string(width) + "x" + std::to_string(height) + " image with " +
                          std::to_string(rgb8.size()) + " bytes");
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) throw FileFormatError(path + ": cannot write PNG: " + std::strerror(errno));
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  bool ok = png && info;
  if (ok && setjmp(png_jmpbuf(png))) ok = false;  // libpng's errors return here
  else if (ok) {
    png_init_io(png, file);
    png_set_IHDR(png, info, png_uint_32(width), png_uint_32(height), 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, 1);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
    png_write_info(png, info);
    for (int y = 0; y < height; ++y)
      png_write_row(png, const_cast<png_bytep>(rgb8.data() + 3 * std::size_t(width) * std::size_t(y)));
    png_write_end(png, nullptr);
  }
  png_destroy_write_struct(png ? &png : nullptr, info ? &info : nullptr);
  const bool closed = std::fclose(file) == 0;
  if (!ok || !closed) throw FileFormatError(path + ": cannot write PNG");
}

std::vector<std::uint8_t> read_png(const std::string& path, int& width, int& height) {
  png_image im{};
  im.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&im, path.c_str())) throw FileFormatError(path + ": cannot read PNG: " + im.message);
  im.format = PNG_FORMAT_RGB;
  std::vector<std::uint8_t> rgb8(PNG_IMAGE_SIZE(im));
  if (!png_image_finish_read(&im, nullptr, rgb8.data(), 0, nullptr)) {
    png_image_free(&im);
    throw FileFormatError(path + ": cannot read PNG: " + im.message);
  }
  width = int(im.width);
  height = int(im.height);
  return rgb8;
}

}  // namespace pscr::hdr
