"""Issue 36, the gate's identity of a problem and `vkleak baseline`, on real runs (lavapipe): the
identity is the whole call path (a deeper recursion through the same three innermost calls is a
new problem), the baseline file is small, sorted, without pids or absolute paths and the same
bytes on a re-run, a baseline of another program is refused (exit 4), known problems that no
longer occur are named and `--update` removes them, a findings document without call-site frames
still matches by its fingerprint, and a stripped program rebuilt with an unrelated change keeps
its known leak known while a new leak of it is new."""

import json
import os
import shutil
import subprocess
import unittest

from harness import SOURCE, VKLEAK, TempDirTestCase, explicit_env, run, scenario
from harness import vkleak_checked as vkleak

BASELINE_SCHEMA = os.path.join(SOURCE, "src/schema/vkleak-baseline.schema.json")
FINDINGS_SCHEMA = os.path.join(SOURCE, "src/schema/vkleak-findings.schema.json")


def validate(doc, schema_path):
    import jsonschema
    with open(schema_path) as f:
        schema = json.load(f)
    jsonschema.validators.validator_for(schema)(schema).validate(doc)


def load(path):
    with open(path) as f:
        return json.load(f)


def save(doc, path):
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)


# A C program that leaks buffers from two call sites (leak_a, leak_b unless -DNO_B), built with
# and without an unrelated function before them (-DEXTRA: every later offset moves), then
# stripped of every symbol.
LEAKER = r"""
#include <stdio.h>
#include <stdlib.h>
#include <vulkan/vulkan.h>

static VkDevice device;
#ifdef EXTRA
__attribute__((noinline)) int unrelated(int x) {
  volatile int sum = 0;
  for (int i = 0; i < x; ++i) sum += i * x;
  return sum;
}
#endif

static __attribute__((noinline)) void make(const char* why) {
  VkBufferCreateInfo info = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = 1024;
  info.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  VkBuffer buffer;
  if (vkCreateBuffer(device, &info, NULL, &buffer) != VK_SUCCESS) { puts(why); exit(2); }
  __asm__ volatile("" ::: "memory");
}
static __attribute__((noinline)) void leak_a(void) { make("a"); __asm__ volatile("" ::: "memory"); }
static __attribute__((noinline)) void leak_b(void) { make("b"); __asm__ volatile("" ::: "memory"); }

int main(int argc, char** argv) {
  (void)argv;
#ifdef EXTRA
  if (argc > 99) printf("%d\n", unrelated(argc));
#endif
  VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  VkInstance instance;
  if (vkCreateInstance(&ici, NULL, &instance) != VK_SUCCESS) return 3;
  uint32_t n = 1;
  VkPhysicalDevice gpu;
  vkEnumeratePhysicalDevices(instance, &n, &gpu);
  float priority = 1.0f;
  VkDeviceQueueCreateInfo qci = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkDeviceCreateInfo dci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  if (vkCreateDevice(gpu, &dci, NULL, &device) != VK_SUCCESS) return 4;
  /* volatile: one call each, not a loop the compiler unrolls into several return addresses */
  for (volatile int i = 0; i < 3; ++i) leak_a();
#ifndef NO_B
  for (volatile int i = 0; i < 2; ++i) leak_b();
#endif
  vkDestroyDevice(device, NULL);
  vkDestroyInstance(instance, NULL);
  return 0;
}
"""


