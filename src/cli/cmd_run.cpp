#include "cli/cmd_run.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>

#include "analysis/completeness.h"
#include "analysis/problems.h"
#include "cli/common.h"
#include "cli/layer_locator.h"
#include "cli/report_options.h"
#include "core/snapshot_reader.h"
#include "format/snapshot_format.h"
#include "report/output.h"
#include "shared/glob.h"
#include "shared/setting_ranges.h"

namespace vkleak::cli {

namespace fs = std::filesystem;

CLI::App* add_run_command(CLI::App* app, RunOptions* options) {
  CLI::App* run = app->add_subcommand(
      "run", "Run an application with the vkleak layer enabled and collect snapshots");
  run->set_version_flag("--version", std::string("vkleak ") + VKLEAK_VERSION);
  run->footer("Put the application after --:  vkleak run [OPTIONS] -- APP [ARGS...]");
  run->add_option("--out", options->out_dir,
                  "Directory for the snapshots (created with its parents; default "
                  "./vkleak-snapshots/run-<YYYYmmdd-HHMMSS>-<pid>)")
      ->option_text("DIR");
  run->add_option("--every", options->every, "Also take a snapshot every N frames")
      ->check(CLI::Range(int64_t{1}, int64_t{0x7fffffff}))
      ->option_text("N");
  run->add_option("--frame-boundary", options->frame_boundary,
                  "What ends a frame: auto (the layer's default: presents, or submits on a device "
                  "that made 64 submits, or --every N when fewer, without presenting), present "
                  "(vkQueuePresentKHR) or "
                  "submit (every queue submit)")
      ->check(CLI::IsMember({"auto", "present", "submit"}))
      ->option_text("auto|present|submit");
  run->add_option("--callstack-depth", options->callstack_depth,
                  "Return addresses recorded per creation call site (default " +
                      std::to_string(kDefaultCallstackDepth) +
                      "; 1 is the line that called vkCreate*; 0 turns call sites off; deeper: "
                      "unwound once per call chain, ~10 ns a frame)")
      ->check(CLI::Range(int64_t{0}, int64_t{kMaxCallstackDepth}))
      ->option_text("N");
  run->add_flag(
      "--destroy-callstacks", [options](int64_t) { options->destroy_callstacks = 1; },
      "Record the stack of every destroy and free, so that a stale view says where its "
      "target was destroyed and a double destroy where it was first destroyed (the layer's "
      "destroy_callstacks; on by default, a few ns a destroy)");
  run->add_flag(
      "--no-destroy-callstacks", [options](int64_t) { options->destroy_callstacks = 0; },
      "Record destroy stacks only for destroys in flight and invalid ones (saves 2-5 ns a "
      "create/destroy pair)");
  run->add_option("APP", options->command, "The application and its arguments, after --")
      ->required();
  return run;
}

namespace {

std::string default_out_dir() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &local);
  return "vkleak-snapshots/run-" + std::string(stamp) + "-" + std::to_string(::getpid());
}

// "a:b" + "c" -> "a:b:c"; a list already holding item is returned as it is.
std::string append_to_list(const std::string& list, const std::string& item) {
  if (list.empty()) return item;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t end = std::min(list.find(':', start), list.size());
    if (list.compare(start, end - start, item) == 0 && end - start == item.size()) return list;
    start = end + 1;
  }
  return list + ":" + item;
}

std::string getenv_string(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// Whether the loader's VK_LOADER_LAYERS_DISABLE filter (comma-separated: ~all~, ~explicit~,
// ~implicit~, names with * at either end) matches the vkleak layer, an explicit layer.
bool loader_filter_disables(const std::string& filter) {
  size_t start = 0;
  while (start <= filter.size()) {
    const size_t end = std::min(filter.find(',', start), filter.size());
    const std::string item = filter.substr(start, end - start);
    if (item == "~all~" || item == "~explicit~" ||
        (!item.empty() && glob_matches(item, kLayerName)))
      return true;
    start = end + 1;
  }
  return false;
}

// The child's environment: ours with the changes applied.
std::vector<std::string> child_environment(const std::map<std::string, std::string>& changes) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const char* eq = std::strchr(*e, '=');
    const std::string name = eq ? std::string(*e, static_cast<size_t>(eq - *e)) : std::string(*e);
    if (changes.count(name) == 0) env.emplace_back(*e);
  }
  for (const auto& [name, value] : changes) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

