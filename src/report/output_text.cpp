#include <algorithm>
#include <map>

#include "analysis/messages.h"
#include "analysis/name_ranges.h"
#include "analysis/problems.h"
#include "core/hex.h"
#include "format/snapshot_format.h"
#include "report/output.h"
#include "report/sparkline.h"
#include "shared/escape.h"

namespace vkleak::report {

using namespace analysis;  // the model it renders

namespace {

std::string plural(uint64_t n, const char* one, const char* many) {
  return format_count(n) + " " + (n == 1 ? one : many);
}

std::string kind_label(const Finding& f, const Style& style) {
  const std::string name = kind_name(f.kind);
  return kind_is_error(f.kind) ? style.red(name) : style.yellow(name);
}

std::string snapshots_line(const RunReport& r) {
  uint64_t during = 0, first = 0, last = 0;
  std::string ends;
  for (const SnapshotInfo& s : r.snapshots) {
    if (s.reason == format::name(format::Reason::kDeviceDestroy) ||
        s.reason == format::name(format::Reason::kInstanceDestroy)) {
      ends += (ends.empty() ? "" : ", ") + s.reason;
      continue;
    }
    if (during++ == 0) first = s.frame;
    last = s.frame;
    if (s.reason == format::name(format::Reason::kExit))
      ends += (ends.empty() ? "" : ", ") + std::string("exit");
  }
  std::string text = plural(r.snapshots.size(), "snapshot", "snapshots");
  if (during > 0) {
    text += " (" + format_count(during) + " during the run, frames " + std::to_string(first) + "-" +
            std::to_string(last) + ")";
  }
  if (!ends.empty()) text += ", ends with " + ends;
  if (!r.frame_boundary.empty())
    text += "; frames end at " + printable(r.frame_boundary, kDisplayChars);
  return text;
}

std::string status_label(GateStatus status, const Style& style) {
  if (status == GateStatus::kNone) return "";
  const std::string word(name(status));
  return "  [" + (status == GateStatus::kNew ? style.red(word) : style.dim(word)) + "]";
}

// "#3  growth + retained  VkBuffer "frame.*"  5 objects, 20.0 KiB  [baseline]": the whole of a
// problem that does not fail the gate.
std::string problem_headline(const ShownProblem& p, const Style& style) {
  const Finding& f = p.primary();
  std::string kinds;
  for (FindingKind k : p.problem->kinds) {
    const std::string name = kind_name(k);
    kinds +=
        (kinds.empty() ? "" : " + ") + (kind_is_error(k) ? style.red(name) : style.yellow(name));
  }
  std::string o = "  " + style.bold("#" + std::to_string(p.number)) + "  " + kinds + "  " +
                  style.bold(printable(finding_title(f))) + "  " + count_text(p);
  if (p.problem->bytes > 0) o += ", " + style.bold(format_bytes(p.problem->bytes));
  return o + status_label(p.status(), style);
}

// One block per problem: its kinds, what each says, and the evidence once.
void print_problem(const ShownProblem& p, const Style& style, std::string* out) {
  std::string& o = *out;
  o += problem_headline(p, style) + '\n';
  const std::vector<const Finding*> findings = p.findings();
  if (findings.size() == 1) {
    o += "      " + printable(findings[0]->message) + '\n';
  } else {
    // What each kind says about the same objects, one line each.
    for (const Finding* g : findings) {
      std::string line = "      " + kind_label(*g, style) + ": " + printable(g->message);
      if (g->status == GateStatus::kSuppressed)
        line += style.dim("  [suppressed by " + printable(g->suppressed_by, kDisplayChars) + "]");
      o += line + '\n';
    }
  }
  if (!p.problem->library.empty()) {
    o += "      " +
         style.dim("not the program's own code: made inside " +
                   printable(p.problem->library, kDisplayChars) + ", " +
                   plural(findings.size(), "call site", "call sites") + " listed above") +
         '\n';
  }
  if (!p.problem->suppressed_by.empty() && p.status() == GateStatus::kSuppressed)
    o += "      suppressed by: " + printable(p.problem->suppressed_by, kDisplayChars) + '\n';
  const Finding f = problem_evidence(p);
  const std::string indent = "      ";
  if (!f.stacks.empty()) {
    // Misuse reads like ASan: each stack under its label (the creation among them).
    for (const std::string& line : stack_lines(f)) {
      o += indent +
           (line[0] != ' ' ? style.bold(printable(line, kDisplayChars))
                           : printable(line, 2 * kDisplayChars)) +
           '\n';
    }
  } else if (f.callsite.empty()) {
    o += indent + "created at: " +
         style.dim(f.callsite_source == "none" ? "(no call site recorded)" : "(unknown)") + '\n';
  } else {
    o += indent + "created at: " + style.cyan(printable(f.callsite.front().text, kDisplayChars)) +
         (f.callsite_source == "same_name" ? style.dim("  (call site of a later object with "
                                                       "the same name)")
                                           : "") +
         '\n';
    // The innermost calls say where; the rest (main, libc) is in the JSON. Inlined frames
    // come with the call they were compiled into and do not count.
    constexpr size_t kCallsShown = 4;
    size_t calls = f.callsite.front().inlined ? 0 : 1;
    size_t i = 1;
    for (; i < f.callsite.size() && calls < kCallsShown; ++i) {
      o += indent + "            " + printable(f.callsite[i].text, kDisplayChars) + '\n';
      if (!f.callsite[i].inlined) ++calls;
    }
    if (i < f.callsite.size()) {
      o += indent + "            " +
           style.dim("(" + plural(f.callsite.size() - i, "more frame", "more frames") + ")") + '\n';
    }
  }
  if (!f.contents.empty()) {
    // A root never destroyed: what it holds, by type and call site.
    const AliveLines lines = alive_lines(f.contents);
    for (size_t i = 0; i < lines.shown.size(); ++i) {
      o += indent + (i == 0 ? "holds:      " : "            ") +
           printable(lines.shown[i], 2 * kDisplayChars) + '\n';
    }
    if (lines.more > 0)
      o += indent + "            " +
           style.dim("(" + plural(lines.more, "more group", "more groups") + ")") + '\n';
  }
  if (!f.names.empty()) {
    std::string names;
    for (const NameEntry& n : name_ranges(f.names)) {
      if (!names.empty()) names += ", ";
      names += quote_printable(n.text, 60);
    }
    if (f.names_omitted > 0) names += ", and " + format_count(f.names_omitted) + " more";
    o += indent + "names:      " + names + '\n';
  }
  for (const Chain& c : f.chains) {
    std::string chain;
    for (const ChainLink& l : c.links) {
      if (!chain.empty()) chain += " -> ";
      chain += printable(l.type, kDisplayChars);
      if (l.name) chain += " " + quote_printable(*l.name, 60);
      chain += " #" + std::to_string(l.id);
      if (l.state == ChainState::kDestroyed) {
        chain += style.red(" (destroyed" +
                           (l.destroyed_frame ? " in frame " + std::to_string(*l.destroyed_frame)
                                              : std::string()) +
                           ")");
      } else if (l.state == ChainState::kRetained) {
        chain += style.yellow(" (retained)");
      }
    }
    if (c.bytes > 0) chain += ", " + format_bytes(c.bytes);
    o += indent + "chain:      " + chain + '\n';
  }
  if (f.chains_omitted > 0) {
    o += indent + "            (" + format_count(f.chains_omitted) + " more)\n";
  }
  // Why they are alive: "retained by: VkDescriptorPool "pool" #3 -> 40 VkDescriptorSet; 96.0 MiB".
  for (const RetainerRoot& r : f.retainers) {
    std::string text = r.shared ? std::string("several roots (shared)")
                                : printable(r.type, kDisplayChars) +
                                      (r.name ? " " + quote_printable(*r.name, 60) : "") + " #" +
                                      std::to_string(r.id);
    std::string counts;
    for (const TypeTally& t : r.counts) {
      counts += (counts.empty() ? "" : ", ") + format_count(t.count) + " " +
                printable(t.type, kDisplayChars);
    }
    if (!counts.empty()) text += " -> " + counts;
    text += "; " + format_bytes(r.bytes);
    o += indent + "retained by: " + text + '\n';
    if (r.path.size() > 2) {
      std::string path;
      for (const ChainLink& l : r.path) {
        if (!path.empty()) path += " > ";
        path +=
            printable(l.type, kDisplayChars) + (l.name ? " " + quote_printable(*l.name, 60) : "");
      }
      o += indent + "             " + style.dim("via " + path) + '\n';
    }
  }
  if (f.retainers_omitted > 0) {
    o += indent + "             (" + plural(f.retainers_omitted, "more root", "more roots") + ")\n";
  }
  for (const EventExample& e : f.events) {
    std::string text = "frame " + std::to_string(e.frame);
    if (e.submission_serial) {
      text += ", submission " + std::to_string(*e.submission_serial) + " on queue " +
              std::to_string(*e.submission_queue) + " (frame " +
              std::to_string(*e.submission_frame) + ")";
    }
    for (const std::string& step : e.path) text += ", " + printable(step);
    o += indent + "event:      " + text + '\n';
  }
  if (f.events_omitted > 0) {
    o += indent + "            (" + format_count(f.events_omitted) + " more)\n";
  }
  if (!f.examples.empty()) {
    std::string examples;
    for (const ExampleObject& e : f.examples) {
      if (!examples.empty()) examples += "\n" + indent + "            ";
      examples += "#" + std::to_string(e.id) + " " + printable(e.type, kDisplayChars) + " " +
                  format_hex(e.handle);
      if (e.name) examples += " " + quote_printable(*e.name, 60);
      examples += ", created in frame " + std::to_string(e.frame);
      if (e.last_use_frame) examples += ", last used in frame " + std::to_string(*e.last_use_frame);
      if (e.bytes > 0) examples += ", " + format_bytes(e.bytes);
    }
    if (f.examples_omitted > 0) {
      examples += "\n" + indent + "            (" + format_count(f.examples_omitted) + " more)";
    }
    o += indent + "examples:   " + examples + '\n';
  }
  // The snapshot each verdict is from: "a.json (leak_at_exit), b.json (growth, retained)".
  std::vector<std::pair<std::string, std::string>> evidence;
  for (const Finding* g : findings) {
    auto it = std::find_if(evidence.begin(), evidence.end(),
                           [&](const auto& e) { return e.first == g->snapshot; });
    if (it == evidence.end()) {
      evidence.emplace_back(g->snapshot, kind_name(g->kind));
    } else {
      it->second += std::string(", ") + kind_name(g->kind);
    }
  }
  std::string ev;
  for (const auto& [snapshot, kinds] : evidence) {
    ev += (ev.empty() ? "" : ", ") + printable(snapshot, kDisplayChars) +
          (evidence.size() > 1 ? " (" + kinds + ")" : "");
  }
  o += indent + "evidence:   " + style.dim(ev) + '\n';
}

}  // namespace

std::string render_text(const ReportDocument& doc, const Style& style,
                        const SparklineOptions* sparklines) {
  std::string out;
  const ShownProblems problems(doc);
  const size_t total = doc.finding_count();
  std::map<std::string, uint64_t> kinds;
  for (const Finding* f : all_findings(doc)) ++kinds[kind_name(f->kind)];
  // Problems, not findings: one missing free judged three ways is one problem, its objects and
  // bytes counted once; the findings (verdicts) in brackets.
  std::string headline = "vkleak: ";
  if (total == 0) {
    headline += style.green("no findings");
  } else {
    const ProblemTotals t = problem_totals(doc);
    headline += style.bold(plural(t.problems, "problem", "problems")) + ", " +
                plural(t.objects, "object", "objects") + ", " + format_bytes(t.bytes);
  }
  headline += " in " + plural(doc.runs.size(), "run", "runs");
  if (total > 0) {
    std::string by_kind;
    for (const auto& [kind, n] : kinds) {
      by_kind += (by_kind.empty() ? "" : ", ") + format_count(n) + " " + kind;
    }
    headline += " (" + plural(total, "finding", "findings") + ": " + by_kind + ")";
  }
  size_t incomplete = 0;
  for (const RunReport& r : doc.runs) incomplete += r.incomplete.empty() ? 0 : 1;
  if (incomplete > 0) {
    headline += style.red(
        " (" + (doc.runs.size() == 1 ? std::string("not") : format_count(incomplete) + " not") +
        " checked whole)");
  }
  out += headline + '\n';

  for (const RunReport& r : doc.runs) {
    out += '\n' + style.bold("Run " + doc.run_label(r)) +
           (r.executable.empty() ? "" : ": " + printable(r.executable, kDisplayChars)) + '\n';
    out += "  " + snapshots_line(r) + '\n';
    if (sparklines != nullptr) out += render_sparklines(r, *sparklines, style);
    for (const std::string& problem : r.incomplete)
      out += "  " + style.red("incomplete: ") + printable(problem) + '\n';
    for (const std::string& note : r.notes)
      out += "  " + style.yellow("note: ") + printable(note) + '\n';
    if (r.skipped_teardown && !r.skipped_teardown->alive.empty()) {
      // Listed, not judged: the process skipped its teardown.
      const SkippedTeardown& t = *r.skipped_teardown;
      const AliveLines lines = alive_lines(t.alive);
      out += "  alive at " + printable(t.ended_by, kDisplayChars) + " (not judged):\n";
      for (const std::string& line : lines.shown)
        out += "    " + printable(line, 2 * kDisplayChars) + '\n';
      if (lines.more > 0)
        out += "    " +
               style.dim("(" + plural(lines.more, "more group", "more groups") +
                         ": the JSON lists them)") +
               '\n';
    }
    if (!doc.gate) {  // a gate stays short
      for (const DeviceMemoryView& v : r.driver_memory) {
        const std::string line = driver_memory_line(v);
        if (!line.empty()) out += "  driver memory: " + printable(line) + '\n';
      }
    }
    if (r.findings.empty()) {
      out += "  " + style.green("no findings") + '\n';
      continue;
    }
    if (doc.gate) continue;  // a gate lists the problems of all runs below, new ones first
    for (const ShownProblem& p : problems.all()) {
      if (p.run != &r) continue;
      out += '\n';
      print_problem(p, style, &out);
    }
  }
  if (doc.gate && problems.size() > 0) {
    // What fails the gate first and in full, whatever its run; the rest a line each (at most
    // kKnownShown): a passing gate is short, and the new problem is never buried.
    constexpr size_t kKnownShown = 10;
    size_t known_shown = 0, known_hidden = 0;
    bool listed_known = false;
    const bool several_runs = doc.runs.size() > 1;
    for (const ShownProblem& p : problems.all()) {
      const std::string run =
          several_runs ? style.dim("  (pid " + std::to_string(p.run->pid) + ")") : "";
      if (p.status() == GateStatus::kNew) {
        std::string block;
        print_problem(p, style, &block);
        out += '\n' + block.insert(block.find('\n'), run);
        continue;
      }
      if (known_shown == kKnownShown) {
        ++known_hidden;
        continue;
      }
      if (!listed_known) out += '\n';
      listed_known = true;
      ++known_shown;
      out += problem_headline(p, style) + run + '\n';
    }
    if (known_hidden > 0) {
      out += "  " +
             style.dim("(" + plural(known_hidden, "more problem", "more problems") +
                       " not failing the gate: vkleak report shows each)") +
             '\n';
    }
  }
  if (doc.gate) {
    const GateSummary& g = *doc.gate;
    const GateResult result = doc.gate_result();
    out += '\n' + style.bold("Gate: ") +
           (result == GateResult::kPass                 ? style.green("pass")
            : result == GateResult::kFail               ? style.red("FAIL")
            : result == GateResult::kTeardownNotChecked ? style.red("TEARDOWN NOT CHECKED")
                                                        : style.red("INCOMPLETE")) +
           ": ";
    if (g.incomplete_runs > 0) {
      out += plural(g.incomplete_runs, "run", "runs") + " not checked whole" +
             (g.allow_incomplete ? " (allowed by --allow-incomplete)" : "") + ", ";
    }
    if (g.skipped_teardown_runs > 0) {
      out += plural(g.skipped_teardown_runs, "run", "runs") +
             " ended without teardown (_exit(), quick_exit()): leaks at exit not checked" +
             (g.accept_skipped_teardown ? " (accepted by --accept-skipped-teardown)" : "") + ", ";
    }
    out += plural(g.new_findings, "new problem", "new problems") + " (" +
           format_count(g.max_findings) + " allowed), " + format_count(g.baseline) +
           " in the baseline, " + format_count(g.suppressed) + " suppressed" +
           (g.fixed.empty() ? "" : ", " + format_count(g.fixed.size()) + " fixed") + "\n";
    // What the baseline knows that no longer occurs: so that it ratchets down.
    for (const std::string& fixed : g.fixed) {
      out += "  fixed: " + printable(fixed) +
             style.dim("  (remove from the baseline with `vkleak baseline --update`)") + '\n';
    }
  }
  return out;
}

}  // namespace vkleak::report
