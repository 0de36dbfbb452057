"""Call sites through a helper inlined at -O2 (scenario callsite_inlined): every return address
expands into its inline chain as `addr2line -i -f -C` prints it, each caller is named with its
line, fingerprints keep the callers apart, a suppression on a function that exists only as an
inlined frame matches, and a stripped copy of the program gives module+offset frames.

Misuse with stacks (scenario misuse, -O2 too): a double destroy, a destroy with the wrong device
and a destroy in flight are events of the raw snapshots whose stacks symbolize, as
`llvm-addr2line -i -f -C` prints them, to the functions that made each call; 10,000 valid
destroys of reused handle values are no invalid_destroy."""

import json
import os
import re
import shutil
import subprocess
import unittest

from harness import (SOURCE as SOURCE_DIR, VALIDATION, TempDirTestCase, VKLEAK, base_env,
                     explicit_env, require_layers, run, scenario, snapshot_files, snapshots,
                     validate)

PROGRAM = "callsite_inlined"
SOURCE = "callsite_inlined.cpp"
COUNT = 3


def addr2line(tool, binary, offset):
    """[(function, line)] innermost first, as `tool -i -f -C` prints them."""
    out = subprocess.run([tool, "-i", "-f", "-C", "-e", binary, hex(offset)],
                         check=True, capture_output=True, text=True).stdout.splitlines()
    frames = []
    for function, where in zip(out[0::2], out[1::2]):
        line = where.rsplit(":", 1)[1].split(" ")[0]
        frames.append((function, int(line) if line.isdigit() else 0))
    return frames


def is_startup(function):
    """The C runtime's start-up code, which vkleak does not show (core/symbolizer.h)."""
    return function == "_start" or function.startswith("__libc_start")


def lambda_spelling(function):
    """GNU's demangled lambda, main::{lambda(unsigned int)#1}, as LLVM spells it."""
    return re.sub(r"\{lambda\(([^)]*)\)#\d+\}", r"'lambda'(\1)", function)


