// Helpers for the CLI tests: temporary directories, files, and running processes.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vkleak::test {

// A fresh directory under $TMPDIR, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void write_file(const std::string& path, std::string_view content);
std::string read_file(const std::string& path);

// A checked-in fixture under tests/cli/data.
std::string data_path(const std::string& name);

struct ProcessOptions {
  std::vector<std::pair<std::string, std::string>> set_env;
  std::vector<std::string> unset_env;  // names; "VKLEAK_*"-style prefixes end with '*'
  std::string cwd;                     // empty: inherit
};

struct ProcessResult {
  int exit_code = -1;  // 128 + signal when killed by one
  std::string out;
  std::string err;
};

// Starts argv (PATH lookup) with stdout/stderr captured into files; see wait_process.
struct Process {
  pid_t pid = -1;
  std::string out_path;
  std::string err_path;
};
Process start_process(const std::vector<std::string>& argv, const ProcessOptions& options,
                      const TempDir& scratch);
ProcessResult wait_process(const Process& process);

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

}  // namespace vkleak::test
