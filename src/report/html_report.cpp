#include "report/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/messages.h"
#include "analysis/name_ranges.h"
#include "analysis/problems.h"
#include "core/hex.h"
#include "report/explorer_assets.h"  // generated: explorer.js, explorer.css, their hashes
#include "report/explorer_data.h"
#include "report/html_chains.h"
#include "report/html_charts.h"
#include "report/html_model.h"
#include "report/output.h"
#include "shared/escape.h"
#include "shared/text.h"

namespace vkleak::report {

namespace {

using namespace html;  // the page's parts: model, charts, chains

// ---------------------------------------------------------------------------------------------
// The page
// ---------------------------------------------------------------------------------------------

void add_run_item(std::string* s, const char* label, const std::string& value,
                  const char* cls = "") {
  if (value.empty()) return;
  *s += "<div" + std::string(*cls ? " class=\"" + std::string(cls) + "\"" : "") + "><dt>" + label +
        "</dt><dd>" + html_text(value) + "</dd></div>";
}

std::string header(const Report& r) {
  std::string s =
      "<header class=\"vk-header\" id=\"run\">\n<div class=\"vk-title\"><h1>vkleak report</h1>";
  const std::string count =
      std::to_string(r.findings.size()) + (r.findings.size() == 1 ? " finding" : " findings");
  const std::string problems =
      format_count(r.totals.problems) + (r.totals.problems == 1 ? " problem" : " problems");
  if (r.gate == analysis::GateResult::kIncomplete ||
      (r.gate == analysis::GateResult::kNone && !r.incomplete.empty())) {
    // Nothing can pass that was not checked whole.
    s += "<span class=\"vk-badge vk-fail\" id=\"verdict\">INCOMPLETE \xc2\xb7 run not checked "
         "whole (" +
         count + ")</span>";
  } else if (r.gate == analysis::GateResult::kTeardownNotChecked) {
    s += "<span class=\"vk-badge vk-fail\" id=\"verdict\">TEARDOWN NOT CHECKED \xc2\xb7 the "
         "program skipped it (" +
         count + ")</span>";
  } else if (r.gate == analysis::GateResult::kPass) {  // a gate's verdict wins: it knows the
                                                       // baseline and suppressions
    s += "<span class=\"vk-badge vk-pass\" id=\"verdict\">PASS \xc2\xb7 gate passed" +
         (r.findings.empty() ? std::string() : " (" + count + ")") + "</span>";
  } else if (r.gate == analysis::GateResult::kFail) {
    s += "<span class=\"vk-badge vk-fail\" id=\"verdict\">FAIL \xc2\xb7 gate failed (" + problems +
         ", " + count + ")</span>";
  } else if (r.findings.empty() && r.run && r.run->skipped_teardown) {
    // Nothing found during the run, but what was alive at the end was not judged: no PASS.
    s += "<span class=\"vk-badge vk-found\" id=\"verdict\">TEARDOWN NOT CHECKED \xc2\xb7 no leaks "
         "found during the run</span>";
  } else if (r.findings.empty()) {
    s += "<span class=\"vk-badge vk-pass\" id=\"verdict\">PASS \xc2\xb7 no leaks found</span>";
  } else {
    // A report is no gate: it says what it found, not pass or fail (vkleak gate knows the
    // baseline and the suppressions).
    s += "<span class=\"vk-badge vk-found\" id=\"verdict\">" + problems + " found \xc2\xb7 " +
         count + "</span>";
  }
  s += "</div>\n<dl class=\"vk-run\">";
  const std::string executable = r.run ? r.run->executable : "";
  add_run_item(&s, "Executable", executable.empty() ? "(unknown)" : executable, "vk-exe");
  if (r.run) add_run_item(&s, "PID", std::to_string(r.run->pid));
  if (r.run && !r.run->snapshots.empty()) {
    add_run_item(&s, "Snapshots", format_count(r.run->snapshots.size()));
  }
  if (r.runs > 1) add_run_item(&s, "Runs", format_count(r.runs) + " (the first is shown)");
  add_run_item(&s, "Frames", frames_text(r.run_frames));
  s += "</dl>\n";
  if (!r.incomplete.empty()) {
    s += "<ul class=\"vk-incomplete\" id=\"incomplete\">";
    for (const std::string& problem : r.incomplete) s += "<li>" + html_text(problem) + "</li>";
    s += "</ul>\n";
  }
  if (r.run && !r.run->notes.empty()) {
    s += "<ul class=\"vk-notes\" id=\"notes\">";
    for (const std::string& note : r.run->notes) s += "<li>" + html_text(note) + "</li>";
    s += "</ul>\n";
  }
  if (r.run && r.run->skipped_teardown && !r.run->skipped_teardown->alive.empty()) {
    // Listed, not judged: the process skipped its teardown.
    const analysis::SkippedTeardown& t = *r.run->skipped_teardown;
    const analysis::AliveLines lines = analysis::alive_lines(t.alive);
    s += "<details class=\"vk-skipped-teardown\" id=\"skipped-teardown\" open><summary>Alive at " +
         html_text(t.ended_by) +
         " (not judged: the program skipped its teardown): " + format_count(t.objects) +
         (t.objects == 1 ? " object, " : " objects, ") + format_bytes(t.bytes) + "</summary><ul>";
    for (const std::string& line : lines.shown) s += "<li>" + html_text(line) + "</li>";
    if (lines.more > 0)
      s += "<li>" + format_count(lines.more) + (lines.more == 1 ? " more group" : " more groups") +
           " (the JSON lists them)</li>";
    s += "</ul></details>\n";
  }
  s += "</header>\n";
  return s;
}

std::string summary(const Report& r) {
  std::string s = "<section id=\"summary\">\n<h2>Summary</h2>\n";
  if (r.findings.empty() && r.run && r.run->skipped_teardown) {
    // What was alive at the end was not judged: "no leaks at exit" would claim too much.
    s += "<div class=\"vk-empty-state\" id=\"no-findings\">No leaks found during the run"
         "<span>Leaks at exit not checked: the program ended with " +
         html_text(r.run->skipped_teardown->ended_by) +
         " without its teardown (what was alive then is listed above).</span></div>\n"
         "</section>\n";
    return s;
  }
  if (r.findings.empty()) {
    s += "<div class=\"vk-empty-state\" id=\"no-findings\">No leaks found"
         "<span>vkleak found no growth, retained objects, stale views, orphaned memory or "
         "leaks at exit in this run.</span></div>\n</section>\n";
    return s;
  }
  // Kinds in the order summaries list them.
  std::vector<const KindInfo*> kinds;
  for (const KindInfo& k : analysis::kKinds) kinds.push_back(&k);
  std::sort(kinds.begin(), kinds.end(),
            [](const KindInfo* a, const KindInfo* b) { return a->summary_rank < b->summary_rank; });
  s += "<div class=\"vk-cards\">\n";
  for (const KindInfo* info : kinds) {
    uint64_t findings = 0;
    uint64_t objects = 0;
    uint64_t bytes = 0;
    for (const Finding* f : r.findings) {
      if (f->kind != info->kind) continue;
      ++findings;
      objects += f->count;
      bytes = saturating_add(bytes, f->bytes);
    }
    if (findings == 0) continue;
    s += "<div class=\"vk-card " + kind_class(info->kind) + "\" data-kind=\"" +
         html_text(info->name) + "\" title=\"" + html_text(info->summary) +
         "\"><span class=\"vk-card-n\">" + std::to_string(findings) +
         "</span><span class=\"vk-card-label\">" + html_text(info->title) +
         "</span><span class=\"vk-card-sub\">" + format_count(objects) + " objects \xc2\xb7 " +
         html_text(format_bytes(bytes)) + "</span></div>\n";
  }
  // Each object once: findings about the same objects are one problem.
  const analysis::ProblemTotals& t = r.totals;
  s += "<div class=\"vk-card vk-total\" id=\"total-bytes\" title=\"Each object counted once: "
       "findings about the same objects are one problem\"><span class=\"vk-card-n\">" +
       html_text(format_bytes(t.bytes)) +
       "</span><span class=\"vk-card-label\">in findings</span>"
       "<span class=\"vk-card-sub\">" +
       format_count(t.objects) + " objects, " + format_count(t.problems) +
       (t.problems == 1 ? " problem, " : " problems, ") + format_count(t.findings) +
       (t.findings == 1 ? " finding" : " findings") + "</span></div>\n";
  s += "</div>\n</section>\n";
  return s;
}

std::string names_cell(const std::vector<std::string>& names, uint64_t omitted) {
  if (names.empty() && omitted == 0) return "<span class=\"vk-more\">(unnamed)</span>";
  constexpr size_t kShown = 3;
  std::string s;
  // A series of names is one entry ("thumb.{0..299}"); "+N more" counts names.
  uint64_t more = omitted;
  const std::vector<analysis::NameEntry> entries = analysis::name_ranges(names);
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i >= kShown) {
      more += entries[i].names;
      continue;
    }
    if (i > 0) s += ", ";
    s += html_text(display_cut(entries[i].text));
  }
  if (more > 0) s += " <span class=\"vk-more\">+" + format_count(more) + " more</span>";
  return s;
}

