// 8-bit RGB PNG through libpng's simplified API (Debian libpng-dev).
#include <png.h>

#include "image.hpp"
#include "pscr/errors.hpp"

namespace pscr::hdr {

void write_png(const std::string& path, int width, int height, const std::vector<std::uint8_t>& rgb8) {
  if (width < 1 || height < 1 || rgb8.size() != 3 * std::size_t(width) * std::size_t(height))
    throw InvalidArgument("write_png: " + std::to_string(width) + "x" + std::to_string(height) + " image with " +
                          std::to_string(rgb8.size()) + " bytes");
  png_image im{};
  im.version = PNG_IMAGE_VERSION;
  im.width = png_uint_32(width);
  im.height = png_uint_32(height);
  im.format = PNG_FORMAT_RGB;
  if (!png_image_write_to_file(&im, path.c_str(), 0, rgb8.data(), 0, nullptr))
    throw FileFormatError(path + ": cannot write PNG: " + im.message);
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
