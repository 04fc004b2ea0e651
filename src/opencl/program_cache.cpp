#include "program_cache.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace pscr::ocl {
namespace {

constexpr char kMagic[8] = {'P', 'S', 'C', 'R', 'C', 'L', '0', '1'};
constexpr std::uint64_t kMaxEntry = std::uint64_t(1) << 28;  // 256 MiB: anything larger is not ours

std::uint64_t fnv1a(const void* data, std::size_t n, std::uint64_t h = 1469598103934665603ull) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}
std::string hex(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}
void put_u64(std::string& out, std::uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
bool get_u64(const std::string& in, std::size_t& pos, std::uint64_t& v) {
  if (in.size() - pos < sizeof v) return false;
  std::memcpy(&v, in.data() + pos, sizeof v);
  pos += sizeof v;
  return true;
}

// The binary stored under `key`, or empty when the entry is missing or not valid.
std::string load_entry(const std::filesystem::path& file, const std::string& key) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec || size > kMaxEntry) return {};
  std::ifstream in(file, std::ios::binary);
  std::string data(size, '\0');
  if (!in.read(data.data(), std::streamsize(size))) return {};
  std::size_t pos = sizeof kMagic;
  if (data.size() < pos || std::memcmp(data.data(), kMagic, sizeof kMagic) != 0) return {};
  std::uint64_t klen = 0, blen = 0, sum = 0;
  if (!get_u64(data, pos, klen) || klen > data.size() - pos || data.compare(pos, klen, key) != 0 || klen != key.size())
    return {};
  pos += klen;
  if (!get_u64(data, pos, blen) || blen == 0 || blen > data.size() - pos) return {};
  std::string bin = data.substr(pos, blen);
  pos += blen;
  if (!get_u64(data, pos, sum) || pos != data.size() || sum != fnv1a(bin.data(), bin.size())) return {};
  return bin;
}

// Writes the entry through a temporary file and a rename, so that readers
// never see half an entry. Returns why it could not, or empty.
std::string store_entry(const std::filesystem::path& dir, const std::filesystem::path& file, const std::string& key,
                        const std::string& bin) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return "cannot create " + dir.string() + ": " + ec.message();
  std::string data(kMagic, sizeof kMagic);
  put_u64(data, key.size());
  data += key;
  put_u64(data, bin.size());
  data += bin;
  put_u64(data, fnv1a(bin.data(), bin.size()));
  // unique per process and thread: plans built at once must not share a temporary
  const auto tmp = dir / (file.filename().string() + ".tmp" + std::to_string(::getpid()) + "-" +
                          std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out.write(data.data(), std::streamsize(data.size())) || !out.flush()) {
      std::filesystem::remove(tmp, ec);
      return "cannot write " + tmp.string();
    }
  }
  std::filesystem::rename(tmp, file, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return "cannot rename into " + file.string();
  }
  return {};
}

// The device binary of a built program (one device).
std::string program_binary(cl_program prog) {
  std::size_t size = 0;
  if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) != CL_SUCCESS || size == 0 ||
      size > kMaxEntry)
    return {};
  std::string bin(size, '\0');
  unsigned char* ptr = reinterpret_cast<unsigned char*>(bin.data());
  if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr) != CL_SUCCESS) return {};
  return bin;
}

// PoCL, unless its cache is turned off (POCL_KERNEL_CACHE=0).
bool driver_caches_programs(const Device& dev) {
  if (platform_text(dev.platform, CL_PLATFORM_NAME).find("Portable Computing Language") == std::string::npos)
    return false;
  const char* env = std::getenv("POCL_KERNEL_CACHE");
  return !env || std::string(env) != "0";
}

}  // namespace

std::string program_cache_dir(const std::string& setting) {
  if (setting == "off") return {};
  if (!setting.empty()) return setting;
  if (const char* env = std::getenv("PSCR_PROGRAM_CACHE"))
    return std::string(env) == "off" ? std::string() : std::string(env);
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/pscr";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/pscr";
  return {};
}

CachedBuild build_cached(cl_context ctx, const Device& dev, const char* source, const std::string& options,
                         const std::string& setting) {
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  CachedBuild out;
  const std::string dir = program_cache_dir(setting);
  // PoCL keeps every program it builds in its own cache (keyed by source
  // and options, POCL_CACHE_DIR), and a binary to store here costs it the
  // code of every kernel at one go: 24–34 s for a program whose build takes
  // 1.2 s and whose plan uses a third of its kernels. Left to PoCL unless a
  // directory is asked for (Options::program_cache, $PSCR_PROGRAM_CACHE).
  const bool defaulted = setting.empty() && !std::getenv("PSCR_PROGRAM_CACHE");
  if (dir.empty() || (defaulted && driver_caches_programs(dev))) {
    out.program = build_program(ctx, dev, source, options);
    out.outcome = dir.empty() ? "off" : "off (the driver caches its programs)";
    out.seconds = elapsed();
    return out;
  }
  std::ostringstream key;
  key << "libpscr program cache 1\n"
      << dev.name << '\n'
      << platform_text(dev.platform, CL_PLATFORM_VERSION) << '\n'
      << device_text(dev.device, CL_DRIVER_VERSION) << '\n'
      << device_text(dev.device, CL_DEVICE_VERSION) << '\n'
      << options << '\n'
      << std::strlen(source) << ' ' << hex(fnv1a(source, std::strlen(source))) << '\n';
  const std::string k = key.str();
  const std::filesystem::path file = std::filesystem::path(dir) / (hex(fnv1a(k.data(), k.size())) + ".clbin");
  const std::string bin = load_entry(file, k);
  if (!bin.empty()) {
    const unsigned char* ptr = reinterpret_cast<const unsigned char*>(bin.data());
    const std::size_t len = bin.size();
    cl_int status = CL_SUCCESS, err = CL_SUCCESS;
    Program prog(clCreateProgramWithBinary(ctx, 1, &dev.device, &len, &ptr, &status, &err));
    if (err == CL_SUCCESS && status == CL_SUCCESS &&
        clBuildProgram(prog.get(), 1, &dev.device, options.c_str(), nullptr, nullptr) == CL_SUCCESS) {
      out.program = std::move(prog);
      out.outcome = "hit";
      out.seconds = elapsed();
      return out;
    }
    // not loadable here (driver changed under the same version string): rebuilt below
  }
  out.program = build_program(ctx, dev, source, options);
  const std::string built = program_binary(out.program.get());
  const std::string why = built.empty() ? "the driver gives no program binary" : store_entry(dir, file, k, built);
  out.outcome = why.empty() ? "miss" : "miss (not stored: " + why + ")";
  out.seconds = elapsed();
  return out;
}

}  // namespace pscr::ocl
