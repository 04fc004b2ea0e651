// Peak resident memory of a stretch of a program (Linux): reset the process's
// high-water mark (/proc/self/clear_refs, "5"), run it, read VmHWM. Other
// systems, or a kernel that refuses the reset, report -1.
#pragma once
#include <fstream>
#include <string>

namespace pscr::cli {

inline long long resident_high_water_bytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  return -1;
}

// Resets the high-water mark to the current resident size; false if it cannot.
inline bool reset_resident_high_water() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return bool(out);
}

}  // namespace pscr::cli