// "1 VkDescriptorPool "x" explains 40 VkDescriptorSet, 12 VkImageView, 96 MiB": a root and
// what only it keeps alive.
std::string retainer_text(const analysis::RetainerRoot& root) {
  std::string s = root.shared ? std::string("Several roots (shared) explain ")
                              : "1 " + (root.type.empty() ? std::string("?") : root.type) +
                                    (root.name ? " \"" + display_cut(*root.name) + "\"" : "") +
                                    " explains ";
  std::string counts;
  for (const analysis::TypeTally& t : root.counts) {
    counts += (counts.empty() ? "" : ", ") + format_count(t.count) + " " + t.type;
  }
  if (counts.empty()) counts = format_count(root.objects) + " objects";
  return s + counts + ", " + format_bytes(root.bytes);
}

// "VkDescriptorPool "x" > VkDescriptorSet "s" > VkImageView": the way from the root.
std::string retainer_path(const analysis::RetainerRoot& root) {
  std::string s;
  for (const ChainLink& l : root.path) {
    if (!s.empty()) s += " > ";
    s += (l.type.empty() ? std::string("?") : l.type) +
         (l.name && !l.name->empty() ? " \"" + display_cut(*l.name) + "\"" : "");
  }
  return s;
}

// chain_rows: the diagram rows before this finding's chains (the diagram stops at kMaxChains).
std::string finding_details(const Finding& f, size_t rank, size_t chain_rows) {
  std::string s =
      "<details class=\"vk-detail\" id=\"finding-" + std::to_string(rank) + "\"><summary>" +
      html_text(f.message.empty() ? "Details" : display_cut(f.message, 4 * kDisplayChars)) +
      "</summary>\n";
  s += "<dl class=\"vk-detail-list\">";
  s += "<dt>What it means</dt><dd>" + html_text(analysis::kind_info(f.kind).summary) + "</dd>";
  s += "<dt>Bytes</dt><dd>" + format_count(f.bytes) + " bytes</dd>";
  // Misuse: each stack under its label, frames numbered from #0 as ASan does.
  for (const analysis::LabeledStack& st : f.stacks) {
    s += "<dt>" + html_text(display_cut(st.label)) + "</dt><dd class=\"vk-misuse-stack\">";
    if (!st.frames.empty()) {
      s += "<ol class=\"vk-stack\" start=\"0\">";
      for (const analysis::Frame& frame : st.frames) {
        s += "<li><code>" + html_text(display_cut(frame.text, 4 * kDisplayChars)) + "</code></li>";
      }
      s += "</ol>";
    }
    for (const std::string& line : st.lines) {
      s += "<div class=\"vk-stack-line\">" + html_text(display_cut(line, 2 * kDisplayChars)) +
           "</div>";
    }
    if (!st.note.empty())
      s += "<div class=\"vk-more\">" + html_text(display_cut(st.note)) + "</div>";
    s += "</dd>";
  }
  // Frames whole up to 800 characters (C++ signatures run long); the cap bounds hostile names.
  if (!f.callsite.empty() && f.stacks.empty()) {
    s += "<dt>Call site</dt><dd><ol class=\"vk-stack\">";
    for (const analysis::Frame& frame : f.callsite) {
      s += "<li><code>" + html_text(display_cut(frame.text, 4 * kDisplayChars)) + "</code></li>";
    }
    s += "</ol></dd>";
  }
  constexpr size_t kListed = 5;
  for (size_t k = 0; k < f.chains.size() && k < kListed; ++k) {
    s += "<dt>Chain</dt><dd class=\"vk-chain-text\">" + html_text(chain_text(f.chains[k].links));
    s += ", holds " + html_text(format_bytes(f.chains[k].bytes));
    if (k < drawn_chains(f) && chain_rows + k < kMaxChains) {
      s += " <a href=\"#" + chain_anchor(rank, k) + "\">(diagram)</a>";
    }
    s += "</dd>";
  }
  if (f.chains.size() > kListed) {
    s += "<dt></dt><dd>and " + std::to_string(f.chains.size() - kListed) + " more chains</dd>";
  }
  if (const auto entries = analysis::name_ranges(f.names); entries.size() > 3) {
    s += "<dt>All names</dt><dd>";
    for (size_t i = 0; i < entries.size(); ++i) {
      s += (i ? ", " : "") + html_text(display_cut(entries[i].text));
    }
    s += "</dd>";
  }
  if (!f.retainers.empty()) {
    s += "<dt>Kept alive by</dt><dd>";
    for (size_t k = 0; k < f.retainers.size(); ++k) {
      s += (k ? "<br>" : "") + html_text(retainer_text(f.retainers[k]));
    }
    if (f.retainers_omitted > 0) {
      s += "<br><span class=\"vk-more\">+" + format_count(f.retainers_omitted) + " more</span>";
    }
    s += " <a href=\"#retainers-" + std::to_string(rank) + "\">(paths)</a></dd>";
  }
  if (!f.examples.empty()) {
    s += "<dt>Examples</dt><dd><table class=\"vk-examples\"><tr><th>id</th><th>handle</th>"
         "<th>name</th></tr>";
    for (const analysis::ExampleObject& e : f.examples) {
      s += "<tr><td>" + std::to_string(e.id) + "</td><td><code>" + html_text(format_hex(e.handle)) +
           "</code></td><td>" + html_text(display_cut(e.name.value_or(""))) + "</td></tr>";
    }
    s += "</table></dd>";
  }
  // Where the evidence is from: the snapshot the objects were seen in.
  if (!f.snapshot.empty() || f.frames.snapshot) {
    s += "<dt>Evidence</dt><dd>";
    if (f.frames.snapshot) s += "snapshot at frame " + format_count(*f.frames.snapshot);
    if (!f.snapshot.empty()) {
      s += std::string(f.frames.snapshot ? ", " : "") + "<code>" +
           html_text(display_cut(f.snapshot, 2 * kDisplayChars)) + "</code>";
    }
    s += "</dd>";
  }
  s += "</dl></details>";
  return s;
}

