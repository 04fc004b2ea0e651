// Image formats of the HDR client: round trips of every reader/writer pair
// (both Radiance run-length encodings), and clear FileFormatErrors for
// corrupt, truncated and absurd files.
#define BOOST_TEST_MODULE hdr_formats
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdio>

#include <zlib.h>

#include "image.hpp"
#include "pscr/errors.hpp"
#include "scenes.hpp"

using namespace pscr::hdr;

namespace {

// A scene plus exact zeros, flat runs (for the run-length encoders) and a 1e-6 .. 1e4 span.
Image sample(int w, int h) {
  Image img = synthetic_scene("window", w, h);
  for (int x = 0; x < w; ++x) img.pixel(x, 0)[0] = img.pixel(x, 0)[1] = img.pixel(x, 0)[2] = 0;
  if (h > 2)
    for (int x = 0; x < w; ++x) img.pixel(x, 1)[1] = 0.5f;
  img.pixel(w - 1, h - 1)[2] = 1e-6f;
  return img;
}

bool thrown_format_error(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
  } catch (const pscr::FileFormatError& e) {
    const bool ok = std::string(e.what()).find(needle) != std::string::npos;
    if (!ok) BOOST_TEST_MESSAGE("message was: " << e.what());
    return ok;
  }
  return false;
}

}  // namespace

BOOST_AUTO_TEST_CASE(radiance_round_trips_all_encodings) {
  for (auto [w, h] : {std::pair{97, 31}, {8, 3}, {7, 5}, {1, 1}, {1, 40}, {300, 2}}) {
    const Image img = sample(w, h);
    std::string first;
    for (auto enc : {RadianceEncoding::flat, RadianceEncoding::old_rle, RadianceEncoding::new_rle}) {
      const std::string bytes = encode_radiance(img, enc);
      const Image back = decode_radiance(bytes, "mem");
      BOOST_REQUIRE(back.width == w && back.height == h);
      // RGBE keeps 8 mantissa bits of the largest component
      double worst = 0;
      for (std::size_t i = 0; i < img.pixels(); ++i) {
        const float* a = img.rgb.data() + 3 * i;
        const float* b = back.rgb.data() + 3 * i;
        const double m = std::max({a[0], a[1], a[2]});
        for (int c = 0; c < 3; ++c) worst = std::max(worst, m > 0 ? std::fabs(a[c] - b[c]) / m : std::fabs(b[c]));
      }
      BOOST_TEST(worst <= 1.0 / 128, "w=" << w << " h=" << h << " enc=" << int(enc) << " worst " << worst);
      // decoded values re-encode to the same pixels: all encodings carry the same data
      const std::string again = encode_radiance(back, RadianceEncoding::flat);
      if (first.empty()) first = again;
      BOOST_TEST(again == first);
    }
    // the run-length encodings are smaller on flat rows
    if (w >= 8) BOOST_TEST(encode_radiance(img, RadianceEncoding::new_rle).size() < encode_radiance(img, RadianceEncoding::flat).size());
  }
}

BOOST_AUTO_TEST_CASE(radiance_orientations) {
  // +Y (bottom-up) and -X (right-to-left) flip the image
  Image img = make_image(9, 2);
  img.pixel(0, 0)[0] = 1.0f;  // top-left is red
  std::string bytes = encode_radiance(img, RadianceEncoding::flat);
  const auto at = bytes.find("-Y 2 +X 9");
  BOOST_REQUIRE(at != std::string::npos);
  bytes.replace(at, 9, "+Y 2 -X 9");
  const Image back = decode_radiance(bytes, "mem");
  BOOST_TEST(back.pixel(8, 1)[0] > 0.9f);
  BOOST_TEST(back.pixel(0, 0)[0] == 0.0f);
}

BOOST_AUTO_TEST_CASE(pfm_and_exr_round_trips) {
  for (auto [w, h] : {std::pair{33, 17}, {1, 1}, {1, 9}, {12, 1}}) {
    Image img = sample(w, h);
    img.pixel(0, h - 1)[0] = -2.5f;  // PFM and EXR keep negative values
    const Image p = decode_image(encode_pfm(img), "mem.pfm");
    BOOST_TEST(p.rgb == img.rgb);  // bit exact
    const Image e = decode_image(encode_exr(img), "mem.exr");
    BOOST_TEST(e.rgb == img.rgb);
    const Image eh = decode_image(encode_exr(img, true), "mem-half.exr");
    for (std::size_t i = 0; i < img.rgb.size(); ++i)
      BOOST_TEST(std::fabs(eh.rgb[i] - img.rgb[i]) <= 1e-3 * std::fabs(img.rgb[i]) + 1e-7);
  }
  // grey PFM (Pf), big-endian (positive scale)
  std::string grey = "Pf\n2 1\n1.0\n";
  const unsigned char be[8] = {0x3f, 0x80, 0, 0, 0x40, 0, 0, 0};  // 1.0f, 2.0f
  grey.append(reinterpret_cast<const char*>(be), 8);
  const Image g = decode_image(grey, "grey.pfm");
  BOOST_TEST(g.rgb == (std::vector<float>{1, 1, 1, 2, 2, 2}));
}

