// A baseline: the problems a program is known to have, so that a gate fails only on new ones.
// `vkleak baseline` writes it (src/schema/vkleak-baseline.schema.json): one entry per problem,
// sorted, with no pids, handles or absolute paths, the same bytes for the same problems. The older
// form, a whole findings document (`vkleak report --format json`), still loads.
//
// A problem is known when one of its findings has the identity of an entry (FindingKey::identity:
// Vulkan type, the whole symbolized call path, name pattern; not the kind, so a problem judged as
// growth at one snapshot cadence and as retained at another is one problem; not counts, bytes,
// handles or line numbers). A call site with frames no symbol names (a stripped program) is
// module+offset there, which any rebuild moves; such a problem that matches no entry exactly is
// known when an entry has its shape (FindingKey::shape_identity: the modules of those frames,
// the functions of the others, the depth; of several such entries the one whose offsets are
// nearest), no other problem of the run took that entry, and the
// entry's own module+offset path is nowhere in the run (were it, the offsets did not move and
// this is another call site): a rebuilt stripped program keeps its known leaks known, while a
// second leak of the same shape is new. The trade-off: a known leak fixed in the same change
// that adds a leak of the same type, name pattern and module shape reads as the known one
// (symbols, even a symbol table alone, avoid it).
// A library's problem (leaks made wholly inside a library, joined into one block: problems.h) is
// known only when each of its findings is (exactly or by shape): a new leak inside the library
// is new.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/finding.h"

namespace vkleak::analysis {

// Larger baselines are refused unread: parsing costs several times the file's size in memory.
inline constexpr uint64_t kMaxBaselineBytes = uint64_t{64} << 20;

inline constexpr std::string_view kBaselineFormat = "vkleak-baseline";
// The version `vkleak baseline` writes and the newest this build reads.
inline constexpr int kBaselineVersion = 1;

// What an entry matches: one finding's type, call path (innermost first, callsite_path()) and
// name pattern. A problem whose findings are about objects of several types or call sites (a
// view and the image it pins) has several.
struct BaselineFacet {
  std::string type;
  std::string name_pattern;
  // Innermost first (callsite_path()); a findings document's finding without callsite_frames:
  // the path its fingerprint carries.
  std::vector<std::string> callsite;
};

// One known problem.
struct BaselineEntry {
  std::vector<std::string> kinds;     // sorted; what it was judged as (informative, but a misuse
                                      // kind is part of the identity)
  std::vector<BaselineFacet> facets;  // the first is its primary finding's
  std::string description;            // one line, for people
  uint64_t count = 0;                 // informative only
  uint64_t bytes = 0;                 // informative only

  // The identities and shape identities of its facets (FindingKey), sorted, distinct.
  std::vector<std::string> identities() const;
  std::vector<std::string> shape_identities() const;
};

class Baseline {
 public:
  // Throws std::runtime_error when the file cannot be read (missing, a directory, a FIFO, a
  // device, larger than kMaxBaselineBytes) or is neither a baseline nor a findings document of a
  // version this build knows.
  static Baseline load(const std::string& path);
  static Baseline parse(const std::string& text, const std::string& path);
  // The problems of every run of the document, one entry each (problems with the same identities
  // in several runs are one), sorted.
  static Baseline of(const ReportDocument& doc);

  // The file `vkleak baseline` writes: indented JSON, entries sorted, ending in a newline.
  std::string serialize() const;

  // Whether a finding's identity is an entry's (exactly: the shape fallback is match_run's).
  bool contains(const Finding& f) const { return identities_.count(f.identity()) > 0; }
  size_t size() const { return entries_.size(); }
  const std::vector<BaselineEntry>& entries() const { return entries_; }
  // The executables' file names it was made from, sorted (empty: unknown, e.g. a findings
  // document of a layer that could not read it).
  const std::vector<std::string>& programs() const { return programs_; }
  // False for a findings document loaded as a baseline.
  bool is_baseline_file() const { return baseline_file_; }

  // Which of the run's problems (RunReport::problems, assigned) are known, by index: exactly, or
  // by shape as the header says. Every finding counts, suppressed ones too, so that a suppressed
  // problem still occurs. occurring (size() entries) gets true for each entry the run matched.
  std::vector<bool> match_run(const RunReport& run, std::vector<bool>* occurring) const;

  // Entries of this baseline that still occur in the document, and the document's problems that
  // are in no entry. added/removed (optional) get the descriptions of what was added and removed.
  Baseline updated(const ReportDocument& doc, std::vector<std::string>* added,
                   std::vector<std::string>* removed) const;

 private:
  void index();

  std::vector<std::string> programs_;
  std::vector<BaselineEntry> entries_;
  bool baseline_file_ = true;
  std::set<std::string> identities_;  // of every entry
};

// The executables' file names of the document's runs, sorted, distinct, without empty ones.
std::vector<std::string> document_programs(const ReportDocument& doc);

// Why the baseline cannot judge the document: it is of other programs (no executable's file name
// in common); "" when it can, or when either side does not know its programs (layers that could
// not read the executable, findings documents without runs).
std::string program_mismatch(const Baseline& baseline, const ReportDocument& doc);

}  // namespace vkleak::analysis
