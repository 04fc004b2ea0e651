#include "database.hpp"

#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "pscr/errors.hpp"

namespace pscr {
namespace tuning_files {
extern const char* const shipped[];  // JSON texts, null-terminated (generated)
extern const char* const shipped_names[];
}  // namespace tuning_files

namespace {

using json = nlohmann::json;

[[noreturn]] void bad(const std::string& source, const std::string& key, const std::string& what) {
  throw FileFormatError(source + ": " + key + ": " + what);
}

template <class V> V get(const json& j, const char* key, const std::string& source, const std::string& where) {
  if (!j.contains(key)) bad(source, where + "." + key, "missing");
  try {
    return j.at(key).get<V>();
  } catch (const json::exception&) {
    bad(source, where + "." + key, "has the wrong type (" + std::string(j.at(key).type_name()) + ")");
  }
}

TuningEntry parse_entry(const json& e, const std::string& source, const std::string& where) {
  if (!e.is_object()) bad(source, where, "is not an object");
  TuningEntry t;
  // a misspelt key ("architecure") would silently drop what it names
  static const char* const known[] = {"device",     "architecture", "class",          "min_n",
                                      "max_n",      "parameters",   "seconds",        "default_seconds"};
  for (auto& item : e.items())
    if (std::find(std::begin(known), std::end(known), item.key()) == std::end(known)) {
      std::string keys;
      for (const char* k : known) keys += (keys.empty() ? "" : ", ") + std::string(k);
      bad(source, where + "." + item.key(), "unknown key (an entry has " + keys + ")");
    }
  t.device = get<std::string>(e, "device", source, where);
  t.problem_class = get<std::string>(e, "class", source, where);
  if (e.contains("architecture")) t.architecture = get<std::string>(e, "architecture", source, where);
  // sizes as non-negative integers: get<std::size_t> would wrap -1 around
  for (auto [key, n] : {std::pair{"min_n", &t.min_n}, std::pair{"max_n", &t.max_n}})
    if (e.contains(key)) {
      if (!e.at(key).is_number_unsigned()) bad(source, where + "." + key, "is not a non-negative integer");
      *n = get<std::size_t>(e, key, source, where);
    }
  if (t.min_n > t.max_n) bad(source, where, "min_n > max_n");
  if (e.contains("seconds")) t.seconds = get<double>(e, "seconds", source, where);
  if (e.contains("default_seconds")) t.default_seconds = get<double>(e, "default_seconds", source, where);
  const std::string pw = where + ".parameters";
  if (!e.contains("parameters") || !e.at("parameters").is_object()) bad(source, pw, "missing or not an object");
  for (auto& [key, value] : e.at("parameters").items()) {
    const ParameterInfo* info = nullptr;
    for (const auto& p : parameter_table())
      if (key == p.name) info = &p;
    if (!info) bad(source, pw + "." + key, "unknown parameter");
    if (!value.is_number_integer()) bad(source, pw + "." + key, "is not an integer");
    // get<int> would wrap 4294967360 around to 64: out of int range is an error
    constexpr long long lo = std::numeric_limits<int>::min(), hi = std::numeric_limits<int>::max();
    const bool fits = value.is_number_unsigned() ? value.get<unsigned long long>() <= (unsigned long long)hi
                                                 : value.get<long long>() >= lo && value.get<long long>() <= hi;
    if (!fits) bad(source, pw + "." + key, "is out of range (" + value.dump() + ")");
    t.parameters.*(info->member) = value.get<int>();
  }
  validate(t.parameters, source + ": " + pw);  // InvalidArgument naming file and key
  return t;
}

json to_json(const TuningEntry& t) {
  json p = json::object();
  for (const auto& e : parameter_table()) p[e.name] = t.parameters.*(e.member);
  json j = {{"device", t.device}, {"class", t.problem_class}, {"min_n", t.min_n}, {"parameters", p}};
  if (!t.architecture.empty()) j["architecture"] = t.architecture;
  if (t.max_n != std::numeric_limits<std::size_t>::max()) j["max_n"] = t.max_n;
  if (t.seconds > 0) j["seconds"] = t.seconds;
  if (t.default_seconds > 0) j["default_seconds"] = t.default_seconds;
  return j;
}

}  // namespace

std::string problem_class(int dims, bool complex, bool double_precision) {
  return std::to_string(dims) + "d-" + (complex ? "complex" : "real") + "-" + (double_precision ? "double" : "float");
}

std::vector<TuningEntry> parse_tuning(const std::string& text, const std::string& source) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // syntax, and numbers beyond double's range
    bad(source, "(document)", std::string("malformed JSON: ") + e.what());
  }
  if (!j.is_object()) bad(source, "(document)", "is not a JSON object");
  if (get<std::string>(j, "format", source, "$") != "libpscr-tuning") bad(source, "$.format", "is not \"libpscr-tuning\"");
  if (!j.contains("version") || !j.at("version").is_number_integer() || j.at("version").get<long long>() != 1)
    bad(source, "$.version", "missing or an unsupported version (this library reads 1)");
  if (!j.contains("entries") || !j.at("entries").is_array()) bad(source, "$.entries", "missing or not an array");
  std::vector<TuningEntry> out;
  for (std::size_t i = 0; i < j.at("entries").size(); ++i)
    out.push_back(parse_entry(j.at("entries")[i], source, "$.entries[" + std::to_string(i) + "]"));
  return out;
}