std::string findings_section(const Report& r) {
  std::string s = "<section id=\"findings\" class=\"vk-view\">\n<h2>Findings</h2>\n";
  if (r.findings.empty()) {
    s += "<p class=\"vk-note\">Nothing to list: no leaks found.</p>\n</section>\n";
    return s;
  }
  s += "<p class=\"vk-note\">Ranked by the analysis, most important first. Open a row for the "
       "full call site, the retention chain and example objects.</p>\n";
  // Filters: the script shows them (hidden without it, as they would do nothing).
  s += "<div class=\"vk-toolbar\" id=\"findings-tools\" hidden><label>Kind <select "
       "id=\"findings-kind\"><option value=\"\">all</option>";
  for (const KindInfo& k : analysis::kKinds) {
    const bool present = std::any_of(r.findings.begin(), r.findings.end(),
                                     [&](const Finding* f) { return f->kind == k.kind; });
    if (present) {
      s += "<option value=\"" + html_text(k.name) + "\">" + html_text(k.title) + "</option>";
    }
  }
  s += "</select></label><label>Filter <input type=\"search\" id=\"findings-text\" "
       "placeholder=\"type, name or function\"></label><span id=\"findings-shown\">" +
       std::to_string(r.findings.size()) + " of " + std::to_string(r.findings.size()) +
       " findings</span></div>\n";
  s += "<table class=\"vk-findings\" id=\"findings-table\"><thead><tr><th>#</th>"
       "<th data-sort=\"kind\">Kind</th><th data-sort=\"type\">Type</th>"
       "<th data-sort=\"count\">Count</th><th data-sort=\"bytes\">Bytes</th><th>Names</th>"
       "<th data-sort=\"function\">Call site</th><th>Frames</th></tr></thead>"
       "<tbody>\n";
  size_t chain_rows = 0;
  // One finding's row and its details row; in_problem: shown under its problem's row.
  const auto finding_rows = [&](size_t i, bool in_problem) {
    const Finding& f = *r.findings[i];
    const std::string rank = std::to_string(i + 1);
    // data-*: what the explorer sorts and filters by (exact integers, not display text).
    s += "<tr class=\"vk-finding " + kind_class(f.kind) + (in_problem ? " vk-in-problem" : "") +
         "\" data-rank=\"" + rank + "\" data-kind=\"" + html_text(analysis::kind_name(f.kind)) +
         "\" data-type=\"" + html_text(f.object_type) + "\" data-bytes=\"" +
         std::to_string(f.bytes) + "\" data-count=\"" + std::to_string(f.count) +
         "\" data-function=\"" + html_text(display_cut(f.function(), 4 * kDisplayChars)) +
         "\" data-name=\"" + html_text(display_cut(f.name_pattern)) + "\" data-problem=\"" +
         std::to_string(f.problem) + "\" tabindex=\"0\">";
    s += "<td class=\"vk-rank\">" + rank + "</td>";
    s += "<td><span class=\"vk-kind-tag\">" + html_text(analysis::kind_info(f.kind).title) +
         "</span>";
    // The gate's word on it, where it is not simply new.
    if (f.status != analysis::GateStatus::kNone && f.status != analysis::GateStatus::kNew) {
      s += " <span class=\"vk-status\">" + html_text(analysis::name(f.status)) + "</span>";
    }
    s += "</td>";
    s += "<td class=\"vk-type\">" + html_text(f.object_type) + "</td>";
    s += "<td class=\"vk-num vk-count\">" + format_count(f.count) + "</td>";
    s += "<td class=\"vk-num vk-bytes\" title=\"" + std::to_string(f.bytes) + " bytes\">" +
         html_text(format_bytes(f.bytes)) + "</td>";
    s += "<td class=\"vk-names\">" + names_cell(f.names, f.names_omitted) + "</td>";
    const std::string path = callsite_summary(f);
    s += "<td class=\"vk-callsite\">" +
         (f.callsite.empty()
              ? "<span class=\"vk-more\">(unknown)</span>"
              : "<code title=\"" + html_text(display_cut(f.callsite.front().text)) + "\">" +
                    html_text(
                        display_cut(path.empty() ? short_frame(f.callsite.front().text) : path)) +
                    "</code>") +
         "</td>";
    s += "<td class=\"vk-frames\">" + html_text(frames_text({f.frames.first, f.frames.last})) +
         "</td></tr>\n";
    s += "<tr class=\"vk-finding-details\" data-rank=\"" + rank + "\"><td></td><td colspan=\"7\">" +
         finding_details(f, i + 1, chain_rows) + "</td></tr>\n";
    chain_rows += drawn_chains(f);
  };
  // Findings about the same objects show together, where the best-ranked of them would be: one
  // problem row (its kinds, objects and bytes counted once; id problem-N, N the rank of its
  // best-ranked finding), then each finding.
  // A gate's new problems come first (issue 27): the line to fix is the first row.
  std::vector<bool> shown(r.findings.size(), false);
  const auto is_new = [&](size_t i) {
    if (r.gate == analysis::GateResult::kNone) return false;  // a report keeps the ranking
    const analysis::Problem* p = r.problems[i];
    if (p == nullptr) return r.findings[i]->status == analysis::GateStatus::kNew;
    for (size_t m : p->findings) {
      if (r.findings[r.run_first[i] + m]->status == analysis::GateStatus::kNew) return true;
    }
    return false;
  };
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < r.findings.size(); ++i) {
      if (shown[i] || is_new(i) != (pass == 0)) continue;
      const analysis::Problem* p = r.problems[i];
      if (p == nullptr) {
        shown[i] = true;
        finding_rows(i, false);
        continue;
      }
      std::string kinds, titles;
      for (analysis::FindingKind k : p->kinds) {
        kinds += (kinds.empty() ? "" : " ") + std::string(analysis::kind_name(k));
        titles += (titles.empty() ? "" : " + ") + std::string(analysis::kind_info(k).title);
      }
      std::string ranks;
      for (size_t m : p->findings)
        ranks += (ranks.empty() ? "#" : ", #") + std::to_string(r.run_first[i] + m + 1);
      s += "<tr class=\"vk-problem\" id=\"problem-" + std::to_string(i + 1) + "\" data-kinds=\"" +
           html_text(kinds) +
           "\"><td></td><td colspan=\"7\"><span class=\"vk-problem-title\">One "
           "problem, " +
           std::to_string(p->kinds.size()) + (p->kinds.size() == 1 ? " kind: " : " kinds: ") +
           html_text(titles) + "</span> <span class=\"vk-problem-sub\">" + format_count(p->count) +
           " objects \xc2\xb7 " + html_text(format_bytes(p->bytes)) +
           " counted once \xc2\xb7 findings " + ranks +
           " are about the same objects</span></td></tr>\n";
      for (size_t m : p->findings) {
        const size_t k = r.run_first[i] + m;
        finding_rows(k, true);
        shown[k] = true;
      }
    }
  }
  s += "</tbody></table>\n</section>\n";
  return s;
}

