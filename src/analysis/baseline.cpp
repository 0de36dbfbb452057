#include "analysis/baseline.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "analysis/finding.h"
#include "analysis/findings_format.h"
#include "analysis/problems.h"
#include "core/input_file.h"
#include "core/module_map.h"
#include "core/symbolizer.h"
#include "shared/text.h"

namespace vkleak::analysis {

namespace {

using nlohmann::json;

// The baseline file's keys (src/schema/vkleak-baseline.schema.json).
namespace baseline_keys {
constexpr const char* kFormat = "format";
constexpr const char* kVersion = "version";
constexpr const char* kPrograms = "programs";
constexpr const char* kEntries = "entries";
constexpr const char* kDescription = "description";
constexpr const char* kKinds = "kinds";
constexpr const char* kType = "type";
constexpr const char* kNamePattern = "name_pattern";
constexpr const char* kCallsite = "callsite";
constexpr const char* kAlso = "also";  // the other facets
constexpr const char* kCount = "count";
constexpr const char* kBytes = "bytes";
}  // namespace baseline_keys

FindingKey facet_key(const BaselineFacet& facet, const std::string& kind) {
  return FindingKey{kind, facet.type, path_identity(facet.callsite), facet.name_pattern,
                    path_shape(facet.callsite)};
}

// The kind a facet's identity is computed with: a misuse kind's identity holds it; any other
// kind gives the same identity (FindingKey::identity).
std::vector<std::string> identity_kinds(const BaselineEntry& entry) {
  std::vector<std::string> out;
  for (const std::string& k : entry.kinds) {
    const std::optional<FindingKind> kind = kind_from_name(k);
    if (kind && kind_is_event(*kind)) out.push_back(k);
  }
  if (out.size() < entry.kinds.size() || out.empty()) {
    out.push_back(kind_name(FindingKind::kLeakAtExit));
  }
  return out;
}

std::vector<std::string> sorted_distinct(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// Where the objects were made, for people: the innermost frame (its source file by its name),
// or module+offset.
std::string made_at(const std::vector<Frame>& callsite) {
  for (const Frame& frame : callsite) {
    if (frame.function.empty()) break;
    if (is_startup_frame(frame.function)) continue;
    std::string out = printable(frame.function);
    if (!frame.file.empty()) {
      out += " (" + printable(base_name(frame.file)) + ":" + std::to_string(frame.line) + ")";
    }
    return out;
  }
  const std::vector<std::string> path = callsite_path(callsite);
  return path.empty() ? std::string() : printable(path.front());
}

std::string describe(const std::string& kinds, uint64_t count, const std::string& type,
                     const std::string& name_pattern, uint64_t bytes, const std::string& where) {
  std::string out = kinds + ": ";
  if (count > 0) out += format_count(count) + " ";
  out += type;
  if (!name_pattern.empty()) out += " " + quote_printable(name_pattern, 60);
  if (count > 0) out += ", " + format_bytes(bytes);
  if (!where.empty()) out += ", made at " + where;
  return out;
}

BaselineEntry entry_of(const RunReport& run, const Problem& p) {
  BaselineEntry entry;
  std::set<std::string> seen;
  for (size_t i : p.findings) {
    const Finding& f = run.findings[i];
    entry.kinds.push_back(kind_name(f.kind));
    if (!seen.insert(f.identity()).second) continue;
    entry.facets.push_back(BaselineFacet{f.object_type, f.name_pattern, callsite_path(f.callsite)});
  }
  entry.kinds = sorted_distinct(std::move(entry.kinds));
  entry.count = p.count;
  entry.bytes = p.bytes;
  const Finding& primary = run.findings[p.findings.front()];
  // Its kinds in the kinds' order, whatever the order of its findings.
  std::string kinds;
  for (FindingKind k : kAllKinds) {
    if (std::find(p.kinds.begin(), p.kinds.end(), k) == p.kinds.end()) continue;
    kinds += (kinds.empty() ? "" : " + ") + std::string(kind_name(k));
  }
  entry.description = describe(kinds, p.count, primary.object_type, primary.name_pattern, p.bytes,
                               made_at(primary.callsite));
  return entry;
}

// The order entries are written in, and what makes two entries one: their identities.
std::string sort_key(const BaselineEntry& e) {
  std::string key;
  for (const std::string& id : e.identities()) key += id + '\n';
  return key;
}

void sort_and_merge(std::vector<BaselineEntry>* entries) {
  std::stable_sort(
      entries->begin(), entries->end(),
      [](const BaselineEntry& a, const BaselineEntry& b) { return sort_key(a) < sort_key(b); });
  entries->erase(std::unique(entries->begin(), entries->end(),
                             [](const BaselineEntry& a, const BaselineEntry& b) {
                               return sort_key(a) == sort_key(b);
                             }),
                 entries->end());
}

// How far apart two paths of one shape are, to compare: per frame from the innermost out, how
// much its offset from the next inner frame of its module differs (a rebuild that adds code before
// a function moves all of it alike, but not the distance between two of its calls), then the
// sum of how much the offsets differ. Compared element by element: the innermost frame that
// tells two call sites apart decides.
std::vector<uint64_t> offset_distance(const std::vector<std::string>& a,
                                      const std::vector<std::string>& b) {
  auto offset = [](const std::string& frame) {
    return std::strtoull(frame.c_str() + frame.rfind("+0x") + 3, nullptr, 16);
  };
  auto module = [](const std::string& frame) { return frame.substr(0, frame.rfind("+0x")); };
  auto difference = [](uint64_t x, uint64_t y) { return x > y ? x - y : y - x; };
  std::vector<uint64_t> out;
  uint64_t sum = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (!is_unnamed_frame(a[i]) || !is_unnamed_frame(b[i]) || a[i] == "?" || b[i] == "?") {
      out.push_back(0);
      continue;
    }
    const uint64_t d = difference(offset(a[i]), offset(b[i]));
    sum = sum > UINT64_MAX - d ? UINT64_MAX : sum + d;
    uint64_t relative = 0;
    for (size_t j = i; j-- > 0;) {
      if (!is_unnamed_frame(a[j]) || !is_unnamed_frame(b[j]) || a[j] == "?" || b[j] == "?" ||
          module(a[j]) != module(a[i])) {
        continue;
      }
      relative = difference(offset(a[i]) - offset(a[j]), offset(b[i]) - offset(b[j]));
      break;
    }
    out.push_back(relative);
  }
  out.push_back(sum);
  return out;
}

// --- Reading -----------------------------------------------------------------------------------

class Reader {
 public:
  explicit Reader(const std::string& path) : path_(path) {}
  std::runtime_error error(const std::string& message) const {
    return std::runtime_error(path_ + ": " + message);
  }
  std::string text(const json& object, const char* key, const std::string& where,
                   bool required) const {
    const json& v = object.contains(key) ? object[key] : json();
    if (v.is_string()) return v.get<std::string>();
    if (v.is_null() && !required) return "";
    throw error(where + "." + key + (v.is_null() ? " is missing" : " is not a string"));
  }
  std::vector<std::string> texts(const json& object, const char* key,
                                 const std::string& where) const {
    const json& v = object.contains(key) ? object[key] : json();
    if (!v.is_array()) throw error(where + "." + key + " is missing or not an array");
    std::vector<std::string> out;
    for (const json& s : v) {
      if (!s.is_string()) throw error(where + "." + key + " holds something not a string");
      out.push_back(s.get<std::string>());
    }
    return out;
  }
  uint64_t number(const json& object, const char* key, const std::string& where) const {
    const json& v = object.contains(key) ? object[key] : json();
    if (v.is_null()) return 0;
    if (!v.is_number_unsigned()) throw error(where + "." + key + " is not a count");
    return v.get<uint64_t>();
  }
  void check_version(const json& doc, int newest, const char* what) const {
    const json& version =
        doc.contains(baseline_keys::kVersion) ? doc[baseline_keys::kVersion] : json();
    if (!version.is_number_integer()) throw error("\"version\" is missing or not an integer");
    if (version.get<int64_t>() > newest) {
      throw error(std::string(what) + " version " + version.dump() +
                  " is newer than this vkleak supports (" + std::to_string(newest) +
                  "); upgrade vkleak");
    }
  }