class InlinedCallsiteTest(TempDirTestCase):
    def run_program(self, program):
        run([program, "--count", str(COUNT)], explicit_env(self.tmp, self.out))
        [snap] = snapshots(self.out, "device_destroy")
        validate(snap)
        return snap

    def report(self, *options, command="report"):
        proc = run([VKLEAK, command, "--format", "json", *options, self.out],
                   base_env(self.tmp), check=False)
        doc = self.doc = json.loads(proc.stdout)
        found = {}
        for f in doc["findings"]:
            if f["kind"] == "leak_at_exit" and f["object_type"] == "VkBuffer":
                found[f["name_pattern"]] = f
        self.assertEqual(set(found), {"lambda.*", "tmpl.*"}, doc["findings"])
        return found

    def test_frames_equal_addr2line_for_every_address(self):
        program = scenario(PROGRAM)
        snap = self.run_program(program)
        [exe] = [m for m in snap["modules"] if m["path"] == program]
        bias = int(exe["bias"], 16)
        lo, hi = int(exe["base"], 16), int(exe["base"], 16) + exe["size"]
        ids = {}
        for o in snap["objects"]:
            if o["type"] == "VkBuffer" and o["name"]:
                ids.setdefault(o["name"].split(".")[0], set()).add(o["callsite"])
        self.assertEqual(set(ids), {"lambda", "tmpl"})
        path = [p for p in snapshot_files(self.out) if "device_destroy" in p][0]
        shown = json.loads(run([VKLEAK, "show", "--format", "json", "--top", "50", path],
                               base_env(self.tmp)).stdout)
        by_id = {c["callsite"]: c for c in shown["callsites"]}
        recorded = {c["id"]: c["frames"] for c in snap["callsites"]}
        for group, (callsite,) in ids.items():
            gnu, llvm = [], []
            for address in recorded[callsite]:
                address = int(address, 16)
                if lo <= address < hi:  # the program's own frames; libc may lack debug info
                    gnu += addr2line("addr2line", program, address - bias - 1)
                    llvm += addr2line("llvm-addr2line", program, address - bias - 1)
            # The C runtime's start-up frames are not shown (issue 27, point 10).
            gnu = [(f, l) for f, l in gnu if not is_startup(f)]
            llvm = [(f, l) for f, l in llvm if not is_startup(f)]
            frames = [(f["function"], f["line"] or 0, f["inlined"])
                      for f in by_id[callsite]["frames"] if f["module"] == program]
            # Every frame's line as both print it. Names: GNU addr2line (2.40) gives an inlined
            # function without a linkage name (create_buffer is static) its host's name, and
            # names each caller by its plain DW_AT_name; llvm-addr2line reads the same DWARF
            # as vkleak does, names included.
            self.assertEqual([l for _, l, _ in frames], [l for _, l in gnu], (group, gnu))
            self.assertEqual([(lambda_spelling(f), l) for f, l, _ in frames], llvm, group)
            # The helper is inlined into its caller: two frames for one address.
            self.assertEqual(frames[0][0], "create_buffer", frames)
            self.assertTrue(frames[0][2], frames)
            self.assertFalse(frames[1][2], frames)
        self.assertIn("(inlined)", run([VKLEAK, "show", path], base_env(self.tmp)).stdout)

    def test_findings_name_each_caller_and_suppressions_match_inlined_frames(self):
        self.run_program(scenario(PROGRAM))
        found = self.report()
        with open(os.path.join(SOURCE_DIR, "tests/scenarios", SOURCE)) as f:
            lines = f.read().splitlines()

        def line_of(text):
            [n] = [i + 1 for i, l in enumerate(lines) if text in l]
            return n

        callers = {"lambda.*": ("main::{lambda(unsigned int)#1}::operator()(unsigned int) const",
                                line_of('create_buffer(ctx, "lambda.')),
                   "tmpl.*": ("upload_mesh<512ul>", line_of('create_buffer(ctx, "tmpl.'))}
        helper_line = line_of("vkCreateBuffer(ctx.device")
        for pattern, (caller, line) in callers.items():
            f = found[pattern]
            frames = f["callsite_frames"]
            self.assertEqual((frames[0]["function"], frames[0]["line"], frames[0]["inlined"]),
                             ("create_buffer", helper_line, True), frames)
            self.assertIn(caller, frames[1]["function"])
            self.assertEqual((frames[1]["line"], frames[1]["inlined"]), (line, False), frames)
            self.assertTrue(f["callsite"][0].endswith(" (inlined)"), f["callsite"])
            # The identity and the summary name the caller, not only the shared helper.
            self.assertIn(caller, f["function"])
            self.assertTrue(f["function"].endswith(" > create_buffer"), f["function"])
            self.assertIn(caller, f["callsite_summary"])
            self.assertTrue(f["callsite_summary"].endswith(
                f" > create_buffer ({SOURCE}:{helper_line})"), f["callsite_summary"])
        self.assertNotEqual(found["lambda.*"]["fingerprint"], found["tmpl.*"]["fingerprint"])

        # create_buffer exists only as inlined frames: a rule on it matches both findings, one
        # on a caller only its own.
        rules = os.path.join(self.tmp, "rules.txt")
        for rule, suppressed in (("frame=*create_buffer*", {"lambda.*", "tmpl.*"}),
                                 ("frame=*upload_mesh*", {"tmpl.*"})):
            with open(rules, "w") as f:
                f.write(rule + "\n")
            gated = self.report("--suppressions", rules, command="gate")
            self.assertEqual({p for p, f in gated.items() if f["status"] == "suppressed"},
                             suppressed, rule)

        self.assertFalse([n for n in self.doc["runs"][0]["notes"] if "module+offset" in n])
        text = run([VKLEAK, "report", self.out], base_env(self.tmp), check=False).stdout
        self.assertIn("create_buffer (", text)
        self.assertIn("(inlined)", text)

    def test_stripped_program_gives_module_offset_frames(self):
        stripped = os.path.join(self.tmp, PROGRAM)
        shutil.copy(scenario(PROGRAM), stripped)
        subprocess.run(["strip", "--strip-all", stripped], check=True)
        self.run_program(stripped)
        for f in self.report().values():
            own = [fr for fr in f["callsite_frames"] if fr["module"] == PROGRAM]
            self.assertTrue(own, f["callsite_frames"])
            for fr in own:
                # No line table, no inline chain; exported functions (main) keep the name
                # .dynsym gives them.
                self.assertIsNone(fr["file"], fr)
                self.assertFalse(fr["inlined"], fr)
                self.assertRegex(fr["text"], rf"\({PROGRAM}\+0x[0-9a-f]+\)$|^{PROGRAM}\+0x")
            # The creation frame (a local function) is module+offset, and the summary says so.
            self.assertRegex(own[0]["text"], rf"^{PROGRAM}\+0x[0-9a-f]+$")
            self.assertIsNone(own[0]["function"])
            self.assertRegex(f["callsite_summary"], rf"^{PROGRAM}\+0x[0-9a-f]+$")
        # And the report says why, once.
        notes = [n for r in self.doc["runs"] for n in r["notes"] if PROGRAM in n]
        # Exported functions (main) resolve: the note says which frames do not, not "no symbols"
        # (issue 27, point 13).
        self.assertEqual(len(notes), 1, self.doc["runs"][0]["notes"])
        self.assertRegex(notes[0], rf"^\d+ of \d+ frames in {PROGRAM} are module\+offset: only its "
                         r"exported functions have names \(a stripped build\? its debug file "
                         r"is looked up by build-id under /usr/lib/debug\)$")


