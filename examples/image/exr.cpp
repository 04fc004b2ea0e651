// OpenEXR through the library of the OpenEXR project (Debian libopenexr-dev),
// from and to memory: R, G, B channels (or Y alone, read as grey) of any pixel
// type, converted to 32-bit float.
#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfIO.h>
#include <ImfInputFile.h>
#include <ImfOutputFile.h>
#include <Iex.h>
#include <half.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "image.hpp"
#include "pscr/errors.hpp"

namespace pscr::image {
namespace {

class MemoryIn : public Imf::IStream {
 public:
  MemoryIn(const std::string& bytes, const std::string& name) : Imf::IStream(name.c_str()), s_(bytes) {}
  bool read(char c[], int n) override {
    if (n < 0 || pos_ > s_.size() || s_.size() - pos_ < std::size_t(n)) throw Iex::InputExc("unexpected end of file");
    std::memcpy(c, s_.data() + pos_, std::size_t(n));
    pos_ += std::size_t(n);
    return pos_ < s_.size();
  }
  uint64_t tellg() override { return pos_; }
  void seekg(uint64_t pos) override { pos_ = std::size_t(std::min<uint64_t>(pos, s_.size() + 1)); }

 private:
  const std::string& s_;
  std::size_t pos_ = 0;
};

class MemoryOut : public Imf::OStream {
 public:
  MemoryOut() : Imf::OStream("memory") {}
  void write(const char c[], int n) override {
    if (pos_ + std::size_t(n) > s.size()) s.resize(pos_ + std::size_t(n));
    std::memcpy(s.data() + pos_, c, std::size_t(n));
    pos_ += std::size_t(n);
  }
  uint64_t tellp() override { return pos_; }
  void seekp(uint64_t pos) override { pos_ = std::size_t(pos); }
  std::string s;

 private:
  std::size_t pos_ = 0;
};

// Threads for OpenEXR's line-block (de)compression: a 2048² ZIP file took
// 0.7 s to read with one.
int exr_threads() { return int(std::clamp(std::thread::hardware_concurrency(), 1u, 16u)); }

}  // namespace

Image decode_exr(const std::string& bytes, const std::string& name, const ReadLimits& limits) {
  try {
    MemoryIn in(bytes, name);
    Imf::InputFile file(in, exr_threads());
    const Imath::Box2i dw = file.header().dataWindow();
    const long w = long(dw.max.x) - dw.min.x + 1, h = long(dw.max.y) - dw.min.y + 1;
    if (const std::string why = limits.refusal(w, h); !why.empty())
      throw FileFormatError(name + ": OpenEXR file " + why);
    const Imf::ChannelList& ch = file.header().channels();
    const bool rgb = ch.findChannel("R") && ch.findChannel("G") && ch.findChannel("B");
    if (!rgb && !ch.findChannel("Y")) {
      std::string names;
      for (auto it = ch.begin(); it != ch.end(); ++it) names += std::string(names.empty() ? "" : ", ") + it.name();
      throw FileFormatError(name + ": OpenEXR file has neither R, G, B nor Y channels (it has: " +
                            (names.empty() ? std::string("none") : names) + ")");
    }
    Image img = make_image(int(w), int(h));
    // The slices address pixel (x, y) of the data window as base + x·xs + y·ys.
    const std::size_t xs = 3 * sizeof(float), ys = xs * std::size_t(w);
    char* base = reinterpret_cast<char*>(img.rgb.data()) - std::ptrdiff_t(dw.min.x) * std::ptrdiff_t(xs) -
                 std::ptrdiff_t(dw.min.y) * std::ptrdiff_t(ys);
    Imf::FrameBuffer fb;
    if (rgb) {
      const char* names[3] = {"R", "G", "B"};
      for (int c = 0; c < 3; ++c) fb.insert(names[c], Imf::Slice(Imf::FLOAT, base + c * sizeof(float), xs, ys));
    } else {
      fb.insert("Y", Imf::Slice(Imf::FLOAT, base, xs, ys));
    }
    file.setFrameBuffer(fb);
    file.readPixels(dw.min.y, dw.max.y);
    if (!rgb)
      for (std::size_t i = 0; i < img.pixels(); ++i) img.rgb[3 * i + 1] = img.rgb[3 * i + 2] = img.rgb[3 * i];
    return img;
  } catch (const pscr::Error&) {
    throw;
  } catch (const std::exception& e) {
    throw FileFormatError(name + ": OpenEXR file cannot be read: " + e.what());
  }
}

std::string encode_exr(const Image& img, bool half) {
  if (img.width < 1 || img.height < 1 || img.rgb.size() != 3 * img.pixels())
    throw InvalidArgument("encode_exr: image of " + std::to_string(img.width) + "x" + std::to_string(img.height) +
                          " with " + std::to_string(img.rgb.size()) + " values");
  const Imf::PixelType type = half ? Imf::HALF : Imf::FLOAT;
  Imf::Header header(img.width, img.height);
  const char* names[3] = {"R", "G", "B"};
  for (auto n : names) header.channels().insert(n, Imf::Channel(type));
  MemoryOut out;
  {
    Imf::OutputFile file(out, header, exr_threads());
    Imf::FrameBuffer fb;
    std::vector<Imath::half> halves;  // the library converts only between equal pixel types on output
    if (half) {
      halves.assign(img.rgb.begin(), img.rgb.end());
      char* base = reinterpret_cast<char*>(halves.data());
      for (int c = 0; c < 3; ++c)
        fb.insert(names[c], Imf::Slice(Imf::HALF, base + c * sizeof(Imath::half), 3 * sizeof(Imath::half),
                                       3 * sizeof(Imath::half) * img.width));
    } else {
      char* base = const_cast<char*>(reinterpret_cast<const char*>(img.rgb.data()));
      for (int c = 0; c < 3; ++c)
        fb.insert(names[c], Imf::Slice(Imf::FLOAT, base + c * sizeof(float), 3 * sizeof(float), 3 * sizeof(float) * img.width));
    }
    file.setFrameBuffer(fb);
    file.writePixels(img.height);
  }
  return out.s;
}

}  // namespace pscr::image
