// 8-bit RGB PNG: read through libpng's simplified API (Debian libpng-dev),
// written here with zlib over the host threads.
#include <png.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "image.hpp"
#include "pscr/errors.hpp"

namespace pscr::image {

namespace {

void put_u32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(char((v >> shift) & 0xff));
}

void put_chunk(std::string& out, const char* type, const char* data, std::size_t size) {
  put_u32(out, std::uint32_t(size));
  const std::size_t at = out.size();
  out.append(type, 4);
  out.append(data, size);
  put_u32(out, std::uint32_t(crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(out.data() + at), uInt(size + 4))));
}

}  // namespace

// The Sub filter and zlib level 1 (several times faster than libpng's
// defaults, for a file about a quarter larger), and the zlib stream deflated
// in bands of rows side by side over the host threads: each band is a raw
// deflate ending on a byte boundary (Z_SYNC_FLUSH; the last Z_FINISH), the
// Adler-32 sums of the bands combined, so the bands concatenate into one
// valid stream (as pigz does). A 2048² result took 0.15 s with one thread.
void write_png(const std::string& path, int width, int height, const std::vector<std::uint8_t>& rgb8) {
  if (width < 1 || height < 1 || rgb8.size() != 3 * std::size_t(width) * std::size_t(height))
    throw InvalidArgument("write_png: " + std::to_string(width) + "x" + std::to_string(height) + " image with " +
                          std::to_string(rgb8.size()) + " bytes");
  const std::size_t stride = 3 * std::size_t(width), row = stride + 1;
  const int threads = int(std::max(1u, std::thread::hardware_concurrency()));
  const int bands = std::max(1, std::min(height / 32, 4 * threads));
  std::vector<std::string> packed(bands);
  std::vector<uLong> adler(bands), length(bands);
  std::vector<int> failed(bands, 0);
#pragma omp parallel for schedule(dynamic, 1)
  for (int b = 0; b < bands; ++b) {
    const int y0 = int(std::int64_t(height) * b / bands), y1 = int(std::int64_t(height) * (b + 1) / bands);
    std::vector<unsigned char> raw((y1 - y0) * row);
    for (int y = y0; y < y1; ++y) {
      unsigned char* r = raw.data() + (y - y0) * row;
      const std::uint8_t* src = rgb8.data() + stride * std::size_t(y);
      r[0] = 1;  // Sub: each byte minus the one a pixel to its left
      for (std::size_t i = 0; i < stride; ++i) r[1 + i] = static_cast<unsigned char>(src[i] - (i >= 3 ? src[i - 3] : 0));
    }
    length[b] = uLong(raw.size());
    adler[b] = adler32(adler32(0L, Z_NULL, 0), raw.data(), uInt(raw.size()));
    z_stream z{};
    if (deflateInit2(&z, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      failed[b] = 1;
      continue;
    }
    packed[b].resize(deflateBound(&z, uLong(raw.size())) + 64);
    z.next_in = raw.data();
    z.avail_in = uInt(raw.size());
    z.next_out = reinterpret_cast<Bytef*>(packed[b].data());
    z.avail_out = uInt(packed[b].size());
    const bool last = b + 1 == bands;
    const int rc = deflate(&z, last ? Z_FINISH : Z_SYNC_FLUSH);
    failed[b] = last ? rc != Z_STREAM_END : (rc != Z_OK || z.avail_in != 0 || z.avail_out == 0);
    packed[b].resize(z.total_out);
    deflateEnd(&z);
  }
  if (std::find(failed.begin(), failed.end(), 1) != failed.end())
    throw FileFormatError(path + ": cannot write PNG (deflate failed)");
  uLong sum = adler[0];
  for (int b = 1; b < bands; ++b) sum = adler32_combine(sum, adler[b], z_off_t(length[b]));
  std::string stream("\x78\x01", 2);  // zlib header: deflate, 32 KiB window, fastest
  for (const auto& p : packed) stream += p;
  put_u32(stream, std::uint32_t(sum));
  std::string png("\x89PNG\r\n\x1a\n", 8), ihdr;
  put_u32(ihdr, std::uint32_t(width));
  put_u32(ihdr, std::uint32_t(height));
  ihdr += std::string("\x08\x02\x00\x00\x00", 5);  // 8 bits, RGB, deflate, adaptive filters, no interlace
  png.reserve(stream.size() + 1024);
  put_chunk(png, "IHDR", ihdr.data(), ihdr.size());
  constexpr std::size_t kChunk = std::size_t(1) << 20;
  for (std::size_t at = 0; at < stream.size(); at += kChunk)
    put_chunk(png, "IDAT", stream.data() + at, std::min(kChunk, stream.size() - at));
  put_chunk(png, "IEND", nullptr, 0);
  write_file(path, png);
}

std::vector<std::uint8_t> read_png(const std::string& path, int& width, int& height, const ReadLimits& limits) {
  png_image im{};
  im.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&im, path.c_str())) throw FileFormatError(path + ": cannot read PNG: " + im.message);
  // the header alone can ask for gigabytes that a few compressed bytes
  // never fill
  if (const std::string why = limits.refusal(im.width, im.height); !why.empty()) {
    png_image_free(&im);
    throw FileFormatError(path + ": PNG file " + why);
  }
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

}  // namespace pscr::image
