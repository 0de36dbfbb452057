// Markdown for pull-request comments and CI step summaries (GitHub-flavoured: tables, <details>).
#include "analysis/output.h"

namespace vkleak::analysis {

namespace {

// Text inside a table cell or inline code: no pipes, newlines or backticks to break it.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : printable(text, 200)) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '`') {
      out += '\'';
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      out += c;
    }
  }
  return out;
}

std::string code(const std::string& text) {
  return text.empty() ? "" : "`" + cell(text) + "`";
}

std::string where(const Finding& f) {
  if (f.callsite.empty()) return "";
  const Frame& first = f.callsite.front();
  std::string text = code(first.function.empty() ? first.text : first.function);
  if (const Frame* s = source_frame(f)) {
    const size_t slash = s->file.rfind('/');
    text += " " + cell(s->file.substr(slash == std::string::npos ? 0 : slash + 1)) + ":" +
            std::to_string(s->line);
  }
  return text;
}

}  // namespace

std::string render_markdown(const ReportDocument& doc) {
  const std::vector<const Finding*> findings = all_findings(doc);
  std::string out = "### vkleak: ";
  if (doc.gate) {
    const std::string result = doc.gate_result();
    out += result == "pass"   ? "✅ gate passed, "
           : result == "fail" ? "❌ gate failed, "
                              : "⚠️ gate failed: incomplete run, ";
  }
  out += findings.empty()
             ? "no findings"
             : format_count(findings.size()) + (findings.size() == 1 ? " finding" : " findings");
  out +=
      " in " + format_count(doc.runs.size()) + (doc.runs.size() == 1 ? " run" : " runs") + "\n\n";
  if (doc.gate) {
    const GateSummary& g = *doc.gate;
    out += format_count(g.new_findings) + " new (" + format_count(g.max_findings) + " allowed), " +
           format_count(g.baseline) + " in the baseline, " + format_count(g.suppressed) +
           " suppressed.\n\n";
  }
  for (const RunReport& r : doc.runs) {
    for (const std::string& problem : r.incomplete) {
      out += "> **Incomplete run** (pid " + std::to_string(r.pid) + "): " + cell(problem) + "\n\n";
    }
    for (const std::string& note : r.notes) {
      out += "> **Note** (pid " + std::to_string(r.pid) + "): " + cell(note) + "\n\n";
    }
  }
  if (findings.empty()) return out;

  const bool gated = doc.gate.has_value();
  const bool several_runs = doc.runs.size() > 1;
  out += std::string("| # |") + (gated ? " Status |" : "") + (several_runs ? " PID |" : "") +
         " Kind | Type | Count | Bytes | Names | Created at |\n";
  out += std::string("|--:|") + (gated ? "---|" : "") + (several_runs ? "--:|" : "") +
         "---|---|--:|--:|---|---|\n";
  size_t n = 0;
  for (const Finding* f : findings) {
    std::string names;
    for (size_t i = 0; i < f->names.size() && i < 3; ++i) {
      names += (i ? ", " : "") + code(f->names[i]);
    }
    const uint64_t more =
        f->names.size() > 3 ? f->names.size() - 3 + f->names_omitted : f->names_omitted;
    if (more > 0) names += " +" + format_count(more);
    out += "| " + std::to_string(++n) + " |";
    if (gated) out += " " + cell(f->status) + " |";
    if (several_runs) out += " " + std::to_string(f->pid) + " |";
    out += " `" + std::string(kind_name(f->kind)) + "` | " + cell(f->object_type) + " | " +
           format_count(f->count) + " | " + (f->bytes > 0 ? format_bytes(f->bytes) : "") + " | " +
           names + " | " + where(*f) + " |\n";
  }
  out += "\n<details><summary>Details</summary>\n\n";
  n = 0;
  for (const Finding* f : findings) {
    out += std::to_string(++n) + ". **" + kind_name(f->kind) + "** " + cell(finding_title(*f)) +
           ": " + cell(f->message) + "\n";
    if (!f->callsite.empty()) {
      out += "   <br>created at: ";
      for (size_t i = 0; i < f->callsite.size(); ++i) {
        out += (i ? " ← " : "") + code(f->callsite[i].text);
      }
      out += "\n";
    }
  }
  out += "\n</details>\n";
  return out;
}

}  // namespace vkleak::analysis
