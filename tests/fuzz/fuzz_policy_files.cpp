// Fuzzes the files `vkleak gate` reads besides snapshots: baselines (a findings JSON) and
// suppression files. Any bytes must give a policy or a std::runtime_error that names the file:
// never a crash, a hang, a leak or another exception. Each input goes to both parsers, through
// the same bounded file read gate uses (load) and from memory (parse): the two must agree.
//
// The same file is the libFuzzer target (clang, -fsanitize=fuzzer) and, with corpus_driver.cpp,
// a plain regression program built by the main compiler.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "analysis/baseline.h"
#include "analysis/finding.h"
#include "analysis/suppressions.h"

namespace {

void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz_policy_files: invariant broken: %s\n", what);
  std::abort();
}

// The message is what users see: it must name the file first.
std::string error_of(const std::runtime_error& e, const std::string& path) {
  const std::string message = e.what();
  require(message.rfind(path, 0) == 0 && message.size() > path.size() + 2,
          "error message names the file");
  return message;
}

// Short texts only: fnmatch's cost grows with pattern stars times text length.
vkleak::analysis::Finding sample_finding() {
  vkleak::analysis::Finding f;
  f.kind = vkleak::analysis::FindingKind::kRetained;
  f.object_type = "VkBuffer";
  f.name_pattern = "stream.*";
  f.names = {"stream.1", "stream.2"};
  vkleak::analysis::Frame frame;
  frame.text = "TextureCache::upload (src/cache.cpp:42)";
  frame.function = "TextureCache::upload";
  frame.file = "src/cache.cpp";
  frame.line = 42;
  frame.module = "app";
  f.callsite.push_back(frame);
  return f;
}

void fuzz_baseline(const std::string& text, const std::string& path) {
  using vkleak::analysis::Baseline;
  std::string loaded_error, parsed_error;
  size_t loaded = 0, parsed = 0;
  try {
    loaded = Baseline::load(path).size();
  } catch (const std::runtime_error& e) {
    loaded_error = error_of(e, path);
  }
  try {
    const Baseline b = Baseline::parse(text, path);
    parsed = b.size();
    (void)b.contains(sample_finding());
  } catch (const std::runtime_error& e) {
    parsed_error = error_of(e, path);
  }
  require(loaded == parsed && loaded_error == parsed_error, "baseline: load and parse agree");
}

void fuzz_suppressions(const std::string& text, const std::string& path) {
  using vkleak::analysis::Suppressions;
  std::string loaded_error, parsed_error;
  size_t loaded = 0, parsed = 0;
  try {
    loaded = Suppressions::load(path).rules().size();
  } catch (const std::runtime_error& e) {
    loaded_error = error_of(e, path);
  }
  try {
    const Suppressions s = Suppressions::parse(text, path);
    parsed = s.rules().size();
    for (const vkleak::analysis::SuppressionRule& r : s.rules()) {
      require(r.line >= 1, "rule line numbers start at 1");
    }
    if (const vkleak::analysis::SuppressionRule* r = s.match(sample_finding())) {
      require(r >= s.rules().data() && r < s.rules().data() + s.rules().size(),
              "match returns one of the rules");
    }
  } catch (const std::runtime_error& e) {
    parsed_error = error_of(e, path);
  }
  require(loaded == parsed && loaded_error == parsed_error, "suppressions: load and parse agree");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // load() takes a path; an in-memory file named through /proc keeps the fuzzer off the disk.
  static const int fd = memfd_create("vkleak-fuzz-policy", MFD_CLOEXEC);
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);
  require(fd >= 0, "memfd_create");
  require(ftruncate(fd, 0) == 0, "ftruncate");
  size_t written = 0;
  while (written < size) {
    const ssize_t n = pwrite(fd, data + written, size - written, static_cast<off_t>(written));
    require(n > 0, "pwrite");
    written += static_cast<size_t>(n);
  }
  const std::string text(reinterpret_cast<const char*>(data), size);
  fuzz_baseline(text, path);
  fuzz_suppressions(text, path);
  return 0;
}