struct ChildResult {
  int exit_code = 0;
  int exec_errno = 0;  // non-zero: the application could not be started
  int signal = 0;      // non-zero: it was killed by this signal
  uint64_t pid = 0;    // the application's process
};

// fork + execvpe, forwarding SIGINT/SIGTERM until the child is gone.
ChildResult run_child(std::vector<std::string> argv, std::vector<std::string> env) {
  // Block the forwarded signals (and SIGCHLD) before fork so none is lost before sigwaitinfo.
  sigset_t wait_set, old_mask;
  sigemptyset(&wait_set);
  sigaddset(&wait_set, SIGINT);
  sigaddset(&wait_set, SIGTERM);
  sigaddset(&wait_set, SIGCHLD);
  sigprocmask(SIG_BLOCK, &wait_set, &old_mask);

  ChildResult result;
  int status_pipe[2];
  if (::pipe2(status_pipe, O_CLOEXEC) != 0) {
    result.exec_errno = errno;
    sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    return result;
  }
  std::vector<char*> argv_ptrs = c_strings(argv);
  std::vector<char*> env_ptrs = c_strings(env);

  const pid_t pid = ::fork();
  if (pid > 0) result.pid = static_cast<uint64_t>(pid);
  if (pid < 0) {
    result.exec_errno = errno;
    ::close(status_pipe[0]);
    ::close(status_pipe[1]);
    sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    return result;
  }
  if (pid == 0) {
    // Only async-signal-safe calls from here on.
    sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    ::execvpe(argv_ptrs[0], argv_ptrs.data(), env_ptrs.data());
    const int err = errno;
    [[maybe_unused]] ssize_t n = ::write(status_pipe[1], &err, sizeof(err));
    ::_exit(127);
  }
  ::close(status_pipe[1]);
  // The pipe closes on a successful exec (O_CLOEXEC); otherwise it carries exec's errno.
  int exec_errno = 0;
  ssize_t n;
  do {
    n = ::read(status_pipe[0], &exec_errno, sizeof(exec_errno));
  } while (n < 0 && errno == EINTR);
  ::close(status_pipe[0]);
  if (n == static_cast<ssize_t>(sizeof(exec_errno))) result.exec_errno = exec_errno;

  int status = 0;
  for (;;) {
    siginfo_t info{};
    const int sig = sigwaitinfo(&wait_set, &info);
    if (sig == SIGINT || sig == SIGTERM) {
      // A terminal's Ctrl-C (si_code SI_KERNEL) already reached the child, which shares our
      // process group; forward only what was sent to vkleak alone (kill, a supervisor).
      if (info.si_code <= 0) ::kill(pid, sig);
      continue;
    }
    if (sig < 0 && errno != EINTR) {
      // Cannot wait for signals: stop forwarding and just wait.
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) break;
  }
  sigprocmask(SIG_SETMASK, &old_mask, nullptr);

  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.exit_code = 128 + result.signal;
  }
  return result;
}

// The snapshots in dir, by the contract's file-name pattern (other .json files and the writer's
// temporaries are not snapshots).
std::set<std::string> snapshot_files(const fs::path& dir) {
  std::set<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    format::FileName parts;
    if (format::parse_file_name(name, &parts)) names.insert(std::move(name));
  }
  return names;
}

// For a command line a user can paste: 'it''s' style quoting when the path needs any.
std::string shell_quoted(const std::string& path) {
  const bool plain = !path.empty() && std::all_of(path.begin(), path.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("/._-+,:@%=", c) != nullptr;
  });
  if (plain) return path;
  std::string out = "'";
  for (char c : path) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// How the application ended, in words ("was killed by SIGKILL", "exited with status 0").
std::string how_it_ended(const ChildResult& child) {
  if (child.signal != 0) {
    const char* abbrev = sigabbrev_np(child.signal);
    return "was killed by " +
           (abbrev ? "SIG" + std::string(abbrev) : "signal " + std::to_string(child.signal));
  }
  return "exited with status " + std::to_string(child.exit_code);
}

// Why the application's process has no end-of-run snapshot, as far as its exit status tells.
std::string why_no_end_snapshot(const ChildResult& child) {
  if (child.signal == SIGKILL)
    return ": no program can catch SIGKILL, so the layer could not write one (stop it with "
           "SIGTERM to get a final snapshot)";
  if (child.signal != 0)
    return ": the layer takes a final snapshot only on SIGTERM and on SIGABRT, SIGSEGV, SIGBUS, "
           "SIGFPE and SIGILL, and only where the program left the signal at its default";
  return ": either the snapshot at exit is off (VKLEAK_SNAPSHOT_AT_EXIT), or the program ended "
         "through _exit(), _Exit() or quick_exit() (which run no exit handlers) while the "
         "layer's crash thread, which writes their snapshot, was off (VKLEAK_CRASH_SNAPSHOT)";
}