BOOST_AUTO_TEST_CASE(files_and_png) {
  const Image img = sample(20, 10);
  for (std::string ext : {"hdr", "pfm", "exr"}) {
    const std::string path = "test_hdr_formats_tmp." + ext;
    write_image(path, img);
    const Image back = read_image(path);
    BOOST_TEST(back.width == 20);
    BOOST_TEST(back.height == 10);
    std::remove(path.c_str());
  }
  std::vector<std::uint8_t> rgb8(3 * 20 * 10);
  for (std::size_t i = 0; i < rgb8.size(); ++i) rgb8[i] = std::uint8_t(i * 7);
  write_png("test_hdr_formats_tmp.png", 20, 10, rgb8);
  int w = 0, h = 0;
  BOOST_TEST(read_png("test_hdr_formats_tmp.png", w, h) == rgb8);
  BOOST_TEST(w == 20);
  // many bands of rows deflated side by side: libpng reads back every byte
  // (the stream, its Adler-32 and every chunk's CRC are checked)
  for (auto [bw, bh] : {std::pair{300, 257}, std::pair{1, 4000}, std::pair{2049, 33}}) {
    std::vector<std::uint8_t> big(3 * std::size_t(bw) * bh);
    std::uint32_t x = 12345;
    for (std::size_t i = 0; i < big.size(); ++i) {
      x = x * 1664525u + 1013904223u;
      big[i] = (i / 3000) % 2 ? std::uint8_t(x >> 24) : std::uint8_t(i / 7);  // noisy and smooth runs
    }
    write_png("test_hdr_formats_tmp.png", bw, bh, big);
    BOOST_TEST(read_png("test_hdr_formats_tmp.png", w, h) == big);
    BOOST_TEST((w == bw && h == bh));
  }
  // a header asking for more pixels than the limits: refused before the
  // pixels are allocated (a 100000 x 3 or 5000 x 5000 image from a 20 x 10
  // file's bytes, its IHDR's CRC mended so that libpng takes the header)
  write_png("test_hdr_formats_tmp.png", 20, 10, rgb8);
  const std::string good = read_file("test_hdr_formats_tmp.png");
  for (auto [pw, ph] : {std::pair{100000u, 3u}, std::pair{5000u, 5000u}}) {
    std::string bytes = good;
    for (int i = 0; i < 4; ++i) {
      bytes[16 + i] = char(pw >> (24 - 8 * i));
      bytes[20 + i] = char(ph >> (24 - 8 * i));
    }
    const std::uint32_t crc = crc32(0, reinterpret_cast<const unsigned char*>(bytes.data() + 12), 17);
    for (int i = 0; i < 4; ++i) bytes[29 + i] = char(crc >> (24 - 8 * i));
    write_file("test_hdr_formats_tmp.png", bytes);
    ReadLimits limits;
    limits.max_pixels = std::size_t(1) << 24;
    BOOST_CHECK_EXCEPTION(read_png("test_hdr_formats_tmp.png", w, h, limits), pscr::FileFormatError, [&](auto& e) {
      return std::string(e.what()).find(std::to_string(pw) + "x" + std::to_string(ph) + " pixels, outside the accepted") !=
             std::string::npos;
    });
  }
  std::remove("test_hdr_formats_tmp.png");
  BOOST_CHECK_THROW(write_image("x.jpg", img), pscr::InvalidArgument);
  // what the tools check before they run: the same list write_image uses
  for (const char* ok : {"a.hdr", "b.PIC", "c.pfm", "d.Exr"}) BOOST_TEST(can_write_image(ok), ok);
  for (const char* no : {"a.png", "b.jpg", "exr", "dir.exr/file"}) BOOST_TEST(!can_write_image(no), no);
  BOOST_TEST(file_extension("x/y.Z.PNG") == "png");
  BOOST_CHECK_THROW(read_image("/nonexistent/file.hdr"), pscr::FileFormatError);
  BOOST_CHECK_THROW(write_image("/nonexistent/dir/file.hdr", img), pscr::FileFormatError);
  BOOST_CHECK_THROW(write_png("/nonexistent/dir/file.png", 20, 10, rgb8), pscr::FileFormatError);
  BOOST_CHECK_THROW(write_png("x.png", 21, 10, rgb8), pscr::InvalidArgument);
  Image nan = img;
  nan.rgb[5] = NAN;
  BOOST_CHECK_THROW(encode_radiance(nan), pscr::NonFiniteInput);
}