// The timeline view: the script draws the objects' lifetimes (stacked, with a brush) from the
// embedded data; the line charts below are what every reader sees, script or not.
// Per device: the heap usage the driver reports beside the bytes vkleak tracks there
// (analysis/driver_memory.h), or why there is no budget to show.
std::string driver_memory_charts(const Report& r, const std::string& x_label) {
  if (r.run == nullptr || r.run->driver_memory.empty()) return "";
  std::string s = "<h3>Driver memory</h3>\n";
  for (const analysis::DeviceMemoryView& v : r.run->driver_memory) {
    const std::string device =
        "device " + std::to_string(v.device) + " (" + v.physical_device + ")";
    if (v.frames.empty()) {
      const std::string why = analysis::budget_unavailable_reason(v.status);
      s += "<p class=\"vk-note\" id=\"driver-memory-none\">No heap budget for " +
           html_text(device) + (why.empty() ? "" : ": " + html_text(why)) + ".</p>\n";
      continue;
    }
    ChartSpec spec;
    spec.id = "chart-driver-memory-" + std::to_string(v.device);
    spec.title = "Heap usage the driver reports and the bytes vkleak tracks on " + device;
    spec.x_label = x_label;
    spec.y_label = "bytes";
    spec.bytes = true;
    std::vector<double> xs(v.frames.begin(), v.frames.end());
    std::vector<Line> lines;
    for (const analysis::HeapSeries& h : v.heaps) {
      // Short enough for the legend column: "local heap 0, driver" (device local), "host heap 1".
      Line l{std::string(h.device_local ? "local" : "host") + " heap " + std::to_string(h.index) +
                 ", driver",
             values(h.usage),
             kPalette[(h.index + 3) % std::size(kPalette)],
             {}};
      if (peak(l.values) > 0) lines.push_back(std::move(l));
    }
    lines.push_back({"VkDeviceMemory, vkleak", values(v.tracked), kPalette[0], {}});
    spec.description = series_description(lines, true);
    s += "<figure class=\"vk-figure\" id=\"" + spec.id + "-figure\"><figcaption>" +
         html_text(spec.title) + "</figcaption>\n";
    if (v.unexplained) {
      s += "<p class=\"vk-note\" id=\"driver-memory-unexplained\">" +
           html_text(analysis::unexplained_growth_note(v)) + "</p>\n";
    }
    s += line_chart(spec, xs, lines) + "</figure>\n";
  }
  return s;
}

