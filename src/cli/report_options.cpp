#include "cli/report_options.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include "analysis/analyzer.h"
#include "analysis/run.h"
#include "cli/common.h"
#include "core/module_map.h"
#include "core/snapshot_reader.h"
#include "core/symbolizer.h"
#include "report/sparkline.h"

namespace vkleak::cli {

void add_input_flags(CLI::App* command, ReportFlags* flags, const std::string& what) {
  command
      ->add_option("inputs", flags->inputs,
                   what +
                       ": run directories (vkleak run --out DIR) or snapshot files; a "
                       "directory with several processes' snapshots holds several runs")
      ->required();
}

void add_stack_module_option(CLI::App* command) {
  command
      ->add_option_function<std::vector<std::string>>(
          "--stack-module",
          [](const std::vector<std::string>& patterns) { set_user_stack_modules(patterns); },
          "A module of the Vulkan stack besides the built-in list (loader, layers, drivers, GL "
          "on zink, DXVK, vkd3d, wgpu, Dawn): a file-name pattern with * and ?, or a path "
          "pattern with '/'; repeatable. Call sites skip its frames to show the program's own")
      ->allow_extra_args(false)
      ->option_text("PATTERN");
}

void add_debug_file_directory_option(CLI::App* command) {
  command
      ->add_option_function<std::vector<std::string>>(
          "--debug-file-directory",
          [](const std::vector<std::string>& dirs) { set_debug_file_directories(dirs); },
          "Where separate debug files are looked up (DIR/.build-id/xx/yyyy.debug, then by "
          ".gnu_debuglink), instead of /usr/lib/debug, as gdb's debug-file-directory; "
          "repeatable, searched in order")
      ->allow_extra_args(false)
      ->option_text("DIR");
}

void add_startup_frames_option(CLI::App* command) {
  command->add_flag(
      "--startup-frames", [](int64_t) { set_show_startup_frames(true); },
      "Show the C runtime's start-up frames (_start, __libc_start_main, "
      "__libc_start_call_main) that end every stack of the main thread; hidden by default");
}

void add_threshold_flags(CLI::App* command, ReportFlags* flags) {
  add_stack_module_option(command);
  add_debug_file_directory_option(command);
  add_startup_frames_option(command);
  analysis::Thresholds& t = flags->analysis.thresholds;
  const std::string group = "Thresholds (FINDINGS.md explains them)";
  auto frames = CLI::Range(uint32_t{0}, uint32_t{1} << 30);
  command
      ->add_option("--min-frames-unused", t.min_frames_unused,
                   "retained, orphaned_memory: frames without a submission using an object")
      ->check(frames)
      ->option_text("N (16)")
      ->group(group);
  command
      ->add_option("--min-frames-stale", t.min_frames_stale,
                   "stale_view: frames since the referenced object was destroyed")
      ->check(frames)
      ->option_text("N (8)")
      ->group(group);
  command
      ->add_option("--warmup", t.warmup_frames,
                   "growth, retained, orphaned_memory: snapshots before this frame are "
                   "start-up, not evidence")
      ->check(frames)
      ->option_text("FRAMES (20)")
      ->group(group);
  command
      ->add_option("--growth-snapshots", t.growth_min_snapshots,
                   "growth, retained, orphaned_memory, pinning stale_view: snapshots after "
                   "the warm-up needed to judge that objects accumulate (fewer: a note says so)")
      ->check(CLI::Range(uint32_t{2}, uint32_t{1} << 20))
      ->option_text("N (4)")
      ->group(group);
  command
      ->add_option("--growth-rises", t.growth_min_rises,
                   "growth: intervals in which the count must rise (and a third of them), or "
                   "steps it must rise in")
      ->check(CLI::Range(uint32_t{1}, uint32_t{1} << 20))
      ->option_text("N (3)")
      ->group(group);
  command
      ->add_option("--max-examples", flags->analysis.max_examples,
                   "Example objects per finding (the rest are counted)")
      ->check(CLI::Range(uint32_t{0}, uint32_t{10000}))
      ->option_text("N (5)");
  command
      ->add_option("--max-names", flags->analysis.max_names,
                   "Debug names listed per finding (the rest are counted)")
      ->check(CLI::Range(uint32_t{0}, uint32_t{1} << 24))
      ->option_text("N (100)");
  command
      ->add_option("--max-lifetime-cells", flags->analysis.max_lifetime_cells,
                   "Lifetime cells the HTML explorer embeds: objects alive at the end first, then "
                   "the biggest; the rest are counted, and the page says so")
      ->check(CLI::Range(uint32_t{1}, uint32_t{1} << 30))
      ->option_text("N (250000)");
  command->add_flag(
      "--no-symbolize", [flags](int64_t) { flags->analysis.symbolize = false; },
      "Call sites as module+offset, without reading any binary");
  command->add_option("--jobs", flags->jobs, "Snapshots read at once (default: cores, up to 4)")
      ->check(CLI::Range(1u, 64u))
      ->option_text("N");
}

void add_output_flags(CLI::App* command, ReportFlags* flags) {
  // --format's choices and help, from the renderers' table: "text (default), json (the findings
  // document), markdown, junit or sarif".
  std::vector<std::string> formats, helps;
  for (const report::Renderer& r : report::kRenderers) {
    if (r.format_help == nullptr) continue;
    formats.emplace_back(r.name);
    helps.emplace_back(r.format_help);
  }
  std::string help = "Output on stdout: ";
  for (size_t i = 0; i < helps.size(); ++i) {
    help += (i == 0 ? "" : i + 1 == helps.size() ? " or " : ", ") + helps[i];
  }
  command->add_option("--format", flags->format, help)
      ->check(CLI::IsMember(formats))
      ->option_text("FORMAT");
  add_color_option(command, &flags->color);
  const std::string group = "Output files (besides stdout)";
  for (size_t i = 0; i < report::kRendererCount; ++i) {
    const report::Renderer& r = report::kRenderers[i];
    if (r.file_help == nullptr) continue;
    command->add_option(std::string("--") + r.name, flags->files[i], r.file_help)
        ->option_text("FILE")
        ->group(group);
  }
  command
      ->add_option("--source-root", flags->source_root,
                   "SARIF: source files under DIR get paths relative to it (default: the "
                   "current directory)")
      ->option_text("DIR")
      ->group(group);
}

void add_sparklines_option(CLI::App* command, ReportFlags* flags) {
  const std::map<std::string, SparklineMode> names{{"auto", SparklineMode::kAuto},
                                                   {"always", SparklineMode::kAlways},
                                                   {"never", SparklineMode::kNever}};
  flags->sparklines = SparklineMode::kAuto;
  command
      ->add_option("--sparklines", flags->sparklines,
                   "Text output: a sparkline per type of its live bytes over the run: auto (the "
                   "default: when stdout is a terminal), always or never. UTF-8 blocks when "
                   "LC_ALL/LC_CTYPE/LANG say UTF-8, ASCII otherwise; as wide as COLUMNS or the "
                   "terminal")
      ->transform(CLI::CheckedTransformer(names))
      ->option_text("auto|always|never")
      ->default_str("auto");
}

namespace {

// The newest modification time of the snapshots in dir, or nullopt when it holds none.
std::optional<std::filesystem::file_time_type> newest_snapshot_time(const std::string& dir) {
  std::vector<SnapshotFile> files;
  try {
    files = read_snapshot_dir(dir);
  } catch (const SnapshotError&) {
    return std::nullopt;  // not a run directory we can read: not a candidate
  }
  std::optional<std::filesystem::file_time_type> newest;
  for (const SnapshotFile& f : files) {
    std::error_code ec;
    const auto t = std::filesystem::last_write_time(f.path, ec);
    if (ec) continue;
    if (!newest || t > *newest) newest = t;
  }
  if (!newest && !files.empty()) newest = std::filesystem::file_time_type::min();
  return newest;
}

std::string local_time(std::filesystem::file_time_type t) {
  const auto system = std::chrono::time_point_cast<std::chrono::system_clock::duration>(
      t - std::filesystem::file_time_type::clock::now() + std::chrono::system_clock::now());
  const std::time_t seconds = std::chrono::system_clock::to_time_t(system);
  std::tm local{};
  localtime_r(&seconds, &local);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", &local);
  return text;
}

}  // namespace

std::vector<std::string> resolve_run_inputs(const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  std::vector<std::string> resolved;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (!fs::is_directory(input, ec) || newest_snapshot_time(input)) {
      resolved.push_back(input);  // a file, or a run directory: as given
      continue;
    }
    // A directory of run directories (vkleak run's default, vkleak-snapshots/run-<time>-<pid>/).
    std::vector<std::pair<fs::file_time_type, std::string>> runs;
    for (fs::directory_iterator it(input, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code dir_ec;
      if (!it->is_directory(dir_ec) || it->is_symlink(dir_ec)) continue;
      const std::string path = it->path().string();
      if (const auto t = newest_snapshot_time(path)) runs.emplace_back(*t, path);
    }
    if (runs.empty()) {
      resolved.push_back(input);  // discover_runs says that it holds no snapshot
      continue;
    }
    // The newest: the run whose last snapshot was written last (names break ties).
    std::sort(runs.begin(), runs.end());
    const auto& [time, newest] = runs.back();
    if (runs.size() == 1) {
      print_note("reading the run in " + printable(newest));
    } else {
      std::string dir = input;
      while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
      print_note(printable(input) + " holds " + std::to_string(runs.size()) +
                 " runs; reading the newest, " + printable(newest) + " (last snapshot " +
                 local_time(time) + "). Name a run's directory to read another, or " +
                 printable(dir) + "/*/ to read them all");
    }
    resolved.push_back(newest);
  }
  return resolved;
}

bool say_incomplete_runs(const analysis::ReportDocument& doc, bool allowed) {
  bool refused = false;
  for (const analysis::RunReport& run : doc.runs) {
    for (const std::string& problem : run.incomplete) {
      const std::string line =
          "run " + doc.run_label(run) + " was not checked whole: " + printable(problem);
      if (allowed) {
        print_warning(line + " (allowed by --allow-incomplete)");
      } else {
        print_error(line);
        refused = true;
      }
    }
  }
  return refused;
}

analysis::ReportDocument analyse_inputs(const ReportFlags& flags) {
  analysis::ReportDocument doc;
  doc.thresholds = flags.analysis.thresholds;
  const std::vector<analysis::RunFiles> runs =
      analysis::discover_runs(resolve_run_inputs(flags.inputs));
  std::vector<std::string> all;
  for (const analysis::RunFiles& r : runs) all.insert(all.end(), r.paths.begin(), r.paths.end());
  const uint64_t total = analysis::total_file_bytes(all);
  analysis::Progress progress(total, analysis::want_progress(total));
  const unsigned jobs = flags.jobs != 0 ? flags.jobs : analysis::default_jobs();
  for (const analysis::RunFiles& r : runs) {
    analysis::RunAnalyzer analyzer(flags.analysis);
    analysis::SnapshotLoader loader(r.paths, jobs, &progress);
    Snapshot snapshot;
    while (loader.next(&snapshot)) {
      progress.update();
      analyzer.add(std::move(snapshot));
      snapshot = Snapshot{};
    }
    doc.runs.push_back(analyzer.finish());
  }
  progress.clear();
  return doc;
}

namespace {

// --source-root as SARIF wants it: absolute, the current directory by default.
std::string source_root(const ReportFlags& flags) {
  std::string root = flags.source_root;
  std::error_code ec;
  if (root.empty()) return std::filesystem::current_path(ec).string();
  const auto absolute = std::filesystem::absolute(root, ec);
  if (!ec) root = absolute.lexically_normal().string();
  return root;
}

// The width lines on fd should fit: COLUMNS when it is a number (as ls and ps), else the
// terminal's, else 80.
size_t terminal_columns(int fd) {
  if (const char* env = std::getenv("COLUMNS"); env != nullptr && env[0] != '\0') {
    char* end = nullptr;
    const unsigned long n = std::strtoul(env, &end, 10);
    if (*end == '\0' && n > 0 && n < 100000) return n;
  }
  struct winsize size {};
  if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

// Sparklines for the text on stdout, or nothing.
std::optional<report::SparklineOptions> sparkline_options(const ReportFlags& flags) {
  // Sparklines are the text renderer's (kRenderers' "text").
  if (flags.format != "text" || flags.sparklines == SparklineMode::kNever) return std::nullopt;
  if (flags.sparklines == SparklineMode::kAuto && ::isatty(STDOUT_FILENO) != 1) return std::nullopt;
  report::SparklineOptions options;
  options.columns = terminal_columns(STDOUT_FILENO);
  options.glyphs =
      report::locale_is_utf8(std::getenv("LC_ALL"), std::getenv("LC_CTYPE"), std::getenv("LANG"))
          ? report::SparkGlyphs::kUtf8
          : report::SparkGlyphs::kAscii;
  return options;
}

}  // namespace

int write_all(int fd, const std::string& content) {
  for (size_t done = 0; done < content.size();) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    done += static_cast<size_t>(n);
  }
  return 0;
}

namespace {

bool write_file(const std::string& path, const std::string& content) {
  // open/write rather than a stream: the error says why (ENOSPC, EACCES, EISDIR...).
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0666);
  int err = fd < 0 ? errno : write_all(fd, content);
  if (fd >= 0 && ::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    print_error(path + ": cannot write: " + std::strerror(err));
    return false;
  }
  return true;
}

}  // namespace

int write_outputs(const analysis::ReportDocument& doc, const ReportFlags& flags) {
  bool ok = true;
  report::RenderOptions options;
  options.source_root = source_root(flags);
  // Files: never coloured, no sparklines; in the table's order.
  for (size_t i = 0; i < report::kRendererCount; ++i) {
    if (!flags.files[i].empty())
      ok &= write_file(flags.files[i], report::kRenderers[i].render(doc, options));
  }
  std::cout.flush();  // nothing should be buffered there; keep the order if something is
  const std::optional<report::SparklineOptions> sparklines = sparkline_options(flags);
  options.color = should_color(flags.color, STDOUT_FILENO);
  options.sparklines = sparklines ? &*sparklines : nullptr;
  const report::Renderer* renderer = report::find_renderer(flags.format);
  if (renderer == nullptr) renderer = report::find_renderer(report::kDefaultFormat);
  if (const int err = write_all(STDOUT_FILENO, renderer->render(doc, options))) {
    print_error(std::string("cannot write to stdout: ") + std::strerror(err));
    ok = false;
  }
  return ok ? kExitOk : kExitUsage;
}

}  // namespace vkleak::cli