BOOST_AUTO_TEST_CASE(corrupt_truncated_and_absurd_files) {
  const Image img = sample(40, 6);
  const std::string hdr = encode_radiance(img), pfm = encode_pfm(img), exr = encode_exr(img);
  auto dec = [](const std::string& s) { return [s] { decode_image(s, "bad"); }; };
  BOOST_TEST(thrown_format_error(dec(""), "empty"));
  BOOST_TEST(thrown_format_error(dec("GIF89a"), "unknown magic"));
  // truncated anywhere after the magic: an error, never a crash or a partial image
  for (std::size_t cut : {std::size_t(3), hdr.size() / 10, hdr.size() / 2, hdr.size() - 1})
    BOOST_TEST(thrown_format_error(dec(hdr.substr(0, cut)), "Radiance"), "cut " << cut);
  for (std::size_t cut : {std::size_t(3), std::size_t(12), pfm.size() - 1})
    BOOST_TEST(thrown_format_error(dec(pfm.substr(0, cut)), "PFM"), "cut " << cut);
  for (std::size_t cut : {std::size_t(8), exr.size() / 3, exr.size() - 1})
    BOOST_TEST(thrown_format_error(dec(exr.substr(0, cut)), "OpenEXR"), "cut " << cut);
  // absurd sizes are refused before allocation
  BOOST_TEST(thrown_format_error(dec("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 2000000000 +X 2000000000\n"), "declares"));
  BOOST_TEST(thrown_format_error(dec("#?RADIANCE\n\n-Y 60000 +X 60000\nxxxx"), "declares"));
  BOOST_TEST(thrown_format_error(dec("#?RADIANCE\n\n-Y 0 +X 5\n"), "declares"));
  BOOST_TEST(thrown_format_error(dec("PF\n65536 65536\n-1.0\n"), "declares"));
  BOOST_TEST(thrown_format_error(dec("PF\n-3 2\n-1.0\n"), "invalid width"));
  BOOST_TEST(thrown_format_error(dec("PF\n3 2\nnan\n"), "invalid scale"));
  // structure errors
  BOOST_TEST(thrown_format_error(dec("#?RADIANCE\nFORMAT=32-bit_rle_xyze\n\n-Y 1 +X 1\n\x80\x80\x80\x80"), "XYZE"));
  BOOST_TEST(thrown_format_error(dec("#?RADIANCE\n\n+X 4 -Y 4\n"), "transposed"));
  BOOST_TEST(thrown_format_error(dec("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n"), "ends inside the header"));
  std::string run_at_start = "#?RADIANCE\n\n-Y 1 +X 4\n";
  run_at_start += std::string("\x01\x01\x01\x03", 4);
  BOOST_TEST(thrown_format_error(dec(run_at_start), "repeat marker"));
  std::string long_run = "#?RADIANCE\n\n-Y 1 +X 8\n";
  long_run += std::string("\x02\x02\x00\x08", 4) + std::string("\xff\x01", 2);  // run of 127 in a width of 8
  BOOST_TEST(thrown_format_error(dec(long_run), "past the end"));
  std::string wrong_width = "#?RADIANCE\n\n-Y 1 +X 8\n";
  wrong_width += std::string("\x02\x02\x00\x09", 4);
  BOOST_TEST(thrown_format_error(dec(wrong_width), "width 9"));
  std::string exr_bad = exr;
  for (std::size_t i = 40; i < 120 && i < exr_bad.size(); ++i) exr_bad[i] = char(0xff);
  BOOST_CHECK_THROW(decode_image(exr_bad, "bad.exr"), pscr::FileFormatError);
  // a custom limit
  ReadLimits small;
  small.max_pixels = 100;
  BOOST_TEST(thrown_format_error([&] { decode_image(hdr, "big", small); }, "declares"));
}