 private:
  std::string path_;
};

BaselineFacet read_facet(const Reader& r, const json& j, const std::string& where) {
  if (!j.is_object()) throw r.error(where + " is not an object");
  return BaselineFacet{r.text(j, baseline_keys::kType, where, true),
                       r.text(j, baseline_keys::kNamePattern, where, false),
                       r.texts(j, baseline_keys::kCallsite, where)};
}

void read_baseline_file(const Reader& r, const json& doc, std::vector<std::string>* programs,
                        std::vector<BaselineEntry>* entries) {
  namespace keys = baseline_keys;
  r.check_version(doc, kBaselineVersion, "baseline");
  *programs = sorted_distinct(r.texts(doc, keys::kPrograms, "baseline"));
  const json& list = doc.contains(keys::kEntries) ? doc[keys::kEntries] : json();
  if (!list.is_array()) throw r.error("\"entries\" is missing or not an array");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string where = "entries[" + std::to_string(i) + "]";
    const json& e = list[i];
    BaselineEntry entry;
    entry.facets.push_back(read_facet(r, e, where));
    entry.kinds = sorted_distinct(r.texts(e, keys::kKinds, where));
    if (entry.kinds.empty()) throw r.error(where + ".kinds is empty");
    entry.description = r.text(e, keys::kDescription, where, false);
    entry.count = r.number(e, keys::kCount, where);
    entry.bytes = r.number(e, keys::kBytes, where);
    if (e.contains(keys::kAlso)) {
      const json& also = e[keys::kAlso];
      if (!also.is_array()) throw r.error(where + ".also is not an array");
      for (size_t k = 0; k < also.size(); ++k) {
        entry.facets.push_back(read_facet(r, also[k], where + ".also[" + std::to_string(k) + "]"));
      }
    }
    entries->push_back(std::move(entry));
  }
}

// A call path as a findings document's fingerprint spells it (callsite_identity() of the build
// that wrote it): outermost first, " > " between frames; builds before whole paths spelled a
// stack without symbols innermost first, ';' between frames.
std::vector<std::string> path_of_where(const std::string& where) {
  std::vector<std::string> out;
  if (where.empty()) return out;
  const bool arrows = where.find(" > ") != std::string::npos;
  const std::string separator = arrows ? " > " : ";";
  size_t start = 0;
  while (true) {
    const size_t end = where.find(separator, start);
    out.push_back(where.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + separator.size();
  }
  if (arrows) std::reverse(out.begin(), out.end());
  return out;
}

// The older form: a findings document. Its findings are grouped by their "problem" (one entry per
// problem; documents before problems: one per finding); each finding's path is rebuilt from its
// callsite_frames, else read from its fingerprint, else its function (the oldest documents).
void read_findings_document(const Reader& r, const json& doc, std::vector<std::string>* programs,
                            std::vector<BaselineEntry>* entries) {
  namespace keys = findings_keys;
  r.check_version(doc, kFindingsVersion, "findings");
  const json& findings = doc.contains(keys::kFindings) ? doc[keys::kFindings] : json();
  if (!findings.is_array()) throw r.error("\"findings\" is missing or not an array");
  if (doc.contains("runs") && doc["runs"].is_array()) {
    for (const json& run : doc["runs"]) {
      if (run.is_object() && run.contains("executable") && run["executable"].is_string()) {
        const std::string name(base_name(run["executable"].get<std::string>()));
        if (!name.empty()) programs->push_back(name);
      }
    }
  }
  *programs = sorted_distinct(std::move(*programs));
  std::map<uint64_t, size_t> entry_of_problem;
  for (size_t i = 0; i < findings.size(); ++i) {
    const json& f = findings[i];
    const std::string where = "findings[" + std::to_string(i) + "]";
    if (!f.is_object() || !f.contains(keys::kKind) || !f.contains(keys::kObjectType)) {
      throw r.error(where + " lacks \"kind\" or \"object_type\"");
    }
    const std::string kind = r.text(f, keys::kKind, where, true);
    BaselineFacet facet;
    facet.type = r.text(f, keys::kObjectType, where, true);
    facet.name_pattern = r.text(f, keys::kNamePattern, where, false);
    std::vector<Frame> frames;
    if (f.contains(keys::kCallsiteFrames) && f[keys::kCallsiteFrames].is_array()) {
      for (const json& fr : f[keys::kCallsiteFrames]) {
        if (!fr.is_object()) continue;
        Frame frame;
        auto str = [&](const char* key) {
          const json& v = fr.contains(key) ? fr[key] : json();
          return v.is_string() ? v.get<std::string>() : std::string();
        };
        frame.text = str(keys::kText);
        frame.function = str(keys::kFunction);
        frame.module = str(keys::kModule);
        frame.inlined =
            fr.value(keys::kInlined, json(false)).is_boolean() && fr.value(keys::kInlined, false);
        frames.push_back(std::move(frame));
      }
    }
    facet.callsite = callsite_path(frames);
    if (frames.empty()) {
      // No frames: the path its fingerprint (kind|type|where|name pattern) carries.
      const std::string fingerprint = r.text(f, "fingerprint", where, false);
      const std::string head = kind + "|" + facet.type + "|";
      const std::string tail = "|" + facet.name_pattern;
      if (fingerprint.size() >= head.size() + tail.size() && fingerprint.rfind(head, 0) == 0 &&
          fingerprint.compare(fingerprint.size() - tail.size(), tail.size(), tail) == 0) {
        facet.callsite = path_of_where(
            fingerprint.substr(head.size(), fingerprint.size() - head.size() - tail.size()));
      } else {
        facet.callsite = path_of_where(r.text(f, keys::kFunction, where, false));
      }
    }
    size_t index = entries->size();
    const json& problem = f.contains("problem") ? f["problem"] : json();
    if (problem.is_number_unsigned()) {
      auto [it, added] = entry_of_problem.try_emplace(problem.get<uint64_t>(), entries->size());
      index = it->second;
    }
    if (index == entries->size()) entries->emplace_back();
    BaselineEntry& entry = (*entries)[index];
    entry.kinds = sorted_distinct([&] {
      std::vector<std::string> k = entry.kinds;
      k.push_back(kind);
      return k;
    }());
    if (entry.description.empty()) {
      entry.count = r.number(f, "count", where);
      entry.bytes = r.number(f, "bytes", where);
      entry.description = describe(kind, entry.count, facet.type, facet.name_pattern, entry.bytes,
                                   printable(path_identity(facet.callsite)));
    }
    entry.facets.push_back(std::move(facet));
  }
}

}  // namespace

std::vector<std::string> BaselineEntry::identities() const {
  std::vector<std::string> out;
  for (const std::string& kind : identity_kinds(*this)) {
    for (const BaselineFacet& f : facets) out.push_back(facet_key(f, kind).identity());
  }
  return sorted_distinct(std::move(out));
}

std::vector<std::string> BaselineEntry::shape_identities() const {
  std::vector<std::string> out;
  for (const std::string& kind : identity_kinds(*this)) {
    for (const BaselineFacet& f : facets) {
      const std::string shape = facet_key(f, kind).shape_identity();
      if (!shape.empty()) out.push_back(shape);
    }
  }
  return sorted_distinct(std::move(out));
}

void Baseline::index() {
  identities_.clear();
  for (const BaselineEntry& e : entries_) {
    for (const std::string& id : e.identities()) identities_.insert(id);
  }
}

Baseline Baseline::parse(const std::string& text, const std::string& path) {
  const Reader r(path);
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) throw r.error("not valid JSON");
  const json format = doc.is_object() ? doc.value(baseline_keys::kFormat, json()) : json();
  Baseline out;
  if (format == kBaselineFormat.data()) {
    read_baseline_file(r, doc, &out.programs_, &out.entries_);
  } else if (format == kFindingsFormat.data()) {
    out.baseline_file_ = false;
    read_findings_document(r, doc, &out.programs_, &out.entries_);
  } else {
    throw r.error(
        "not a vkleak findings document (vkleak report --format json) or baseline (vkleak "
        "baseline writes one)");
  }
  out.index();
  return out;
}

