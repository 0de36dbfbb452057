#include "analysis/baseline.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "analysis/finding.h"
#include "core/input_file.h"

namespace vkleak::analysis {

Baseline Baseline::parse(const std::string& text, const std::string& path) {
  using nlohmann::json;
  auto error = [&](const std::string& message) {
    return std::runtime_error(path + ": " + message);
  };
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) throw error("not valid JSON");
  if (!doc.is_object() || doc.value("format", json()) != "vkleak-findings") {
    throw error("not a vkleak findings document (vkleak report --format json writes one)");
  }
  const json& version = doc["version"];
  if (!version.is_number_integer()) throw error("\"version\" is missing or not an integer");
  if (version.get<int64_t>() > kFindingsVersion) {
    throw error("findings version " + version.dump() + " is newer than this vkleak supports (" +
                std::to_string(kFindingsVersion) + "); upgrade vkleak");
  }
  const json& findings = doc["findings"];
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
    if (!f.is_object() || !f.contains("kind") || !f.contains("object_type")) {
      throw error("findings[" + std::to_string(i) + "] lacks \"kind\" or \"object_type\"");
    }
    // The same identity as Finding::identity(), from the same frames: the kind only tells misuse
    // events from objects (a problem's kinds depend on the snapshot cadence).
    std::vector<Frame> frames;
    if (f.contains("callsite_frames") && f["callsite_frames"].is_array()) {
      for (const json& fr : f["callsite_frames"]) {
        if (!fr.is_object()) continue;
        Frame frame;
        auto str = [&](const char* key) {
          const json& v = fr.contains(key) ? fr[key] : json();
          return v.is_string() ? v.get<std::string>() : std::string();
        };
        frame.text = str("text");
        frame.function = str("function");
        frame.module = str("module");
        frame.inlined = fr.value("inlined", json(false)).is_boolean() && fr.value("inlined", false);
        frames.push_back(std::move(frame));
      }
    }
    std::string where = callsite_identity(frames);
    // Documents without callsite_frames: their function, as then.
    if (where.empty()) where = text_of("function");
    out.identities_.insert(
        make_identity(text_of("kind"), text_of("object_type"), where, text_of("name_pattern")));
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