std::string charts_section(const Report& r) {
  std::string s =
      "<section id=\"timeline\" class=\"vk-view\">\n<h2>Timeline</h2>\n"
      "<div id=\"timeline-explorer\" hidden>\n"
      "<p class=\"vk-note\">What was alive at each snapshot, stacked. Drag across columns (or "
      "pick a range) to see what was created there and is still alive at the end.</p>\n"
      "<div class=\"vk-toolbar\"><span class=\"vk-seg\" role=\"group\" aria-label=\"Stack by\">"
      "<button type=\"button\" data-timeline-mode=\"types\" aria-pressed=\"true\">by type</button>"
      "<button type=\"button\" data-timeline-mode=\"groups\" aria-pressed=\"false\">by call "
      "site</button></span><span class=\"vk-seg\" role=\"group\" aria-label=\"Metric\">"
      "<button type=\"button\" data-metric=\"bytes\" aria-pressed=\"true\">bytes</button>"
      "<button type=\"button\" data-metric=\"count\" aria-pressed=\"false\">objects</button>"
      "</span><label>From snapshot <input type=\"number\" id=\"timeline-from\" min=\"0\" "
      "value=\"0\"></label><label>to <input type=\"number\" id=\"timeline-to\" min=\"0\" "
      "value=\"0\"></label></div>\n"
      "<div id=\"timeline-plot\"></div>\n<div id=\"timeline-legend\" "
      "class=\"vk-legend-html\"></div>\n"
      "<div id=\"timeline-tip\" aria-live=\"polite\"></div>\n"
      "<h3 id=\"timeline-selection-title\">Created in this range and still alive at the end</h3>\n"
      "<table class=\"vk-table\" id=\"timeline-selection\"><thead><tr><th>Type</th><th>Call site"
      "</th><th>Name</th><th class=\"vk-num\">Objects</th><th class=\"vk-num\">Bytes</th></tr>"
      "</thead><tbody></tbody><tfoot></tfoot></table>\n</div>\n"
      "<h3>Over the run</h3>\n";
  if (r.frames.empty() || (r.types.empty() && r.groups.empty())) {
    s += "<p class=\"vk-note\" id=\"no-series\">No time series in this report: it needs "
         "snapshots taken during the run (vkleak run --every N).</p>\n</section>\n";
    return s;
  }
  const std::string x_label = r.x_is_frame ? "frame" : "snapshot";
  if (r.frames.size() == 1) {
    s += "<p class=\"vk-note\">Only one snapshot: each value is a single point.</p>\n";
  }

  // One colour per type in both charts, the biggest types first.
  std::vector<const Series*> by_live;
  for (const Series& t : r.types) by_live.push_back(&t);
  std::stable_sort(by_live.begin(), by_live.end(), [](const Series* a, const Series* b) {
    return std::max(peak(a->live), peak(a->bytes) / 1e12) >
           std::max(peak(b->live), peak(b->bytes) / 1e12);
  });
  std::map<std::string, std::string> colors;
  for (size_t i = 0; i < by_live.size(); ++i) {
    colors[by_live[i]->label] = kPalette[i % std::size(kPalette)];
  }

  for (const bool bytes : {false, true}) {
    ChartSpec spec;
    spec.id = bytes ? "chart-bytes" : "chart-live";
    spec.title = bytes ? "Bytes per type across the run" : "Live objects per type across the run";
    spec.x_label = x_label;
    spec.y_label = bytes ? "bytes" : "live objects";
    spec.bytes = bytes;
    const std::vector<Line> lines = type_lines(r, bytes, colors);
    spec.description = series_description(lines, bytes);
    s += "<figure class=\"vk-figure\" id=\"" + spec.id + "-figure\"><figcaption>" + spec.title +
         "</figcaption>\n";
    if (lines.empty()) {
      s += "<p class=\"vk-note\">No " + std::string(bytes ? "bytes" : "live objects") +
           " recorded per type.</p>\n";
    } else {
      s += line_chart(spec, r.frames, lines);
    }
    s += "</figure>\n";
  }

  s += driver_memory_charts(r, x_label);

  // The groups that grew most, one small chart each.
  constexpr size_t kMaxGroups = 6;
  std::vector<const Series*> groups;
  for (const Series& g : r.groups) {
    if (first_value(g.live)) groups.push_back(&g);
  }
  const auto growth = [](const Series* g) {
    return last_value(g->live).value_or(0) - first_value(g->live).value_or(0);
  };
  std::stable_sort(groups.begin(), groups.end(),
                   [&](const Series* a, const Series* b) { return growth(a) > growth(b); });
  if (groups.size() > kMaxGroups) groups.resize(kMaxGroups);
  s += "<h3>Top growing groups</h3>\n";
  if (groups.empty()) {
    s += "<p class=\"vk-note\" id=\"no-groups\">No per-call-site groups in this report.</p>\n";
  } else {
    s += "<div class=\"vk-multiples\" id=\"chart-groups\">\n";
    for (size_t i = 0; i < groups.size(); ++i) {
      const Series& g = *groups[i];
      ChartSpec spec;
      spec.id = "chart-group-" + std::to_string(i + 1);
      spec.extra_class = "vk-group-chart";
      spec.title = "Live objects of group " + g.label;
      spec.x_label = x_label;
      spec.y_label = "live";
      spec.width = 340;
      spec.height = 190;
      spec.left = 60;
      spec.right = 0;
      spec.top = 28;
      spec.bottom = 44;
      spec.x_ticks = 4;
      spec.y_ticks = 3;
      const double first = first_value(g.live).value_or(0);
      const double last = last_value(g.live).value_or(0);
      std::string change = html::tick_label(first, false) + " \xe2\x86\x92 " +
                           html::tick_label(last, false) + " live";
      if (auto b = last_value(g.bytes); b && *b >= 0) {
        // 2^64 and above (a saturated series) does not fit: the cast would be undefined.
        change += ", " + format_bytes(*b >= 18446744073709551615.0 ? UINT64_MAX
                                                                   : static_cast<uint64_t>(*b));
      }
      spec.description = g.label + ": " + change + ".";
      s += "<figure><figcaption>" + html_text(g.label) + " <span>" + html_text(change) +
           "</span></figcaption>\n";
      s += line_chart(spec, r.frames, {{"live objects", g.live, kPalette[2], {}}});
      s += "</figure>\n";
    }
    s += "</div>\n";
  }
  s += "</section>\n";
  return s;
}

