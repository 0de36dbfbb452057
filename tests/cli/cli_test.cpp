// The vkleak binary end to end: --version/--help, exit codes, `show` output, and `run`'s
// environment, exit-code passthrough and signal forwarding. `run` needs only a manifest to find,
// not a working layer: the tests point VKLEAK_LAYER_DIR at a dummy one.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "test_support.h"

namespace vkleak {
namespace {

namespace fs = std::filesystem;
using test::data_path;
using test::ProcessOptions;
using test::ProcessResult;
using test::read_file;
using test::run_process;
using test::TempDir;
using test::write_file;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string describe(const ProcessResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

ProcessResult vkleak(std::vector<std::string> args, ProcessOptions options = {}) {
  args.insert(args.begin(), VKLEAK_BIN);
  // Never let the caller's environment decide where the layer is or whether to colour.
  options.unset_env.push_back("VKLEAK_*");
  options.unset_env.push_back("VK_INSTANCE_LAYERS");
  options.unset_env.push_back("VK_ADD_LAYER_PATH");
  options.unset_env.push_back("NO_COLOR");
  return run_process(args, options);
}

// A layer manifest whose library loads (vkleak run checks that before running the program);
// these programs never create a Vulkan instance, so no loader reads it.
const char kDummyManifest[] =
    "{\"file_format_version\": \"1.2.0\", \"layer\": {\"name\": \"VK_LAYER_VKLEAK_tracker\", "
    "\"library_path\": \"libc.so.6\"}}";

// A directory with a dummy layer manifest, for `vkleak run`.
class RunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(layer_dir());
    write_file(layer_dir() + "/VkLayer_vkleak.json", kDummyManifest);
  }
  std::string layer_dir() const { return dir_.file("layer"); }
  std::string out_dir() const { return dir_.file("out"); }

  ProcessResult run(std::vector<std::string> command, std::vector<std::string> flags = {},
                    ProcessOptions options = {}) {
    std::vector<std::string> args = {"run"};
    if (flags.empty()) flags = {"--out", out_dir()};
    args.insert(args.end(), flags.begin(), flags.end());
    args.push_back("--");
    args.insert(args.end(), command.begin(), command.end());
    options.set_env.push_back({"VKLEAK_LAYER_DIR", layer_dir()});
    return vkleak(args, options);
  }

  TempDir dir_;
};

const char kPrintEnv[] =
    "echo \"layers=$VK_INSTANCE_LAYERS\"; echo \"path=$VK_ADD_LAYER_PATH\"; "
    "echo \"out=$VKLEAK_OUTPUT_DIR\"; echo \"every=${VKLEAK_SNAPSHOT_EVERY-unset}\"; "
    "echo \"boundary=${VKLEAK_FRAME_BOUNDARY-unset}\"; "
    "echo \"depth=${VKLEAK_CALLSTACK_DEPTH-unset}\"";

TEST(CliTest, Version) {
  const std::string expected = std::string("vkleak ") + VKLEAK_VERSION + "\n";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--version"}, {"show", "--version"}, {"run", "--version"}}) {
    const ProcessResult r = vkleak(args);
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_EQ(r.out, expected) << describe(r);
  }
}

TEST(CliTest, Help) {
  ProcessResult r = vkleak({"--help"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "run")) << r.out;
  EXPECT_TRUE(contains(r.out, "show")) << r.out;
  r = vkleak({"show", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out, "--top")) << r.out;
  EXPECT_TRUE(contains(r.out, "--no-symbolize")) << r.out;
  r = vkleak({"run", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out, "--frame-boundary")) << r.out;
}

