// Markdown for pull-request comments and CI step summaries (GitHub-flavoured: tables, <details>).
#include <cctype>

#include "analysis/name_ranges.h"
#include "analysis/problems.h"
#include "core/escape.h"
#include "report/output.h"

namespace vkleak::analysis {

namespace {

// GitHub refuses step summaries over 1 MiB; stay under with room for the closing lines.
constexpr size_t kMaxBytes = 1'000'000;

// Untrusted text: only ever in a code span (core/escape.h), never as Markdown.
std::string cell(const std::string& text) {
  return markdown_code(text, /*in_table=*/true);
}

// Identifiers (type names, the gate's statuses) as they are; anything else as code.
std::string word(const std::string& text) {
  for (char c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return cell(text);
  }
  return text;
}

// The program's short path ("caller > helper") and the innermost source line, each in a code
// span of its own.
std::string where(const Finding& f) {
  if (f.callsite.empty()) return "";
  const std::string path = callsite_path(f);
  std::string text = cell(path.empty() ? f.callsite.front().text : path);
  if (const Frame* s = source_frame(f)) {
    const size_t slash = s->file.rfind('/');
    text += " " + cell(s->file.substr(slash == std::string::npos ? 0 : slash + 1)) + ":" +
            std::to_string(s->line);
  }
  return text;
}

std::string table_row(const Finding& f, size_t n, bool gated, bool several_runs) {
  // A series of names is one entry ("thumb.{0..299}"); "+N" counts names, not entries.
  std::string names;
  uint64_t more = f.names_omitted;
  const std::vector<NameEntry> entries = name_ranges(f.names);
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i < 3) {
      names += (i ? ", " : "") + cell(entries[i].text);
    } else {
      more += entries[i].names;
    }
  }
  if (more > 0) names += " +" + format_count(more);
  std::string out = "| " + std::to_string(n) + " |";
  if (gated) out += " " + word(f.status) + " |";
  if (several_runs) out += " " + std::to_string(f.pid) + " |";
  out += " `" + std::string(kind_name(f.kind)) + "` | " + word(f.object_type) + " | " +
         format_count(f.count) + " | " + (f.bytes > 0 ? format_bytes(f.bytes) : "") + " | " +
         names + " | " + where(f) + " |\n";
  return out;
}

// same: "" or the other findings of its problem, "#2, #5".
std::string detail(const Finding& f, size_t n, const std::string& same) {
  std::string out = std::to_string(n) + ". **" + kind_name(f.kind) + "** " +
                    markdown_code(finding_title(f), false, SIZE_MAX) + ": " +
                    markdown_code(f.message, false, SIZE_MAX) + "\n";
  if (!same.empty()) out += "   <br>same objects as " + same + ": one problem, counted once\n";
  if (!f.callsite.empty() && f.stacks.empty()) {  // else "created here" is among the stacks
    out += "   <br>created at: ";
    for (size_t i = 0; i < f.callsite.size(); ++i) {
      out += (i ? " ← " : "") + markdown_code(f.callsite[i].text, false);
    }
    out += "\n";
  }
  // Misuse: the stacks as ASan prints them, in a block of their own under the item.
  const std::vector<std::string> stacks = stack_lines(f);
  // Indented as the item's text ("10. " is four wide), so the block stays in the item.
  const std::string indent(std::to_string(n).size() + 2, ' ');
  if (!stacks.empty()) out += "\n" + markdown_block(stacks, indent, 2 * kDisplayChars) + "\n";
  return out;
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
  if (!findings.empty()) {
    // Findings about the same objects are one problem: objects and bytes count once.
    const ProblemTotals t = problem_totals(doc);
    out += format_count(t.problems) + (t.problems == 1 ? " problem: " : " problems: ") +
           format_count(t.objects) + (t.objects == 1 ? " object, " : " objects, ") +
           format_bytes(t.bytes) + " (each object counted once).\n\n";
  }
  if (doc.gate) {
    const GateSummary& g = *doc.gate;
    out += format_count(g.new_findings) + " new (" + format_count(g.max_findings) + " allowed), " +
           format_count(g.baseline) + " in the baseline, " + format_count(g.suppressed) +
           " suppressed.\n\n";
  }
  for (const RunReport& r : doc.runs) {
    for (const std::string& problem : r.incomplete) {
      out += "> **Incomplete run** (pid " + std::to_string(r.pid) +
             "): " + markdown_code(problem, false, 4 * kDisplayChars) + "\n\n";
    }
    for (const std::string& note : r.notes) {
      out += "> **Note** (pid " + std::to_string(r.pid) +
             "): " + markdown_code(note, false, 4 * kDisplayChars) + "\n\n";
    }
  }
  if (findings.empty()) return out;

  const bool gated = doc.gate.has_value();
  const bool several_runs = doc.runs.size() > 1;
  std::string table = std::string("| # |") + (gated ? " Status |" : "") +
                      (several_runs ? " PID |" : "") +
                      " Kind | Type | Count | Bytes | Names | Created at |\n";
  table += std::string("|--:|") + (gated ? "---|" : "") + (several_runs ? "--:|" : "") +
           "---|---|--:|--:|---|---|\n";
  // Per finding (in all_findings order): the other findings of its problem.
  std::vector<std::string> same;
  for (const RunReport& r : doc.runs) {
    const size_t first = same.size();
    for (const Finding& f : r.findings) {
      std::string others;
      if (const Problem* p = problem_of(r, f); p != nullptr && p->findings.size() > 1) {
        for (size_t i : p->findings) {
          if (&r.findings[i] != &f)
            others += (others.empty() ? "#" : ", #") + std::to_string(first + i + 1);
        }
      }
      same.push_back(std::move(others));
    }
  }
  std::string details;
  // Findings are ranked: keep the first ones whole, and say where the rest are.
  constexpr size_t kTail = 300;  // the "more" line and the closing tags
  size_t shown = 0;
  for (const Finding* f : findings) {
    std::string row = table_row(*f, shown + 1, gated, several_runs);
    std::string item = detail(*f, shown + 1, same[shown]);
    if (out.size() + table.size() + details.size() + row.size() + item.size() + kTail > kMaxBytes)
      break;
    table += row;
    details += item;
    ++shown;
  }
  out += table;
  if (shown < findings.size()) {
    const size_t more = findings.size() - shown;
    out += "\n**" + format_count(more) + (more == 1 ? " more finding" : " more findings") +
           " in the JSON** (`vkleak report --format json`): this summary stops under GitHub's "
           "1 MiB limit.\n";
  }
  out += "\n<details><summary>Details</summary>\n\n" + details + "\n</details>\n";
  return out;
}

}  // namespace vkleak::analysis