Baseline Baseline::load(const std::string& path) {
  std::string text, error;
  if (!read_input_file(path, kMaxBaselineBytes, &text, &error)) {
    throw std::runtime_error(path + ": cannot read the baseline file: " + error);
  }
  return parse(text, path);
}

Baseline Baseline::of(const ReportDocument& doc) {
  Baseline out;
  out.programs_ = document_programs(doc);
  for (const RunReport& run : doc.runs) {
    for (const Problem& p : run_problems(run)) out.entries_.push_back(entry_of(run, p));
  }
  sort_and_merge(&out.entries_);
  out.index();
  return out;
}

std::string Baseline::serialize() const {
  namespace keys = baseline_keys;
  using ordered = nlohmann::ordered_json;
  auto facet = [](ordered* j, const BaselineFacet& f) {
    (*j)[keys::kType] = f.type;
    (*j)[keys::kNamePattern] = f.name_pattern;
    (*j)[keys::kCallsite] = f.callsite;
  };
  ordered entries = ordered::array();
  for (const BaselineEntry& e : entries_) {
    ordered j = ordered::object();
    j[keys::kDescription] = e.description;
    j[keys::kKinds] = e.kinds;
    facet(&j, e.facets.front());
    if (e.facets.size() > 1) {
      ordered also = ordered::array();
      for (size_t i = 1; i < e.facets.size(); ++i) {
        ordered a = ordered::object();
        facet(&a, e.facets[i]);
        also.push_back(std::move(a));
      }
      j[keys::kAlso] = std::move(also);
    }
    j[keys::kCount] = e.count;
    j[keys::kBytes] = e.bytes;
    entries.push_back(std::move(j));
  }
  ordered doc = ordered::object();
  doc[keys::kFormat] = std::string(kBaselineFormat);
  doc[keys::kVersion] = kBaselineVersion;
  doc[keys::kPrograms] = programs_;
  doc[keys::kEntries] = std::move(entries);
  // Invalid UTF-8 in a name from the app is replaced, never a reason to lose the file.
  return doc.dump(2, ' ', false, ordered::error_handler_t::replace) + "\n";
}