TEST(CliTest, UsageErrorsExitTwo) {
  const std::string snapshot = data_path("small.json");
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {},
           {"frobnicate"},
           {"show"},
           {"show", snapshot, "--format", "xml"},
           {"show", snapshot, "--color", "sometimes"},
           {"show", snapshot, "--top", "-1"},
           {"show", snapshot, "--top", "ten"},
           {"show", snapshot, "--bogus"},
           {"run"},
           {"run", "--every", "0", "--", "true"},
           {"run", "--every", "abc", "--", "true"},
           {"run", "--every", "99999999999999999999", "--", "true"},
           {"run", "--frame-boundary", "vsync", "--", "true"},
           {"run", "--callstack-depth", "-1", "--", "true"},
           {"run", "--callstack-depth", "100000", "--", "true"},
       }) {
    const ProcessResult r = vkleak(args);
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    EXPECT_EQ(r.exit_code, 2) << joined << describe(r);
    EXPECT_TRUE(contains(r.err, "vkleak: error: ")) << joined << describe(r);
    EXPECT_EQ(r.out, "") << joined;
  }
}

// Issue 26: `vkleak bogus` said "A subcommand is required".
TEST(CliTest, UnknownCommandIsNamed) {
  const ProcessResult r = vkleak({"bogus", "x"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err,
                       "vkleak: error: unknown command \"bogus\"; the commands are run, "
                       "show, report, diff, gate and baseline"))
      << describe(r);
  EXPECT_FALSE(contains(r.err, "A subcommand is required")) << describe(r);
  EXPECT_EQ(r.out, "");
}

// Issue 26: /proc files have a size of 0 but content; `show` said "file is empty".
TEST(ShowTest, ProcFilesAreReadNotCalledEmpty) {
  const ProcessResult r = vkleak({"show", "/proc/self/maps"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "vkleak: error: /proc/self/maps: ")) << describe(r);
  EXPECT_FALSE(contains(r.err, "file is empty")) << describe(r);
  EXPECT_EQ(r.out, "");
}

TEST(CliTest, RunExplainsWhereAppArgumentsGo) {
  const ProcessResult r = vkleak({"run", "myapp", "--level", "3"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "Put the application and its arguments after --")) << r.err;
}