// What the layer could not write, per run (process and run id): the end-of-run snapshot missing, a
// write that failed (full disk), a hole in the sequence. Only the last snapshot of each run
// is read (it carries the layer's record of failed writes); the others are known by name.
void report_incomplete(const std::vector<SnapshotFile>& files, const ChildResult& child) {
  std::map<std::pair<uint64_t, std::string>, std::vector<const SnapshotFile*>> by_run;
  for (const SnapshotFile& f : files) by_run[{f.pid, f.run_id}].push_back(&f);
  for (const auto& [run, list] : by_run) {
    const uint64_t pid = run.first;
    analysis::CompletenessCheck check;
    for (size_t i = 0; i + 1 < list.size(); ++i) {
      Snapshot named;
      named.pid = pid;
      named.run_id = run.second;
      named.sequence = list[i]->sequence;
      named.reason = list[i]->reason;
      check.add(named);
    }
    bool ended = true;  // the process's last snapshot ends its run (or is a crash's)
    try {
      Snapshot last = read_snapshot(list.back()->path);
      ended = last.final_snapshot.value_or(last.reason == format::name(format::Reason::kExit) ||
                                           last.reason ==
                                               format::name(format::Reason::kInstanceDestroy)) ||
              last.reason == format::name(format::Reason::kCrash);
      check.add(last);
    } catch (const SnapshotError& e) {
      print_warning(e.what());
      continue;
    }
    for (const std::string& problem : check.finish().problems) {
      print_warning("pid " + std::to_string(pid) + ": " + printable(problem));
    }
    if (!ended && pid == child.pid) {
      // After its last instance's destroy the layer handles no signal: a crash there is the
      // process's end, not the run's (README: a crash after teardown is an incomplete run).
      const bool after_teardown =
          child.signal != 0 && child.signal != SIGKILL &&
          list.back()->reason == format::name(format::Reason::kInstanceDestroy);
      print_warning("pid " + std::to_string(pid) + ": the program " + how_it_ended(child) +
                    " without an end-of-run snapshot" +
                    (after_teardown ? std::string(" after its last vkDestroyInstance, where the "
                                                  "layer no longer handles signals: a crash after "
                                                  "teardown leaves the run incomplete")
                                    : why_no_end_snapshot(child)));
    }
  }
}

