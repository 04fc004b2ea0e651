// Mutation fuzzing of the HDR image readers under AddressSanitizer and
// UndefinedBehaviorSanitizer, for a bounded time: every mutated file must
// decode to a consistent image or throw pscr::FileFormatError, quickly.
//   fuzz_image_readers [seconds = 20] [seed = 1]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "image.hpp"
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

std::string mutate(std::string s, std::mt19937_64& rng) {
  auto pick = [&](std::size_t n) { return n == 0 ? std::size_t(0) : std::size_t(rng() % n); };
  const int edits = 1 + int(rng() % 6);
  for (int e = 0; e < edits; ++e) {
    switch (rng() % 8) {
      case 0: if (!s.empty()) s[pick(s.size())] ^= char(1u << (rng() % 8)); break;     // bit flip
      case 1: if (!s.empty()) s[pick(s.size())] = char(rng()); break;                  // random byte
      case 2: s.resize(pick(s.size() + 1)); break;                                    // truncate
      case 3: {                                                                        // delete a range
        const std::size_t a = pick(s.size() + 1), n = pick(64);
        s.erase(a, n);
        break;
      }
      case 4: {                                                                        // insert random bytes
        std::string junk(pick(32) + 1, '\0');
        for (auto& c : junk) c = char(rng());
        s.insert(pick(s.size() + 1), junk);
        break;
      }
      case 5: {                                                                        // duplicate a chunk
        const std::size_t a = pick(s.size() + 1), n = pick(128);
        s.insert(pick(s.size() + 1), s.substr(a, n));
        break;
      }
      case 6: {                                                                        // a number in the header
        const char* nums[] = {"0", "-1", "65535", "65536", "2147483647", "99999999999", "1e308", "nan", "8", "1"};
        const std::size_t at = pick(std::min<std::size_t>(s.size(), 64) + 1);
        s.replace(at, pick(4), nums[rng() % 10]);
        break;
      }
      default: if (s.size() > 4) s[4 + pick(std::min<std::size_t>(s.size() - 4, 96))] = char(rng() % 4);  // small values near the header
    }
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 20;
  std::mt19937_64 rng(argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1);
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
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  long runs = 0, decoded = 0, refused = 0;
  double slowest = 0;
  while (std::chrono::duration<double>(clock::now() - t0).count() < seconds) {
    const std::string input = mutate(seeds[rng() % seeds.size()], rng);
    const auto t = clock::now();
    try {
      const Image img = decode_image(input, "fuzz", limits);
      if (img.width < 1 || img.height < 1 || img.rgb.size() != 3 * img.pixels()) {
        std::fprintf(stderr, "inconsistent image %dx%d with %zu values after %ld runs\n", img.width, img.height,
                     img.rgb.size(), runs);
        return 1;
      }
      ++decoded;
    } catch (const pscr::FileFormatError&) {
      ++refused;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "unexpected exception after %ld runs: %s\n", runs, e.what());
      return 1;
    }
    slowest = std::max(slowest, std::chrono::duration<double>(clock::now() - t).count());
    ++runs;
  }
  std::printf("%ld inputs in %.0f s: %ld decoded, %ld refused with FileFormatError; slowest %.1f ms\n", runs, seconds,
              decoded, refused, 1e3 * slowest);
  if (slowest > 2.0) {
    std::fprintf(stderr, "an input took %.2f s to decode (bounded time expected)\n", slowest);
    return 1;
  }
  return runs > 100 && decoded > 0 && refused > 0 ? 0 : 1;
}