TEST(ShowTest, TextOutput) {
  const ProcessResult r = vkleak({"show", data_path("small.json")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.err, "");
  const std::string& out = r.out;
  EXPECT_TRUE(contains(out, "device_destroy (device 2)")) << out;
  EXPECT_TRUE(contains(out, "pid 4242, /opt/vkleak-demo/bin/demo, snapshot #3")) << out;
  EXPECT_TRUE(contains(out, "8 live, 2.2 MiB")) << out;
  EXPECT_TRUE(contains(out,
                       "2 events since the last snapshot (1 destroyed_in_flight, 1 "
                       "invalid_destroy)"))
      << out;
  // Types by bytes: memory first.
  EXPECT_LT(out.find("VkDeviceMemory"), out.find("VkBuffer ")) << out;
  EXPECT_TRUE(contains(out, "VkDeviceMemory     2    2.0 MiB")) << out;
  // Call sites by count; the validation-layer frame is skipped, the app frame comes first.
  EXPECT_TRUE(contains(out, "#1  4 objects, 256.0 KiB: VkBuffer")) << out;
  EXPECT_TRUE(
      contains(out, "names: \"frame.buffer.10\", \"frame.buffer.12\", \"frame.buffer.14\"\n"))
      << out;
  EXPECT_FALSE(contains(out, "frame.buffer.16")) << "at most 3 example names";
  EXPECT_TRUE(contains(out, "      demo+0x1100\n      demo+0x2200\n")) << out;
  EXPECT_TRUE(contains(out,
                       "(1 frame in the Vulkan stack not shown: loader, layers, drivers, "
                       "translation libraries)"))
      << out;
  EXPECT_FALSE(contains(out, "libVkLayer_khronos_validation")) << out;
  EXPECT_FALSE(contains(out, "libvulkan")) << out;
  EXPECT_TRUE(contains(out, "#2  2 objects, 2.0 MiB: VkDeviceMemory\n      demo+0x1500")) << out;
  EXPECT_TRUE(contains(out, "(no call site recorded)")) << out;
  EXPECT_TRUE(contains(out, "0x7fff00000000")) << "unmapped address printed raw\n" << out;
  // Untrusted debug names cannot reach the terminal raw, and no colour into a pipe.
  EXPECT_TRUE(contains(out, "\"hud \\x1b[31mred\\x1b[0m\"")) << out;
  EXPECT_FALSE(contains(out, "\x1b")) << out;
  EXPECT_FALSE(contains(out, "not shown (--top")) << "all 4 call sites fit in the default 10";
}

TEST(ShowTest, ColourOnRequest) {
  ProcessResult r = vkleak({"show", "--color", "always", data_path("small.json")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "\x1b[1m")) << r.out;
  // Even coloured, the debug name's own escape sequence stays escaped.
  EXPECT_TRUE(contains(r.out, "\"hud \\x1b[31mred\\x1b[0m\"")) << r.out;
  r = vkleak({"show", "--color", "never", data_path("small.json")});
  EXPECT_FALSE(contains(r.out, "\x1b")) << r.out;
}

TEST(ShowTest, TopSaysHowManyAreNotShown) {
  ProcessResult r = vkleak({"show", "--top", "1", data_path("small.json")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "Top 1 of 4 creation call sites")) << r.out;
  EXPECT_TRUE(contains(r.out, "3 more call sites not shown (--top 0 shows all)")) << r.out;
  EXPECT_FALSE(contains(r.out, "#2")) << r.out;
  r = vkleak({"show", "--top", "0", data_path("small.json")});
  EXPECT_TRUE(contains(r.out, "#4")) << r.out;
  EXPECT_FALSE(contains(r.out, "not shown (--top")) << r.out;
}

TEST(ShowTest, JsonOutput) {
  const ProcessResult r =
      vkleak({"show", "--format", "json", "--top", "2", data_path("small.json")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["format"], "vkleak-show");
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["snapshot"]["pid"], 4242);
  EXPECT_EQ(j["snapshot"]["reason"], "device_destroy");
  EXPECT_EQ(j["snapshot"]["scope"]["device"], 2);
  EXPECT_EQ(j["objects"], 8);
  EXPECT_EQ(j["bytes"], 2359296);
  ASSERT_EQ(j["types"].size(), 4u);
  EXPECT_EQ(j["types"][0]["type"], "VkDeviceMemory");
  EXPECT_EQ(j["count_mismatches"].size(), 0u);
  EXPECT_EQ(j["events"]["destroyed_in_flight"], 1);
  EXPECT_EQ(j["events_dropped"], 0);
  EXPECT_EQ(j["callsites_total"], 4);
  EXPECT_EQ(j["callsites_not_shown"], 2);
  ASSERT_EQ(j["callsites"].size(), 2u);
  const nlohmann::json& site = j["callsites"][0];
  EXPECT_EQ(site["callsite"], 0);
  EXPECT_EQ(site["count"], 4);
  EXPECT_EQ(site["bytes"], 262144);
  EXPECT_EQ(site["types"][0]["type"], "VkBuffer");
  EXPECT_EQ(site["example_names"].size(), 3u);
  EXPECT_EQ(site["skipped_frames"], 1);
  ASSERT_EQ(site["frames"].size(), 2u);
  EXPECT_EQ(site["frames"][0]["text"], "demo+0x1100");
  EXPECT_EQ(site["frames"][0]["address"], "0x555500001100");
  EXPECT_EQ(site["frames"][0]["module"], "/opt/vkleak-demo/bin/demo");
  EXPECT_EQ(site["frames"][0]["offset"], "0x1100");
  EXPECT_TRUE(site["frames"][0]["function"].is_null());
  EXPECT_EQ(site["frames"][0]["note"], "file not found");
}

TEST(ShowTest, NoSymbolize) {
  const ProcessResult r =
      vkleak({"show", "--no-symbolize", "--format", "json", data_path("small.json")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["callsites"][0]["frames"][0]["note"].is_null()) << "no file was looked at";
  EXPECT_EQ(j["callsites"][0]["frames"][0]["text"], "demo+0x1100");
}

TEST(ShowTest, WarnsWhenCountsDisagree) {
  const ProcessResult r = vkleak({"show", data_path("count_mismatch.json")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "vkleak: warning: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "VkBuffer has 5 live (1.2 KiB) but the objects add up to 1 (256 B)"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "VkFence has 1 live")) << r.err;
  EXPECT_TRUE(contains(r.out, "tracking was degraded")) << r.out;
  EXPECT_TRUE(contains(r.out, "0 events since the last snapshot, 12 more dropped")) << r.out;
  const ProcessResult j = vkleak({"show", "--format", "json", data_path("count_mismatch.json")});
  EXPECT_EQ(nlohmann::json::parse(j.out)["count_mismatches"].size(), 2u);
}

TEST(ShowTest, ReadsVersion1Snapshots) {
  const ProcessResult r = vkleak({"show", data_path("v1/small.json")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "#1  4 objects, 256.0 KiB: VkBuffer")) << r.out;
  // Version-1 layers already wrote events (without the in-flight ones).
  EXPECT_TRUE(contains(r.out, "1 event since the last snapshot (1 invalid_destroy)")) << r.out;
}

TEST(ShowTest, EmptySnapshot) {
  const ProcessResult r = vkleak({"show", data_path("minimal.json")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "0 live, 0 B")) << r.out;
  EXPECT_TRUE(contains(r.out, "(none)")) << r.out;
}

TEST(ShowTest, BadInputExitsTwoWithTheReason) {
  TempDir dir;
  const std::string text = read_file(data_path("small.json"));
  write_file(dir.file("truncated.json"), text.substr(0, text.size() / 2));
  std::string newer = text;
  newer.replace(newer.find("\"version\": 2"), 12, "\"version\": 3");
  write_file(dir.file("newer.json"), newer);
  write_file(dir.file("foreign.json"), "{\"name\": \"package\", \"version\": \"1.0.0\"}");
  write_file(dir.file("empty.json"), "");
  struct Case {
    std::string path, message;
  };
  for (const Case& c :
       {Case{dir.file("missing.json"), "cannot open: No such file or directory"},
        Case{dir.file("truncated.json"), "truncated JSON"},
        Case{dir.file("newer.json"),
             "snapshot version 3 is newer than this vkleak supports (2); "
             "upgrade vkleak"},
        Case{dir.file("foreign.json"), "not a vkleak snapshot"},
        Case{dir.file("empty.json"), "file is empty"}, Case{dir.path(), "is a directory"}}) {
    for (const char* format : {"text", "json"}) {
      const ProcessResult r = vkleak({"show", "--format", format, c.path});
      EXPECT_EQ(r.exit_code, 2) << c.path << describe(r);
      EXPECT_TRUE(contains(r.err, "vkleak: error: " + c.path + ": " + c.message)) << describe(r);
      EXPECT_EQ(r.out, "") << "nothing half-printed on stdout";
    }
  }
}

TEST(ShowTest, LeavesTheSnapshotUntouched) {
  TempDir dir;
  const std::string path = dir.file("vkleak-1-1-exit.json");
  fs::copy_file(data_path("small.json"), path);
  const auto before = fs::last_write_time(path);
  const ProcessResult r = vkleak({"show", path});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(read_file(path), read_file(data_path("small.json")));
  EXPECT_EQ(fs::last_write_time(path), before);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1)
      << "no files created next to it";
}

TEST_F(RunTest, ExitCodePassesThrough) {
  EXPECT_EQ(run({"/bin/false"}).exit_code, 1);
  EXPECT_EQ(run({"true"}).exit_code, 0);
  EXPECT_EQ(run({"sh", "-c", "exit 42"}).exit_code, 42);
}

TEST_F(RunTest, KilledBySignalIs128PlusSignal) {
  const ProcessResult r = run({"sh", "-c", "kill -TERM $$"});
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << describe(r);
  EXPECT_TRUE(contains(r.err, "killed by signal 15")) << r.err;
}

TEST_F(RunTest, ApplicationNotFoundIs127) {
  ProcessResult r = run({"/nonexistent/app"});
  EXPECT_EQ(r.exit_code, 127) << describe(r);
  EXPECT_TRUE(contains(r.err, "vkleak: error: /nonexistent/app: no such file")) << r.err;
  r = run({"vkleak-no-such-command-on-path"});
  EXPECT_EQ(r.exit_code, 127) << describe(r);
  EXPECT_TRUE(contains(r.err, "vkleak-no-such-command-on-path: command not found")) << r.err;
}

TEST_F(RunTest, NotExecutableIs126) {
  const std::string script = dir_.file("not-executable.sh");
  write_file(script, "#!/bin/sh\nexit 0\n");
  ::chmod(script.c_str(), 0644);
  ProcessResult r = run({script});
  EXPECT_EQ(r.exit_code, 126) << describe(r);
  EXPECT_TRUE(contains(r.err, "cannot execute " + script)) << r.err;
  r = run({dir_.path()});  // a directory
  EXPECT_EQ(r.exit_code, 126) << describe(r);
}

TEST_F(RunTest, SetsTheLayerEnvironment) {
  const ProcessResult r =
      run({"sh", "-c", kPrintEnv}, {"--out", out_dir(), "--every", "5", "--frame-boundary",
                                    "submit", "--callstack-depth", "12"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out, "layers=VK_LAYER_VKLEAK_tracker\npath=" + layer_dir() + "\nout=" + out_dir() +
                       "\nevery=5\nboundary=submit\ndepth=12\n");
  EXPECT_TRUE(fs::is_directory(out_dir()));
  EXPECT_TRUE(contains(r.err, "vkleak: writing snapshots to " + out_dir())) << r.err;
  EXPECT_TRUE(contains(r.err, "vkleak: 0 snapshot(s) in " + out_dir())) << r.err;
}

TEST_F(RunTest, UnsetOptionsStayUnset) {
  const ProcessResult r = run({"sh", "-c", kPrintEnv});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "every=unset\nboundary=unset\ndepth=unset\n")) << r.out;
}

TEST_F(RunTest, ExtendsExistingLayerVariables) {
  ProcessOptions options;
  options.set_env = {{"VK_INSTANCE_LAYERS", "VK_LAYER_KHRONOS_validation"},
                     {"VK_ADD_LAYER_PATH", "/opt/layers"}};
  ProcessResult r = run({"sh", "-c", kPrintEnv}, {}, options);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "layers=VK_LAYER_KHRONOS_validation:VK_LAYER_VKLEAK_tracker\n"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "path=" + layer_dir() + ":/opt/layers\n")) << r.out;
  // Already listed: not added twice.
  options.set_env = {{"VK_INSTANCE_LAYERS", "VK_LAYER_VKLEAK_tracker:VK_LAYER_KHRONOS_validation"}};
  r = run({"sh", "-c", kPrintEnv}, {}, options);
  EXPECT_TRUE(contains(r.out, "layers=VK_LAYER_VKLEAK_tracker:VK_LAYER_KHRONOS_validation\n"))
      << r.out;
}

