#include "image.hpp"

#include <fstream>
#include <sstream>

#include "pscr/errors.hpp"

namespace pscr::image {

Image make_image(int width, int height) {
  if (width < 1 || height < 1)
    throw InvalidArgument("image size " + std::to_string(width) + "x" + std::to_string(height) + " (needs >= 1x1)");
  Image img;
  img.width = width;
  img.height = height;
  img.rgb.assign(3 * img.pixels(), 0.0f);
  return img;
}

std::string ReadLimits::refusal(long long w, long long h) const {
  if (w >= 1 && h >= 1 && w <= max_side && h <= max_side && std::size_t(w) * std::size_t(h) <= max_pixels) return "";
  return "declares " + std::to_string(w) + "x" + std::to_string(h) + " pixels, outside the accepted 1.." +
         std::to_string(max_side) + " per side and " + std::to_string(max_pixels) + " in all";
}

std::string read_file(const std::string& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileFormatError(path + ": cannot open for reading");
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) throw FileFormatError(path + ": cannot determine the file size");
  if (std::size_t(size) > max_bytes)
    throw FileFormatError(path + ": " + std::to_string(size) + " bytes, more than the " + std::to_string(max_bytes) +
                          " accepted");
  std::string bytes(std::size_t(size), '\0');
  in.seekg(0);
  in.read(bytes.data(), size);
  if (!in) throw FileFormatError(path + ": read error");
  return bytes;
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw FileFormatError(path + ": cannot open for writing");
  out.write(bytes.data(), std::streamsize(bytes.size()));
  out.close();
  if (!out) throw FileFormatError(path + ": write error");
}

Image decode_image(const std::string& bytes, const std::string& name, const ReadLimits& limits) {
  if (bytes.size() >= 2 && bytes[0] == '#' && bytes[1] == '?') return decode_radiance(bytes, name, limits);
  if (bytes.size() >= 2 && bytes[0] == 'P' && (bytes[1] == 'F' || bytes[1] == 'f')) return decode_pfm(bytes, name, limits);
  if (bytes.size() >= 4 && bytes.compare(0, 4, "\x76\x2f\x31\x01") == 0) return decode_exr(bytes, name, limits);
  if (bytes.empty()) throw FileFormatError(name + ": empty file");
  throw FileFormatError(name + ": not a Radiance (#?), PFM (PF/Pf) or OpenEXR file (unknown magic bytes)");
}

Image read_image(const std::string& path, const ReadLimits& limits) { return decode_image(read_file(path), path, limits); }

std::string file_extension(const std::string& path) {
  const auto dot = path.rfind('.');
  std::string e = dot == std::string::npos ? "" : path.substr(dot + 1);
  for (auto& c : e) c = char(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

namespace {
using Encoder = std::string (*)(const Image&);
// The one list of what write_image writes, by extension; null for others.
Encoder encoder_for(const std::string& path) {
  const std::string e = file_extension(path);
  if (e == "hdr" || e == "pic") return [](const Image& img) { return encode_radiance(img); };
  if (e == "pfm") return [](const Image& img) { return encode_pfm(img); };
  if (e == "exr") return [](const Image& img) { return encode_exr(img); };
  return nullptr;
}
}  // namespace

bool can_write_image(const std::string& path) { return encoder_for(path) != nullptr; }

void write_image(const std::string& path, const Image& img) {
  const Encoder encode = encoder_for(path);
  if (!encode)
    throw InvalidArgument(path + ": unknown image extension '" + file_extension(path) + "' (use .hdr, .pfm or .exr)");
  write_file(path, encode(img));
}

}  // namespace pscr::image
