#!/usr/bin/env python3
"""The tables of a real-GPU run (bench/gpu/run_on_device.sh).

    bench/gpu/table.py RUN                  ratio table and thread scaling (RESULTS.md's form)
    bench/gpu/table.py --compact RAW_DIR [--title T] [--vkleak BIN] > bench/gpu/RUN.md

RUN is a compact run file (bench/gpu/*.md) or a directory of raw results (bench-CONFIG-ROUND.json,
gpu.txt, snap-PROGRAM/). --compact writes the compact file: every round's figures of every
benchmark and configuration, exactly as Google Benchmark wrote them, and with --vkleak the
findings of `vkleak report` on each scenario program's snapshots; the raw files are not kept.
"""
import argparse
import collections
import glob
import json
import os
import re
import statistics
import subprocess
import sys

CFGS = ['none', 'vkleak-nocallsites', 'vkleak', 'validation-lifetimes', 'validation-default']
FIELDS = ('cpu_time', 'real_time', 'items_per_second')


def short_name(name):
    return name.replace('/min_warmup_time:0.100', '').replace('/real_time', '')


def read_raw(d):
    """{benchmark: {config: {round: {field: value, 'unit': unit}}}} from the raw JSON files."""
    runs = collections.defaultdict(lambda: collections.defaultdict(dict))
    for f in glob.glob(os.path.join(d, 'bench-*.json')):
        cfg, rnd = os.path.basename(f)[len('bench-'):-len('.json')].rsplit('-', 1)
        for b in json.load(open(f))['benchmarks']:
            entry = {k: b[k] for k in FIELDS if k in b}
            entry['unit'] = b['time_unit']
            runs[short_name(b['name'])][cfg][int(rnd)] = entry
    return runs


def read_compact(path):
    """The same from a compact run file's per-round table."""
    runs = collections.defaultdict(lambda: collections.defaultdict(dict))
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) != 6 or not cells[0].startswith('BM_'):
            continue
        name, cfg, unit = cells[:3]
        columns = [c.split() for c in cells[3:]]
        for i in range(max(len(c) for c in columns)):
            entry = {'unit': unit}
            for field, values in zip(FIELDS, columns):
                if i < len(values) and values[i] != '-':
                    entry[field] = float(values[i])
            if len(entry) > 1:
                runs[name][cfg][i + 1] = entry
    return runs


def render(runs):
    """The ratio table and the thread speed-ups, as bench/RESULTS.md quotes them: pairs in CPU
    time, record+submit in wall time, thread churn in pairs/s; medians over rounds."""
    res = collections.defaultdict(lambda: collections.defaultdict(list))
    for n, by_cfg in runs.items():
        for cfg, rounds in by_cfg.items():
            for e in rounds.values():
                if 'ThreadChurn' in n:
                    res[n][cfg].append(e['items_per_second'])
                else:
                    res[n][cfg].append(e['real_time'] if 'RecordSubmit' in n else e['cpu_time'])
    out = ['| benchmark | ' + ' | '.join(CFGS) + ' |', '|---' * (len(CFGS) + 1) + '|']
    for name in sorted(res):
        med = {c: statistics.median(res[name][c]) for c in CFGS if res[name][c]}
        base = med['none']
        if 'ThreadChurn' in name:
            out.append(f'| {name} (pairs/s) | ' + ' | '.join(
                f"{med[c]/1e6:.2f} M/s ({med[c]/base:.2f}x)" for c in CFGS) + ' |')
        else:
            unit = 'us' if 'RecordSubmit' in name else 'ns'
            out.append(f'| {name} ({unit}) | ' + ' | '.join(
                f"{med[c]:.0f} ({med[c]/base:.2f}x)" for c in CFGS) + ' |')
    out.append('')
    for c in CFGS:
        t = {int(n.split('threads:')[1]): statistics.median(res[n][c])
             for n in res if 'threads:' in n}
        out.append(c + ' ' + ' '.join(f"{k}:{t[k]/t[1]:.2f}x" for k in sorted(t)))
    return '\n'.join(out)