TEST_F(RunTest, DefaultOutputDirectory) {
  const std::string cwd = dir_.file("cwd");
  fs::create_directories(cwd);
  ProcessOptions options;
  options.cwd = cwd;
  const ProcessResult r =
      run({"sh", "-c", "echo \"$VKLEAK_OUTPUT_DIR\""}, {"--every", "3"}, options);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const std::string out = r.out.substr(0, r.out.size() - 1);
  const std::string prefix = fs::canonical(cwd).string() + "/vkleak-snapshots/run-";
  ASSERT_EQ(out.rfind(prefix, 0), 0u) << out;
  // run-YYYYmmdd-HHMMSS-<pid>
  const std::string stamp = out.substr(prefix.size());
  ASSERT_GE(stamp.size(), 17u) << stamp;
  EXPECT_EQ(stamp[8], '-') << stamp;
  EXPECT_EQ(stamp[15], '-') << stamp;
  EXPECT_TRUE(fs::is_directory(out)) << out;
}

TEST_F(RunTest, ReportsTheSnapshotsWritten) {
  const ProcessResult r =
      run({"sh", "-c",
           "cd \"$VKLEAK_OUTPUT_DIR\" && echo {} > vkleak-77-1-frame.json && "
           "echo {} > vkleak-77-2-exit.json && echo {} > vkleak-77-3-exit.json.tmp"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "vkleak: 2 snapshot(s) in " + out_dir() + "\n")) << r.err;
  // The run's directory, not its last snapshot (issue 27, point 5); these are no snapshots.
  EXPECT_TRUE(contains(r.err, "vkleak: could not analyse this run's snapshots\n")) << r.err;
  EXPECT_TRUE(contains(r.err, "vkleak: see the report: vkleak report " + out_dir() + "\n"))
      << r.err;
}

