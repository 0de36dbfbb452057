#include "snapshot/snapshot.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "base/passthrough.h"
#include "base/safe_file.h"
#include "callsite/callsite.h"
#include "snapshot/crash_snapshot.h"
#include "snapshot/error_snapshot.h"
#include "snapshot/json_writer.h"
#include "snapshot/snapshot_collect.h"
#include "snapshot/snapshot_serialize.h"
#include "tracking/state.h"
#include "tracking/tracker.h"

namespace vkleak {
namespace {

// Snapshots the layer could not write (full disk, directory gone, out of memory). Every later
// snapshot lists them, so the CLI tells a complete run from one with holes; every failure is
// logged (the first few in full, then one line in every kLogEvery).
struct Unwritten {
  int64_t sequence;  // -1: dropped before it had one
  SnapshotReason reason;
  std::string error;
};
struct WriteFailures {
  std::mutex mutex;
  uint64_t count = 0;
  std::deque<Unwritten> recent;  // the last kKeep
};
constexpr size_t kKeepUnwritten = 32;
constexpr uint64_t kLogFailuresInFull = 8;
constexpr uint64_t kLogEvery = 100;
WriteFailures& write_failures() {
  static auto* f = new WriteFailures;  // never destroyed: written at exit
  return *f;
}

void record_unwritten(int64_t sequence, SnapshotReason reason, const std::string& path,
                      const std::string& error) noexcept {
  uint64_t count = 0;
  try {
    WriteFailures& f = write_failures();
    std::lock_guard<std::mutex> lock(f.mutex);
    count = ++f.count;
    f.recent.push_back(Unwritten{sequence, reason, error});
    if (f.recent.size() > kKeepUnwritten) f.recent.pop_front();
  } catch (...) {
    // Out of memory: the count above still tells.
  }
  if (count <= kLogFailuresInFull || count % kLogEvery == 0) {
    log().warn("snapshot {} not written: {} ({} snapshot{} not written so far)", shown(path), error,
               count, count == 1 ? "" : "s");
  }
}

// The unwritten snapshots so far, into the model (copied under the lock: *keep holds the texts).
void add_unwritten(model::Snapshot* m, std::vector<Unwritten>* keep) {
  WriteFailures& f = write_failures();
  {
    std::lock_guard<std::mutex> lock(f.mutex);
    m->unwritten_count = f.count;
    keep->assign(f.recent.begin(), f.recent.end());
  }
  for (const Unwritten& u : *keep) m->unwritten.push_back({u.sequence, u.reason, u.error});
}

// Signals that arrive while one is pending are folded into its snapshot; they are counted.
std::atomic<uint64_t> g_coalesced_signals{0};

bool make_dirs(const std::string& dir, mode_t mode) {
  std::string cur;
  for (size_t i = 0; i <= dir.size(); ++i) {
    if (i == dir.size() || dir[i] == '/') {
      if (!cur.empty() && mkdir(cur.c_str(), mode) != 0 && errno != EEXIST) return false;
    }
    if (i < dir.size()) cur += dir[i];
  }
  return true;  // open_checked_dir() says what is there
}

// The temporary's name: format::file_name()'s, or (when something is already there: an old
// file, or a FIFO or link planted by someone else) the same with a random part before the
// suffix, still a ".vkleak-<pid>-....json.tmp" that stale-temporary clean-up recognizes.
constexpr int kTempAttempts = 8;
std::string temp_name(uint64_t pid, uint64_t run, uint32_t seq, SnapshotReason reason,
                      int attempt) {
  char name[format::kMaxFileName];
  format::file_name(name, pid, run, seq, reason, /*temporary=*/true);
  std::string out(name);
  if (attempt == 0) return out;
  uint64_t r = 0;
  if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != static_cast<ssize_t>(sizeof(r))) {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    r = static_cast<uint64_t>(ts.tv_nsec) ^ (static_cast<uint64_t>(ts.tv_sec) << 30);
  }
  r ^= static_cast<uint64_t>(attempt) << 56;
  r ^= r >> 33;
  r *= 0xff51afd7ed558ccdull;
  r ^= r >> 33;
  char part[24];
  std::snprintf(part, sizeof(part), ".%016llx", static_cast<unsigned long long>(r));
  out.insert(out.size() - format::kTempSuffix.size(), part);
  return out;
}

// Puts the finished temporary under its final name without replacing anything but a regular
// file of this user's there (an earlier run's snapshot of the same pid, as in containers; the
// layer deletes nothing but its own files: never a link, FIFO or another user's file). Where the
// file system cannot say "no replace", a plain rename.
int rename_no_replace(int dir_fd, const char* from, const char* to) {
  if (renameat2(dir_fd, from, dir_fd, to, RENAME_NOREPLACE) == 0) return 0;
  if (errno == EEXIST) {
    struct stat st;
    if (fstatat(dir_fd, to, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != geteuid()) {
      errno = EEXIST;
      return -1;
    }
  } else if (errno != EINVAL && errno != ENOSYS) {
    return -1;
  }
  return renameat(dir_fd, from, dir_fd, to);
}

std::atomic<uint32_t> g_sequence{0};

// The run's identity: random, drawn at the first snapshot of the process (and again in a forked
// child), in every snapshot's name and content. Runs that share a pid and a directory (reruns,
// containers, pid namespaces) never overwrite or mix with each other. 0: not drawn yet.
std::atomic<uint64_t> g_run_id{0};

uint64_t run_id() noexcept {
  uint64_t id = g_run_id.load(std::memory_order_acquire);
  if (id != 0) return id;
  uint64_t drawn = 0;
  if (getrandom(&drawn, sizeof(drawn), GRND_NONBLOCK) != static_cast<ssize_t>(sizeof(drawn))) {
    // No entropy yet (early boot) or no getrandom: a mix of what differs between processes.
    struct timespec ts {};
    clock_gettime(CLOCK_REALTIME, &ts);
    drawn = static_cast<uint64_t>(ts.tv_sec) * 1000000007ull ^ static_cast<uint64_t>(ts.tv_nsec) ^
            (static_cast<uint64_t>(getpid()) << 32) ^ reinterpret_cast<uintptr_t>(&drawn);
    drawn *= 0x9e3779b97f4a7c15ull;
    drawn ^= drawn >> 31;
  }
  if (drawn == 0) drawn = 1;
  return g_run_id.compare_exchange_strong(id, drawn, std::memory_order_acq_rel) ? drawn : id;
}

// The snapshot of the last instance's destroy, while no instance has been created after it:
// at exit, if no snapshot followed it either, its "final" is set to true in place (the value
// "false" becomes "true " at final_at: 5 bytes in the header, so the file is never invalid).
// A process killed or ending in _exit() after it keeps it not final: an incomplete run.
struct FinalCandidate {
  std::mutex mutex;
  bool set = false;
  uint32_t sequence = 0;
  std::string path;
  uint64_t final_at = 0;
};
FinalCandidate& final_candidate() {
  static auto* f = new FinalCandidate;  // never destroyed: read at exit
  return *f;
}

// Set from the destroy of the last instance until an instance is created: no trigger or signal
// snapshot is taken then (it would follow the run's end, or go to the default directory).
std::atomic<bool> g_closing{false};

// Marks the candidate final when it is still the last snapshot; at exit, with no instance.
// `quiet`: at _exit(), maybe in a signal handler: no waiting for the lock, no log.
void mark_final_at_exit(bool quiet = false) noexcept {
  try {
    FinalCandidate& f = final_candidate();
    std::unique_lock<std::mutex> lock(f.mutex, std::defer_lock);
    if (quiet) {
      if (!lock.try_lock()) return;
    } else {
      lock.lock();
    }
    if (!f.set) return;
    f.set = false;
    const char* failure = nullptr;  // why it was not marked, for the log
    if (g_sequence.load(std::memory_order_relaxed) != f.sequence + 1) {
      failure = "it is not the last snapshot";
    } else {
      // The file the layer wrote, reopened: never through a link, never blocking, a regular file.
      const int fd = open(f.path.c_str(), O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
      struct stat st;
      char was[5] = {};
      const auto at = static_cast<off_t>(f.final_at);
      if (fd < 0) {
        failure = "cannot open it";
      } else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        failure = "not a regular file";
      } else if (pread(fd, was, sizeof(was), at) != static_cast<ssize_t>(sizeof(was)) ||
                 std::memcmp(was, "false", sizeof(was)) != 0 || pwrite(fd, "true ", 5, at) != 5) {
        failure = "cannot rewrite it";
      }
      if (fd >= 0) close(fd);
    }
    if (quiet) return;
    if (failure)
      log().info("the last instance's snapshot {} not marked final: {}", shown(f.path), failure);
    else
      log().info("snapshot {} marked final (the process ends with no instance)", shown(f.path));
  } catch (...) {
    // Out of memory at exit: the run stays not final (incomplete), never wrong.
  }
}

// Writes one snapshot atomically. Failures (unwritable directory, full disk) are recorded and
// logged, never fatal. Returns 0, or the errno of the failure (EIO when there is none).
int write_snapshot(Collected& c) noexcept {
  const uint32_t seq = g_sequence.fetch_add(1, std::memory_order_relaxed);
  std::string final_path = "#" + std::to_string(seq);
  try {
    const std::string& dir = c.settings.output_dir;
    char name[format::kMaxFileName];
    const auto pid = static_cast<uint64_t>(getpid());
    const uint64_t run = run_id();
    char run_text[format::kRunIdDigits + 1];
    format::run_id_text(run_text, run);
    format::file_name(name, pid, run, seq, c.reason);
    final_path = dir + "/" + name;
    const mode_t mode = static_cast<mode_t>(c.settings.file_mode);
    if (!make_dirs(dir, directory_mode(mode))) {
      const int err = errno ? errno : EIO;
      record_unwritten(seq, c.reason, final_path,
                       std::string("cannot create its directory: ") + std::strerror(err));
      return err;
    }
    // Every file operation below is relative to this one checked directory: a directory
    // swapped for a link after the check changes nothing.
    std::string dir_error;
    const int dir_fd = open_checked_dir(dir, &dir_error);
    if (dir_fd < 0) {
      const int err = errno ? errno : EIO;
      record_unwritten(seq, c.reason, final_path, "its directory: " + dir_error);
      return err;
    }
    struct DirCloser {
      int fd;
      ~DirCloser() { close(fd); }
    } dir_closer{dir_fd};
    std::string tmp_name;
    int fd = -1;
    for (int attempt = 0; attempt < kTempAttempts && fd < 0; ++attempt) {
      tmp_name = temp_name(pid, run, seq, c.reason, attempt);
      fd = create_exclusive(dir_fd, tmp_name.c_str(), mode);
      if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
      const int err = errno ? errno : EIO;
      record_unwritten(seq, c.reason, final_path, std::strerror(err));
      return err;
    }
    SnapshotData data(&c);
    std::vector<Unwritten> unwritten;
    add_unwritten(&data.model(), &unwritten);
    data.model().sequence = seq;
    data.model().run_id = std::string_view(run_text, format::kRunIdDigits);
    uint64_t final_at = 0;
    data.model().final_at = &final_at;
    data.model().coalesced_signals = g_coalesced_signals.load(std::memory_order_relaxed);
    JsonWriter w(fd);
    serialize_snapshot(w, data.model());
    bool ok = w.flush();
    int err = w.error();
    if (close(fd) != 0 && ok) {
      ok = false;
      err = errno;
    }
    if (!ok || rename_no_replace(dir_fd, tmp_name.c_str(), name) != 0) {
      if (ok) err = errno;
      unlinkat(dir_fd, tmp_name.c_str(), 0);  // made by this call (O_EXCL)
      if (err == 0) err = EIO;
      record_unwritten(seq, c.reason, final_path, std::strerror(err));
      return err;
    }
    log().info("snapshot written: {} ({} objects)", shown(final_path), c.objects.size());
    if (c.last_instance) {
      FinalCandidate& f = final_candidate();
      std::lock_guard<std::mutex> lock(f.mutex);
      if (g_closing.load(std::memory_order_relaxed)) {  // else an instance came meanwhile
        f.set = true;
        f.sequence = seq;
        f.path = final_path;
        f.final_at = final_at;
      }
    }
  } catch (...) {
    record_unwritten(seq, c.reason, final_path, "out of memory");
    return ENOMEM;
  }
  return 0;
}

// ---- The writer thread ----

struct Job {
  std::unique_ptr<Collected> collected;  // null: collect on the writer thread
  SnapshotReason reason = SnapshotReason::kFrame;
  std::string label;
};

// Lock-free, so the handler may touch it.
std::atomic<uint64_t> g_signals_pending{0};
static_assert(std::atomic<uint64_t>::is_always_lock_free);
void on_snapshot_signal(int) {
  g_signals_pending.fetch_add(1, std::memory_order_relaxed);
}

// A trigger file: creating it, or touching it (a new modification or change time, or another
// file put there), takes one snapshot. The layer never deletes it: it did not make it. Watched
// with lstat() (no link followed); a path that is not a regular file (a directory, "/", a link,
// a FIFO) is refused once, loudly, and no longer watched.
struct TriggerFile {
  std::string path;
  bool refused = false;
  bool present = false;  // as of the last look; then its identity and times
  dev_t dev = 0;
  ino_t ino = 0;
  timespec mtime{}, ctime{};
};

// Looks at a trigger file: true when it appeared or changed since the last look.
bool look_at(TriggerFile& t, bool first) {
  if (t.refused) return false;
  struct stat st;
  if (lstat(t.path.c_str(), &st) != 0) {
    t.present = false;
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    t.refused = true;
    log().error("trigger_file '{}' refused: it {}, not a regular file; no trigger file is watched",
                shown(t.path), file_kind(st.st_mode));
    return false;
  }
  const bool changed = !t.present || st.st_dev != t.dev || st.st_ino != t.ino ||
                       st.st_mtim.tv_sec != t.mtime.tv_sec ||
                       st.st_mtim.tv_nsec != t.mtime.tv_nsec ||
                       st.st_ctim.tv_sec != t.ctime.tv_sec || st.st_ctim.tv_nsec != t.ctime.tv_nsec;
  t.present = true;
  t.dev = st.st_dev;
  t.ino = st.st_ino;
  t.mtime = st.st_mtim;
  t.ctime = st.st_ctim;
  return changed && !first;
}

struct Writer {
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<Job> queue;
  std::thread thread;
  bool running = false;
  bool stop = false;
  bool busy = false;  // running a job (its sequence number may be taken)
  int signal_number = 0;
  struct sigaction previous_action {};
  std::vector<TriggerFile> trigger_files;
};
Writer& writer() {
  static auto* w = new Writer;  // never destroyed (see log.cpp)
  return *w;
}

void run_job(Job& job) {
  if (!job.collected) {
    job.collected = collect(job.reason, nullptr, nullptr, job.label);
    // A trigger or signal that raced with the last instance's destroy: nothing to snapshot, and
    // no settings to say where (it must not take a sequence number of the run, nor follow its
    // end).
    if (job.collected->instances.empty()) {
      log().info("{} snapshot skipped: no instance", to_string(job.reason));
      return;
    }
  }
  write_snapshot(*job.collected);
}

// Whether triggers may be taken now: an instance exists and is not the last one being destroyed.
bool triggers_open() {
  return !g_closing.load(std::memory_order_relaxed) && !all_instances().empty();
}

void poll_triggers(Writer& w) {
  if (!triggers_open()) return;  // pending signals and trigger files wait for an instance
  if (const uint64_t signals = g_signals_pending.exchange(0, std::memory_order_relaxed)) {
    g_coalesced_signals.fetch_add(signals - 1, std::memory_order_relaxed);
    Job job;
    job.reason = SnapshotReason::kSignal;
    run_job(job);
  }
  size_t fired = 0;
  {
    std::lock_guard<std::mutex> lock(w.mutex);
    for (TriggerFile& t : w.trigger_files) fired += look_at(t, /*first=*/false) ? 1 : 0;
  }
  for (size_t i = 0; i < fired; ++i) {
    Job job;
    job.reason = SnapshotReason::kTrigger;
    job.label = "file";
    run_job(job);
  }
}

void writer_main() {
  note_writer_thread();
  Writer& w = writer();
  std::unique_lock<std::mutex> lock(w.mutex);
  while (true) {
    w.cv.wait_for(lock, std::chrono::milliseconds(250), [&] { return w.stop || !w.queue.empty(); });
    while (!w.queue.empty()) {
      Job job = std::move(w.queue.front());
      w.queue.pop_front();
      w.busy = true;
      lock.unlock();
      run_job(job);
      lock.lock();
      w.busy = false;
    }
    if (w.stop) break;
    lock.unlock();
    refresh_clock();  // bounds how stale creation times can be for apps without frames
    poll_triggers(w);
    lock.lock();
  }
}

void enqueue(Job job) noexcept {
  Writer& w = writer();
  try {
    std::unique_lock<std::mutex> lock(w.mutex);
    if (!w.running) {
      // No writer (exit in progress): write on this thread.
      lock.unlock();
      run_job(job);
      return;
    }
    w.queue.push_back(std::move(job));
    w.cv.notify_one();
  } catch (...) {
    record_unwritten(-1, job.reason, "(queued)", "out of memory");
  }
}

int signal_from_name(const std::string& name) {
  std::string n;
  for (char ch : name) n += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (n == "SIGUSR1") return SIGUSR1;
  if (n == "SIGUSR2") return SIGUSR2;
  return 0;
}

// Whether this process created a VkInstance itself (start_writer ran here). A forked child
// inherits its parent's tables but is not the parent: until it creates an instance of its own it
// writes nothing (no exit snapshot of its parent's objects under its pid, no frame snapshots),
// and its exit() is what it is without the layer.
std::atomic<bool> g_vulkan_here{false};
// The process that started the writer: a vfork() child shares g_vulkan_here with its parent.
std::atomic<pid_t> g_vulkan_pid{0};

// fork() copies only the calling thread: in the child there is no writer thread, and the
// writer's mutex may be held by a thread that no longer exists. Start afresh, lazily: no thread
// until the child creates an instance (snapshots of the child carry its own pid in their names).
void after_fork_in_child() {
  g_vulkan_here.store(false);
  note_forked_child();  // the parent's instances and devices are not the child's
  Writer& w = writer();
  new (&w.mutex) std::mutex;
  new (&w.cv) std::condition_variable;
  new (&w.thread) std::thread;  // the parent's writer does not exist here: never join it
  new (&w.queue) std::deque<Job>;
  w.running = false;
  w.stop = false;
  // The child is a run of its own: its own run id, sequence numbers from 0, and none of the
  // parent's files to mark final.
  g_run_id.store(0, std::memory_order_relaxed);
  g_sequence.store(0, std::memory_order_relaxed);
  FinalCandidate& f = final_candidate();
  new (&f.mutex) std::mutex;
  f.set = false;
}

std::once_flag g_exit_once;
std::once_flag g_fork_once;
void on_exit() {
  // Runs at exit(), or at dlclose() after the last vkDestroyInstance (nothing left then).
  if (!g_vulkan_here.load()) return;  // a forked child that never created an instance
  auto instances = all_instances();
  bool want = false;
  for (auto& i : instances) want = want || i->settings.snapshot_at_exit;
  if (want) {
    auto c = collect(SnapshotReason::kExit, nullptr, nullptr, "");
    stop_writer();
    write_snapshot(*c);
  } else {
    stop_writer();
  }
  // The process ends here: the last instance's destroy snapshot is the run's end if nothing
  // came after it.
  if (instances.empty()) mark_final_at_exit();
  if (!instances.empty()) set_passthrough();
}

}  // namespace

void note_instance_created() noexcept {
  g_closing.store(false, std::memory_order_relaxed);
  try {
    FinalCandidate& f = final_candidate();
    std::lock_guard<std::mutex> lock(f.mutex);
    f.set = false;
  } catch (...) {
    // std::system_error from the lock: the candidate stays; mark_final_at_exit then sees that
    // later snapshots followed it (or there were none: this instance tracked nothing).
  }
}

void snapshot_now(SnapshotReason reason, DeviceState* device, InstanceState* instance,
                  const std::string& label) noexcept {
  if (!g_vulkan_here.load(std::memory_order_relaxed)) return;  // a forked child's inheritance
  try {
    Job job;
    job.collected = collect(reason, device, instance, label);
    if (job.collected->last_instance) g_closing.store(true, std::memory_order_relaxed);
    job.reason = reason;
    enqueue(std::move(job));
  } catch (...) {
    record_unwritten(-1, reason, "(collecting)", "out of memory");
  }
}

int snapshot_requested(const std::string& label) noexcept {
  if (!g_vulkan_here.load(std::memory_order_relaxed)) return 0;
  try {
    auto c = collect(SnapshotReason::kTrigger, nullptr, nullptr, label);
    if (c->instances.empty()) return 0;  // nothing to snapshot (no instance of this process)
    return write_snapshot(*c);
  } catch (...) {
    return ENOMEM;
  }
}

void snapshot_sync(SnapshotReason reason, const std::string& label) noexcept {
  try {
    auto c = collect(reason, nullptr, nullptr, label);
    write_snapshot(*c);
  } catch (...) {
    log().warn("snapshot not written: out of memory");
  }
}

void start_writer(const Settings& settings) noexcept {
  Writer& w = writer();
  try {
    std::lock_guard<std::mutex> lock(w.mutex);
    if (std::none_of(w.trigger_files.begin(), w.trigger_files.end(),
                     [&](const TriggerFile& t) { return t.path == settings.trigger_file; })) {
      TriggerFile t;
      t.path = settings.trigger_file;
      // What is there already is no request (the layer never deletes the file, so one may be
      // left from an earlier run); a directory or other non-file is refused now.
      look_at(t, /*first=*/true);
      w.trigger_files.push_back(std::move(t));
    }
    g_vulkan_here.store(true);
    g_vulkan_pid.store(getpid());
    if (w.running) return;
    std::call_once(g_fork_once, [] { pthread_atfork(nullptr, nullptr, after_fork_in_child); });
    w.stop = false;
    {
      // SIGTERM goes to an app thread, whose handler waits for the final snapshot: the writer
      // may hold what that snapshot needs.
      sigset_t term, old;
      sigemptyset(&term);
      sigaddset(&term, SIGTERM);
      pthread_sigmask(SIG_BLOCK, &term, &old);
      try {
        w.thread = std::thread(writer_main);
      } catch (...) {
        pthread_sigmask(SIG_SETMASK, &old, nullptr);
        throw;
      }
      pthread_sigmask(SIG_SETMASK, &old, nullptr);
    }
    w.running = true;
    start_crash_snapshots(settings);
    // The snapshot signal, only where the app left it at its default.
    int sig = signal_from_name(settings.snapshot_signal);
    if (sig) {
      struct sigaction current {};
      if (sigaction(sig, nullptr, &current) == 0 && current.sa_handler == SIG_DFL &&
          !(current.sa_flags & SA_SIGINFO)) {
        struct sigaction act {};
        act.sa_handler = on_snapshot_signal;
        sigemptyset(&act.sa_mask);
        act.sa_flags = SA_RESTART;
        if (sigaction(sig, &act, &w.previous_action) == 0) w.signal_number = sig;
      }
    }
  } catch (...) {
    log().warn("cannot start the snapshot writer thread; snapshots are written inline");
  }
}

void stop_writer() noexcept {
  stop_crash_snapshots();  // also in a forked child, which has no writer
  Writer& w = writer();
  std::thread t;
  {
    std::lock_guard<std::mutex> lock(w.mutex);
    if (!w.running) return;
    w.stop = true;
    w.running = false;
    t = std::move(w.thread);
    // Restore the signal before the loader may unload the layer's code.
    if (w.signal_number) {
      sigaction(w.signal_number, &w.previous_action, nullptr);
      w.signal_number = 0;
    }
    w.trigger_files.clear();
    w.cv.notify_all();
  }
  if (t.joinable()) t.join();
}

void install_exit_handler() noexcept {
  std::call_once(g_exit_once, [] {
    std::atexit(on_exit);
    install_quick_exit_hooks();
  });
}

void snapshot_at_quick_exit(const char* label) noexcept {
  if (!g_vulkan_here.load() || g_vulkan_pid.load() != getpid()) return;
  try {
    // What the writer has queued goes first, in order (the process ends after this); a job it is
    // writing now is waited for, within the caller's bound.
    Writer& w = writer();
    std::deque<Job> queued;
    {
      std::unique_lock<std::mutex> lock(w.mutex);
      queued.swap(w.queue);
      while (w.busy) {
        lock.unlock();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        lock.lock();
      }
    }
    for (Job& job : queued) run_job(job);
    auto instances = all_instances();
    bool want = false;
    for (auto& i : instances) want = want || i->settings.snapshot_at_exit;
    if (want) {
      log().info("{}(): writing the exit snapshot", label);
      auto c = collect(SnapshotReason::kExit, nullptr, nullptr, label);
      write_snapshot(*c);
    }
    if (instances.empty()) mark_final_at_exit();
  } catch (...) {
    // Out of memory or a lock that failed: the run stays incomplete, never wrong.
  }
}

void mark_run_end_at_quick_exit() noexcept {
  if (!g_vulkan_here.load() || g_vulkan_pid.load() != getpid()) return;
  if (!g_closing.load(std::memory_order_relaxed)) return;  // instances left: not the run's end
  mark_final_at_exit(/*quiet=*/true);
}

}  // namespace vkleak