// The flame graph: drawn by the script from the embedded data (objects by creation stack).
std::string flamegraph_section() {
  return "<section id=\"flamegraph\" class=\"vk-view\">\n<h2>Flame graph</h2>\n"
         "<p class=\"vk-note vk-noscript-note\" id=\"flamegraph-noscript\">The flame graph of "
         "live objects by creation stack is drawn by this page's script; the findings list each "
         "call site.</p>\n"
         "<div id=\"flame-explorer\" hidden>\n<p class=\"vk-note\">Live objects by creation "
         "stack, outermost frame on top (italic: inlined). Click a frame to zoom; choose a base "
         "snapshot to see what grew (red) and shrank (blue).</p>\n"
         "<div class=\"vk-toolbar\"><label>Snapshot <select id=\"flame-snapshot\"></select>"
         "</label><label>Compared with <select id=\"flame-base\"><option value=\"\">none"
         "</option></select></label><label>Metric <select id=\"flame-metric\"><option "
         "value=\"bytes\">bytes</option><option value=\"count\">objects</option></select></label>"
         "<label>Search <input type=\"search\" id=\"flame-search\" placeholder=\"function or "
         "file\"></label><span id=\"flame-search-result\"></span></div>\n"
         "<div id=\"flame-crumbs\"></div>\n<div id=\"flame-graph\"></div>\n"
         "<div id=\"flame-hover\"></div>\n</div>\n</section>\n";
}

