"""What a run measured: the benchmark groups, the per-round results, and the statistics the
report is made of (medians over rounds, medians of per-round ratios)."""

import statistics


class Group:
    """One vkleak_bench process per configuration and round, restricted by a filter. Groups run
    in processes of their own so that one cannot disturb another's memory (RSS, allocator)."""

    def __init__(self, name, regex, vkleak_only=False, key="real_ns"):
        self.name = name
        self.regex = regex
        self.vkleak_only = vkleak_only
        self.key = key  # which time the tables use


GROUPS = [
    # Single-threaded, all work on the calling thread (the layer's and lavapipe's): its CPU time
    # is what the layer adds, and is less disturbed by other load on a shared machine than wall
    # time.
    Group("pairs", "^BM_((Buffer|ImageView|DescriptorSet|Memory)Pair|DescriptorUpdate8|EmptySubmit)/", key="cpu_ns"),
    Group("frame", "^BM_(RecordSubmit|ThreadChurn)/"),
    Group("snapshot", "^BM_Snapshot/", vkleak_only=True),
    Group("memory", "^BM_MemoryPerObject/.*/bound:0/"),
    Group("memory-bound", "^BM_MemoryPerObject/.*/bound:1/"),
]
GROUP_KEY = {g.name: g.key for g in GROUPS}


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def spread(values):
    """(max - min) / median, as a percentage: how noisy the rounds were."""
    values = [v for v in values if v is not None]
    if len(values) < 2:
        return None
    m = statistics.median(values)
    return 100.0 * (max(values) - min(values)) / m if m else None


def machine_busy(res):
    """Whether most runs started while other processes kept the CPUs busy: wall times then
    measure the neighbours as much as the layer."""
    gate = getattr(res, "gate", None)
    return bool(gate and gate.runs and gate.busy_runs > gate.runs / 2)


class Results:
    """Per-round measurements: bench[group][config] is a list (one per round) of
    {benchmark name: entry}; apps[app][config] a list of (metric, wall, maxrss_kb)."""

    def __init__(self):
        self.bench = {}
        self.apps = {}
        self.failures = []
        self.context = {}

    def series(self, group, config, name, key=None):
        key = key or GROUP_KEY.get(group, "real_ns")
        return [r.get(name, {}).get(key) if r is not None else None
                for r in self.bench.get(group, {}).get(config, [])]

    def ratio_series(self, group, config, name, key=None, base="none"):
        a = self.series(group, config, name, key)
        b = self.series(group, base, name, key)
        return [x / y if x is not None and y else None for x, y in zip(a, b)]

    def names(self, group):
        seen = []
        for runs in self.bench.get(group, {}).values():
            for r in runs:
                for n in (r or {}):
                    if n not in seen:
                        seen.append(n)
        return seen


def app_series(res, app, cfg, key="ms"):
    return [m.get(key) if m else None for m in res.apps.get(app, {}).get(cfg, [])]


def app_ratio(res, app, cfg, key="ms"):
    a = app_series(res, app, cfg, key)
    b = app_series(res, app, "none", key)
    return [x / y if x is not None and y else None for x, y in zip(a, b)]