class BaselineTest(TempDirTestCase):
    def run_program(self, program, out, args=()):
        run([program, *args], explicit_env(self.tmp, out))
        return out

    def gate(self, out, baseline, *options, expect=None):
        proc = subprocess.run([VKLEAK, "gate", out, "--baseline", baseline, "--format", "json",
                               *options], capture_output=True, text=True,
                              env={**os.environ, "DEBUGINFOD_URLS": ""})
        if expect is not None:
            self.assertEqual(proc.returncode, expect, proc.stderr[-3000:])
        return proc

    def test_the_file_and_the_whole_path(self):
        out = self.run_program(scenario("callsite_chains"), os.path.join(self.tmp, "run1"),
                               ["--count", "6"])
        path = os.path.join(self.tmp, "vkleak-baseline.json")
        proc = vkleak(["baseline", out, "-o", path])
        self.assertIn("known problems", proc.stderr)
        with open(path, "rb") as f:
            data = f.read()
        doc = json.loads(data)
        validate(doc, BASELINE_SCHEMA)
        self.assertEqual(doc["programs"], ["callsite_chains"])
        self.assertLess(len(data), 16 * 1024, "small")
        text = data.decode()
        self.assertNotIn(self.tmp, text, "no snapshot or run paths")
        self.assertNotIn(SOURCE, text, "no absolute source paths")
        self.assertNotIn('"pid"', text)
        entries = doc["entries"]
        names = [e["name_pattern"] for e in entries]
        # One entry per problem: a.*, b.*, thread.*, and the recursion at three depths.
        self.assertEqual(len(entries), 6, names)
        self.assertEqual(len([e for e in entries if e["name_pattern"] == "nested*.*"]), 3)
        for e in entries:
            self.assertIn("make_buffer", e["callsite"][0])
            self.assertNotIn("/", " ".join(e["callsite"]))
        # The same problems again: the same bytes.
        out2 = self.run_program(scenario("callsite_chains"), os.path.join(self.tmp, "run2"),
                                ["--count", "6"])
        again = os.path.join(self.tmp, "again.json")
        vkleak(["baseline", out2, "-o", again])
        with open(again, "rb") as f:
            self.assertEqual(f.read(), data)
        self.assertEqual(json.loads(self.gate(out2, path, expect=0).stdout)["gate"]["fixed"], [])

        # The deepest recursion shares its innermost three calls (make_buffer, nested, nested)
        # with the one above it: without its entry it is new, not known by that suffix.
        [deepest] = [e for e in entries if e["name_pattern"] == "nested*.*"
                     and len(e["callsite"]) == max(len(x["callsite"]) for x in entries
                                                   if x["name_pattern"] == "nested*.*")]
        partial = os.path.join(self.tmp, "partial.json")
        save(dict(doc, entries=[e for e in entries if e is not deepest]), partial)
        result = json.loads(self.gate(out2, partial, expect=1).stdout)
        self.assertEqual(result["gate"]["new"], 1)
        [new] = [f for f in result["findings"] if f["status"] == "new"]
        self.assertEqual(new["name_pattern"], "nested*.*")
        self.assertEqual(len([fr for fr in new["callsite_frames"] if fr["function"] and
                              "nested" in fr["function"]]), 3, new["callsite"])

        # A known problem that no longer occurs is named, in the text, the JSON and --update.
        gone = dict(entries[0], name_pattern="gone.*", description="leak_at_exit: gone")
        stale = os.path.join(self.tmp, "stale.json")
        save(dict(doc, entries=entries + [gone]), stale)
        result = self.gate(out2, stale, expect=0)
        validate(json.loads(result.stdout), FINDINGS_SCHEMA)
        self.assertEqual(json.loads(result.stdout)["gate"]["fixed"], ["leak_at_exit: gone"])
        self.assertIn("fixed: leak_at_exit: gone (remove from the baseline with `vkleak "
                      "baseline --update`)", result.stderr)
        text_out = subprocess.run([VKLEAK, "gate", out2, "--baseline", stale, "--color",
                                   "never"], capture_output=True, text=True)
        self.assertEqual(text_out.returncode, 0, text_out.stderr)
        self.assertIn("1 fixed", text_out.stdout)
        self.assertIn("  fixed: leak_at_exit: gone", text_out.stdout)
        # --update: the fixed one removed, the missing one added, the rest as they were.
        save(dict(doc, entries=[e for e in entries if e is not deepest] + [gone]), stale)
        proc = vkleak(["baseline", out2, "-o", stale, "--update"])
        self.assertIn("removed (fixed): leak_at_exit: gone", proc.stderr)
        self.assertIn("added: leak_at_exit: ", proc.stderr)
        with open(stale, "rb") as f:
            self.assertEqual(f.read(), data)

        # The older form, a findings document, still loads; without callsite_frames its
        # fingerprints carry the path.
        findings = os.path.join(self.tmp, "findings.json")
        vkleak(["report", out, "--json", findings])
        self.gate(out2, findings, expect=0)
        old = load(findings)
        for f in old["findings"]:
            del f["callsite_frames"]
        save(old, findings)
        self.gate(out2, findings, expect=0)
        old["findings"] = [f for f in old["findings"] if f["name_pattern"] != "thread.*"]
        save(old, findings)
        self.gate(out2, findings, expect=1)

    def test_a_baseline_of_another_program_is_refused(self):
        chains = self.run_program(scenario("callsite_chains"), os.path.join(self.tmp, "chains"),
                                  ["--count", "2"])
        named = self.run_program(scenario("leak_named_buffers"), os.path.join(self.tmp, "named"))
        path = os.path.join(self.tmp, "chains.json")
        vkleak(["baseline", chains, "-o", path])
        proc = self.gate(named, path, expect=4)
        self.assertIn("the baseline is of \"callsite_chains\", the snapshots are of "
                      "\"leak_named_buffers\"", proc.stderr)
        self.assertIn("--baseline-any-program", proc.stderr)
        # Asked for: used, with a warning; the program's leaks are new.
        proc = self.gate(named, path, "--baseline-any-program", expect=1)
        self.assertIn("used anyway", proc.stderr)
        # --update refuses it the same way.
        vkleak(["baseline", named, "-o", path, "--update"], expect=4)
        vkleak(["baseline", named, "-o", path, "--update", "--baseline-any-program"])
        self.assertEqual(load(path)["programs"], ["leak_named_buffers"])

    def test_a_stripped_program_rebuilt_keeps_its_known_leaks(self):
        source = os.path.join(self.tmp, "leaker.c")
        with open(source, "w") as f:
            f.write(LEAKER)

        def build(name, *defines):
            exe = os.path.join(self.tmp, name, "leaker")
            os.makedirs(os.path.dirname(exe))
            subprocess.run(["cc", "-O1", "-fno-omit-frame-pointer", *defines, source, "-o", exe,
                            "-lvulkan"], check=True)
            subprocess.run(["strip", "--strip-all", exe], check=True)
            return exe

        v1 = build("v1")
        v2 = build("v2", "-DEXTRA")  # an unrelated function added before the leaks
        v3 = build("v3", "-DEXTRA", "-DNO_B")  # leak_b fixed in the same rebuild
        out1 = self.run_program(v1, os.path.join(self.tmp, "out1"))
        out2 = self.run_program(v2, os.path.join(self.tmp, "out2"))
        out3 = self.run_program(v3, os.path.join(self.tmp, "out3"))
        full = os.path.join(self.tmp, "full.json")
        vkleak(["baseline", out1, "-o", full])
        doc = load(full)
        buffers = [e for e in doc["entries"] if e["type"] == "VkBuffer"]
        self.assertEqual(len(buffers), 2, doc)
        for e in buffers:
            self.assertTrue(e["callsite"][0].startswith("leaker+0x"), e["callsite"])
        # The offsets moved: the exact identities differ, the leaks are still known.
        doc2 = json.loads(vkleak(["report", out2, "--format", "json"]).stdout)
        v2_paths = {tuple(f["callsite"]) for f in doc2["findings"]}
        self.assertFalse(any(tuple(e["callsite"]) in v2_paths for e in buffers))
        result = json.loads(self.gate(out2, full, expect=0).stdout)
        self.assertEqual(result["gate"]["fixed"], [])
        # Only leak_a's entry: leak_b (same shape) is a new leak of the rebuilt program (an entry
        # is for one problem of a run, the nearest one).
        [a_entry] = [e for e in buffers if e["count"] == 3]
        only_a = os.path.join(self.tmp, "only_a.json")
        save(dict(doc, entries=[e for e in doc["entries"] if e is not buffers[0] and
                                e is not buffers[1]] + [a_entry]), only_a)
        result = json.loads(self.gate(out2, only_a, expect=1).stdout)
        self.assertEqual(result["gate"]["new"], 1)
        # leak_b fixed in the same rebuild: leak_a known, leak_b's entry named as fixed.
        result = json.loads(self.gate(out3, full, expect=0).stdout)
        self.assertEqual(len(result["gate"]["fixed"]), 1, result["gate"])
        self.assertIn("2 VkBuffer", result["gate"]["fixed"][0])


if __name__ == "__main__":
    unittest.main()