TEST_F(RunTest, MissingManifestIsAnError) {
  TempDir empty;
  ProcessOptions options;
  options.set_env = {{"VKLEAK_LAYER_DIR", empty.path()}};
  std::vector<std::string> args = {"run", "--out", out_dir(), "--", "true"};
  args.insert(args.begin(), VKLEAK_BIN);
  const ProcessResult r = run_process(args, options);
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(
      r.err, "VKLEAK_LAYER_DIR is set to " + empty.path() + ", which has no VkLayer_vkleak.json"))
      << r.err;
}

TEST_F(RunTest, FindsTheBuildTreeManifest) {
  // From the build tree, with no VKLEAK_LAYER_DIR: the build-tree manifest if the layer has been
  // built, else an error naming where it looked.
  const std::string manifest_dir = VKLEAK_TEST_BUILD_LAYER_DIR;
  const ProcessResult r =
      vkleak({"run", "--out", out_dir(), "--", "sh", "-c", "echo \"$VK_ADD_LAYER_PATH\""});
  if (fs::exists(manifest_dir + "/VkLayer_vkleak.json")) {
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_EQ(r.out, fs::weakly_canonical(manifest_dir).string() + "\n");
  } else {
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_TRUE(contains(r.err, manifest_dir + " (build tree)")) << r.err;
  }
}

