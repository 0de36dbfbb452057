// Markdown for pull-request comments and CI step summaries (GitHub-flavoured: tables, <details>).
#include <cctype>

#include "analysis/messages.h"
#include "analysis/name_ranges.h"
#include "analysis/problems.h"
#include "report/output.h"
#include "shared/escape.h"

namespace vkleak::report {

using namespace analysis;  // the model it renders

namespace {

// GitHub refuses step summaries over 1 MiB; stay under with room for the closing lines.
constexpr size_t kMaxBytes = 1'000'000;

// Untrusted text: only ever in a code span (shared/escape.h), never as Markdown.
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

// The program's short path ("caller > helper") and the source line that tells the problem
// apart (the caller of a shared helper), each in a code span of its own.
std::string where(const ShownProblems& all, const ShownProblem& p) {
  const Finding& f = p.primary();
  if (f.callsite.empty()) return "";
  const std::string path = callsite_path(f);
  std::string text = cell(path.empty() ? f.callsite.front().text : path);
  if (const Frame* s = all.distinguishing_frame(p)) {
    const size_t slash = s->file.rfind('/');
    text += " " + cell(s->file.substr(slash == std::string::npos ? 0 : slash + 1)) + ":" +
            std::to_string(s->line);
  }
  return text;
}

std::string kinds_cell(const Problem& p) {
  std::string out;
  for (FindingKind k : p.kinds)
    out += (out.empty() ? "`" : " + `") + std::string(kind_name(k)) + "`";
  return out;
}

std::string table_row(const ShownProblems& all, const ShownProblem& p, bool gated,
                      bool several_runs) {
  const Finding f = problem_evidence(p);
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
  std::string out = "| " + std::to_string(p.number) + " |";
  if (gated)
    out += " " +
           (p.status() == GateStatus::kNew ? "**new**" : word(std::string(name(p.status())))) +
           " |";
  if (several_runs) out += " " + std::to_string(f.pid) + " |";
  out += " " + kinds_cell(*p.problem) + " | " + word(f.object_type) + " | " +
         format_count(p.problem->count) + " | " +
         (p.problem->bytes > 0 ? format_bytes(p.problem->bytes) : "") + " | " + names + " | " +
         where(all, p) + " |\n";
  return out;
}

// One item per problem: its kinds, what each says, the call stack once.
std::string detail(const ShownProblem& p) {
  const size_t n = p.number;
  const Finding& f = p.primary();
  std::string out = std::to_string(n) + ". **" + kinds_text(*p.problem) + "** " +
                    markdown_code(finding_title(f), false, SIZE_MAX) + ": ";
  const std::vector<const Finding*> findings = p.findings();
  if (findings.size() == 1) {
    out += markdown_code(f.message, false, SIZE_MAX) + "\n";
  } else {
    out += format_count(p.problem->count) + " objects" +
           (p.problem->bytes > 0 ? ", " + format_bytes(p.problem->bytes) : "") +
           " (one problem, each object counted once)\n";
    for (const Finding* g : findings) {
      out += "   <br>" + std::string(kind_name(g->kind)) + ": " +
             markdown_code(g->message, false, SIZE_MAX) + "\n";
    }
  }
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
  const ShownProblems problems(doc);
  const size_t finding_count = doc.finding_count();
  std::string out = "### vkleak: ";
  if (doc.gate) {
    const GateResult result = doc.gate_result();
    out += result == GateResult::kPass   ? "✅ gate passed, "
           : result == GateResult::kFail ? "❌ gate failed, "
           : result == GateResult::kTeardownNotChecked
               ? "⚠️ gate failed: teardown not checked (the program skipped it), "
               : "⚠️ gate failed: incomplete run, ";
  }
  const ProblemTotals t = problem_totals(doc);
  if (finding_count == 0) {
    out += "no findings";
  } else if (doc.gate) {
    const uint64_t n = doc.gate->new_findings;
    out += format_count(n) + (n == 1 ? " new problem" : " new problems");
  } else {
    out += format_count(t.problems) + (t.problems == 1 ? " problem" : " problems");
  }
  out +=
      " in " + format_count(doc.runs.size()) + (doc.runs.size() == 1 ? " run" : " runs") + "\n\n";
  if (finding_count > 0) {
    // Findings about the same objects are one problem: objects and bytes count once.
    out += format_count(t.problems) + (t.problems == 1 ? " problem: " : " problems: ") +
           format_count(t.objects) + (t.objects == 1 ? " object, " : " objects, ") +
           format_bytes(t.bytes) + " (each object counted once; " + format_count(finding_count) +
           (finding_count == 1 ? " finding" : " findings") + ").\n\n";
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
    if (r.skipped_teardown && !r.skipped_teardown->alive.empty()) {
      // Listed, not judged: the process skipped its teardown.
      const AliveLines lines = alive_lines(r.skipped_teardown->alive);
      out += "> **Alive at " + markdown_code(r.skipped_teardown->ended_by, false, kDisplayChars) +
             "** (pid " + std::to_string(r.pid) + "; not judged: the program skipped its " +
             "teardown):\n";
      for (const std::string& line : lines.shown)
        out += "> - " + markdown_code(line, false, 2 * kDisplayChars) + "\n";
      if (lines.more > 0)
        out += "> - " + format_count(lines.more) +
               (lines.more == 1 ? " more group" : " more groups") + " (the JSON lists them)\n";
      out += "\n";
    }
    if (!doc.gate) {
      for (const DeviceMemoryView& v : r.driver_memory) {
        const std::string line = driver_memory_line(v);
        if (!line.empty())
          out += "Driver memory (pid " + std::to_string(r.pid) +
                 "): " + markdown_code(line, false, 4 * kDisplayChars) + "\n\n";
      }
    }
  }
  if (problems.size() == 0) return out;

  const bool gated = doc.gate.has_value();
  const bool several_runs = doc.runs.size() > 1;
  const std::string header =
      std::string("| # |") + (gated ? " Status |" : "") + (several_runs ? " PID |" : "") +
      " Kind | Type | Count | Bytes | Names | Created at |\n" + std::string("|--:|") +
      (gated ? "---|" : "") + (several_runs ? "--:|" : "") + "---|---|--:|--:|---|---|\n";
  // New problems first, whole; a gate's other problems in a table of their own, folded: a
  // passing gate is a line and a folded table.
  std::string table = header, known, details;
  size_t known_rows = 0;
  constexpr size_t kTail = 400;  // the "more" lines and the closing tags
  size_t shown = 0;
  for (const ShownProblem& p : problems.all()) {
    const bool failing = !gated || p.status() == GateStatus::kNew;
    std::string row = table_row(problems, p, gated, several_runs);
    std::string item = failing ? detail(p) : "";
    if (out.size() + table.size() + known.size() + details.size() + row.size() + item.size() +
            header.size() + kTail >
        kMaxBytes)
      break;
    if (failing) {
      table += row;
      details += item;
    } else {
      known += row;
      ++known_rows;
    }
    ++shown;
  }
  if (table.size() > header.size()) out += table;
  if (shown < problems.size()) {
    const size_t more = problems.size() - shown;
    out += "\n**" + format_count(more) + (more == 1 ? " more problem" : " more problems") +
           " in the JSON** (`vkleak report --format json`): this summary stops under GitHub's "
           "1 MiB limit.\n";
  }
  if (!details.empty())
    out += "\n<details><summary>Details</summary>\n\n" + details + "\n</details>\n";
  if (known_rows > 0) {
    out += "\n<details><summary>" + format_count(known_rows) +
           (known_rows == 1 ? " problem" : " problems") +
           " not failing the gate (baseline, suppressed, ignored)</summary>\n\n" + header + known +
           "\n</details>\n";
  }
  return out;
}

}  // namespace vkleak::report
