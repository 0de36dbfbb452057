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
    // The same identity as Finding::fingerprint(): the module stands in for an unknown function.
    std::string function = text_of("function");
    if (function.empty() && f.contains("callsite_frames") && f["callsite_frames"].is_array() &&
        !f["callsite_frames"].empty() && f["callsite_frames"][0].is_object() &&
        f["callsite_frames"][0].value("module", json()).is_string()) {
      function = f["callsite_frames"][0]["module"].get<std::string>();
    }
    out.fingerprints_.insert(make_fingerprint(text_of("kind"), text_of("object_type"), function,
                                              text_of("name_pattern")));
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