// Why objects are alive: per finding, the roots that keep them, complete without the script
// (which only picks one finding to show).
std::string retainers_section(const Report& r, const std::string& chains) {
  std::string s = "<section id=\"retainers\" class=\"vk-view\">\n<h2>Retainers</h2>\n";
  std::string body;
  std::string options;
  for (size_t i = 0; i < r.findings.size(); ++i) {
    const Finding& f = *r.findings[i];
    if (f.retainers.empty()) continue;
    const std::string rank = std::to_string(i + 1);
    std::string title = "#" + rank + " " + analysis::kind_info(f.kind).title;
    if (!f.object_type.empty()) title += " \xc2\xb7 " + f.object_type;
    if (!f.name_pattern.empty())
      title += " \xe2\x80\x9c" + display_cut(f.name_pattern) + "\xe2\x80\x9d";
    options += "<option value=\"" + rank + "\">" + html_text(title) + "</option>";
    uint64_t top = 1;
    for (const analysis::RetainerRoot& root : f.retainers) top = std::max(top, root.bytes);
    body += "<div class=\"vk-retainers-finding\" id=\"retainers-" + rank + "\" data-rank=\"" +
            rank + "\"><h3>" + html_text(title) + " <a href=\"#finding-" + rank +
            "\">(finding)</a></h3>\n";
    for (const analysis::RetainerRoot& root : f.retainers) {
      // The bar: this root's bytes against the finding's biggest root.
      const double share = 100.0 * static_cast<double>(root.bytes) / static_cast<double>(top);
      body += "<div class=\"vk-retainer-root" + std::string(root.shared ? " vk-shared" : "") +
              "\" data-bytes=\"" + std::to_string(root.bytes) + "\" data-objects=\"" +
              std::to_string(root.objects) + "\" data-type=\"" + html_text(root.type) +
              "\" data-name=\"" + html_text(display_cut(root.name.value_or(""))) +
              "\"><div class=\"vk-retainer-line\">" + html_text(retainer_text(root)) +
              "</div><svg class=\"vk-retainer-bar-svg\" width=\"100%\" height=\"8\" "
              "aria-hidden=\"true\"><rect x=\"0\" y=\"1\" height=\"6\" rx=\"3\" width=\"" +
              decimal(std::max(share, 0.5), 1) + "%\" fill=\"#e07a1f\"/></svg>";
      const std::string path = retainer_path(root);
      if (!path.empty()) {
        body += "<div class=\"vk-retainer-path\">" + html_text(path) + "</div>";
      }
      body += "</div>\n";
    }
    if (f.retainers_omitted > 0) {
      body += "<p class=\"vk-more\">+" + format_count(f.retainers_omitted) + " more roots</p>\n";
    }
    body += "</div>\n";
  }
  if (body.empty()) {
    s += "<p class=\"vk-note\" id=\"no-retainers\">No finding's objects are kept alive by "
         "others: nothing live references them.</p>\n";
  } else {
    s += "<p class=\"vk-note\">What keeps each finding's objects alive: the roots (objects "
         "nothing live references) that lead to them, and what only each root keeps alive, each "
         "byte counted once.</p>\n<div class=\"vk-toolbar\" id=\"retainers-tools\" hidden><label>"
         "Finding <select id=\"retainers-finding\"><option value=\"\">all</option>" +
         options + "</select></label></div>\n" + body;
  }
  if (!chains.empty()) {
    s += "<h3 id=\"chains\">Retention chains</h3>\n<p class=\"vk-note\">What keeps each object "
         "alive: every arrow points from a holder to what it holds.</p>\n" +
         chains;
  }
  s += "</section>\n";
  return s;
}

