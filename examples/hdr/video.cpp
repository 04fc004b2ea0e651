#include "video.hpp"

#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "pscr/errors.hpp"
#include "scenes.hpp"

namespace pscr::hdr {

std::vector<Image> video_frames(int width, int height, int count) {
  if (count < 1) throw InvalidArgument("video_frames: count must be >= 1");
  const Image base = synthetic_scene("window", width, height);
  std::vector<Image> out;
  for (int k = 0; k < count; ++k) {
    Image f = base;
    const double t = double(k) / count, exposure = std::pow(4.0, std::sin(2 * M_PI * t));
    const double cx = width * (0.2 + 0.6 * t), cy = height * 0.3, r = 0.05 * std::min(width, height);
#pragma omp parallel for
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        float* px = f.pixel(x, y);
        const double d2 = (x - cx) * (x - cx) + (y - cy) * (y - cy), light = 50.0 * std::exp(-d2 / (2 * r * r));
        for (int c = 0; c < 3; ++c) px[c] = float(px[c] * exposure + light);
      }
    out.push_back(std::move(f));
  }
  return out;
}

namespace {
std::uint64_t fnv(const std::uint8_t* p, std::size_t n) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}
}  // namespace

VideoRun reinhard_video(const std::vector<Image>& source, int frames, const std::vector<std::string>& devices,
                        int streams, const ReinhardParameters& p) {
  if (source.empty() || frames < 1 || devices.empty() || streams < 1)
    throw InvalidArgument("reinhard_video: needs frames, at least one device and one stream");
  const int w = source[0].width, h = source[0].height;
  for (const Image& s : source)
    if (s.width != w || s.height != h) throw SizeMismatch("reinhard_video: the source frames differ in size");
  struct Stream {
    std::unique_ptr<Pipeline> pipe;
    Frame frame;
  };
  std::vector<Stream> ss;
  for (const std::string& d : devices)
    for (int s = 0; s < streams; ++s) {
      PipelineOptions o;
      o.device = d;
      Stream st;
      st.pipe = std::make_unique<Pipeline>(w, h, o);
      st.frame = st.pipe->frame();
      ss.push_back(std::move(st));
    }
  const std::size_t bytes = std::size_t(w) * h * 3;
  VideoRun run;
  run.devices = int(devices.size());
  run.streams = streams;
  run.frames = frames;
  run.checksums.assign(frames, 0);
  auto one = [&](Stream& st, int k) {
    std::memcpy(st.frame.rgb, source[k % source.size()].rgb.data(), bytes * sizeof(float));
    st.pipe->reinhard(st.frame, p);
    return fnv(st.frame.rgb8, bytes);
  };
  for (auto& st : ss) one(st, 0);  // warm-up: programs, first transfers
  std::exception_ptr error;
  std::mutex m;
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  const int W = int(ss.size());
  for (int s = 0; s < W; ++s)
    threads.emplace_back([&, s] {
      try {
        for (int k = s; k < frames; k += W) run.checksums[k] = one(ss[s], k);
      } catch (...) {
        std::lock_guard<std::mutex> lock(m);
        if (!error) error = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (error) std::rethrow_exception(error);
  return run;
}

}  // namespace pscr::hdr
