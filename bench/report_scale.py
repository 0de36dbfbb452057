#!/usr/bin/env python3
"""How vkleak diff and vkleak report scale: generates two snapshots of a million objects each (one
process, 30 frames apart, a fifth of the objects new in the second, a few leaks), runs the
commands on them and prints wall time and peak memory (RSS of the vkleak process, from
wait4(2)) against the budget: 3 s and 1 GiB for the pair.

    bench/report_scale.py [--build build] [--objects 1000000] [--repeat 3] [--check]
        [--stacks N --symbolize-with BINARY] [--vkleak PATH]

--stacks gives the long-lived objects N distinct call sites; with --symbolize-with each is 4
return addresses of BINARY's calls (an -O2 program with debug info: inline chains to expand) and
the reports symbolize them. --vkleak times another CLI (an older build) on the same files.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BUDGET_S = 3.0
BUDGET_BYTES = 1 << 30


def measure(cmd):
    """Wall seconds and peak RSS bytes of one run of cmd (output discarded)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    stderr = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"{' '.join(cmd)} exited {code}:\n{stderr}")
    return wall, usage.ru_maxrss * 1024  # Linux reports KiB


def return_addresses(binary):
    """The address after each call instruction of binary: what a stack holds."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary], check=True,
                         capture_output=True, text=True).stdout
    addresses, after_call = [], False
    for line in out.splitlines():
        m = re.match(r"\s+([0-9a-f]+):\s+(\S+)", line)
        if not m:
            continue
        if after_call:
            addresses.append(m.group(1))
        after_call = m.group(2).startswith("call")
    return addresses


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(root, "build"))
    ap.add_argument("--objects", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3, help="runs per command (median shown)")
    ap.add_argument("--keep", help="generate into this directory and keep it")
    ap.add_argument("--check", action="store_true", help="exit 1 when over budget")
    ap.add_argument("--stacks", type=int, help="distinct call sites of the long-lived objects")
    ap.add_argument("--symbolize-with", metavar="BINARY",
                    help="call sites are return addresses in BINARY, and reports symbolize")
    ap.add_argument("--vkleak", help="the CLI to time (default: BUILD/bin/vkleak)")
    args = ap.parse_args()

    vkleak = args.vkleak or os.path.join(args.build, "bin/vkleak")
    gen = os.path.join(args.build, "tests/analysis/vkleak_gen_run")
    for tool in (vkleak, gen):
        if not os.access(tool, os.X_OK):
            sys.exit(f"{tool} not found: build first, with the tests (cmake -S . -B "
                     f"{args.build} -DVKLEAK_BUILD_TESTS=ON && cmake --build {args.build})")

    out = args.keep or tempfile.mkdtemp(prefix="vkleak-scale-")
    try:
        os.makedirs(out, exist_ok=True)
        start = time.monotonic()
        gen_cmd = [gen, out, "--objects", str(args.objects), "--snapshots", "2"]
        if args.stacks:
            gen_cmd += ["--stacks", str(args.stacks)]
        if args.symbolize_with:
            binary = os.path.abspath(args.symbolize_with)
            offsets = os.path.join(out, "offsets.txt")
            with open(offsets, "w") as f:
                f.write("\n".join(return_addresses(binary)) + "\n")
            gen_cmd += ["--module", binary, "--offsets", offsets]
        subprocess.run(gen_cmd, check=True)
        files = sorted(os.path.join(out, f) for f in os.listdir(out) if f.endswith(".json"))
        size = sum(os.path.getsize(f) for f in files)
        print(f"generated {len(files)} snapshots of {args.objects:,} objects "
              f"({size / 2**20:,.0f} MiB) in {time.monotonic() - start:.1f} s")
        print(f"machine: {os.cpu_count()} cores\n")

        plain = [] if args.symbolize_with else ["--no-symbolize"]
        commands = [
            ("vkleak diff A B", [vkleak, "diff", *files, *plain]),
            ("vkleak report DIR", [vkleak, "report", out, *plain]),
            ("vkleak report DIR --format json", [vkleak, "report", out, "--format", "json",
                                                  *plain]),
            ("vkleak show A (one file)", [vkleak, "show", files[0], *plain]),
        ]
        rows = []
        over = False
        for label, cmd in commands:
            runs = [measure(cmd) for _ in range(args.repeat)]
            wall = statistics.median(r[0] for r in runs)
            rss = max(r[1] for r in runs)
            within = "show" in label or (wall <= BUDGET_S and rss <= BUDGET_BYTES)
            over |= not within
            rows.append((label, f"{wall:.2f}", f"{rss / 2**20:,.0f}",
                         "-" if "show" in label else ("yes" if within else "NO")))

        header = ("command", "wall s (median)", "peak RSS MiB", "within 3 s / 1 GiB")
        widths = [max(len(r[i]) for r in rows + [header]) for i in range(4)]
        line = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                                   for i, (c, w) in enumerate(zip(r, widths)))
        print(line(header))
        print("  ".join("-" * w for w in widths))
        for r in rows:
            print(line(r))
        return 1 if (args.check and over) else 0
    finally:
        if not args.keep:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