// The diff view: drawn by the script (two snapshots: new, freed and kept).
std::string diff_section() {
  return "<section id=\"diff\" class=\"vk-view\">\n<h2>Diff</h2>\n"
         "<p class=\"vk-note vk-noscript-note\" id=\"diff-noscript\">Comparing two snapshots "
         "(new, freed and kept objects) is done by this page's script; <code>vkleak diff</code> "
         "does it on the command line.</p>\n"
         "<div id=\"diff-explorer\" hidden>\n<div class=\"vk-toolbar\"><label>From <select "
         "id=\"diff-a\"></select></label><label>to <select id=\"diff-b\"></select></label>"
         "<label><input type=\"checkbox\" id=\"diff-hide-unchanged\" checked> hide unchanged"
         "</label></div>\n<p id=\"diff-summary\"></p>\n<div class=\"vk-diff-tables\">"
         "<div><h3>By type</h3><table class=\"vk-table\" id=\"diff-types\"></table></div>"
         "<div><h3>By call site</h3><p class=\"vk-note\">\u25b8 lists a call site's objects by "
         "the snapshots they were first and last seen in.</p><table class=\"vk-table\" "
         "id=\"diff-groups\">"
         "</table></div></div>\n<p class=\"vk-note\" id=\"diff-attached-note\">Every object "
         "is counted once, and every byte: memory bound to exactly one object counts as an "
         "object, its bytes with that object (shown greyed here).</p>\n</div>\n</section>\n";
}

std::string nav(const Report& r) {
  std::string s =
      "<nav id=\"vk-nav\" aria-label=\"Views\"><a href=\"#timeline\">Timeline</a><a "
      "href=\"#flamegraph\">Flame graph</a><a href=\"#findings\">Findings</a><a "
      "href=\"#retainers\">Retainers</a><a href=\"#diff\">Diff</a>";
  // The explorer's data is the first run's: say so when there are others, so that a timeline
  // of one process is not read as the whole document's.
  if (r.run && r.runs > 1) {
    const std::string& exe = r.run->executable;
    const size_t slash = exe.find_last_of('/');
    const std::string name = slash == std::string::npos ? exe : exe.substr(slash + 1);
    s += "<span class=\"vk-nav-run\" id=\"explorer-run\">timeline, flame graph and diff: pid " +
         std::to_string(r.run->pid) + (name.empty() ? "" : " " + html_text(display_cut(name))) +
         ", the first of " + std::to_string(r.runs) + " runs</span>";
  }
  return s + "</nav>\n";
}

}  // namespace

std::string render_html(const analysis::ReportDocument& doc) {
  const Report r = make_report(doc);
  std::string title = "vkleak report";
  if (r.run && !r.run->executable.empty()) {
    const std::string& exe = r.run->executable;
    const size_t slash = exe.find_last_of('/');
    title += ": " + (slash == std::string::npos ? exe : exe.substr(slash + 1));
  }

  std::string s;
  s.reserve(64 * 1024);
  s += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  // Defence in depth: even if some text escaped its escaping, nothing could load or run.
  // Inline script and style only by their hashes (computed at build time by embed.py).
  s += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
       "style-src '" +
       std::string(explorer::kStyleHash) + "'; script-src '" + explorer::kScriptHash +
       "'; img-src data:\">\n";
  s += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
#ifdef VKLEAK_VERSION
  s += "<meta name=\"generator\" content=\"vkleak " VKLEAK_VERSION "\">\n";
#endif
  s += "<title>" + html_text(title) + "</title>\n<style>" + explorer::kStyle +
       "</style>\n</head>\n<body>\n";
  s += header(r);
  s += nav(r);
  s += "<main>\n";
  s += summary(r);
  s += charts_section(r);
  s += flamegraph_section();
  s += findings_section(r);
  s += retainers_section(r, chains_chart(r));
  s += diff_section();
  s += explorer_data_element(doc);  // i18-data: the explorer's data, once
  s += "</main>\n<footer>Generated by vkleak";
#ifdef VKLEAK_VERSION
  s += " " VKLEAK_VERSION;
#endif
  s += " from a vkleak-findings document. This page is self-contained: no network; its one "
       "script only explores the data in it.</footer>\n";
  s += "<script>" + std::string(explorer::kScript) + "</script>\n</body>\n</html>\n";
  return s;
}

}  // namespace vkleak::report
