// Per-type sparklines of `vkleak report` (report/sparkline.h): the resampling (max per bucket),
// the glyphs, the ASCII fallback, the locale test, the lines as they fit a width; and the CLI
// end to end: drawn on a pseudo-terminal, never into a pipe unless forced.
#include "report/sparkline.h"

#include <gtest/gtest.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "report/output.h"
#include "test_support.h"

namespace vkleak {
namespace {

using report::locale_is_utf8;
using report::render_sparklines;
using report::resample_max;
using report::spark_glyphs;
using report::SparkGlyphs;
using report::SparklineOptions;

size_t code_points(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xc0) != 0x80 ? 1 : 0;
  return n;
}

TEST(Sparkline, ResampleKeepsTheMaximumOfEachBucket) {
  EXPECT_EQ(resample_max({1, 9, 2, 3, 4, 5, 6, 7, 8, 0}, 5),
            (std::vector<uint64_t>{9, 3, 5, 7, 8}));
  // A one-snapshot spike survives any width.
  EXPECT_EQ(resample_max({0, 0, 100, 0, 0, 0, 0}, 2), (std::vector<uint64_t>{100, 0}));
  EXPECT_EQ(resample_max({0, 0, 0, 0, 0, 0, 100}, 3), (std::vector<uint64_t>{0, 0, 100}));
  // Uneven buckets: 7 into 3 is [0,2) [2,4) [4,7).
  EXPECT_EQ(resample_max({1, 2, 3, 4, 5, 6, 7}, 3), (std::vector<uint64_t>{2, 4, 7}));
  // What fits is left alone (never stretched).
  EXPECT_EQ(resample_max({3, 1, 2}, 8), (std::vector<uint64_t>{3, 1, 2}));
  EXPECT_EQ(resample_max({}, 8), (std::vector<uint64_t>{}));
}

TEST(Sparkline, GlyphsAreEighthsOfThePeak) {
  EXPECT_EQ(spark_glyphs({0, 1, 2, 3, 4, 5, 6, 7, 8}, 8, SparkGlyphs::kUtf8),
            " \u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588");
  EXPECT_EQ(spark_glyphs({0, 1, 2, 3, 4, 5, 6, 7, 8}, 8, SparkGlyphs::kAscii), " _.,-=+*#");
  // The smallest value that is not 0 still shows; the peak comes from the values if larger.
  EXPECT_EQ(spark_glyphs({1, 1000000}, 0, SparkGlyphs::kUtf8), "\u2581\u2588");
  EXPECT_EQ(spark_glyphs({1, 1000000}, 0, SparkGlyphs::kAscii), "_#");
  // Scaled to the given peak (the type's, when the line was resampled).
  EXPECT_EQ(spark_glyphs({4, 4}, 8, SparkGlyphs::kAscii), "--");
  // Values near UINT64_MAX do not overflow.
  EXPECT_EQ(spark_glyphs({UINT64_MAX / 2, UINT64_MAX}, 0, SparkGlyphs::kAscii), "-#");
}

TEST(Sparkline, LocaleDecidesUtf8AsPosixRanksTheVariables) {
  EXPECT_TRUE(locale_is_utf8(nullptr, nullptr, "en_US.UTF-8"));
  EXPECT_TRUE(locale_is_utf8(nullptr, nullptr, "C.utf8"));
  EXPECT_TRUE(locale_is_utf8(nullptr, "de_DE.UTF-8@euro", nullptr));
  EXPECT_FALSE(locale_is_utf8(nullptr, nullptr, nullptr));  // the C locale
  EXPECT_FALSE(locale_is_utf8(nullptr, nullptr, "C"));
  EXPECT_FALSE(locale_is_utf8(nullptr, nullptr, "POSIX"));
  EXPECT_FALSE(locale_is_utf8(nullptr, nullptr, "en_US.ISO-8859-1"));
  // LC_ALL over LC_CTYPE over LANG; empty ones do not count.
  EXPECT_FALSE(locale_is_utf8("C", "en_US.UTF-8", "en_US.UTF-8"));
  EXPECT_FALSE(locale_is_utf8(nullptr, "C", "en_US.UTF-8"));
  EXPECT_TRUE(locale_is_utf8("", "", "en_US.UTF-8"));
  EXPECT_TRUE(locale_is_utf8("C.UTF-8", "C", "C"));
}

analysis::TypeSeries type(const std::string& name, std::vector<uint64_t> bytes) {
  analysis::TypeSeries t;
  t.type = name;
  t.live.assign(bytes.size(), 1);
  t.bytes = std::move(bytes);
  return t;
}

analysis::RunReport run_of(std::vector<uint64_t> frames, std::vector<analysis::TypeSeries> types) {
  analysis::RunReport r;
  r.series.frames = std::move(frames);
  r.series.types = std::move(types);
  return r;
}

TEST(Sparkline, LinesPerTypeHighestPeakFirst) {
  const uint64_t mib = 1024 * 1024;
  const analysis::RunReport r =
      run_of({10, 20, 30, 40},
             {type("VkBuffer", {0, mib, 2 * mib, 4 * mib}), type("VkCommandBuffer", {0, 0, 0, 0}),
              type("VkImage", {8 * mib, 8 * mib, 1 * mib, 0})});
  SparklineOptions options;
  EXPECT_EQ(render_sparklines(r, options, Style(false)),
            "  live bytes by type, frames 10-40:\n"
            "    VkImage   \u2588\u2588\u2581   0 B, peak 8.0 MiB\n"
            "    VkBuffer   \u2582\u2584\u2588  4.0 MiB, peak 4.0 MiB\n");
  options.glyphs = SparkGlyphs::kAscii;
  EXPECT_EQ(render_sparklines(r, options, Style(false)),
            "  live bytes by type, frames 10-40:\n"
            "    VkImage   ##_   0 B, peak 8.0 MiB\n"
            "    VkBuffer   .-#  4.0 MiB, peak 4.0 MiB\n");
  options.max_types = 1;
  EXPECT_EQ(render_sparklines(r, options, Style(false)),
            "  live bytes by type, frames 10-40:\n"
            "    VkImage  ##_   0 B, peak 8.0 MiB\n"
            "    (1 more type holds bytes)\n");
}

TEST(Sparkline, NothingWithoutASeriesOrBytes) {
  const SparklineOptions options;
  EXPECT_EQ(render_sparklines(run_of({10}, {type("VkBuffer", {5})}), options, Style(false)), "");
  EXPECT_EQ(render_sparklines(run_of({10, 20}, {type("VkFence", {0, 0})}), options, Style(false)),
            "");
}

TEST(Sparkline, LinesFitTheWidthAndKeepTheSpike) {
  std::vector<uint64_t> frames, bytes(1000, 100);
  for (uint64_t i = 0; i < 1000; ++i) frames.push_back(i);
  bytes[617] = 1 << 20;  // one snapshot
  const analysis::RunReport r = run_of(frames, {type("VkDeviceMemory", bytes)});
  for (size_t columns : {60, 80, 200}) {
    SparklineOptions options;
    options.columns = columns;
    const std::string out = render_sparklines(r, options, Style(false));
    const size_t heading = out.find('\n');
    const std::string line = out.substr(heading + 1, out.size() - heading - 2);
    EXPECT_EQ(code_points(line), columns) << line;
    EXPECT_NE(line.find("\u2588"), std::string::npos) << line;
  }
  // Narrower than the labels: a short line rather than none.
  SparklineOptions narrow;
  narrow.columns = 10;
  EXPECT_NE(render_sparklines(r, narrow, Style(false)).find("\u2588"), std::string::npos);
}

TEST(Sparkline, TextOutputHasThemOnlyWhenAsked) {
  analysis::ReportDocument doc;
  doc.runs.push_back(run_of({1, 2}, {type("VkBuffer", {1, 2})}));
  EXPECT_EQ(report::render_text(doc, Style(false)).find("live bytes"), std::string::npos);
  const SparklineOptions options;
  EXPECT_NE(report::render_text(doc, Style(false), &options).find("VkBuffer  \u2584\u2588"),
            std::string::npos);
}

// vkleak report end to end, on a generated run.
class SparklineCli : public ::testing::Test {
 protected:
  void SetUp() override {
    const test::ProcessResult r =
        test::run_process({VKLEAK_GEN_RUN, run(), "--objects", "300", "--teardown"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  std::string run() const { return dir_.file("run"); }

  // vkleak's stdout and stderr when both are a pseudo-terminal.
  // columns: COLUMNS, or "" to leave the width to the terminal's (pty_columns).
  std::string on_terminal(const std::vector<std::string>& args, const std::string& lang,
                          const std::string& columns = "100", unsigned short pty_columns = 80) {
    int master = -1;
    struct winsize size {};
    size.ws_row = 24;
    size.ws_col = pty_columns;
    const pid_t pid = ::forkpty(&master, nullptr, nullptr, &size);
    if (pid == 0) {
      ::unsetenv("LC_ALL");
      ::unsetenv("LC_CTYPE");
      ::unsetenv("NO_COLOR");
      ::setenv("LANG", lang.c_str(), 1);
      if (columns.empty()) {
        ::unsetenv("COLUMNS");
      } else {
        ::setenv("COLUMNS", columns.c_str(), 1);
      }
      ::setenv("DEBUGINFOD_URLS", "", 1);
      std::vector<char*> argv{const_cast<char*>(VKLEAK_BIN)};
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(VKLEAK_BIN, argv.data());
      ::_exit(127);
    }
    EXPECT_GT(pid, 0);
    std::string out;
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(master, buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // EIO once the child has closed its side
      out.append(buf, static_cast<size_t>(n));
    }
    ::close(master);
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
    return out;
  }

  test::ProcessResult piped(std::vector<std::string> args, const std::string& lang) {
    args.insert(args.begin(), VKLEAK_BIN);
    test::ProcessOptions options;
    options.unset_env = {"VKLEAK_*", "NO_COLOR", "LC_ALL", "LC_CTYPE"};
    options.set_env = {{"DEBUGINFOD_URLS", ""}, {"LANG", lang}, {"COLUMNS", "100"}};
    return test::run_process(args, options);
  }

  test::TempDir dir_;
};

// The widest line of the sparklines in out, in columns: colour escapes left out, the pty's
// \r\n line ends too. 0 when there are none.
size_t widest_sparkline(const std::string& out) {
  size_t start = out.find("live bytes by type");
  if (start == std::string::npos) return 0;
  size_t widest = 0;
  for (start = out.find('\n', start) + 1; out.compare(start, 4, "    ") == 0;) {
    const size_t end = out.find('\n', start);
    std::string visible;
    for (size_t i = start; i < end; ++i) {
      if (out[i] == '\x1b') {
        i = out.find('m', i);
      } else if (out[i] != '\r') {
        visible += out[i];
      }
    }
    widest = std::max(widest, code_points(visible));
    start = end + 1;
  }
  return widest;
}

TEST_F(SparklineCli, DrawnOnATerminal) {
  const std::string out = on_terminal({"report", run(), "--no-symbolize"}, "C.UTF-8");
  EXPECT_NE(out.find("live bytes by type"), std::string::npos) << out;
  EXPECT_NE(out.find("\u2588"), std::string::npos) << out;
  EXPECT_NE(out.find("\x1b[36m"), std::string::npos) << out;  // coloured with the rest
  EXPECT_GT(widest_sparkline(out), 20u) << out;
  EXPECT_LE(widest_sparkline(out), 100u) << out;
}

TEST_F(SparklineCli, AsWideAsTheTerminal) {
  // More snapshots than columns: the lines take the width COLUMNS or the terminal gives.
  const std::string long_run = dir_.file("long");
  const test::ProcessResult r = test::run_process(
      {VKLEAK_GEN_RUN, long_run, "--objects", "40", "--snapshots", "48", "--stacks", "4"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> args{"report", long_run, "--no-symbolize"};
  EXPECT_EQ(widest_sparkline(on_terminal(args, "C.UTF-8", "", 70)), 70u);
  EXPECT_EQ(widest_sparkline(on_terminal(args, "C.UTF-8", "", 90)), 90u);
  EXPECT_EQ(widest_sparkline(on_terminal(args, "C.UTF-8", "80", 90)), 80u);
}

TEST_F(SparklineCli, AsciiOnATerminalWithoutUtf8) {
  const std::string out = on_terminal({"report", run(), "--no-symbolize"}, "C");
  EXPECT_NE(out.find("live bytes by type"), std::string::npos) << out;
  EXPECT_EQ(out.find("\u2588"), std::string::npos) << out;
  EXPECT_NE(out.find('#'), std::string::npos) << out;
}

TEST_F(SparklineCli, NeverOnATerminalWhenDisabled) {
  const std::string out =
      on_terminal({"report", run(), "--no-symbolize", "--sparklines", "never"}, "C.UTF-8");
  EXPECT_NE(out.find("Run pid"), std::string::npos) << out;
  EXPECT_EQ(out.find("live bytes by type"), std::string::npos) << out;
}

TEST_F(SparklineCli, NotInAPipeUnlessForced) {
  test::ProcessResult r = piped({"report", run(), "--no-symbolize"}, "C.UTF-8");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Run pid"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("live bytes by type"), std::string::npos) << r.out;
  r = piped({"report", run(), "--no-symbolize", "--sparklines=always"}, "C.UTF-8");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("live bytes by type"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\u2588"), std::string::npos) << r.out;
  // Only in text: JSON stays JSON.
  r = piped({"report", run(), "--no-symbolize", "--sparklines=always", "--format", "json"},
            "C.UTF-8");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("live bytes by type"), std::string::npos);
  // Bad values are refused as --color's are.
  r = piped({"report", run(), "--sparklines=sometimes"}, "C.UTF-8");
  EXPECT_EQ(r.exit_code, 2) << r.out;
}

}  // namespace
}  // namespace vkleak
