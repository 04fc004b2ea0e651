// The mutation fuzzer of the file readers (fuzz_image_readers,
// fuzz_data_readers): mutations of valid files, each decoded in bounded time
// to a consistent result or refused with the reader's documented error.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <exception>
#include <random>
#include <string>
#include <vector>

namespace pscr::fuzz {

// One to six of: bit flips, random bytes, truncation, deleted, inserted and
// duplicated ranges, numbers written into the header, small values near it.
inline std::string mutate(std::string s, std::mt19937_64& rng) {
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

// Decodes mutations of `seeds` for `seconds`. decode(input) returns "" for a
// consistent result, else what is inconsistent; it throws for a refused
// input, and is_refusal(e) says whether e is the reader's documented error.
// Fails (returns 1) on another exception, an inconsistent result, an input
// slower than 2 s, or a run that never decoded or never refused.
template <class Decode, class IsRefusal>
int run(const char* what, const std::vector<std::string>& seeds, double seconds, unsigned long long seed,
        Decode decode, IsRefusal is_refusal) {
  std::mt19937_64 rng(seed);
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  long runs = 0, decoded = 0, refused = 0;
  double slowest = 0;
  while (std::chrono::duration<double>(clock::now() - t0).count() < seconds) {
    const std::string input = mutate(seeds[rng() % seeds.size()], rng);
    const auto t = clock::now();
    try {
      const std::string wrong = decode(input);
      if (!wrong.empty()) {
        std::fprintf(stderr, "%s: inconsistent result after %ld runs: %s\n", what, runs, wrong.c_str());
        return 1;
      }
      ++decoded;
    } catch (const std::exception& e) {
      if (!is_refusal(e)) {
        std::fprintf(stderr, "%s: unexpected exception after %ld runs: %s\n", what, runs, e.what());
        return 1;
      }
      ++refused;
    }
    slowest = std::max(slowest, std::chrono::duration<double>(clock::now() - t).count());
    ++runs;
  }
  std::printf("%s: %ld inputs in %.0f s: %ld decoded, %ld refused; slowest %.1f ms\n", what, runs, seconds, decoded,
              refused, 1e3 * slowest);
  if (slowest > 2.0) {
    std::fprintf(stderr, "%s: an input took %.2f s to decode (bounded time expected)\n", what, slowest);
    return 1;
  }
  return runs > 100 && decoded > 0 && refused > 0 ? 0 : 1;
}

}  // namespace pscr::fuzz