MISUSE = "misuse"


def misuse_line(text, after):
    """The line of misuse.cpp holding `text` first after the one holding `after`."""
    with open(os.path.join(SOURCE_DIR, "tests/scenarios/misuse.cpp")) as f:
        lines = f.read().splitlines()
    start = [i for i, l in enumerate(lines) if after in l][0]
    return next(i + 1 for i in range(start, len(lines)) if text in lines[i])


class MisuseStacksTest(TempDirTestCase):
    """The raw snapshot events of each misuse, and the contract's stacks on them (contract16:
    "reason", "callsite", "created", "first_destroy", "belongs_to")."""

    def run_mode(self, mode, env_extra=None, below=(), args=()):
        env = explicit_env(self.tmp, self.out, extra_layers_after=below)
        env.update(env_extra or {})
        # Exit code 0: nothing crashed.
        proc = run([scenario(MISUSE), "--mode", mode, *args], env)
        # The last line (the validation layer writes its messages on stdout too).
        self.assertTrue(proc.stdout.splitlines()[-1].startswith(f"done: {mode}"), proc.stdout)
        self.snaps = snapshots(self.out)
        for snap in self.snaps:
            validate(snap)
        return proc

    def events(self, kind):
        """[(event, the snapshot holding it)], each event once (a later snapshot of the same
        scope repeats it)."""
        seen, found = set(), []
        for snap in self.snaps:
            for e in snap["events"]:
                key = (e["owner"], e["kind"], e["handle"], e["frame"], e["time_ms"])
                if e["kind"] == kind and key not in seen:
                    seen.add(key)
                    found.append((e, snap))
        return found

    def functions(self, snap, callsite):
        """The program's frames of a snapshot call site, [(function, line)] innermost first,
        every address expanded as llvm-addr2line -i -f -C prints it."""
        self.assertIsNotNone(callsite)
        program = scenario(MISUSE)
        [exe] = [m for m in snap["modules"] if m["path"] == program]
        bias = int(exe["bias"], 16)
        lo, hi = int(exe["base"], 16), int(exe["base"], 16) + exe["size"]
        [frames] = [c["frames"] for c in snap["callsites"] if c["id"] == callsite]
        out = []
        for address in frames:
            address = int(address, 16)
            if lo <= address < hi:
                out += addr2line("llvm-addr2line", program, address - bias - 1)
        self.assertTrue(out, frames)
        return out

    def frames_of(self, snap, callsite):
        [frames] = [c["frames"] for c in snap["callsites"] if c["id"] == callsite]
        return frames

    def require_stacks(self, event):
        # The layer always writes the bad call's "callsite" for these events.
        self.assertIn("callsite", event)
        self.assertIsNotNone(event["callsite"], event)

    def assert_stack(self, snap, callsite, innermost, present=(), absent=(), lines=()):
        """innermost: the first program frame's function contains it; present/absent: some/no
        frame does; lines: those of the first frames, innermost first."""
        frames = self.functions(snap, callsite)
        names = [f for f, _ in frames]
        self.assertIn(innermost, names[0], frames)
        self.assertEqual([l for _, l in frames[:len(lines)]], list(lines), frames)
        for name in present:
            self.assertTrue([n for n in names if name in n], (name, frames))
        for name in absent:
            self.assertFalse([n for n in names if name in n], (name, frames))
        return frames

    def test_double_destroy(self):
        self.run_mode("double-destroy", {"VKLEAK_DESTROY_CALLSTACKS": "false"})
        [(event, snap)] = self.events("invalid_destroy")
        self.assertEqual(event["type"], "VkSampler", event)
        self.assertEqual(self.events("destroyed_in_flight"), [])
        self.require_stacks(event)
        self.assertEqual(event["reason"], "already_destroyed", event)
        self.assertEqual(event["name"], "sampler.linear", event)
        self.assertIsInstance(event["object"], int, event)
        self.assertIsNone(event.get("belongs_to"), event)
        # The bad call: the lambda in shutdown_renderer, not the first destroy.
        self.assert_stack(snap, event["callsite"], "shutdown_renderer", ["lambda"],
                          ["release_materials", "setup_materials"],
                          [misuse_line("vkDestroySampler", "auto destroy_sampler"),
                           misuse_line("destroy_sampler(stale)", "auto destroy_sampler")])
        # Created by make_sampler, inlined into setup_materials.
        frames = self.assert_stack(snap, event["created"]["callsite"], "make_sampler",
                                   ["setup_materials"], ["release_materials",
                                                         "shutdown_renderer"],
                                   [misuse_line("vkCreateSampler", "VkSampler make_sampler"),
                                    misuse_line("make_sampler(", "VkSampler setup_materials")])
        self.assertIn("setup_materials(", frames[1][0], frames)
        self.assertEqual(event["created"]["frame"], 0, event)
        # The first destroy is known; its stack only with destroy_callstacks (here off).
        self.assertEqual(event["first_destroy"]["frame"], 0, event)
        self.assertIsNone(event["first_destroy"]["callsite"], event)

    def test_double_destroy_of_a_handle_reused_across_threads(self):
        # Issue 26, item 11: "loader.A" destroyed on a loader thread; its handle reused by
        # "frame.B" on the main thread, destroyed there, then destroyed again. Per-thread object
        # ids do not order the two destroys: the layer names neither rather than the wrong one,
        # whether B is still remembered (a tie in one frame) or forgotten (graveyard_size 16).
        for size in ("4096", "16"):
            with self.subTest(graveyard_size=size):
                self.out = os.path.join(self.tmp, "graveyard-" + size)
                proc = self.run_mode("reused-double-destroy", {"VKLEAK_GRAVEYARD_SIZE": size})
                self.assertIn("handle reused: yes", proc.stdout)
                [(event, snap)] = self.events("invalid_destroy")
                self.assertEqual(event["reason"], "already_destroyed", event)
                self.assertIsNone(event.get("name"), event)
                self.assertIsNone(event.get("object"), event)
                self.assertIn("cannot be told", event["message"])
                self.assert_stack(snap, event["callsite"], "teardown_frame", (),
                                  ["retire_frame", "release_materials"])
                rep = run([VKLEAK, "report", self.out, "--color", "never"],
                          base_env(self.tmp), check=False)
                self.assertNotIn("loader.A", rep.stdout)
                self.assertIn("which of them this was cannot be told", rep.stdout)
                self.assertNotIn("created here", rep.stdout)

    def test_double_destroy_first_destroy_stack_by_default(self):
        self.run_mode("double-destroy")  # destroy_callstacks is on by default (issue 27)
        [(event, snap)] = self.events("invalid_destroy")
        self.require_stacks(event)
        self.assert_stack(snap, event["first_destroy"]["callsite"], "release_materials", (),
                          ["shutdown_renderer", "setup_materials"],
                          [misuse_line("vkDestroySampler", "void release_materials")])
        self.assert_stack(snap, event["callsite"], "shutdown_renderer", ["lambda"],
                          ["release_materials"])

    def test_wrong_device(self):
        self.run_mode("wrong-device")
        [(event, snap)] = self.events("invalid_destroy")
        self.assertEqual(event["type"], "VkBuffer", event)
        # Device A made the buffer; B (the event's owner) destroyed it.
        devices = {d["id"] for s in self.snaps for d in s["devices"]}
        self.assertIn(event["owner"], devices)
        [device_a] = devices - {event["owner"]}
        # Whether A still counts the buffer as live afterwards is the layer's choice; while it
        # does, its creation stack is the inlined helper, then make_on_a.
        buffers = [(s, o) for s in self.snaps if s["scope"].get("device") == device_a
                   for o in s["objects"] if o["name"] == "buffer.on_a"]
        for a_snap, buffer in buffers:
            self.assertEqual(buffer["handle"], event["handle"])
            created = self.assert_stack(a_snap, buffer["callsite"], "create_named_buffer",
                                        ["make_on_a"], ["destroy_with_b"], self.on_a_lines())
            self.assertIn("make_on_a(", created[1][0], created)
        self.require_stacks(event)
        self.assertEqual(event["reason"], "wrong_device", event)
        self.assertEqual(event["belongs_to"], device_a, event)
        self.assertEqual(event["name"], "buffer.on_a", event)
        self.assertIsInstance(event["object"], int, event)
        self.assert_stack(snap, event["callsite"], "destroy_with_b", (), ["make_on_a"],
                          [misuse_line("vkDestroyBuffer", "void destroy_with_b")])
        created = self.assert_stack(snap, event["created"]["callsite"], "create_named_buffer",
                                    ["make_on_a"], ["destroy_with_b"], self.on_a_lines())
        self.assertIn("make_on_a(", created[1][0], created)
        for a_snap, buffer in buffers:
            # The event's creation stack is the buffer's own, address for address.
            self.assertEqual(event["object"], buffer["id"], event)
            self.assertEqual(self.frames_of(snap, event["created"]["callsite"]),
                             self.frames_of(a_snap, buffer["callsite"]))

    @staticmethod
    def on_a_lines():
        return [misuse_line("vkCreateBuffer", "VkBuffer create_named_buffer"),
                misuse_line("create_named_buffer(", "VkBuffer make_on_a")]

    def test_in_flight(self):
        self.run_mode("in-flight")
        self.assertEqual(self.events("invalid_destroy"), [])
        [(event, snap)] = self.events("destroyed_in_flight")
        self.assertEqual((event["type"], event["name"]), ("VkBuffer", "staging.fill"), event)
        self.assertEqual([(p["type"], p["name"]) for p in event["path"]],
                         [("VkCommandBuffer", "fill.cmd")], event)
        self.require_stacks(event)
        self.assertIsNone(event.get("reason"), event)
        self.assert_stack(snap, event["callsite"], "drop_staging", (), ["make_staging"],
                          [misuse_line("vkDestroyBuffer", "void drop_staging")])
        # Created by the template, through the inlined helper.
        frames = self.assert_stack(snap, event["created"]["callsite"], "create_named_buffer",
                                   ["make_staging<4096"], ["drop_staging"],
                                   [misuse_line("vkCreateBuffer", "VkBuffer create_named_buffer"),
                                    misuse_line("create_named_buffer(", "Buffer make_staging")])
        self.assertIn("make_staging<4096ul>(", frames[1][0], frames)
        self.assertEqual(event["created"]["frame"], 0, event)

    def test_report_shows_the_stacks(self):
        """End to end: `vkleak report`'s finding of each misuse carries the stacks, labeled as
        FINDINGS.md says, each naming the function that made the call (inline chains
        expanded)."""
        cases = {
            "double-destroy": ("invalid_destroy", [
                ("invalid call here", ["shutdown_renderer", "lambda"]),
                ("created here", ["make_sampler", "setup_materials("]),
                # destroy_callstacks is on by default (issue 27): the first destroy's stack.
                ("first destroyed here", ["release_materials("])]),
            "wrong-device": ("invalid_destroy", [
                ("invalid call here", ["destroy_with_b("]),
                ("created here", ["create_named_buffer", "make_on_a("])]),
            "in-flight": ("destroyed_in_flight", [
                ("destroyed here", ["drop_staging("]),
                ("while in use by", []),
                ("created here", ["create_named_buffer", "make_staging<4096ul>("])]),
        }
        for mode, (kind, stacks) in cases.items():
            with self.subTest(mode=mode):
                shutil.rmtree(self.out, ignore_errors=True)
                self.run_mode(mode)
                [(event, _)] = self.events(kind)
                self.require_stacks(event)
                doc = json.loads(run([VKLEAK, "report", "--format", "json", self.out],
                                     base_env(self.tmp), check=False).stdout)
                [finding] = [f for f in doc["findings"] if f["kind"] == kind]
                self.assertIn("stacks", finding)
                self.assertEqual([st["label"] for st in finding["stacks"]],
                                 [label for label, _ in stacks], finding["stacks"])
                for st, (label, functions) in zip(finding["stacks"], stacks):
                    own = [fr["function"] or "" for fr in st["frames"]
                           if fr["module"] == MISUSE]
                    # Each expected name in its own frame, innermost first (the lambda and
                    # shutdown_renderer are one frame's name).
                    self.assertEqual(len(own) >= 1, bool(functions), (label, st))
                    for i, name in enumerate(functions):
                        frame = own[0] if name == "lambda" else own[i]
                        self.assertIn(name, frame, (label, own))

    def test_each_mode_is_the_misuse_the_validation_layer_reports(self):
        """Below vkleak, the validation layer sees the same calls: one error each, of the kind
        vkleak reports, and none for the valid destroys of reused handles."""
        require_layers(VALIDATION)
        expected = {"double-destroy": (["VUID-vkDestroySampler-sampler-parameter"],
                                       "invalid_destroy"),
                    "wrong-device": (["VUID-vkDestroyBuffer-buffer-parent"], "invalid_destroy"),
                    "in-flight": (["VUID-vkDestroyBuffer-buffer-00922"], "destroyed_in_flight"),
                    "reuse": ([], None)}
        for mode, (vuids, kind) in expected.items():
            with self.subTest(mode=mode):
                shutil.rmtree(self.out, ignore_errors=True)
                proc = self.run_mode(mode, below=(VALIDATION,), args=("--count", "500"))
                found = re.findall(r"Validation Error: \[ (VUID-vkDestroy(?!Device)\w+-\w+-\w+) \]",
                                   proc.stdout + proc.stderr)
                self.assertEqual(found, vuids)
                ours = [e for kind_ in ("invalid_destroy", "destroyed_in_flight")
                        for e, _ in self.events(kind_)]
                self.assertEqual([e["kind"] for e in ours], [kind] if kind else [], ours)
                # Issue 29: our finding names the VUID the validation layer reported, in JSON and
                # in SARIF (each result's properties, and its rule's help).
                doc = json.loads(run([VKLEAK, "report", "--format", "json", self.out],
                                     base_env(self.tmp), check=False).stdout)
                misuse = [f for f in doc["findings"]
                          if f["kind"] in ("invalid_destroy", "destroyed_in_flight")]
                self.assertEqual(sorted({v for f in misuse for v in f["vuids"]}), vuids, misuse)
                sarif = json.loads(run([VKLEAK, "report", "--format", "sarif", self.out],
                                       base_env(self.tmp), check=False).stdout)
                results = [r for r in sarif["runs"][0]["results"]
                           if r["ruleId"] in ("invalid_destroy", "destroyed_in_flight")]
                self.assertEqual(sorted({v for r in results for v in r["properties"]["vuids"]}),
                                 vuids)
                if kind:
                    [rule] = [r for r in sarif["runs"][0]["tool"]["driver"]["rules"]
                              if r["id"] == kind]
                    self.assertIn("VUID-vkDestroyBuffer-buffer-", rule["help"]["text"])

    def test_reused_handles_are_no_invalid_destroy(self):
        env = {}
        if "ASAN_OPTIONS" in base_env(self.tmp):  # the sanitizer suite: ASan's quarantine
            env["ASAN_OPTIONS"] = base_env(self.tmp)["ASAN_OPTIONS"] + ":quarantine_size_mb=0"
        proc = self.run_mode("reuse", env)
        # The loop really reused handle values (else this test proves nothing).
        m = re.match(r"done: reuse, (\d+) samplers, (\d+) distinct handles",
                     proc.stdout.splitlines()[-1])
        self.assertTrue(m, proc.stdout)
        self.assertLess(int(m.group(2)), int(m.group(1)), proc.stdout)
        self.assertEqual(self.events("invalid_destroy"), [])
        self.assertEqual(self.events("destroyed_in_flight"), [])


if __name__ == "__main__":
    unittest.main()
