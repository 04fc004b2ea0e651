#include "pscr/npy.hpp"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "pscr/errors.hpp"
#include "pscr/scalar.hpp"
#include "../size_product.hpp"

namespace pscr::npy {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw FileFormatError(path + ": " + what);
}

// The header: a Python dict literal of quoted keys (' or ") and values
// (quoted strings, True/False, tuples), then padding and a newline. Each of
// descr, fortran_order and shape once, nothing else, nothing after the
// dict. Values are raw text; a quoted one comes back in single quotes.
std::map<std::string, std::string> header_dict(const std::string& h, const std::string& path) {
  std::size_t p = 0;
  const auto skip = [&] {
    while (p < h.size() && (h[p] == ' ' || h[p] == '\t')) ++p;
  };
  const auto quoted = [&](const char* what) {
    skip();
    if (p >= h.size() || (h[p] != '\'' && h[p] != '"'))
      fail(path, std::string("malformed header: ") + what + " is not a quoted string");
    const char q = h[p++];
    const auto end = h.find(q, p);
    if (end == std::string::npos) fail(path, "malformed header: a string is not terminated");
    std::string text = h.substr(p, end - p);
    p = end + 1;
    return text;
  };
  skip();
  if (p >= h.size() || h[p] != '{') fail(path, "malformed header: no dict");
  ++p;
  std::map<std::string, std::string> out;
  for (;;) {
    skip();
    if (p < h.size() && h[p] == '}') break;
    const std::string key = quoted("a key");
    skip();
    if (p >= h.size() || h[p] != ':') fail(path, "malformed header near '" + key + "'");
    ++p;
    skip();
    std::string value;
    if (p < h.size() && (h[p] == '\'' || h[p] == '"')) {
      value = "'" + quoted("a value") + "'";
    } else {
      const std::size_t start = p;
      for (int depth = 0; p < h.size(); ++p) {
        const char c = h[p];
        if (c == '(' || c == '[') ++depth;
        if ((c == ')' || c == ']') && --depth < 0) fail(path, "malformed header near '" + key + "'");
        if (depth == 0 && (c == ',' || c == '}')) break;
      }
      value = h.substr(start, p - start);
      value.erase(value.find_last_not_of(" \t") + 1);
    }
    if (!out.emplace(key, value).second) fail(path, "header has '" + key + "' twice");
    skip();
    if (p < h.size() && h[p] == ',') {
      ++p;
      continue;
    }
    if (p < h.size() && h[p] == '}') break;
    fail(path, "malformed header: the dict is not closed after '" + key + "'");
  }
  for (++p; p < h.size() && std::strchr(" \t\r\n", h[p]) && h[p] != '\0'; ++p) {
  }
  if (p != h.size()) fail(path, "malformed header: text after the dict");
  for (const auto& [key, value] : out)
    if (key != "descr" && key != "fortran_order" && key != "shape") fail(path, "header has an unknown entry '" + key + "'");
  return out;
}

std::string dict_value(const std::map<std::string, std::string>& dict, const std::string& key,
                       const std::string& path) {
  const auto it = dict.find(key);
  if (it == dict.end()) fail(path, "header has no '" + key + "' entry");
  return it->second;
}

}  // namespace

const char* dtype_name(DType t) {
  switch (t) {
    case DType::float32: return "float32";
    case DType::float64: return "float64";
    case DType::complex64: return "complex64";
    default: return "complex128";
  }
}
std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::float32: return 4;
    case DType::float64: return 8;
    case DType::complex64: return 8;
    default: return 16;
  }
}

std::size_t Array::size() const {
  std::size_t n = 1;
  for (auto s : shape) n = size_product({n, s}, "npy::Array: shape");
  return n;
}

