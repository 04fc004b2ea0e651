// Reinhard tone mapping of a video over several OpenCL devices: frames spread
// over the devices, each device running `streams` pipelines (own queue,
// own page-locked frame) from their own host threads, so that one stream's
// host copy and transfers overlap another's kernels. Frames are independent
// (the global operator needs each frame's own log-average and maximum), so
// every device computes whole frames and nothing is combined across devices.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tonemap.hpp"

namespace pscr::hdr {

struct VideoRun {
  int devices = 0, streams = 0, frames = 0;
  double seconds = 0;                 // wall time of all frames (after one warm-up frame per stream)
  double fps() const { return seconds > 0 ? frames / seconds : 0; }
  std::vector<std::uint64_t> checksums;  // per frame: a hash of its 8-bit result
};

// `source`: the distinct input frames, cycled (frame k is source[k % size]).
VideoRun reinhard_video(const std::vector<Image>& source, int frames, const std::vector<std::string>& devices,
                        int streams, const ReinhardParameters& p = {});

// A short synthetic video: the window scene under an exposure that varies
// over `count` frames (a factor 0.25 … 4), the light moving across.
std::vector<Image> video_frames(int width, int height, int count);

}  // namespace pscr::hdr
