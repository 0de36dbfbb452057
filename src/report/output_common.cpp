#include "report/output.h"

#include <algorithm>

#include "analysis/messages.h"
#include "analysis/problems.h"

namespace vkleak::report {

using namespace analysis;  // the model it renders

std::string finding_title(const Finding& f) {
  const std::string name = quoted_pattern(f);
  return name.empty() ? f.object_type : f.object_type + " " + name;
}

const Frame* source_frame(const Finding& f) {
  for (const Frame& frame : f.callsite) {
    if (!frame.file.empty() && frame.line > 0) return &frame;
  }
  return nullptr;
}

namespace {

// The functions of a call site's summary, innermost first (callsite_path).
std::vector<const std::string*> path_functions(const Finding& f, size_t max_functions) {
  std::vector<const std::string*> path;
  for (const Frame& frame : f.callsite) {
    if (path.size() == max_functions) break;
    // libc's start code is no part of the story; main ends it.
    if (frame.function.empty() || frame.function.rfind("__libc_start", 0) == 0 ||
        frame.function == "_start")
      break;
    // The standard library's and a test framework's frames: the program's own code is the story.
    if (is_support_frame(frame)) continue;
    // Recursion reads as one step.
    if (path.empty() || *path.back() != frame.function) path.push_back(&frame.function);
    if (frame.function == "main") break;
  }
  return path;
}

}  // namespace

std::string callsite_path(const Finding& f, size_t max_functions) {
  const std::vector<const std::string*> path = path_functions(f, max_functions);
  std::string out;
  for (size_t i = path.size(); i-- > 0;) {
    if (!out.empty()) out += " > ";
    out += *path[i];
  }
  return out;
}

std::string callsite_summary(const Finding& f, size_t max_chars) {
  if (f.callsite.empty()) return "";
  const Frame& first = f.callsite.front();
  // Without symbols (or with only the Vulkan stack's frames) the frame itself says most.
  if (first.function.empty() || first.text.find(" [Vulkan stack]") != std::string::npos)
    return first.text;
  std::string where;
  if (!first.file.empty()) {
    const size_t slash = first.file.rfind('/');
    where = " (" + first.file.substr(slash == std::string::npos ? 0 : slash + 1) + ":" +
            std::to_string(first.line) + ")";
  }
  // Outermost first; past max_chars the outer functions go first ("... > "): the innermost,
  // where the object was made, always stays.
  const std::vector<const std::string*> path = path_functions(f, kSummaryFunctions);
  std::string out = path.empty() ? first.function : *path.front();
  for (size_t i = 1; i < path.size(); ++i) {
    std::string longer = *path[i] + " > " + out;
    if (longer.size() + where.size() > max_chars) {
      out = "... > " + out;
      break;
    }
    out = std::move(longer);
  }
  return out + where;
}

std::vector<std::string> stack_lines(const Finding& f) {
  // Layers record bounded stacks; this bounds what a hostile snapshot could make us print.
  constexpr size_t kFramesShown = 32;
  std::vector<std::string> out;
  for (const LabeledStack& st : f.stacks) {
    out.push_back(st.label + ":");
    for (size_t i = 0; i < st.frames.size() && i < kFramesShown; ++i) {
      // A run of the standard library's or a test framework's frames (a std::map's insert, a
      // test runner) is one line: the program's frames are what the stack is read for.
      size_t run = 0;
      while (i + run < st.frames.size() && i + run < kFramesShown &&
             is_support_frame(st.frames[i + run]))
        ++run;
      if (run >= 2) {
        out.push_back("    #" + std::to_string(i) + "-#" + std::to_string(i + run - 1) + " (" +
                      std::to_string(run) + " frames of the standard library or a test framework)");
        i += run - 1;
        continue;
      }
      const Frame& frame = st.frames[i];
      std::string line = "    #" + std::to_string(i) + " " + frame.text;
      if (frame.inlined && frame.text.find(" (inlined)") == std::string::npos) line += " (inlined)";
      out.push_back(std::move(line));
    }
    if (st.frames.size() > kFramesShown) {
      out.push_back("    (" + std::to_string(st.frames.size() - kFramesShown) + " more frames)");
    }
    for (const std::string& line : st.lines) out.push_back("    " + line);
    if (!st.note.empty()) out.push_back("    " + st.note);
  }
  return out;
}

std::vector<const Finding*> all_findings(const ReportDocument& doc) {
  std::vector<const Finding*> out;
  for (const RunReport& r : doc.runs) {
    for (const Finding& f : r.findings) out.push_back(&f);
  }
  return out;
}

Finding problem_evidence(const ShownProblem& p) {
  Finding out = p.primary();
  for (const Finding* f : p.findings()) {
    if (f == &p.primary()) continue;
    for (const std::string& n : f->names) {
      if (std::find(out.names.begin(), out.names.end(), n) == out.names.end())
        out.names.push_back(n);
    }
    out.names_omitted += f->names_omitted;
    out.chains.insert(out.chains.end(), f->chains.begin(), f->chains.end());
    out.chains_omitted += f->chains_omitted;
    if (out.stacks.empty()) out.stacks = f->stacks;
    if (out.retainers.empty()) {
      out.retainers = f->retainers;
      out.retainers_omitted = f->retainers_omitted;
    }
    if (out.events.empty()) {
      out.events = f->events;
      out.events_omitted = f->events_omitted;
    }
    if (out.examples.empty()) {
      out.examples = f->examples;
      out.examples_omitted = f->examples_omitted;
    }
  }
  return out;
}

std::string count_text(const ShownProblem& p) {
  const uint64_t n = p.problem->count;
  const bool events = kind_is_event(p.primary().kind);
  return format_count(n) +
         (events ? (n == 1 ? " event" : " events") : (n == 1 ? " object" : " objects"));
}

}  // namespace vkleak::report
