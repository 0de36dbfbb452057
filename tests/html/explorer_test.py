#!/usr/bin/env python3
"""The explorer (issue 18) in real headless Chromium, driven over the DevTools protocol (cdp.py).

Incident scenarios run under the real layer on lavapipe; `vkleak report --format json --html`
reads their snapshots. The page is opened, each view is clicked through with real mouse and
keyboard input (the DOM hooks of src/report/explorer/CONTRACT.md), and what it shows is checked against
independent sources: the findings JSON (numbers exactly, functions, kinds), the snapshot files
themselves (who is alive when, by object id), `vkleak diff` on the first and last snapshot, and
the page's embedded data where a view derives from it. No console message or exception is
allowed; screenshots must show drawn content; with scripts off the summary and findings stay
readable.

Exit 77 (ctest SKIP_RETURN_CODE) when Chromium is not installed; tools/deps.sh test installs it."""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cdp  # noqa: E402
import png_reader  # noqa: E402
import scenario_page  # noqa: E402

ARGS = None
SKIP = 77
MEMORY = 'VkDeviceMemory'
FIRST_SERIES = (0x4e, 0x79, 0xa7)  # PALETTE[0] of the explorer script (common.js)
DIFF_COLS = ('new-count', 'new-bytes', 'freed-count', 'freed-bytes', 'kept-count', 'kept-bytes')
VIEWS = ('timeline', 'flamegraph', 'findings', 'retainers', 'diff')

# Attributes of the elements matching a selector that are displayed (hidden rows are not).
JS_HELPERS = r'''
window.__vk = {
  shown(sel, root) {
    return [...(root || document).querySelectorAll(sel)].filter(e => e.getClientRects().length > 0);
  },
  attrs(sel, root) {
    return __vk.shown(sel, root).map(e => {
      const a = {text: e.textContent.trim()};
      for (const at of e.attributes) a[at.name] = at.value;
      return a;
    });
  },
  select(sel, value) {
    const e = document.querySelector(sel);
    e.value = String(value);
    e.dispatchEvent(new Event('input', {bubbles: true}));
    e.dispatchEvent(new Event('change', {bubbles: true}));
    return e.value;
  },
  cells(rowSel) {
    return __vk.shown(rowSel).map(r => {
      const o = {};
      for (const at of r.attributes) if (at.name.startsWith('data-')) o[at.name] = at.value;
      for (const td of r.querySelectorAll('[data-col]')) o[td.dataset.col] = td.dataset.value;
      const c = r.querySelector('.vk-count'), b = r.querySelector('.vk-bytes');
      if (c) o.count = c.dataset.value;
      if (b) o.bytes = b.dataset.value;
      return o;
    });
  },
};
true
'''


def snapshot_objects(path):
    with open(path) as f:
        s = json.load(f)
    return s, {o['id']: o for o in s['objects']}


class Model:
    """What the page must show, from the embedded data (§2), checked against the JSON report
    and the snapshot files by the data tests below."""

    def __init__(self, data):
        self.data = data
        c = data['cells']
        self.cells = [tuple(c[i:i + 5]) for i in range(0, len(c), 5)]
        self.n = len(data['snapshots'])
        # Call sites (CONTRACT.md): groups with the same type, name pattern, call-site path and
        # attached state, numbered in the order of their first group.
        keys = {}
        self.site_of = []
        for t, _, name, attached, path in data['groups']:
            self.site_of.append(keys.setdefault((t, name, path, attached), len(keys)))
        self.sites = len(keys)

    def path(self, g):
        """A group's call-site path: its functions, outermost first (data.paths)."""
        p = self.data['groups'][g][4]
        return [self.data['strings'][f] for f in self.data['paths'][p]] if p >= 0 else []

    def group_type(self, g):
        return self.data['types'][self.data['groups'][g][0]]

    def alive(self, i, key='type'):
        """{type, group or site: [count, bytes]} alive at snapshot i."""
        out = {}
        for g, first, last, count, nbytes in self.cells:
            if first <= i <= last:
                k = {'type': self.group_type(g), 'group': g, 'site': self.site_of[g]}[key]
                v = out.setdefault(k, [0, 0])
                v[0] += count
                v[1] += nbytes
        return out

    def created_alive_at_end(self, lo, hi):
        """{site: [count, bytes]} created in lo..hi and alive at the end."""
        out = {}
        for g, first, last, count, nbytes in self.cells:
            if lo <= first <= hi and last == self.n - 1:
                v = out.setdefault(self.site_of[g], [0, 0])
                v[0] += count
                v[1] += nbytes
        return out

    def key(self, g):
        """(type, name pattern, innermost function): how the JSON and `vkleak diff` name a group."""
        t, stack, name = self.data['groups'][g][:3]
        frames = self.data['stacks'][stack] if stack >= 0 else []
        return (self.data['types'][t], name, self.function(frames[-1]) if frames else None)

    def attached(self, g):
        """Memory bound to exactly one object: its bytes are that object's (cells hold 0)."""
        return self.data['groups'][g][3] == 1

    def site_groups(self, site):
        return [g for g, s in enumerate(self.site_of) if s == site]

    def function(self, frame):
        s = self.data['frames'][frame][0]
        return self.data['strings'][s] if s >= 0 else None


class PageFixture:
    """A scenario's page open in Chromium, with its data and snapshots, for a class's tests."""
    SCENARIO = None
    ARGS = ()
    REPORT_ARGS = ()

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix='vkleak-explorer-')
        cls.scn = scenario_page.run_scenario(ARGS.build, cls.tmp, cls.SCENARIO, cls.ARGS,
                                             report_args=cls.REPORT_ARGS)
        cls.doc = cls.scn.doc
        found = scenario_page.explorer_data(cls.scn.page)
        cls.data = found[0] if len(found) == 1 else None
        cls.found_data = len(found)
        cls.model = Model(cls.data) if cls.data else None
        cls.full = []  # the snapshots that list every live object, in order
        for path in cls.scn.snapshots:
            s, objects = snapshot_objects(path)
            if not s.get('scope'):
                cls.full.append((s, objects))
        cls.browser = cdp.Browser(ARGS.chromium, 1280, 900)
        cls.browser.open(cls.scn.url())
        cls.browser.evaluate(JS_HELPERS)

    @classmethod
    def tearDownClass(cls):
        browser = getattr(cls, 'browser', None)
        if browser:
            keep = os.environ.get('VKLEAK_HTML_KEEP')
            if keep:
                os.makedirs(keep, exist_ok=True)
                shutil.copy(cls.scn.page, keep)
            browser.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self.b = self.browser
        self.messages_before = len(self.b.messages)

    def tearDown(self):
        self.assertEqual(self.b.messages[self.messages_before:], [],
                         'console messages or exceptions')

    def fresh(self, fragment=''):
        self.b.open(self.scn.url(fragment))
        self.b.evaluate(JS_HELPERS)

    def js(self, expr):
        return self.b.evaluate(expr)

    def attrs(self, sel):
        return self.js('__vk.attrs(%s)' % json.dumps(sel))

    def choose(self, sel, value):
        self.b.click(sel)  # focus it as a person would, then pick the option
        self.b.key('Escape', keycode=27)
        return self.js('__vk.select(%s, %s)' % (json.dumps(sel), json.dumps(str(value))))

    def text_of(self, sel):
        return self.js('(document.querySelector(%s) || {}).textContent' % json.dumps(sel)) or ''



