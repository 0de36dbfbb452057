#include "analysis/run.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include "shared/text.h"

namespace vkleak::analysis {

std::vector<RunFiles> discover_runs(const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  std::map<std::pair<uint64_t, std::string>, std::vector<SnapshotFile>> by_run;
  std::vector<std::string> others;
  std::set<std::string> seen;
  auto add_named = [&](SnapshotFile file) {
    std::error_code ec;
    const std::string key = fs::weakly_canonical(file.path, ec).string();
    if (!seen.insert(ec ? file.path : key).second) return;
    by_run[{file.pid, file.run_id}].push_back(std::move(file));
  };
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (fs::is_directory(input, ec)) {
      std::vector<SnapshotFile> files = read_snapshot_dir(input);
      if (files.empty()) {
        throw SnapshotError(input,
                            "no snapshots (vkleak-<pid>-<runid>-<sequence>-<reason>.json) in it");
      }
      for (SnapshotFile& f : files) add_named(std::move(f));
      continue;
    }
    SnapshotFile file;
    if (parse_snapshot_file_name(fs::path(input).filename().string(), &file)) {
      file.path = input;
      add_named(std::move(file));
    } else if (seen.insert(input).second) {
      others.push_back(input);  // read_snapshot says what is wrong with it, if anything
    }
  }
  std::vector<RunFiles> runs;
  for (auto& [run_key, files] : by_run) {
    std::stable_sort(files.begin(), files.end(), [](const SnapshotFile& a, const SnapshotFile& b) {
      return a.sequence < b.sequence;
    });
    RunFiles run;
    run.pid = run_key.first;
    run.run_id = run_key.second;
    for (const SnapshotFile& f : files) run.paths.push_back(f.path);
    runs.push_back(std::move(run));
  }
  if (!others.empty()) runs.push_back(RunFiles{0, "", std::move(others)});
  return runs;
}

uint64_t total_file_bytes(const std::vector<std::string>& paths) {
  uint64_t total = 0;
  for (const std::string& p : paths) {
    struct stat st;
    if (::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode))
      total += static_cast<uint64_t>(st.st_size);
  }
  return total;
}

bool want_progress(uint64_t total_bytes) {
  return total_bytes >= (uint64_t{64} << 20) && ::isatty(STDERR_FILENO) == 1;
}

namespace {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Progress::Progress(uint64_t total_bytes, bool enabled) : total_(total_bytes), enabled_(enabled) {}

Progress::~Progress() {
  clear();
}

void Progress::update() {
  if (!enabled_) return;
  const int64_t now = now_ms();
  if (drawn_ && now - last_draw_ms_ < 200) return;
  last_draw_ms_ = now;
  const uint64_t done = std::min(read_.load(std::memory_order_relaxed), total_);
  const unsigned percent = total_ == 0 ? 100 : static_cast<unsigned>(done * 100 / total_);
  std::fprintf(stderr, "\rvkleak: reading snapshots: %s of %s (%u%%)\x1b[K",
               format_bytes(done).c_str(), format_bytes(total_).c_str(), percent);
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::clear() {
  if (!drawn_) return;
  std::fputs("\r\x1b[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

unsigned default_jobs() {
  const unsigned cores = std::thread::hardware_concurrency();
  return std::clamp(cores, 1u, 4u);
}

SnapshotLoader::SnapshotLoader(std::vector<std::string> paths, unsigned jobs, Progress* progress)
    : paths_(std::move(paths)), jobs_(std::max(jobs, 1u)), progress_(progress) {
  if (progress_ != nullptr) options_.progress_bytes = progress_->counter();
  while (pending_.size() < jobs_ && next_launch_ < paths_.size()) launch();
}

SnapshotLoader::~SnapshotLoader() {
  // Futures from std::async wait for their threads as they go.
  pending_.clear();
}

void SnapshotLoader::launch() {
  const std::string path = paths_[next_launch_++];
  const ReadOptions options = options_;
  pending_.push_back(
      std::async(std::launch::async, [path, options] { return read_snapshot(path, options); }));
}

bool SnapshotLoader::next(Snapshot* out) {
  if (pending_.empty()) return false;
  std::future<Snapshot>& front = pending_.front();
  while (front.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
    if (progress_ != nullptr) progress_->update();
  }
  Snapshot s = front.get();  // rethrows the reader's SnapshotError
  pending_.pop_front();
  if (next_launch_ < paths_.size()) launch();
  *out = std::move(s);
  return true;
}

}  // namespace vkleak::analysis