// One line that says what this run's snapshots show, then the command that shows it all. The
// last snapshot alone says little (an instance_destroy snapshot after the device_destroy one that
// holds the leaks is empty), so the whole run is analysed, as vkleak report does, and the
// first-ranked finding is named with its call site: where to look first.
void print_verdict(const std::vector<SnapshotFile>& fresh, const fs::path& dir) {
  ReportFlags flags;
  for (const SnapshotFile& f : fresh) flags.inputs.push_back(f.path);
  analysis::ReportDocument doc;
  std::string verdict;
  try {
    doc = analyse_inputs(flags);
  } catch (const SnapshotError& e) {
    print_warning(e.what());
    verdict = "could not analyse this run's snapshots";
  }
  if (verdict.empty()) {
    const analysis::ProblemTotals totals = analysis::problem_totals(doc);
    std::map<std::string, uint64_t> kinds;
    size_t unjudged = 0, incomplete = 0;
    std::string skipped;  // how a process ended without its teardown ("_exit()")
    for (const analysis::RunReport& r : doc.runs) {
      for (const analysis::Finding& f : r.findings) ++kinds[analysis::kind_name(f.kind)];
      unjudged += r.accumulation_judged ? 0 : 1;
      incomplete += r.incomplete.empty() ? 0 : 1;
      if (r.skipped_teardown && skipped.empty()) skipped = r.skipped_teardown->ended_by;
    }
    if (totals.problems == 0) {
      // After _exit() nothing at exit was judged: "no leaks found at exit" would claim it was.
      verdict = !skipped.empty() ? "no leaks found"
                : unjudged > 0   ? "no leaks found at exit"
                                 : "no leaks found";
    } else {
      verdict = std::to_string(totals.problems) +
                (totals.problems == 1 ? " problem found" : " problems found") + " (";
      bool first = true;
      for (const auto& [kind, n] : kinds) {
        verdict += (first ? "" : ", ") + format_count(n) + " " + kind;
        first = false;
      }
      verdict += "; " + format_count(totals.objects) +
                 (totals.objects == 1 ? " object" : " objects") +
                 (totals.bytes > 0 ? ", " + format_bytes(totals.bytes) : "") + ")";
      const std::vector<const analysis::Finding*> ranked = report::all_findings(doc);
      if (!ranked.empty()) {
        const analysis::Finding& top = *ranked.front();
        // Cut from the outside in: the innermost frame (where the object was made) stays.
        const std::string where = report::callsite_summary(top, 120);
        verdict += "; first: " + std::string(analysis::kind_name(top.kind)) + " " +
                   printable(report::finding_title(top), 80) +
                   (where.empty() ? "" : " at " + printable(where, 2 * 120));
        // A stale view's line to fix is often where its target was destroyed.
        for (const analysis::LabeledStack& st : top.stacks) {
          if (st.label != "target destroyed here" || st.frames.empty()) continue;
          const analysis::Frame& f = st.frames.front();
          std::string line = f.function.empty() ? f.text : f.function;
          if (!f.file.empty()) {
            const size_t slash = f.file.rfind('/');
            line += " (" + f.file.substr(slash == std::string::npos ? 0 : slash + 1) + ":" +
                    std::to_string(f.line) + ")";
          }
          verdict += ", its target destroyed at " + printable(line, 120);
        }
      }
    }
    if (incomplete > 0) verdict += ", but the run was not checked whole (see the warnings above)";
    if (!skipped.empty() && incomplete == 0) {
      verdict += "; leaks at exit not checked: the program ended in " + printable(skipped, 40) +
                 " without its teardown (what was alive is listed in the report, not judged)";
    }
    // "No leaks" from two teardown snapshots says nothing about growth: say what was not judged.
    if (unjudged > 0) {
      verdict += "; growth not judged: too few snapshots during the run (--every N takes more)";
    }
  }
  print_note(verdict);
  print_note("see the report: vkleak report " + shell_quoted(dir.string()));
}

void print_summary(const fs::path& dir, const std::set<std::string>& before,
                   const ChildResult& child) {
  const std::set<std::string> after = snapshot_files(dir);
  size_t old = 0;
  for (const std::string& name : after) old += before.count(name);
  std::string line = std::to_string(after.size()) + " snapshot(s) in " + dir.string();
  if (old > 0) line += " (" + std::to_string(old) + " from before this run)";
  print_note(line);

  std::vector<SnapshotFile> fresh;
  try {
    for (SnapshotFile& f : read_snapshot_dir(dir.string())) {
      if (!before.count(fs::path(f.path).filename().string())) fresh.push_back(std::move(f));
    }
  } catch (const SnapshotError&) {
    // Listing failed after all: fall back to the names we have.
  }
  if (after.size() == old) {
    // Say what the exit status tells; "was the layer loaded?" only where it may not have been.
    if (child.signal != 0) {
      print_warning("this run wrote no snapshot: the program " + how_it_ended(child) +
                    " before the layer wrote one" + why_no_end_snapshot(child));
    } else {
      print_warning("this run wrote no snapshot: the program exited with status " +
                    std::to_string(child.exit_code) +
                    " without one; either it never created a Vulkan instance with the layer "
                    "(VK_LOADER_DEBUG=layer shows whether the loader put " +
                    std::string(kLayerName) +
                    " in the instance's chain; VKLEAK_LOG_LEVEL=info makes the layer say "
                    "\"tracking instance\" when it is), or it ended "
                    "through _exit() or quick_exit() (which run no exit handlers), or the "
                    "snapshot at exit is off (VKLEAK_SNAPSHOT_AT_EXIT)");
    }
    return;
  }
  report_incomplete(fresh, child);
  print_verdict(fresh, dir);
}

}  // namespace