Array load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open file");
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) fail(path, "not a NumPy .npy file (bad magic)");
  const int major = static_cast<unsigned char>(magic[6]);
  if (major < 1 || major > 3) fail(path, "unsupported .npy version " + std::to_string(major));
  std::uint32_t hlen = 0;
  if (major == 1) {
    unsigned char b[2];
    if (!in.read(reinterpret_cast<char*>(b), 2)) fail(path, "truncated header");
    hlen = b[0] | (b[1] << 8);
  } else {
    unsigned char b[4];
    if (!in.read(reinterpret_cast<char*>(b), 4)) fail(path, "truncated header");
    hlen = b[0] | (b[1] << 8) | (b[2] << 16) | (std::uint32_t(b[3]) << 24);
  }
  if (hlen > (1u << 20)) fail(path, "header length " + std::to_string(hlen) + " is absurd");
  std::string header(hlen, '\0');
  if (!in.read(header.data(), hlen)) fail(path, "truncated header");

  Array a;
  const auto dict = header_dict(header, path);
  std::string descr = dict_value(dict, "descr", path);
  if (descr.size() < 2 || (descr.front() != '\'' && descr.front() != '"')) fail(path, "malformed descr " + descr);
  descr = descr.substr(1, descr.size() - 2);
  if (descr == "<f4") a.dtype = DType::float32;
  else if (descr == "<f8") a.dtype = DType::float64;
  else if (descr == "<c8") a.dtype = DType::complex64;
  else if (descr == "<c16") a.dtype = DType::complex128;
  else fail(path, "unsupported dtype '" + descr + "' (need little-endian float32/float64/complex64/complex128)");
  if (dict_value(dict, "fortran_order", path) != "False") fail(path, "Fortran-ordered arrays are not supported");
  std::string shape = dict_value(dict, "shape", path);
  if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')') fail(path, "malformed shape " + shape);
  std::stringstream ss(shape.substr(1, shape.size() - 2));
  std::string item;
  std::size_t total = 1;
  while (std::getline(ss, item, ',')) {
    const auto b = item.find_first_not_of(" "), e = item.find_last_not_of(" ");
    if (b == std::string::npos) continue;
    item = item.substr(b, e - b + 1);
    if (item.find_first_not_of("0123456789") != std::string::npos || item.size() > 15)
      fail(path, "malformed shape " + shape);
    const std::size_t v = std::stoull(item);
    if (v != 0 && total > (std::size_t(1) << 40) / v) fail(path, "shape " + shape + " is absurdly large");
    total *= v;
    a.shape.push_back(v);
  }
  const std::size_t nbytes = total * dtype_size(a.dtype);
  const auto here = in.tellg();
  in.seekg(0, std::ios::end);
  const auto avail = static_cast<std::size_t>(in.tellg() - here);
  if (avail < nbytes)
    fail(path, "truncated data: shape " + shape + " needs " + std::to_string(nbytes) + " bytes, file has " +
                   std::to_string(avail));
  in.seekg(here);
  a.bytes.resize(nbytes);
  if (nbytes && !in.read(reinterpret_cast<char*>(a.bytes.data()), nbytes)) fail(path, "read error");
  return a;
}

template <class T> std::vector<T> Array::as() const {
  const std::size_t n = size();
  if (const std::size_t need = size_product({n, dtype_size(dtype)}, "npy::Array: entries × bytes per scalar");
      bytes.size() < need)
    throw FileFormatError("npy::Array: its shape needs " + std::to_string(need) + " bytes, it holds " +
                          std::to_string(bytes.size()));
  std::vector<T> out(n);
  // Copies the payload as Src values (unaligned bytes), then converts each.
  auto conv = [&](auto tag) {
    using Src = decltype(tag);
    std::vector<Src> v(n);
    if (n) std::memcpy(v.data(), bytes.data(), n * sizeof(Src));  // memcpy of null pointers is undefined even for 0 bytes
    for (std::size_t i = 0; i < n; ++i) {
      if constexpr (is_complex_v<Src>) out[i] = T(v[i].real(), v[i].imag());
      else out[i] = T(v[i]);
    }
  };
  const bool cplx = dtype == DType::complex64 || dtype == DType::complex128;
  if (cplx && !is_complex_v<T>)
    throw FileFormatError(std::string("complex data (") + dtype_name(dtype) + ") where real data is required");
  switch (dtype) {
    case DType::float32: conv(float{}); break;
    case DType::float64: conv(double{}); break;
    case DType::complex64: if constexpr (is_complex_v<T>) conv(std::complex<float>{}); break;
    case DType::complex128: if constexpr (is_complex_v<T>) conv(std::complex<double>{}); break;
  }
  return out;
}

template <class T> void save(const std::string& path, const std::vector<std::size_t>& shape, const T* data) {
  const char* descr = std::is_same_v<T, float> ? "<f4" : std::is_same_v<T, double> ? "<f8"
                      : std::is_same_v<T, std::complex<float>> ? "<c8" : "<c16";
  std::string sh = "(";
  std::size_t n = 1;
  for (auto s : shape) {
    sh += std::to_string(s) + ",";
    n = size_product({n, s}, "npy::save: shape");
  }
  size_product({n, sizeof(T)}, "npy::save: entries × bytes per scalar");
  if (shape.size() > 1) sh.pop_back();
  sh += ")";
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + sh + ", }";
  while ((10 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) throw FileFormatError(path + ": cannot open for writing");
  out.write("\x93NUMPY\x01\x00", 8);
  const unsigned char hl[2] = {static_cast<unsigned char>(header.size() & 0xff),
                               static_cast<unsigned char>(header.size() >> 8)};
  out.write(reinterpret_cast<const char*>(hl), 2);
  out.write(header.data(), header.size());
  out.write(reinterpret_cast<const char*>(data), n * sizeof(T));
  if (!out) throw FileFormatError(path + ": write failed");
}

#define PSCR_NPY(T)                                  \
  template std::vector<T> Array::as<T>() const;      \
  template void save<T>(const std::string&, const std::vector<std::size_t>&, const T*);
PSCR_NPY(float)
PSCR_NPY(double)
PSCR_NPY(std::complex<float>)
PSCR_NPY(std::complex<double>)

}  // namespace pscr::npy