TEST_F(RunTest, FindsTheInstalledManifest) {
  // An installed layout: <prefix>/bin/vkleak and <prefix>/share/vulkan/explicit_layer.d.
  const std::string prefix = dir_.file("prefix");
  fs::create_directories(prefix + "/bin");
  fs::create_directories(prefix + "/share/vulkan/explicit_layer.d");
  write_file(prefix + "/share/vulkan/explicit_layer.d/VkLayer_vkleak.json", kDummyManifest);
  fs::copy_file(VKLEAK_BIN, prefix + "/bin/vkleak");
  ProcessOptions options;
  options.unset_env = {"VKLEAK_*", "VK_ADD_LAYER_PATH"};
  const ProcessResult r = run_process({prefix + "/bin/vkleak", "run", "--out", out_dir(), "--",
                                       "sh", "-c", "echo \"$VK_ADD_LAYER_PATH\""},
                                      options);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out, fs::canonical(prefix).string() + "/share/vulkan/explicit_layer.d\n");
}

TEST_F(RunTest, ForwardsSigtermToTheApplication) {
  TempDir scratch;
  const std::string started = dir_.file("started");
  test::ProcessOptions options;
  options.set_env = {{"VKLEAK_LAYER_DIR", layer_dir()}};
  options.unset_env = {"VKLEAK_OUTPUT_DIR"};
  // The app records that it runs, then waits; only a forwarded signal ends it early.
  const test::Process p = test::start_process(
      {VKLEAK_BIN, "run", "--out", out_dir(), "--", "sh", "-c",
       "trap 'echo got-term; exit 3' TERM; touch '" + started +
           "'; "
           "i=0; while [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; echo timeout"},
      options, scratch);
  for (int i = 0; i < 200 && !fs::exists(started); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ASSERT_TRUE(fs::exists(started));
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(::kill(p.pid, SIGTERM), 0);
  const ProcessResult r = test::wait_process(p);
  const auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(r.exit_code, 3) << "the app's own exit code after its TERM handler\n" << describe(r);
  EXPECT_TRUE(contains(r.out, "got-term")) << describe(r);
  EXPECT_LT(waited, std::chrono::seconds(10));
  EXPECT_TRUE(contains(r.err, "snapshot(s) in")) << "vkleak outlived the app to report";
}

}  // namespace
}  // namespace vkleak