def findings(d, vkleak):
    """Rows (program, kind, type, name, objects, bytes) of `vkleak report` on each program's
    snapshots."""
    rows = []
    for snap in sorted(glob.glob(os.path.join(d, 'snap-*'))):
        program = os.path.basename(snap)[len('snap-'):]
        p = subprocess.run([vkleak, 'report', snap, '--format', 'json', '--no-symbolize'],
                           capture_output=True, text=True)
        if p.returncode not in (0, 1):  # 1: findings above the threshold
            sys.exit(f'vkleak report {snap} exited {p.returncode}: {p.stderr}')
        found = json.loads(p.stdout)['findings']
        if not found:
            rows.append((program, '(none)', '', '', '', ''))
        for f in found:
            rows.append((program, f['kind'], f.get('object_type') or '',
                         f.get('display_name') or '', str(f.get('count', '')),
                         str(f.get('bytes', ''))))
    return rows


def compact(d, title, vkleak):
    runs = read_raw(d)
    if not runs:
        sys.exit(f'table.py: no bench-*.json results in {d}')
    rounds = max((r for by_cfg in runs.values() for rs in by_cfg.values() for r in rs),
                 default=0)
    gpu = [line.strip() for line in open(os.path.join(d, 'gpu.txt'))] \
        if os.path.exists(os.path.join(d, 'gpu.txt')) else []
    out = [f'# GPU run {title}', '']
    if len(gpu) >= 3:
        name, _, driver = gpu[0].partition(', ')
        cpu = re.sub(r'^model name\s*:\s*', '', gpu[2])
        out.append(f'{name}, driver {driver}; {gpu[1]} cores, {cpu}; {rounds} rounds.')
    out += ['Compacted from the raw Google Benchmark JSON of `bench/gpu/run_on_device.sh` by',
            '`bench/gpu/table.py --compact`; `bench/gpu/table.py THIS_FILE` prints the ratio',
            'table and thread scaling that bench/RESULTS.md quotes.', '', '## Per round', '',
            'Each round\'s figure, rounds in order ("-": none that round): CPU and wall time per',
            'iteration in the unit shown, and items per second (pairs/s of all threads).', '',
            '| benchmark | config | unit | cpu_time | real_time | items_per_second |',
            '|---|---|---|---|---|---|']
    for name in sorted(runs):
        for cfg in [c for c in CFGS if c in runs[name]] + \
                sorted(c for c in runs[name] if c not in CFGS):
            rs = runs[name][cfg]
            unit = next(iter(rs.values()))['unit']
            cols = [' '.join(repr(rs[r][f]) if r in rs and f in rs[r] else '-'
                             for r in range(1, rounds + 1)) for f in FIELDS]
            out.append(f'| {name} | {cfg} | {unit} | ' + ' | '.join(cols) + ' |')
    if vkleak and glob.glob(os.path.join(d, 'snap-*')):
        out += ['', '## Scenario programs under vkleak', '',
                '`vkleak report --format json --no-symbolize` on each program\'s snapshots:', '',
                '| program | finding | type | name | objects | bytes |',
                '|---|---|---|---|---|---|']
        out += ['| ' + ' | '.join(r) + ' |' for r in findings(d, vkleak)]
    return '\n'.join(out) + '\n'


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('run', help='a compact run file or a directory of raw results')
    ap.add_argument('--compact', action='store_true', help='write the compact run file')
    ap.add_argument('--title',
                    help='the run\'s name in the compact file (default: the directory)')
    ap.add_argument('--vkleak', help='the vkleak CLI, to summarize the scenario snapshots')
    args = ap.parse_args()
    if args.compact:
        title = args.title or os.path.basename(os.path.normpath(args.run))
        sys.stdout.write(compact(args.run, title, args.vkleak))
        return 0
    runs = read_raw(args.run) if os.path.isdir(args.run) else read_compact(args.run)
    print(render(runs))
    return 0


if __name__ == '__main__':
    sys.exit(main())