class ExplorerChecks(PageFixture):
    """The checks, for each scenario's class (below)."""

    # --- the data, against the report and the snapshots -----------------------------------

    def test_embedded_data_matches_the_snapshots(self):
        self.assertEqual(self.found_data, 1, 'one script#vkleak-explorer-data')
        d = self.data
        self.assertEqual(d['version'], 1)
        self.assertEqual([s['sequence'] for s in d['snapshots']],
                         [s['sequence'] for s, _ in self.full])
        self.assertEqual(d['omitted'], {'cells': 0, 'objects': 0, 'bytes': 0})
        # Who is alive when, per type, counted from the snapshot files' objects: every object
        # once, VkDeviceMemory included (memory bound to one object: its own attached group).
        for i, (s, objects) in enumerate(self.full):
            counts = {}
            for o in objects.values():
                counts[o['type']] = counts.get(o['type'], 0) + 1
            shown = {t: v[0] for t, v in self.model.alive(i).items() if v[0]}
            self.assertEqual(shown, counts, 'snapshot %d' % i)
        self.assertTrue(any(self.model.attached(g) for g in range(len(d['groups']))))
        for g, _, _, _, nbytes in self.model.cells:
            if self.model.attached(g):
                self.assertEqual(nbytes, 0, 'attached memory bytes are its object\'s')
        # Findings in rank order, with the JSON's kinds and problems.
        self.assertEqual([(f['rank'], f['kind'], f['problem']) for f in d['findings']],
                         [(i + 1, f['kind'], f['problem'])
                          for i, f in enumerate(self.doc['findings'])])

    def test_series_match_the_data(self):
        # The JSON's group series (count and held bytes at each snapshot during the run).
        series = self.doc['series']
        self.assertEqual(len(series['frames']), self.model.n)
        checked = 0
        for sg in series['groups']:
            key = (sg['object_type'], sg['name_pattern'], sg['function'])
            groups = [g for g in range(len(self.data['groups']))
                      if self.model.key(g) == key and not self.model.attached(g)]
            self.assertTrue(groups, key)
            for i in range(self.model.n):
                alive = self.model.alive(i, 'group')
                got = [sum(alive.get(g, [0, 0])[k] for g in groups) for k in (0, 1)]
                self.assertEqual(got, [sg['live'][i], sg['bytes'][i]], (key, i))
                checked += 1
        self.assertGreater(checked, 0)
        # The per-type series count every object, VkDeviceMemory included, as the cells do.
        for t in series['types']:
            self.assertEqual([self.model.alive(i).get(t['type'], [0])[0]
                              for i in range(self.model.n)], t['live'], t['type'])

    # --- navigation -----------------------------------------------------------------------

    def test_ready_and_every_view(self):
        self.assertEqual(self.js('document.documentElement.dataset.explorer'), 'ready')
        links = self.attrs('nav#vk-nav a')
        self.assertEqual([a['href'] for a in links], ['#' + v for v in VIEWS])
        for v in VIEWS:
            self.assertTrue(self.js('!!document.querySelector("section#%s.vk-view")' % v), v)

    def test_fragments_open_their_view(self):
        for v in ('flamegraph', 'diff', 'retainers'):
            with self.subTest(view=v):
                self.fresh('#' + v)
                self.assertEqual([a['href'] for a in self.attrs('nav#vk-nav a.vk-active')],
                                 ['#' + v])
                top = self.js('document.getElementById(%s).getBoundingClientRect().top'
                              % json.dumps(v))
                self.assertLess(abs(top), 400, '%s not scrolled to' % v)
                self.assertTrue(self.js('__vk.shown("section#%s").length === 1' % v))
        self.fresh()
        self.b.click('nav#vk-nav a[href="#diff"]')
        self.b.wait_for('location.hash === "#diff"')
        # The script marks the link on hashchange, a task after the hash itself changed.
        self.b.wait_for('!!document.querySelector(\'nav#vk-nav a.vk-active[href="#diff"]\')')
        self.assertEqual([a['href'] for a in self.attrs('nav#vk-nav a.vk-active')], ['#diff'])

    # --- timeline -------------------------------------------------------------------------

    def timeline_columns(self):
        return self.js('''[...document.querySelectorAll("svg#timeline-chart g.vk-snap")].map(g =>
            [Number(g.dataset.index), [...g.querySelectorAll("rect.vk-stack")].map(r =>
                [r.dataset.key, r.dataset.value])])''')

    def test_timeline_types_by_count_and_bytes(self):
        self.fresh('#timeline')
        self.assertGreater(
            self.js('document.querySelectorAll("svg#timeline-chart text").length'), 4)
        self.b.click('button[data-timeline-mode="types"]')
        for metric, k in (('count', 0), ('bytes', 1)):
            self.b.click('button[data-metric="%s"]' % metric)
            cols = self.timeline_columns()
            self.assertEqual([c[0] for c in cols], list(range(self.model.n)))
            for i, stacks in cols:
                want = {t: v[k] for t, v in self.model.alive(i).items() if v[k]}
                got = {key: int(value) for key, value in stacks if int(value)}
                self.assertEqual(sum(got.values()), sum(want.values()), (metric, i))
                for key, value in got.items():
                    if key in want:  # an "other" stack may merge small types
                        self.assertEqual(value, want[key], (metric, i, key))

    def test_timeline_groups_mode(self):
        self.fresh('#timeline')
        self.b.click('button[data-timeline-mode="groups"]')
        self.b.click('button[data-metric="count"]')
        for i, stacks in self.timeline_columns():
            alive = self.model.alive(i, 'site')
            self.assertEqual(sum(int(v) for _, v in stacks), sum(v[0] for v in alive.values()))
            for key, value in stacks:
                if key != 'other':  # a call site's own stack: its index
                    self.assertEqual(int(value), alive[int(key)][0], (i, key))
        self.assertGreater(len(stacks), 1)

    def test_timeline_tooltip(self):
        self.fresh('#timeline')
        for i in (0, self.model.n - 1):
            self.b.hover('svg#timeline-chart g.vk-snap[data-index="%d"]' % i)
            s = self.data['snapshots'][i]
            tip = self.text_of('#timeline-tip')
            self.assertIn('snapshot %d · frame %d · %s' % (s['sequence'], s['frame'],
                                                            s['reason']),
                          tip)

    def brush_rows(self):
        rows = self.js('__vk.cells("table#timeline-selection tbody tr[data-site]")')
        total = self.js('__vk.cells("table#timeline-selection tfoot tr.vk-total")')
        return ({int(r['data-site']): [int(r['count']), int(r['bytes'])] for r in rows},
                [[int(t['count']), int(t['bytes'])] for t in total])

    def expected_brush_count(self, lo, hi):
        # From the snapshot files: ids first seen in snapshots lo..hi, alive in the last one.
        first = {}
        for i, (_, objects) in enumerate(self.full):
            for oid in objects:
                first.setdefault(oid, i)
        end = self.full[-1][1]
        return sum(1 for oid in end if lo <= first[oid] <= hi)

    def test_timeline_brush_by_inputs(self):
        self.fresh('#timeline')
        n = self.model.n
        for lo, hi in ((1, n // 2), (0, n - 1)):
            self.choose('#timeline-from', lo)
            self.choose('#timeline-to', hi)
            groups, total = self.brush_rows()
            want = {g: v for g, v in self.model.created_alive_at_end(lo, hi).items() if v[0]}
            self.assertEqual(groups, want, (lo, hi))
            self.assertEqual(total, [[sum(v[0] for v in want.values()),
                                      sum(v[1] for v in want.values())]])
            self.assertEqual(sum(v[0] for v in groups.values()),
                             self.expected_brush_count(lo, hi), (lo, hi))

    def test_timeline_brush_by_drag(self):
        self.fresh('#timeline')
        n = self.model.n
        lo, hi = 1, max(1, n - 3)
        a = self.b.centre('svg#timeline-chart g.vk-snap[data-index="%d"]' % lo)
        z = self.b.centre('svg#timeline-chart g.vk-snap[data-index="%d"]' % hi)
        self.b.drag(a, z)
        self.assertEqual((int(self.js('document.querySelector("#timeline-from").value')),
                          int(self.js('document.querySelector("#timeline-to").value'))), (lo, hi))
        groups, total = self.brush_rows()
        self.assertEqual(sum(v[0] for v in groups.values()), self.expected_brush_count(lo, hi))
        self.assertEqual(total[0][0], sum(v[0] for v in groups.values()))

    # --- flame graph ----------------------------------------------------------------------

    def flame_nodes(self):
        return self.attrs('.vk-flame-node')

    def test_flame_root_and_children(self):
        self.fresh('#flamegraph')
        last = self.model.n - 1
        self.assertEqual(self.js('document.querySelector("#flame-snapshot").value'), str(last))
        # The plain flame graph by default: no base, no deltas (the differential is chosen).
        self.assertEqual(self.js('document.querySelector("#flame-base").value'), '')
        self.assertFalse(self.js('!!document.querySelector(".vk-flame-node[data-delta]")'))
        for metric, k in (('bytes', 1), ('count', 0)):
            self.choose('#flame-metric', metric)
            nodes = self.flame_nodes()
            root = [n for n in nodes if n['data-function'] == 'all']
            self.assertEqual(len(root), 1)
            want = sum(v[k] for v in self.model.alive(last).values())
            self.assertEqual(int(root[0]['data-value']), want, metric)
        # The findings' creation functions are drawn, with the JSON's names.
        functions = {n['data-function'] for n in self.flame_nodes()}
        for f in self.doc['findings']:
            if f['function'] and f['kind'] in ('leak_at_exit', 'growth', 'stale_view'):
                inner = f['callsite'][0].split(' (')[0]
                self.assertTrue(any(inner.startswith(fn) or fn.startswith(inner)
                                    for fn in functions), (inner, sorted(functions)[:40]))

    def test_flame_values_follow_the_data(self):
        self.fresh('#flamegraph')
        self.choose('#flame-metric', 'count')
        self.choose('#flame-snapshot', 0)
        root = [n for n in self.flame_nodes() if n['data-function'] == 'all']
        self.assertEqual(int(root[0]['data-value']),
                         sum(v[0] for v in self.model.alive(0).values()))
        # Per outermost frame: the sum of the groups whose stack starts there.
        want = {}
        for g, v in self.model.alive(0, 'group').items():
            stack = self.data['groups'][g][1]
            frames = self.data['stacks'][stack] if stack >= 0 else []
            fn = self.model.function(frames[0]) if frames else '(unknown call site)'
            want[fn] = want.get(fn, 0) + v[0]
        got = {}
        for n in self.attrs('.vk-flame-node[data-depth="1"]'):
            got[n['data-function']] = got.get(n['data-function'], 0) + int(n['data-value'])
        self.assertTrue(got)
        for fn, value in got.items():
            self.assertEqual(value, want.get(fn), fn)

    def test_flame_differential(self):
        self.fresh('#flamegraph')
        self.choose('#flame-metric', 'count')
        last = self.model.n - 1
        self.choose('#flame-snapshot', last)
        self.choose('#flame-base', 0)
        root = [n for n in self.flame_nodes() if n['data-function'] == 'all'][0]
        total = lambda i: sum(v[0] for v in self.model.alive(i).values())  # noqa: E731
        self.assertEqual(int(root['data-delta']), total(last) - total(0))
        # Per outermost frame: the change of what its groups hold.
        delta = {}
        for g, first, last_, count, _ in self.model.cells:
            frames = self.data['stacks'][self.data['groups'][g][1]] \
                if self.data['groups'][g][1] >= 0 else []
            fn = self.model.function(frames[0]) if frames else '(unknown call site)'
            d = (first <= last <= last_) - (first <= 0 <= last_)
            delta[fn] = delta.get(fn, 0) + d * count
        # Summed per function: the outermost frames are the program's own (main at several
        # lines), the C runtime's single _start no longer tops every stack (issue 27, point 10).
        got = {}
        for n in self.attrs('.vk-flame-node[data-depth="1"]'):
            got[n['data-function']] = got.get(n['data-function'], 0) + int(n['data-delta'])
        self.assertTrue(got)
        for fn, value in got.items():
            self.assertEqual(value, delta[fn], fn)
        grow = self.attrs('.vk-flame-node.vk-grow')
        self.assertTrue(grow or self.attrs('.vk-flame-node.vk-shrink'))
        for n in grow:
            self.assertGreater(int(n['data-delta']), 0, n)
        for n in self.attrs('.vk-flame-node.vk-shrink'):
            self.assertLess(int(n['data-delta']), 0, n)

    def test_flame_zoom_and_crumbs(self):
        self.fresh('#flamegraph')
        width = lambda sel: self.js(  # noqa: E731
            'document.querySelector(%s).getBoundingClientRect().width' % json.dumps(sel))
        root_width = width('.vk-flame-node[data-function="all"]')
        nodes = [n for n in self.flame_nodes() if n['data-function'] != 'all']
        # The narrowest drawn node with a function name of the program.
        target = min(nodes, key=lambda n: int(n['data-value']))
        sel = '.vk-flame-node[data-function=%s]' % json.dumps(target['data-function'])
        before = width(sel)
        self.b.click(sel)
        self.b.wait_for('document.querySelector("#flame-crumbs").textContent.includes(%s)'
                        % json.dumps(target['data-function']))
        self.assertGreater(width(sel), before)
        self.assertAlmostEqual(width(sel), root_width, delta=2)
        self.b.click('#flame-crumbs > :first-child')
        self.assertAlmostEqual(width(sel), before, delta=2)

    def test_flame_search(self):
        self.fresh('#flamegraph')
        self.choose('#flame-metric', 'count')
        # A function of the findings' call sites, typed for real.
        needle = self.doc['findings'][0]['callsite'][0].split('(')[0].split('::')[-1].strip()
        self.b.click('#flame-search')
        self.b.type_text(needle)
        self.b.key('Enter', keycode=13)
        nodes = self.flame_nodes()
        expect = [n for n in nodes if needle.lower() in n['data-function'].lower()]
        matched = self.attrs('.vk-flame-node.vk-match')
        self.assertEqual(len(matched), len(expect))
        self.assertGreater(len(matched), 0)
        # What the matching stacks hold, each object once: from the data.
        last = self.model.n - 1
        held = 0
        for g, v in self.model.alive(last, 'group').items():
            stack = self.data['groups'][g][1]
            frames = self.data['stacks'][stack] if stack >= 0 else []
            if any(needle.lower() in (self.model.function(f) or '').lower() for f in frames):
                held += v[0]
        total = sum(v[0] for v in self.model.alive(last).values())
        result = self.text_of('#flame-search-result')
        self.assertTrue(result.startswith('%d matches, ' % len(expect)), result)
        self.assertEqual(self.attrs('#flame-search-result')[0].get('data-value'), str(held))
        self.assertTrue(result.endswith(' of ' + format(total, ',')), result)
        self.b.click('#flame-search')
        self.js('__vk.select("#flame-search", "")')
        self.assertEqual(self.attrs('.vk-flame-node.vk-match'), [])

    # --- findings -------------------------------------------------------------------------

    def finding_rows(self):
        return self.attrs('table#findings-table tr.vk-finding')

    def problem_order(self):
        """The JSON's findings as the page lists them: one block per problem, its findings in
        rank order ("a problem with several kinds shows them together")."""
        order = [i for p in self.doc['problems'] for i in p['findings']]
        self.assertEqual(sorted(order), list(range(len(self.doc['findings']))))
        return order

    def test_findings_rows_match_the_json(self):
        self.fresh('#findings')
        rows = self.finding_rows()
        fs = [self.doc['findings'][i] for i in self.problem_order()]
        self.assertEqual(len(rows), len(fs))
        for row, f in zip(rows, fs):
            self.assertEqual((row['data-kind'], row['data-type'], int(row['data-bytes']),
                              int(row['data-count']), row['data-name'], int(row['data-problem'])),
                             (f['kind'], f['object_type'], f['bytes'], f['count'],
                              f['name_pattern'], f['problem']))
            self.assertEqual(row['data-function'], f['function'] or '')
        self.assertEqual(self.text_of('#findings-shown').strip(),
                         '%d of %d findings' % (len(fs), len(fs)))

    def test_findings_sort(self):
        self.fresh('#findings')
        for key, attr in (('bytes', 'data-bytes'), ('count', 'data-count'), ('kind', 'data-kind'),
                          ('type', 'data-type'), ('function', 'data-function')):
            conv = int if key in ('bytes', 'count') else str
            self.b.click('th[data-sort="%s"]' % key)
            a = [conv(r[attr]) for r in self.finding_rows()]
            self.b.click('th[data-sort="%s"]' % key)
            b = [conv(r[attr]) for r in self.finding_rows()]
            self.assertEqual(len(a), len(self.doc['findings']))
            up = lambda v: v == sorted(v)  # noqa: E731
            down = lambda v: v == sorted(v, reverse=True)  # noqa: E731
            self.assertTrue(up(a) or down(a), (key, a))
            self.assertTrue(up(b) or down(b), (key, b))
            self.assertEqual(sorted(a), sorted(b), key)
            if len(set(a)) > 1:  # a second click reverses the order
                self.assertTrue((up(a) and down(b)) or (down(a) and up(b)), (key, a, b))

    def test_findings_filters(self):
        self.fresh('#findings')
        fs = self.doc['findings']
        kinds = sorted({f['kind'] for f in fs})
        for kind in kinds:
            self.choose('select#findings-kind', kind)
            rows = self.finding_rows()
            self.assertEqual([int(r['data-rank']) for r in rows],
                             [i + 1 for i, f in enumerate(fs) if f['kind'] == kind], kind)
            self.assertEqual(self.text_of('#findings-shown').strip(),
                             '%d of %d findings' % (len(rows), len(fs)))
        self.choose('select#findings-kind', '')
        self.assertEqual(len(self.finding_rows()), len(fs))
        # Text, typed for real: a needle (from a name pattern, type or function) that some
        # findings match and others do not.
        def matching(needle):
            return [i + 1 for i, f in enumerate(fs)
                    if needle.lower() in (f['object_type'] + ' ' + f['name_pattern'] + ' ' +
                                          (f['function'] or '')).lower()]
        candidates = [f['name_pattern'].split('*')[0].split('|')[0] for f in fs]
        candidates += [f['object_type'] for f in fs] + [f['function'] or '' for f in fs]
        subset = [c for c in candidates if c and 0 < len(matching(c)) < len(fs)]
        # A function's name that is not in its finding's type or name pattern.
        by_function = [f['function'][:16] for f in fs
                       if f['function'] and f['function'][:16].lower()
                       not in (f['object_type'] + ' ' + f['name_pattern']).lower()]
        self.assertTrue(by_function)
        for needle in subset[:1] + by_function[:1] + ['no such name', fs[0]['object_type'].upper()]:
            self.b.click('input#findings-text')
            self.js('__vk.select("input#findings-text", "")')
            self.b.type_text(needle)
            self.assertEqual([int(r['data-rank']) for r in self.finding_rows()], matching(needle),
                             needle)
            self.assertEqual(self.text_of('#findings-shown').strip(),
                             '%d of %d findings' % (len(matching(needle)), len(fs)))
        self.assertEqual(matching('no such name'), [])

    def test_clicking_a_row_opens_its_report(self):
        self.fresh('#findings')
        fs = self.doc['findings']
        rank = len(fs)  # the last one: nothing scrolled to it by default
        self.assertFalse(self.js('document.getElementById("finding-%d").open' % rank))
        self.b.click('tr.vk-finding[data-rank="%d"]' % rank)
        self.b.wait_for('document.getElementById("finding-%d").open' % rank)
        text = self.text_of('#finding-%d' % rank)
        f = fs[rank - 1]
        self.assertIn(f['callsite'][0][:40], text)
        self.assertIn(os.path.basename(f['snapshot']), text)

    # --- retainers ------------------------------------------------------------------------

    def test_retainers_match_the_json(self):
        self.fresh('#retainers')
        fs = self.doc['findings']
        with_roots = [i + 1 for i, f in enumerate(fs) if f.get('retainers')]
        if not with_roots:
            self.assertEqual(self.attrs('.vk-retainer-root'), [])
            return
        self.assertEqual(self.js('document.querySelector("select#retainers-finding").value'),
                         str(with_roots[0]))
        for rank in with_roots:
            self.choose('select#retainers-finding', rank)
            roots = self.attrs('#retainers .vk-retainer-root')
            want = fs[rank - 1]['retainers']
            self.assertEqual(len(roots), len(want), rank)
            for shown, r in zip(roots, want):
                root = r['root'] or {'type': '', 'name': None}  # null: shared by several
                self.assertEqual((shown['data-type'], shown['data-name'],
                                  int(shown['data-objects'])),
                                 (root['type'], root['name'] or '', r['objects']))
                self.assertEqual(int(shown['data-bytes']), r['bytes'])
                for c in r['counts']:
                    self.assertIn('%s %s' % (format(c['count'], ','), c['type']), shown['text'])

    # --- diff -----------------------------------------------------------------------------

    def test_diff_first_last_equals_vkleak_diff(self):
        self.fresh('#diff')
        n = self.model.n
        self.assertEqual((self.js('document.querySelector("select#diff-a").value'),
                          self.js('document.querySelector("select#diff-b").value')),
                         ('0', str(n - 1)))
        first, last = (self.scn.snapshots[i] for i in self.full_indices((0, n - 1)))
        proc = subprocess.run([os.path.join(ARGS.build, 'bin', 'vkleak'), 'diff', first, last,
                               '--format', 'json', '--top', '0'], capture_output=True, text=True,
                              timeout=120, env=dict(os.environ, DEBUGINFOD_URLS=''))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        d = json.loads(proc.stdout)
        # Groups: `vkleak diff`'s changed groups, keyed as the JSON names them.
        want = {}
        for g in d['groups']:
            key = (g['object_type'], g['name_pattern'], g['callsite'][0].split(' (')[0]
                   if g['callsite'] else None)
            born, kept = g['born'], g['live'][1] - g['born']
            kept_bytes = g['bytes'][1] - g['born_bytes']
            v = want.setdefault(key, dict.fromkeys(DIFF_COLS, 0))
            for col, x in (('new-count', born), ('new-bytes', g['born_bytes']),
                           ('kept-count', kept), ('kept-bytes', kept_bytes),
                           ('freed-count', g['live'][0] - kept),
                           ('freed-bytes', g['bytes'][0] - kept_bytes)):
                v[col] += x
        got = {}
        for row in self.js('__vk.cells("table#diff-groups tr[data-site]")'):
            g = self.model.site_groups(int(row['data-site']))[0]
            if self.model.attached(g):
                continue  # `vkleak diff` lists no group of memory bound to one object
            v = got.setdefault(self.model.key(g), dict.fromkeys(DIFF_COLS, 0))
            for col in DIFF_COLS:
                v[col] += int(row[col])
        self.assertTrue(want)
        self.assertEqual(got, want)
        # Types: every type's counts exactly, VkDeviceMemory included: `vkleak diff`'s live
        # counts, and new/kept/freed by id from the two snapshot files; new bytes = born bytes
        # (memory bound to one object adds none: its bytes are its object's).
        self.assertTrue(self.js('document.querySelector("#diff-hide-unchanged").checked'))
        self.b.click('#diff-hide-unchanged')  # every type, the unchanged ones too
        rows = {r['data-type']: r for r in self.js('__vk.cells("table#diff-types tr[data-type]")')}
        _, objs_a = snapshot_objects(first)
        _, objs_b = snapshot_objects(last)
        by_id = {}
        for oid, o in objs_a.items():
            by_id.setdefault(o['type'], [0, 0, 0])[2 if oid in objs_b else 1] += 1
        for oid, o in objs_b.items():
            if oid not in objs_a:
                by_id.setdefault(o['type'], [0, 0, 0])[0] += 1
        born_bytes = {}
        for (t, _, _), v in want.items():
            born_bytes[t] = born_bytes.get(t, 0) + v['new-bytes']
        live = {t['type']: t['live'] for t in d['types'] if t['live'] != [0, 0]}
        self.assertEqual(set(rows), set(live))
        for t, (new, freed, kept) in by_id.items():
            expect = {'new-count': new, 'freed-count': freed, 'kept-count': kept,
                      'new-bytes': born_bytes.get(t, 0)}
            self.assertEqual({k: int(rows[t][k]) for k in expect}, expect, t)
            self.assertEqual([freed + kept, new + kept], live[t], t)
        # Attached memory's bytes are greyed with the reason, not a silent 0.
        attached = self.js("""[...document.querySelectorAll('table#diff-groups tr[data-site]')]
            .map(r => [Number(r.dataset.site), [...r.querySelectorAll('td[data-col$="bytes"]')]
                .map(td => [td.classList.contains('vk-attached'), td.title])])""")
        attached = [(self.model.site_groups(k)[0], cells) for k, cells in attached]
        grey = [cells for g, cells in attached if self.model.attached(g)]
        changed = any(self.model.attached(g) and (f <= 0 <= l) != (f <= n - 1 <= l)
                      for g, f, l, _, _ in self.model.cells)
        self.assertEqual(bool(grey), changed)
        for cells in grey:
            for is_grey, title in cells:
                self.assertTrue(is_grey)
                self.assertIn('counted with the object it is bound to', title)
        for g, cells in attached:
            if not self.model.attached(g):
                self.assertFalse(any(c[0] for c in cells), g)

    def site_diff(self, a, b):
        """{site: {column: value}} of the call sites alive at a or b, from the data."""
        out = {}
        for g, first, last, count, nbytes in self.model.cells:
            at_a, at_b = first <= a <= last, first <= b <= last
            if not (at_a or at_b):
                continue
            w = 'kept' if at_a and at_b else 'new' if at_b else 'freed'
            v = out.setdefault(self.model.site_of[g], dict.fromkeys(DIFF_COLS, 0))
            v[w + '-count'] += count
            v[w + '-bytes'] += nbytes
        return out

    def test_diff_hide_unchanged(self):
        self.fresh('#diff')
        a, b = 0, self.model.n - 1
        want = self.site_diff(a, b)
        changed = lambda v: v['new-count'] + v['freed-count'] > 0  # noqa: E731

        def shown():
            rows = self.js('__vk.cells("table#diff-groups tr[data-site]")')
            return {int(r['data-site']): {c: int(r[c]) for c in DIFF_COLS} for r in rows}

        def types():
            rows = self.js('__vk.cells("table#diff-types tr[data-type]")')
            return {r['data-type']: r for r in rows}

        # By default, hidden: only the call sites and types with new or freed objects.
        self.assertTrue(self.js('document.querySelector("#diff-hide-unchanged").checked'))
        self.assertEqual(shown(), {k: v for k, v in want.items() if changed(v)})
        hidden_types = types()
        self.assertTrue(all(int(r['new-count']) + int(r['freed-count']) > 0
                            for r in hidden_types.values()))
        self.assertTrue(any(not changed(v) for v in want.values()), 'no unchanged call site')
        self.b.click('#diff-hide-unchanged')
        self.assertEqual(shown(), want)
        unchanged = self.js('[...document.querySelectorAll("table#diff-groups tr.vk-unchanged")]'
                            '.map(r => Number(r.dataset.site))')
        self.assertEqual(sorted(unchanged), sorted(k for k, v in want.items() if not changed(v)))
        self.assertGreaterEqual(len(types()), len(hidden_types))
        self.b.click('#diff-hide-unchanged')
        self.assertEqual(shown(), {k: v for k, v in want.items() if changed(v)})

    def test_diff_row_expands_to_its_objects(self):
        self.fresh('#diff')
        a, b = 0, self.model.n - 1
        want = self.site_diff(a, b)
        # The changed call site with the most lifetimes.
        lifetimes = {}
        for g, first, last, _, _ in self.model.cells:
            k = self.model.site_of[g]
            if k in want and (first <= a <= last or first <= b <= last):
                lifetimes.setdefault(k, set()).add((first, last))
        site = max((k for k, v in want.items() if v['new-count'] + v['freed-count'] > 0),
                   key=lambda k: (len(lifetimes[k]), -k))
        row = 'table#diff-groups tr[data-site="%d"]' % site
        self.assertEqual(self.attrs(row + ' button.vk-expand')[0]['aria-expanded'], 'false')
        self.assertEqual(self.attrs('tr.vk-diff-objects'), [])
        self.b.click(row + ' button.vk-expand')
        self.b.wait_for('document.querySelectorAll("tr.vk-diff-objects").length > 0')
        self.assertEqual(self.attrs(row + ' button.vk-expand')[0]['aria-expanded'], 'true')
        objects = self.js('__vk.cells("table#diff-groups tr.vk-diff-objects")')
        self.assertEqual({(int(o['data-first']), int(o['data-last'])) for o in objects},
                         lifetimes[site])
        self.assertTrue(all(o['data-of-site'] == str(site) for o in objects))
        # Each lifetime's objects in its column, from the cells; together, the row's values.
        for o in objects:
            first, last = int(o['data-first']), int(o['data-last'])
            expect = dict.fromkeys(DIFF_COLS, 0)
            for g, f, l, count, nbytes in self.model.cells:
                if self.model.site_of[g] == site and (f, l) == (first, last):
                    w = ('kept' if f <= a <= l and f <= b <= l else 'new' if f <= b <= l
                         else 'freed')
                    expect[w + '-count'] += count
                    expect[w + '-bytes'] += nbytes
            self.assertEqual({c: int(o[c]) for c in DIFF_COLS}, expect, (first, last))
        for c in DIFF_COLS:
            self.assertEqual(sum(int(o[c]) for o in objects), want[site][c], c)
        # A click closes it; the choice of snapshots keeps what is open.
        self.b.click(row + ' button.vk-expand')
        self.assertEqual(self.attrs('tr.vk-diff-objects'), [])

    def test_diff_type_row_expands_to_its_call_sites(self):
        self.fresh('#diff')
        a, b = 0, self.model.n - 1
        want = self.site_diff(a, b)
        self.b.click('#diff-hide-unchanged')  # every call site, so that they add up to the type
        per_type = {}
        for k in want:
            per_type.setdefault(self.model.group_type(self.model.site_groups(k)[0]), []).append(k)
        t = max(per_type, key=lambda x: (len(per_type[x]), x))
        row = 'table#diff-types tr[data-type="%s"]' % t
        self.assertEqual(self.attrs(row + ' button.vk-expand')[0]['aria-expanded'], 'false')
        self.b.click(row + ' button.vk-expand')
        self.b.wait_for('document.querySelectorAll("tr.vk-diff-sites").length > 0')
        subs = self.js('__vk.cells("table#diff-types tr.vk-diff-sites")')
        self.assertEqual(sorted(int(r['data-site-index']) for r in subs), sorted(per_type[t]))
        for r in subs:
            self.assertEqual(r['data-of-type'], t)
            self.assertEqual({c: int(r[c]) for c in DIFF_COLS}, want[int(r['data-site-index'])])
        total = self.js('__vk.cells(%s)' % json.dumps(row))[0]
        for c in DIFF_COLS:
            self.assertEqual(sum(int(r[c]) for r in subs), int(total[c]), c)
        self.b.click(row + ' button.vk-expand')
        self.assertEqual(self.attrs('tr.vk-diff-sites'), [])

    def full_indices(self, indices):
        paths = []
        for i in indices:
            seq = self.data['snapshots'][i]['sequence']
            paths.append(next(k for k, p in enumerate(self.scn.snapshots)
                              if scenario_page._sequence(p) == seq))
        return paths

    def test_diff_other_pair_follows_the_data(self):
        self.fresh('#diff')
        a, b = 1, self.model.n - 2
        self.choose('select#diff-a', a)
        self.choose('select#diff-b', b)
        at_a, at_b = self.model.alive(a, 'site'), self.model.alive(b, 'site')
        new = {}
        for g, first, last, count, _ in self.model.cells:
            alive_a, alive_b = first <= a <= last, first <= b <= last
            if alive_b and not alive_a:
                k = self.model.site_of[g]
                new[k] = new.get(k, 0) + count
        rows = {int(r['data-site']): r
                for r in self.js('__vk.cells("table#diff-groups tr[data-site]")')}
        for g, count in new.items():
            if count:
                self.assertEqual(int(rows[g]['new-count']), count, g)
        self.assertTrue(at_a or at_b)

    # --- pixels and no-script -------------------------------------------------------------

    def test_screenshots_of_each_view_are_drawn(self):
        self.fresh()
        for v in VIEWS:
            with self.subTest(view=v):
                path = os.path.join(self.tmp, v + '.png')
                clip = self.b.element_clip('section#' + v)
                clip = (clip[0], clip[1], min(clip[2], 1280), min(clip[3], 900))
                self.b.screenshot(path, clip=clip)
                image = png_reader.read_png(path)
                colours = {}
                for y in range(0, image.height, 2):
                    for x in range(0, image.width, 2):
                        p = image.pixel(x, y)
                        colours[p] = colours.get(p, 0) + 1
                self.assertGreater(len(colours), 8 if v != 'timeline' else 30, v)
                if v == 'timeline':  # the first series' stacks, drawn: thousands of pixels
                    self.assertGreater(colours.get(FIRST_SERIES, 0), 2000, v)
        # The flame graph's frames, in the differential view: growth is red.
        self.choose('#flame-base', 0)
        path = os.path.join(self.tmp, 'flame-diff.png')
        self.b.screenshot(path, clip=self.b.element_clip('#flame-graph'))
        image = png_reader.read_png(path)
        red = sum(1 for y in range(0, image.height, 2) for x in range(0, image.width, 2)
                  if self.reddish(image.pixel(x, y)))
        grows = self.attrs('.vk-flame-node.vk-grow')
        self.assertEqual(red > 500, bool(grows), (red, len(grows)))

    @staticmethod
    def reddish(p):
        return p[0] > 180 and p[1] < 150 and p[2] < 150

    def test_keyboard(self):
        self.fresh('#findings')
        self.b.focus('th[data-sort="count"]')
        self.b.key('Enter', keycode=13)
        counts = [int(r['data-count']) for r in self.finding_rows()]
        self.assertEqual(counts, sorted(counts, reverse=True))
        self.assertEqual(self.attrs('th[data-sort="count"]')[0].get('aria-sort'), 'descending')
        self.fresh('#timeline')
        i = self.model.n - 1
        self.b.focus('svg#timeline-chart g.vk-snap[data-index="%d"]' % i)
        self.assertIn('snapshot %d ' % self.data['snapshots'][i]['sequence'],
                      self.text_of('#timeline-tip'))

    def test_without_scripts_summary_and_findings_are_readable(self):
        b = cdp.Browser(ARGS.chromium, 1280, 900)
        try:
            b.disable_scripts()
            b.open(self.scn.url(), ready=False)
            self.assertIsNone(b.evaluate('document.documentElement.dataset.explorer || null'))
            self.assertIn('Summary', b.evaluate('document.getElementById("summary").innerText'))
            rows = b.evaluate('document.querySelectorAll("tr.vk-finding").length')
            self.assertEqual(rows, len(self.doc['findings']))
            details = b.evaluate('[...document.querySelectorAll("[id^=finding-]")].map(e => e.id)')
            self.assertEqual(details, ['finding-%d' % (i + 1) for i in self.problem_order()])
            first = self.doc['findings'][0]
            text = b.evaluate('document.body.innerText')
            self.assertIn(first['object_type'], text)
            self.assertEqual(b.messages, [])
        finally:
            b.close()


class ControlTest(unittest.TestCase):
    def test_messages_exceptions_and_csp_violations_are_caught(self):
        # Without this, a change in what the protocol reports would make the checks above
        # pass vacuously.
        tmp = tempfile.mkdtemp(prefix='vkleak-control-')
        page = os.path.join(tmp, 'control.html')
        with open(page, 'w') as f:
            f.write('<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" '
                    'content="default-src \'none\'; script-src \'sha256-%s\'"></head><body>'
                    '<button id="b">x</button><script>%s</script><script>blocked()</script>'
                    '</body></html>' % (self.sha(CONTROL_SCRIPT), CONTROL_SCRIPT))
        try:
            with cdp.Browser(ARGS.chromium, 400, 300) as b:
                b.open('file://' + page)
                b.click('#b')
                b.wait_for('document.title === "clicked"')
                b.wait_for('new Promise(r => setTimeout(() => r(true), 50))')
                text = '\n'.join(b.messages)
                self.assertIn('console.error: control', text)
                self.assertIn('ReferenceError', text)
                self.assertIn('Content Security Policy', text)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    @staticmethod
    def sha(text):
        import base64
        import hashlib
        return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


CONTROL_SCRIPT = ('document.documentElement.dataset.explorer = "ready"; console.error("control");'
                  'document.getElementById("b").addEventListener("click", () => {'
                  'document.title = "clicked"; setTimeout(() => undefinedFunction(), 0); });')


class OmittedChecks:
    """The note when the lifetime cap dropped cells (issue 27): in each view drawn from the
    lifetimes, with the data's counts; none when nothing was dropped."""
    NOTES = ('timeline-omitted', 'flame-omitted', 'diff-omitted')

    def test_note_when_the_lifetime_cap_drops_cells(self):
        self.fresh()
        o = self.data['omitted']
        notes = {n['id']: n for n in self.attrs('p.vk-omitted')}
        if not o['cells']:
            self.assertEqual(notes, {})
            return
        self.assertEqual(set(notes), set(self.NOTES))
        for id_, n in notes.items():
            self.assertEqual((int(n['data-cells']), int(n['data-objects']), int(n['data-bytes'])),
                             (o['cells'], o['objects'], o['bytes']), id_)
            self.assertIn('leaves out %s objects' % format(o['objects'], ','), n['text'])
            self.assertIn('in %s lifetime cells' % format(o['cells'], ','), n['text'])
            self.assertIn('--max-lifetime-cells', n['text'])
        # The views' sections hold them, above what they draw.
        for id_, view in zip(self.NOTES, ('timeline', 'flamegraph', 'diff')):
            self.assertTrue(self.js('!!document.querySelector("section#%s #%s")' % (view, id_)))


class ExitChecks:
    """The leaked-at-exit choice of the flame graph (issue 27), for scenario classes."""

    def test_leaked_at_exit_in_the_flame_graph(self):
        # What leaked, by stack: the leak_at_exit findings of the JSON report, each at its path.
        leaks = [f for f, d in zip(self.doc['findings'], self.data['findings'])
                 if f['kind'] == 'leak_at_exit' and d['group'] >= 0]
        self.fresh('#flamegraph')
        options = self.js('[...document.querySelectorAll("#flame-snapshot option")]'
                          '.map(o => [o.value, o.textContent])')
        if not leaks:
            self.assertNotIn('exit', [o[0] for o in options])
            return
        count = sum(f['count'] for f in leaks)
        self.assertEqual(options[-1], ['exit', 'leaked at exit (%s object%s)'
                                       % (format(count, ','), '' if count == 1 else 's')])
        self.assertEqual(self.choose('#flame-snapshot', 'exit'), 'exit')
        for metric in ('count', 'bytes'):
            self.choose('#flame-metric', metric)
            root = self.attrs('.vk-flame-node[data-function="all"]')[0]
            self.assertEqual(int(root['data-value']), sum(f[metric] for f in leaks), metric)
        self.choose('#flame-metric', 'count')
        nodes = self.attrs('.vk-flame-node')
        by_function = {}
        for f in leaks:
            by_function[f['function']] = by_function.get(f['function'], 0) + f['count']
        for fn, count in by_function.items():
            held = sum(int(n['data-value']) for n in nodes
                       if n.get('data-path') == fn or n.get('data-path', '').endswith(' > ' + fn))
            self.assertEqual(held, count, fn)


class InlinedHelper(PageFixture, ExitChecks, OmittedChecks, unittest.TestCase):
    """An inlined helper (create_buffer) called from two places, every buffer named alike
    (tests/scenarios/callsite_inlined.cpp --same-name): the two call sites differ only by their
    path, which keys and labels them everywhere (issue 27)."""
    SCENARIO = 'callsite_inlined'
    ARGS = ('--frames', '90', '--same-name')

    def helper_sites(self):
        """The call sites of buffers made through create_buffer: {site: path}."""
        out = {}
        for g in range(len(self.data['groups'])):
            path = self.model.path(g)
            if self.model.group_type(g) == 'VkBuffer' and path and path[-1] == 'create_buffer':
                out[self.model.site_of[g]] = path
        return out

    def test_two_callers_are_two_call_sites_with_their_paths(self):
        sites = self.helper_sites()
        self.assertEqual(len(sites), 2, sites)
        callers = sorted(p[-2] for p in sites.values())
        self.assertIn('lambda', callers[0])
        self.assertIn('upload_mesh<512', callers[1])
        # The groups' names are the same: only the path tells them apart.
        names = {self.data['groups'][g][2] for g in range(len(self.data['groups']))
                 if self.model.site_of[g] in sites}
        self.assertEqual(names, {'staging.*'})

    def test_legend_and_diff_rows_name_each_caller(self):
        self.fresh('#timeline')
        self.b.click('button[data-timeline-mode="groups"]')
        legend = self.attrs('#timeline-legend .vk-legend-entry')
        labels = [e['text'] for e in legend]
        self.assertEqual(len(labels), len(set(labels)), labels)
        sites = self.helper_sites()
        by_key = {e['data-key']: e for e in legend}
        for site, path in sites.items():
            entry = by_key[str(site)]
            self.assertTrue(entry['text'].endswith(' @ ' + path[-2] + ' > create_buffer'), entry)
            self.assertEqual(entry['title'], ' > '.join(path))
        self.fresh('#diff')
        rows = self.attrs('table#diff-groups tr[data-site]')
        firsts = self.js('[...document.querySelectorAll("table#diff-groups tr[data-site]")]'
                         '.map(r => r.cells[0].textContent)')
        self.assertEqual(len(firsts), len(set(firsts)), firsts)
        shown = {int(r['data-site']): r for r in rows}
        for site, path in sites.items():
            self.assertEqual(shown[site]['data-path'], ' > '.join(path))

    def test_flame_graph_one_box_per_path(self):
        self.fresh('#flamegraph')
        self.choose('#flame-metric', 'count')
        nodes = self.attrs('.vk-flame-node')
        paths = [n.get('data-path') for n in nodes if n['data-function'] != 'all']
        self.assertNotIn(None, paths)
        self.assertEqual(len(paths), len(set(paths)), sorted(paths))
        mains = [n for n in nodes if n['data-function'] == 'main']
        self.assertEqual(len(mains), 1, mains)
        # main holds what both callers made and is alive at the last snapshot.
        last = self.model.n - 1
        held = sum(v[0] for g, v in self.model.alive(last, 'group').items()
                   if 'main' in self.model.path(g))
        self.assertEqual(int(mains[0]['data-value']), held)

    def test_timeline_x_axis_is_proportional_to_frames(self):
        # Snapshots at frames 25, 31 (the label "odd"), 50, 75: not evenly spaced.
        self.fresh('#timeline')
        frames = [s['frame'] for s in self.data['snapshots']]
        self.assertEqual(len(set(frames)), len(frames))
        self.assertNotEqual(frames[1] - frames[0], frames[2] - frames[1], frames)
        centres = self.js("""[...document.querySelectorAll('svg#timeline-chart g.vk-snap')]
          .map(g => {
            const r = g.querySelector('rect.vk-stack');
            return Number(r.getAttribute('x')) + Number(r.getAttribute('width')) / 2; })""")
        span = centres[-1] - centres[0]
        self.assertGreater(span, 500)
        for f, x in zip(frames, centres):
            at = (f - frames[0]) / (frames[-1] - frames[0])
            self.assertAlmostEqual((x - centres[0]) / span, at, delta=0.002, msg=(f, x))
        # The ticks are round frames, where those frames are.
        ticks = self.js("""[...document.querySelectorAll('svg#timeline-chart text.vk-frame-tick')]
            .map(t => [Number(t.dataset.frame), Number(t.getAttribute('x')), t.textContent])""")
        self.assertGreaterEqual(len(ticks), 3)
        for f, x, text in ticks:
            self.assertEqual(text, format(f, ','))
            self.assertEqual(f % 5, 0, ticks)
            at = (f - frames[0]) / (frames[-1] - frames[0])
            self.assertAlmostEqual(x, centres[0] + span * at, delta=0.5)
        # A column is where its bar is: hovering the bar of frame 31 names that snapshot.
        self.b.hover('svg#timeline-chart g.vk-snap[data-index="1"] rect.vk-stack')
        self.assertIn('frame 31 ', self.text_of('#timeline-tip'))

    def test_timeline_hover_shows_the_stack(self):
        self.fresh('#timeline')
        self.b.click('button[data-timeline-mode="groups"]')
        self.b.click('button[data-metric="count"]')
        last = self.model.n - 1
        for site, path in self.helper_sites().items():
            with self.subTest(site=site):
                self.b.hover('svg#timeline-chart g.vk-snap[data-index="%d"] '
                             'rect.vk-stack[data-key="%d"]' % (last, site))
                self.b.wait_for('document.querySelector("#timeline-stack").dataset.site === "%d"'
                                % site)
                frames = self.attrs('#timeline-stack ol.vk-frames li')
                # Innermost first: the helper, inlined, then its caller, ... main.
                self.assertEqual([f['data-function'] for f in frames], list(reversed(path)))
                self.assertIn('callsite_inlined.cpp:', frames[0]['text'])
                self.assertTrue(frames[0]['text'].endswith('(inlined)'), frames[0])
                count = sum(v[0] for g, v in self.model.alive(last, 'group').items()
                            if self.model.site_of[g] == site)
                head = self.text_of('#timeline-stack .vk-stack-head')
                self.assertIn('@ %s > create_buffer: %d objects at snapshot %d'
                              % (path[-2], count, self.data['snapshots'][last]['sequence']), head)
        # By type: the type's biggest call site there.
        self.b.click('button[data-timeline-mode="types"]')
        self.b.hover('svg#timeline-chart g.vk-snap[data-index="%d"] '
                     'rect.vk-stack[data-key="VkBuffer"]' % last)
        self.b.wait_for('!!document.querySelector("#timeline-stack").dataset.site')
        self.assertIn('(the biggest of 2 call sites)',
                      self.text_of('#timeline-stack .vk-stack-head'))
        self.assertEqual(self.attrs('#timeline-stack ol.vk-frames li')[0]['data-function'],
                         'create_buffer')

    def test_show_in_flame_graph_lights_its_own_path(self):
        buttons = 0
        for f in self.data['findings']:
            g = f['group']
            if g < 0 or not self.model.path(g) or self.model.path(g)[-1] != 'create_buffer':
                continue
            with self.subTest(rank=f['rank']):
                self.fresh('#finding-%d' % f['rank'])
                sel = '#finding-%d button.vk-to-flame' % f['rank']
                path = ' > '.join(self.model.path(g))
                self.assertIn(' > create_buffer in the flame graph', self.text_of(sel))
                self.b.click(sel)
                self.b.wait_for('location.hash === "#flamegraph"')
                matched = self.attrs('.vk-flame-node.vk-match')
                self.assertEqual([m['data-path'] for m in matched], [path])
                buttons += 1
        self.assertEqual(buttons, 2)

    def test_show_in_flame_graph_zooms_out_to_it(self):
        # Zoomed into one caller's frame, the other caller's finding is not drawn: its button
        # zooms to that call site's caller, and lights it.
        self.fresh('#flamegraph')
        self.choose('#flame-metric', 'count')
        sites = self.helper_sites()
        paths = sorted(' > '.join(p) for p in sites.values())
        lam = [p for p in paths if 'lambda' in p][0]
        tmpl = [p for p in paths if 'upload_mesh' in p][0]
        self.b.click('.vk-flame-node[data-path=%s]' % json.dumps(lam))
        self.b.wait_for('![...document.querySelectorAll(".vk-flame-node")].some(n => n.dataset.path'
                        ' === %s)' % json.dumps(tmpl))
        rank = next(f['rank'] for f in self.data['findings']
                    if f['group'] >= 0 and ' > '.join(self.model.path(f['group'])) == tmpl)
        self.js('location.hash = "#finding-%d"' % rank)
        self.b.wait_for('document.getElementById("finding-%d").open' % rank)
        self.b.click('#finding-%d button.vk-to-flame' % rank)
        self.b.wait_for('location.hash === "#flamegraph"')
        self.assertEqual([m['data-path'] for m in self.attrs('.vk-flame-node.vk-match')], [tmpl])
        crumbs = self.text_of('#flame-crumbs')
        self.assertTrue(crumbs.endswith(tmpl.split(' > ')[-2]), crumbs)



class CappedLifetimes(PageFixture, OmittedChecks, unittest.TestCase):
    """callsite_inlined's run with a lifetime cap of 6 cells: most are dropped."""
    SCENARIO = 'callsite_inlined'
    ARGS = ('--frames', '90', '--same-name')
    REPORT_ARGS = ('--max-lifetime-cells', '6')

    def test_the_cap_dropped_cells(self):
        o = self.data['omitted']
        self.assertEqual(len(self.model.cells), 6)
        self.assertGreater(o['cells'], 0)
        self.assertGreater(o['objects'], 0)


class Incident1(ExplorerChecks, ExitChecks, unittest.TestCase):
    SCENARIO = 'incident1_wrapper_growth'
    ARGS = ('--frames', '150')


class Incident5(ExplorerChecks, ExitChecks, unittest.TestCase):
    SCENARIO = 'incident5_bindgroup_cache'


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument('--build', required=True)
    parser.add_argument('--chromium', required=True)
    ARGS, rest = parser.parse_known_args()
    if not (os.path.isfile(ARGS.chromium) and os.access(ARGS.chromium, os.X_OK)):
        print('SKIP: %s is not installed (tools/deps.sh test installs chromium)' % ARGS.chromium)
        return SKIP
    ARGS.build = os.path.abspath(ARGS.build)
    program = unittest.main(argv=[sys.argv[0], '-v'] + rest, exit=False)
    return 0 if program.result.wasSuccessful() else 1


if __name__ == '__main__':
    sys.exit(main())
