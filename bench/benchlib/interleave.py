"""Configurations of one vkleak_bench run round-robin, the order rotated each round: the runner
that bench/ab_interleave.py and bench/pair_ladder.py share. Every run's loader is isolated as
compare.py's (lavapipe unless VK_DRIVER_FILES names another driver, whose libraries
LD_LIBRARY_PATH may point at); AB_PIN_CPU=N runs each process on CPU N alone (taskset)."""
import json, os, subprocess, tempfile

LAVAPIPE = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"


class Interleave:
    def __init__(self, bench, prefix):
        self.bench = bench
        self.work = tempfile.mkdtemp(prefix=prefix)
        self.base = {"PATH": os.environ["PATH"], "HOME": self.work,
                     "VK_DRIVER_FILES": os.environ.get("VK_DRIVER_FILES", LAVAPIPE),
                     "LD_LIBRARY_PATH": os.environ.get("LD_LIBRARY_PATH", ""),
                     "VK_LOADER_LAYERS_DISABLE": "VK_LAYER_MESA_device_select",
                     "XDG_DATA_HOME": f"{self.work}/empty", "MESA_SHADER_CACHE_DISABLE": "true"}

    def layer(self, build, **settings):
        """The environment that loads the layer of `build` with these VKLEAK_* settings."""
        return {"VK_LAYER_PATH": f"{build}/manifest/build",
                "VK_INSTANCE_LAYERS": "VK_LAYER_VKLEAK_tracker",
                "VKLEAK_OUTPUT_DIR": f"{self.work}/out", **settings}

    def run(self, configs, rounds, flt, extra):
        """{benchmark: {config: [per-round value]}}: CPU time per iteration; thread benchmarks,
        wall time per item of the aggregate."""
        names = list(configs)
        pin = ["taskset", "-c", os.environ["AB_PIN_CPU"]] if os.environ.get("AB_PIN_CPU") else []
        res = {}
        for r in range(rounds):
            for c in names[r % len(names):] + names[:r % len(names)]:
                out = f"{self.work}/{c}.json"
                subprocess.run(pin + [self.bench] + extra +
                               [f"--benchmark_filter={flt}", "--benchmark_format=json",
                                f"--benchmark_out={out}"],
                               env={**self.base, **configs[c]}, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, check=True)
                for b in json.load(open(out))["benchmarks"]:
                    threads = "threads" in b["name"]
                    val = 1e9 / b["items_per_second"] if threads else b["cpu_time"]
                    res.setdefault(b["name"], {}).setdefault(c, []).append(val)
        return res