std::vector<TuningEntry> read_tuning(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw FileFormatError(path + ": cannot open tuning file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_tuning(ss.str(), path);
}

void write_tuning(const std::string& path, const std::vector<TuningEntry>& entries) {
  std::vector<TuningEntry> all;
  if (std::ifstream(path).good()) all = read_tuning(path);
  for (const auto& e : entries) {
    bool replaced = false;
    for (auto& a : all)
      if (a.device == e.device && a.problem_class == e.problem_class && a.min_n == e.min_n && a.max_n == e.max_n) {
        a = e;
        replaced = true;
      }
    if (!replaced) all.push_back(e);
  }
  json arr = json::array();
  for (const auto& e : all) arr.push_back(to_json(e));
  json doc = {{"format", "libpscr-tuning"}, {"version", 1}, {"entries", arr}};
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    if (!out) throw FileFormatError(path + ": cannot write tuning file");
    out << doc.dump(2) << "\n";
    if (!out) throw FileFormatError(path + ": write failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw FileFormatError(path + ": cannot replace tuning file");
}

namespace {
// The narrowest entry of the class whose range holds n among those `take` accepts.
template <class F>
const TuningEntry* narrowest(const std::vector<TuningEntry>& entries, const std::string& cls, std::size_t n, F&& take) {
  const TuningEntry* best = nullptr;
  for (const auto& e : entries)
    if (take(e) && e.problem_class == cls && e.min_n <= n && n <= e.max_n &&
        (!best || e.max_n - e.min_n < best->max_n - best->min_n))
      best = &e;
  return best;
}
}  // namespace

const TuningEntry* find_tuning(const std::vector<TuningEntry>& entries, const std::string& device,
                               const std::string& cls, std::size_t n) {
  return narrowest(entries, cls, n, [&](const TuningEntry& e) { return e.device == device; });
}

const TuningEntry* find_tuning_by_architecture(const std::vector<TuningEntry>& entries,
                                               const std::string& architecture, const std::string& cls,
                                               std::size_t n) {
  if (architecture.empty()) return nullptr;
  return narrowest(entries, cls, n, [&](const TuningEntry& e) { return e.architecture == architecture; });
}

const TuningEntry* choose_tuning(const std::vector<TuningEntry>& file, const std::vector<TuningEntry>& shipped,
                                 const std::string& device, const std::string& architecture, const std::string& cls,
                                 std::size_t n) {
  for (const auto* entries : {&file, &shipped})
    if (const TuningEntry* e = find_tuning(*entries, device, cls, n)) return e;
  for (const auto* entries : {&file, &shipped})
    if (const TuningEntry* e = find_tuning_by_architecture(*entries, architecture, cls, n)) return e;
  return nullptr;
}

const std::vector<TuningEntry>& shipped_tuning() {
  static const std::vector<TuningEntry> all = [] {
    std::vector<TuningEntry> v;
    for (int i = 0; tuning_files::shipped[i]; ++i) {
      auto part = parse_tuning(tuning_files::shipped[i], std::string("shipped ") + tuning_files::shipped_names[i]);
      v.insert(v.end(), part.begin(), part.end());
    }
    return v;
  }();
  return all;
}

namespace tuning {

Resolved resolve(const Options& o, const std::string& device, const std::string& architecture, const std::string& cls,
                 std::size_t n) {
  if (o.parameters) return {*o.parameters, "options"};
  auto describe = [&](const std::string& where, const TuningEntry& e) {
    std::ostringstream os;
    os << where << ": " << e.device << " " << e.problem_class << " n " << e.min_n << "..";
    if (e.max_n != std::numeric_limits<std::size_t>::max()) os << e.max_n;
    if (e.device != device) os << " (same architecture, " << e.architecture << ")";
    return os.str();
  };
  std::vector<TuningEntry> from_file;
  if (!o.tuning_file.empty()) from_file = read_tuning(o.tuning_file);
  const TuningEntry* e = choose_tuning(from_file, shipped_tuning(), device, architecture, cls, n);
  if (!e) return {KernelParameters{}, "defaults"};
  bool in_file = false;
  for (const auto& f : from_file) in_file = in_file || &f == e;
  return {e->parameters, describe(in_file ? o.tuning_file : "shipped", *e)};
}

}  // namespace tuning
}  // namespace pscr
