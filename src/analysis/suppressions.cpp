#include "analysis/suppressions.h"

#include <sstream>
#include <stdexcept>

#include "core/input_file.h"
#include "shared/glob.h"

namespace vkleak::analysis {

bool glob_match(const std::string& pattern, const std::string& text) {
  return glob_matches(pattern, text);  // not fnmatch(3): exponential in the number of '*'s
}

namespace {

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

bool frame_matches(const std::string& glob, const Frame& f) {
  for (const std::string* s : {&f.function, &f.file, &f.module, &f.text}) {
    if (!s->empty() && glob_match(glob, *s)) return true;
  }
  return false;
}

}  // namespace

Suppressions Suppressions::parse(const std::string& text, const std::string& path) {
  Suppressions out;
  out.path_ = path;
  std::istringstream in(text);
  std::string raw;
  int number = 0;
  while (std::getline(in, raw)) {
    ++number;
    std::string line = raw;
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    line = trim(line);
    if (line.empty()) continue;
    auto error = [&](const std::string& message) {
      return std::runtime_error(path + ":" + std::to_string(number) + ": " + message);
    };
    SuppressionRule rule;
    rule.text = line;
    rule.line = number;
    if (line.find('=') == std::string::npos) {
      // LeakSanitizer form: KIND:PATTERN.
      const size_t colon = line.find(':');
      if (colon == std::string::npos || colon == 0 || colon + 1 == line.size()) {
        throw error(
            "expected KIND:PATTERN or key=glob fields (kind=, type=, name=, frame=), got '" + line +
            "'");
      }
      rule.kind = line.substr(0, colon);
      rule.frame = "*" + trim(line.substr(colon + 1)) + "*";
    } else {
      std::istringstream fields(line);
      std::string field;
      while (fields >> field) {
        const size_t eq = field.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == field.size()) {
          throw error("expected key=glob, got '" + field + "'");
        }
        const std::string key = field.substr(0, eq);
        const std::string value = field.substr(eq + 1);
        if (key == "kind") {
          rule.kind = value;
        } else if (key == "type") {
          rule.type = value;
        } else if (key == "name") {
          rule.name = value;
        } else if (key == "frame") {
          rule.frame = value;
        } else {
          throw error("unknown key '" + key + "' (use kind=, type=, name= or frame=)");
        }
      }
    }
    // A kind that matches no kind at all is a typo that would silently suppress nothing.
    bool any = false;
    for (FindingKind k : kAllKinds) any |= glob_match(rule.kind, kind_name(k));
    if (!any) {
      std::string kinds;
      for (FindingKind k : kAllKinds)
        kinds += std::string(kinds.empty() ? "" : ", ") + kind_name(k);
      std::string message = "'" + rule.kind + "' matches no finding kind; the kinds are " + kinds +
                            ", and * matches any";
      // LeakSanitizer's habit: its leak: is what vkleak calls leak_at_exit.
      if (rule.kind == "leak") message += " (LeakSanitizer's leak: is leak_at_exit: here)";
      throw error(message);
    }
    out.rules_.push_back(std::move(rule));
  }
  return out;
}

Suppressions Suppressions::load(const std::string& path) {
  std::string text, error;
  if (!read_input_file(path, kMaxSuppressionBytes, &text, &error)) {
    throw std::runtime_error(path + ": cannot read the suppression file: " + error);
  }
  return parse(text, path);
}

const SuppressionRule* Suppressions::match(const Finding& f) const {
  for (const SuppressionRule& r : rules_) {
    if (!glob_match(r.kind, kind_name(f.kind)) || !glob_match(r.type, f.object_type)) continue;
    if (!r.name.empty()) {
      bool hit = glob_match(r.name, f.name_pattern);
      for (size_t i = 0; !hit && i < f.names.size(); ++i) hit = glob_match(r.name, f.names[i]);
      if (!hit) continue;
    }
    if (!r.frame.empty()) {
      bool hit = false;
      for (size_t i = 0; !hit && i < f.callsite.size(); ++i)
        hit = frame_matches(r.frame, f.callsite[i]);
      if (!hit) continue;
    }
    return &r;
  }
  return nullptr;
}

}  // namespace vkleak::analysis