std::vector<bool> Baseline::match_run(const RunReport& run, std::vector<bool>* occurring) const {
  const std::vector<Problem> problems = run_problems(run);
  std::vector<bool> known(problems.size(), false);
  std::vector<bool> taken(entries_.size(), false);
  std::map<std::string, std::vector<size_t>> by_identity, by_shape;
  for (size_t e = 0; e < entries_.size(); ++e) {
    for (const std::string& id : entries_[e].identities()) by_identity[id].push_back(e);
    for (const std::string& id : entries_[e].shape_identities()) by_shape[id].push_back(e);
  }
  for (size_t p = 0; p < problems.size(); ++p) {
    // A library's problem (Problem::library) holds leaks of unrelated call sites, joined to be
    // shown as one block: it is known only when each of them is, so that a new leak inside the
    // library is new. Exactly, or by shape (a library updated under the program).
    if (!problems[p].library.empty()) {
      known[p] = true;
      for (size_t i : problems[p].findings) {
        const Finding& f = run.findings[i];
        const std::vector<size_t>* entries = nullptr;
        if (auto exact = by_identity.find(f.identity()); exact != by_identity.end()) {
          entries = &exact->second;
        } else if (const std::string shape = f.key().shape_identity(); !shape.empty()) {
          if (auto same = by_shape.find(shape); same != by_shape.end()) entries = &same->second;
        }
        if (entries == nullptr) {
          known[p] = false;
          continue;
        }
        for (size_t e : *entries) taken[e] = true;
      }
      continue;
    }
    for (size_t i : problems[p].findings) {
      auto it = by_identity.find(run.findings[i].identity());
      if (it == by_identity.end()) continue;
      known[p] = true;
      for (size_t e : it->second) taken[e] = true;
    }
  }
  // Then by shape, each entry for one problem of the run at most: the entries no exact match took,
  // in the baseline's order, for the problems in rank order; and only entries whose module+offset
  // paths the run does not have at all (under any type or name): where the run still has such a
  // path, its offsets did not move, and a problem of the same shape elsewhere is another call site.
  std::set<std::string> run_paths;
  for (const Finding& f : run.findings) run_paths.insert(callsite_identity(f.callsite));
  auto moved = [&](const BaselineEntry& entry) {
    for (const BaselineFacet& facet : entry.facets) {
      if (run_paths.count(path_identity(facet.callsite)) > 0) return false;
    }
    return true;
  };
  // Of several entries of the shape, the nearest one (offset_distance): a rebuild moves a call
  // site, so a known leak keeps its own entry, not its neighbour's.
  struct Candidate {
    std::vector<uint64_t> distance;
    size_t problem;
    size_t entry;
  };
  std::vector<Candidate> candidates;
  for (size_t p = 0; p < problems.size(); ++p) {
    if (known[p] || !problems[p].library.empty()) continue;
    for (size_t i : problems[p].findings) {
      const Finding& f = run.findings[i];
      const std::string shape = f.key().shape_identity();
      auto it = shape.empty() ? by_shape.end() : by_shape.find(shape);
      if (it == by_shape.end()) continue;
      const std::vector<std::string> path = callsite_path(f.callsite);
      for (size_t e : it->second) {
        if (taken[e] || !moved(entries_[e])) continue;
        std::vector<uint64_t> nearest;
        for (const BaselineFacet& facet : entries_[e].facets) {
          if (facet.type == f.object_type && facet.name_pattern == f.name_pattern &&
              path_shape(facet.callsite) == path_shape(path)) {
            const std::vector<uint64_t> d = offset_distance(facet.callsite, path);
            if (nearest.empty() || d < nearest) nearest = d;
          }
        }
        candidates.push_back(Candidate{nearest, p, e});
      }
    }
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.distance, a.problem, a.entry) < std::tie(b.distance, b.problem, b.entry);
  });
  for (const Candidate& c : candidates) {
    if (known[c.problem] || taken[c.entry]) continue;
    known[c.problem] = true;
    taken[c.entry] = true;
  }
  if (occurring != nullptr) {
    occurring->resize(entries_.size(), false);
    for (size_t e = 0; e < entries_.size(); ++e) {
      if (taken[e]) (*occurring)[e] = true;
    }
  }
  return known;
}

