#!/usr/bin/env python3
"""Renders the ratio table and thread scaling of a real-GPU run (bench/gpu/run_on_device.sh).
   bench/gpu/table.py RESULTS_DIR"""
import json,glob,statistics,collections,sys
d=sys.argv[1]
res=collections.defaultdict(lambda: collections.defaultdict(list))
for f in glob.glob(d+'/bench-*.json'):
    cfg=f.split('bench-')[1].rsplit('-',1)[0]
    for b in json.load(open(f))['benchmarks']:
        n=b['name'].replace('/min_warmup_time:0.100','').replace('/real_time','')
        if 'ThreadChurn' in n: res[n][cfg].append(b['items_per_second'])
        else: res[n][cfg].append(b['real_time'] if 'RecordSubmit' in n else b['cpu_time'])
cfgs=['none','vkleak-nocallsites','vkleak','validation-lifetimes','validation-default']
print('| benchmark | '+' | '.join(cfgs)+' |'); print('|---'*(len(cfgs)+1)+'|')
for name in sorted(res):
    med={c: statistics.median(res[name][c]) for c in cfgs if res[name][c]}
    base=med['none']
    if 'ThreadChurn' in name:
        print(f'| {name} (pairs/s) | '+' | '.join(f"{med[c]/1e6:.2f} M/s ({med[c]/base:.2f}x)" for c in cfgs)+' |')
    else:
        unit='us' if 'RecordSubmit' in name else 'ns'
        print(f'| {name} ({unit}) | '+' | '.join(f"{med[c]:.0f} ({med[c]/base:.2f}x)" for c in cfgs)+' |')
# thread speed-up
print()
for c in cfgs:
    t={int(n.split('threads:')[1]):statistics.median(res[n][c]) for n in res if 'threads:' in n}
    print(c, ' '.join(f"{k}:{t[k]/t[1]:.2f}x" for k in sorted(t)))
