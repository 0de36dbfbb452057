#include "analysis/baseline.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "analysis/finding.h"
#include "analysis/findings_format.h"
#include "core/input_file.h"

namespace vkleak::analysis {

Baseline Baseline::parse(const std::string& text, const std::string& path) {
  using nlohmann::json;
  namespace keys = findings_keys;
  auto error = [&](const std::string& message) {
    return std::runtime_error(path + ": " + message);
  };
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) throw error("not valid JSON");
  if (!doc.is_object() || doc.value(keys::kFormat, json()) != kFindingsFormat.data()) {
    throw error("not a vkleak findings document (vkleak report --format json writes one)");
  }
  const json& version = doc[keys::kVersion];
  if (!version.is_number_integer()) throw error("\"version\" is missing or not an integer");
  if (version.get<int64_t>() > kFindingsVersion) {
    throw error("findings version " + version.dump() + " is newer than this vkleak supports (" +
                std::to_string(kFindingsVersion) + "); upgrade vkleak");
  }
  const json& findings = doc[keys::kFindings];
  if (!findings.is_array()) throw error("\"findings\" is missing or not an array");
  Baseline out;
  size_t i = 0;
  for (const json& f : findings) {
    auto text_of = [&](const char* key) -> std::string {
      const json& v = f.is_object() && f.contains(key) ? f[key] : json();
      if (v.is_string()) return v.get<std::string>();
      if (v.is_null()) return "";
      throw error("findings[" + std::to_string(i) + "]." + key + " is not a string");
    };
    if (!f.is_object() || !f.contains(keys::kKind) || !f.contains(keys::kObjectType)) {
      throw error("findings[" + std::to_string(i) + "] lacks \"kind\" or \"object_type\"");
    }
    // The same key as Finding::key(), from the same frames: the kind only tells misuse events
    // from objects (a problem's kinds depend on the snapshot cadence).
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
    FindingKey key{text_of(keys::kKind), text_of(keys::kObjectType), callsite_identity(frames),
                   text_of(keys::kNamePattern)};
    // Documents without callsite_frames: their function, as then.
    if (key.where.empty()) key.where = text_of(keys::kFunction);
    out.identities_.insert(key.identity());
    ++i;
  }
  return out;
}

Baseline Baseline::load(const std::string& path) {
  std::string text, error;
  if (!read_input_file(path, kMaxBaselineBytes, &text, &error)) {
    throw std::runtime_error(path + ": cannot read the baseline file: " + error);
  }
  return parse(text, path);
}

}  // namespace vkleak::analysis