Baseline Baseline::updated(const ReportDocument& doc, std::vector<std::string>* added,
                           std::vector<std::string>* removed) const {
  Baseline out;
  out.programs_ = document_programs(doc);
  if (out.programs_.empty()) out.programs_ = programs_;
  std::vector<bool> occurring(entries_.size(), false);
  for (const RunReport& run : doc.runs) {
    const std::vector<Problem> problems = run_problems(run);
    const std::vector<bool> known = match_run(run, &occurring);
    for (size_t p = 0; p < problems.size(); ++p) {
      // A findings document's entries are not kept as they are: the problem is written anew.
      if (known[p] && baseline_file_) continue;
      BaselineEntry entry = entry_of(run, problems[p]);
      if (!known[p] && added != nullptr) added->push_back(entry.description);
      out.entries_.push_back(std::move(entry));
    }
  }
  for (size_t e = 0; e < entries_.size(); ++e) {
    if (occurring[e] && baseline_file_) out.entries_.push_back(entries_[e]);
    if (!occurring[e] && removed != nullptr) removed->push_back(entries_[e].description);
  }
  sort_and_merge(&out.entries_);
  if (added != nullptr) *added = sorted_distinct(std::move(*added));
  out.index();
  return out;
}

std::vector<std::string> document_programs(const ReportDocument& doc) {
  std::vector<std::string> out;
  for (const RunReport& run : doc.runs) {
    const std::string name(base_name(run.executable));
    if (!name.empty()) out.push_back(name);
  }
  return sorted_distinct(std::move(out));
}

std::string program_mismatch(const Baseline& baseline, const ReportDocument& doc) {
  const std::vector<std::string> ours = document_programs(doc);
  const std::vector<std::string>& theirs = baseline.programs();
  if (ours.empty() || theirs.empty()) return "";
  for (const std::string& p : ours) {
    if (std::binary_search(theirs.begin(), theirs.end(), p)) return "";
  }
  auto names = [](const std::vector<std::string>& v) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) out += (i == 0 ? "" : ", ") + quote_printable(v[i], 80);
    return out;
  };
  return "the baseline is of " + names(theirs) + ", the snapshots are of " + names(ours);
}

}  // namespace vkleak::analysis