int run_command(const RunOptions& options) {
  const LayerSearch layer = locate_layer_dir(current_layer_search_inputs());
  if (layer.dir.empty()) {
    print_error(layer.error);
    return kExitUsage;
  }
  // The loader skips a layer whose library does not load and runs the program without it
  // (vkCreateInstance still succeeds): the run would end with no snapshot and no error. Say it
  // now, with the dynamic linker's reason, instead of running the program untracked.
  if (const std::string why = check_layer_library(layer.dir); !why.empty()) {
    print_error(std::string("the vkleak layer would not load: ") + why +
                ". The Vulkan loader would skip " + kLayerName +
                " and run the program untracked (VK_LOADER_DEBUG=error,warn,layer shows what "
                "it loads). Rebuild or reinstall vkleak, or set VKLEAK_LAYER_DIR to a directory "
                "whose " +
                kManifestName + " names a library that loads");
    return kExitUsage;
  }

  const fs::path out = fs::absolute(options.out_dir.empty() ? default_out_dir() : options.out_dir)
                           .lexically_normal();
  std::error_code ec;
  // A directory it makes is the user's alone, whatever the umask: the layer refuses one that
  // other users may write (README: the layer's files).
  if (fs::create_directories(out, ec) && !ec) fs::permissions(out, fs::perms::owner_all, ec);
  if (ec || !fs::is_directory(out)) {
    print_error("cannot create the output directory " + out.string() + ": " +
                (ec ? ec.message() : "a file of that name exists"));
    return kExitUsage;
  }

  std::map<std::string, std::string> env;
  const std::string add_path = getenv_string("VK_ADD_LAYER_PATH");
  env["VK_ADD_LAYER_PATH"] = add_path.empty() ? layer.dir : layer.dir + ":" + add_path;
  env["VK_INSTANCE_LAYERS"] = append_to_list(getenv_string("VK_INSTANCE_LAYERS"), kLayerName);
  env["VKLEAK_OUTPUT_DIR"] = out.string();
  if (options.every > 0) env["VKLEAK_SNAPSHOT_EVERY"] = std::to_string(options.every);
  // Unset options stay unset, so the layer's own defaults and settings file apply.
  if (!options.frame_boundary.empty()) env["VKLEAK_FRAME_BOUNDARY"] = options.frame_boundary;
  if (options.callstack_depth >= 0) {
    env["VKLEAK_CALLSTACK_DEPTH"] = std::to_string(options.callstack_depth);
  }
  if (options.destroy_callstacks >= 0) {
    env["VKLEAK_DESTROY_CALLSTACKS"] = options.destroy_callstacks ? "true" : "false";
  }
  // VK_LOADER_LAYERS_DISABLE (~all~, ~explicit~, a glob) makes the loader drop the layer
  // silently, VK_INSTANCE_LAYERS or not; its enable filter wins over the disable filter. Only
  // then is the layer named there too (comma-separated, the loader's filter syntax).
  if (loader_filter_disables(getenv_string("VK_LOADER_LAYERS_DISABLE"))) {
    print_note(std::string("VK_LOADER_LAYERS_DISABLE would disable ") + kLayerName +
               ": adding it to VK_LOADER_LAYERS_ENABLE, which wins");
    const std::string enabled = getenv_string("VK_LOADER_LAYERS_ENABLE");
    env["VK_LOADER_LAYERS_ENABLE"] =
        enabled.empty() ? std::string(kLayerName) : enabled + "," + kLayerName;
  }
  // A program ending in _exit()/_Exit() (a browser's GPU process) still gets its exit snapshot:
  // the hook library tells the layer (layer/src/preload/exit_hook.h). After what is preloaded
  // already (a sanitizer's runtime must stay first).
  const std::string exit_hook = exit_hook_library(layer.dir);
  if (!exit_hook.empty()) {
    env["LD_PRELOAD"] = append_to_list(getenv_string("LD_PRELOAD"), exit_hook);
  } else {
    print_warning("the exit hook library " + std::string(VKLEAK_EXIT_HOOK_LIBRARY) +
                  " is not beside the layer library: a program ending in _exit() gets no exit "
                  "snapshot");
  }

  const std::set<std::string> before = snapshot_files(out);
  print_note("writing snapshots to " + out.string());
  const ChildResult child = run_child(options.command, child_environment(env));
  const std::string& app = options.command.front();
  if (child.exec_errno != 0) {
    if (child.exec_errno == ENOENT) {
      print_error(app +
                  (app.find('/') == std::string::npos ? ": command not found" : ": no such file"));
      return 127;
    }
    print_error("cannot execute " + app + ": " + std::strerror(child.exec_errno));
    return 126;
  }
  if (child.signal != 0) {
    print_note(app + " was killed by signal " + std::to_string(child.signal) + " (" +
               strsignal(child.signal) + ")");
  }
  print_summary(out, before, child);
  return child.exit_code;
}

}  // namespace vkleak::cli
