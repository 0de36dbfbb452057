// Creates and destroys --probes N bare instances first (default 1; programs probe the devices
// so), then the real instance and device, creates --leak N buffers "leaked.<i>" (4 KiB, with
// memory "leaked.<i>.memory"; default 0) that it never destroys, submits --frames frames (default
// 1), and ends by --end: "teardown" (destroys the device and the instance, returns 0), "exit"
// (exit(0) without teardown), "_exit" (_exit(0): no exit handlers), "_Exit", "quick_exit",
// "teardown_exit" (teardown, then _exit(0): a browser's GPU process), "teardown_abort" (teardown,
// then abort()), "kill" (SIGKILL to itself).
// --grow N: N more buffers "grown.<i>" every 5 frames, never destroyed (default 0: growth the
// periodic snapshots see whatever the end). --pause-ms N sleeps after each probe's destroy
// (default 0). --vfork: before the end, a vfork()
// child that calls _exit(7) at once (it shares the parent's memory). stdout: "done: ..." before
// the end.
// vkleak: a probe's instance_destroy snapshot is never the run's end; only teardown and exit
// runs are complete.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "scenario_common.h"

namespace {

void probe_instance() {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "probe_instance.probe";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  VK_CHECK(vkCreateInstance(&info, nullptr, &instance));
  uint32_t count = 0;
  VK_CHECK(vkEnumeratePhysicalDevices(instance, &count, nullptr));
  vkDestroyInstance(instance, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  scenario::Options options("probe_instance",
                            "Probes with bare instances, then leaks buffers and ends as told.", 1);
  uint32_t probes = 1, leak = 0, pause_ms = 0;
  std::string end = "teardown";
  options.add_uint("--probes", &probes, "bare instances created and destroyed first (1)");
  options.add_uint("--leak", &leak, "buffers created and never destroyed (0)");
  uint32_t grow = 0;
  options.add_uint("--grow", &grow, "buffers added every 5 frames and never destroyed (0)");
  options.add_uint("--pause-ms", &pause_ms, "sleep after each probe's destroy, in ms (0)");
  uint32_t vfork_child = 0;
  options.add_string("--end", &end, "how the program ends (teardown)",
                     {"teardown", "exit", "_exit", "_Exit", "quick_exit", "teardown_exit",
                      "teardown_abort", "kill"});
  options.add_uint("--vfork", &vfork_child, "1: a vfork() child calls _exit(7) before the end (0)");
  options.parse(argc, argv);

  for (uint32_t i = 0; i < probes; ++i) {
    probe_instance();
    if (pause_ms) std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
  }

  scenario::Context ctx({"probe_instance", options.swapchain});
  scenario::FrameLoop loop(ctx, {options.swapchain});
  std::vector<scenario::Buffer> leaked;
  for (uint32_t i = 0; i < leak; ++i) {
    leaked.push_back(scenario::create_buffer(ctx, 4096, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                             "leaked." + std::to_string(i)));
  }
  std::vector<scenario::Buffer> grown;
  for (uint32_t i = 0; i < options.frames; ++i) {
    for (uint32_t k = 0; i % 5 == 0 && k < grow; ++k) {
      grown.push_back(scenario::create_buffer(ctx, 4096, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                              "grown." + std::to_string(grown.size())));
    }
    VkCommandBuffer cmd = loop.begin_frame();
    for (const scenario::Buffer& b : leaked) vkCmdFillBuffer(cmd, b.buffer, 0, VK_WHOLE_SIZE, i);
    loop.end_frame();
  }
  loop.wait_last_submit();
  if (vfork_child) {
    const pid_t child = vfork();
    if (child == 0) _exit(7);
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 7)
      return 3;
  }
  std::printf("done: %u probes, %u leaked, end %s\n", probes, leak, end.c_str());
  std::fflush(stdout);
  if (end == "exit") std::exit(0);
  if (end == "_exit") _exit(0);
  if (end == "_Exit") _Exit(0);
  if (end == "quick_exit") std::quick_exit(0);
  if (end == "kill") {
    // Long enough for the writer to finish what it has queued (the device has no destroy
    // snapshot here, nothing is queued but frame snapshots); then the process dies at once.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    kill(getpid(), SIGKILL);
  }
  loop.destroy();
  ctx.destroy();
  if (end == "teardown_exit") _exit(0);
  if (end == "teardown_abort") std::abort();
  return 0;
}
