#!/usr/bin/env python3
"""End-to-end test of the HTML report in a real headless browser (Chromium).

Renders the incident fixture (and an empty report) with vkleak_report, opens each page
in headless Chromium, and checks:
  - the browser logs no console message at all: the page's one script (the explorer, allowed by
    its CSP hash) logs nothing, so any message is an error (a blocked script or style, a CSP
    violation, an exception, a failed load); a control page with a deliberate error proves the
    log is actually read;
  - the explorer ran: <html data-explorer="ready">;
  - the dumped DOM has every chart with its accessible title and series paths with many points,
    the legend, the chain diagrams, and no element that came from user data (<script>, <img>):
    the only scripts are the explorer and its JSON data block;
  - the screenshot is not blank: the line charts' plot areas hold the series colours.

Exit 77 (ctest SKIP_RETURN_CODE) when Chromium is not installed; tools/deps.sh test installs it.
"""

import argparse
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import png_reader  # noqa: E402

ARGS = None
SKIP = 77

# Series colours of the first types (kPalette in html_model.h) and the plot background.
SERIES_COLOURS = [(0x4e, 0x79, 0xa7), (0xf2, 0x8e, 0x2b), (0xe1, 0x57, 0x59)]
PLOT_BG = (0xfb, 0xfc, 0xfd)


class Element:
    def __init__(self, tag, attrs, parent):
        self.tag = tag
        self.attrs = dict(attrs)
        self.parent = parent
        self.children = []
        self.text = ''

    def classes(self):
        return (self.attrs.get('class') or '').split()

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()

    def find_all(self, tag=None, cls=None, id=None):
        return [e for e in self.walk()
                if (tag is None or e.tag == tag) and (cls is None or cls in e.classes())
                and (id is None or e.attrs.get('id') == id)]

    def all_text(self):
        return self.text + ''.join(c.all_text() for c in self.children)


class DomBuilder(html.parser.HTMLParser):
    VOID = {'meta', 'link', 'br', 'hr', 'img', 'input', 'source', 'wbr', 'area', 'col', 'embed'}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Element('#document', [], None)
        self.current = self.root

    def handle_starttag(self, tag, attrs):
        element = Element(tag, attrs, self.current)
        self.current.children.append(element)
        if tag not in self.VOID:
            self.current = element

    def handle_startendtag(self, tag, attrs):
        self.current.children.append(Element(tag, attrs, self.current))

    def handle_endtag(self, tag):
        node = self.current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.current = node.parent

    def handle_data(self, data):
        self.current.text += data


def parse_dom(text):
    builder = DomBuilder()
    builder.feed(text)
    builder.close()
    return builder.root


def path_points(d):
    return len(re.findall(r'[ML]\s*-?[\d.]+\s+-?[\d.]+', d or ''))


def chromium(url, user_data_dir, extra):
    cmd = [ARGS.chromium, '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
           '--no-first-run', '--disable-background-networking', '--disable-component-update',
           '--disable-sync', '--hide-scrollbars', '--user-data-dir=' + user_data_dir,
           '--enable-logging=stderr', '--v=0'] + extra + [url]
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    return result.stdout.decode('utf-8', 'replace'), result.stderr.decode('utf-8', 'replace')


def console_messages(stderr):
    # Chromium logs every console message (errors, uncaught exceptions, CSP violations) as
    # "...:INFO:CONSOLE(line)] ..." or "...:INFO:CONSOLE:line] ...".
    return [line for line in stderr.splitlines() if ':CONSOLE' in line]


class BrowserTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix='vkleak-html-')
        cls.profile = os.path.join(cls.tmp, 'profile')
        cls.report, cls.doc = cls.render('incident')
        cls.dom_text, cls.dom_log = chromium('file://' + cls.report, cls.profile, ['--dump-dom'])
        cls.dom = parse_dom(cls.dom_text)
        cls.screenshot = os.path.join(cls.tmp, 'report.png')
        _, cls.shot_log = chromium('file://' + cls.report, cls.profile,
                                   ['--screenshot=' + cls.screenshot, '--window-size=1280,2000'])
        keep = os.environ.get('VKLEAK_HTML_KEEP')
        if keep:  # for a person to look at: VKLEAK_HTML_KEEP=/tmp/out ctest -R html.browser
            os.makedirs(keep, exist_ok=True)
            shutil.copy(cls.report, keep)
            if os.path.exists(cls.screenshot):
                shutil.copy(cls.screenshot, keep)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def render(cls, name):
        """The page of a test report, and its findings document (the same report as JSON)."""
        out = os.path.join(cls.tmp, name + '.html')
        findings = os.path.join(cls.tmp, name + '.json')
        subprocess.run([ARGS.render, name, out, findings], check=True, timeout=60)
        with open(findings) as f:
            return out, json.load(f)

    # --- the browser's log ---------------------------------------------------------------------

    def test_console_errors_are_detected(self):
        # Control: without this, a change in Chromium's log format would make the checks below
        # pass vacuously.
        bad = os.path.join(self.tmp, 'control.html')
        with open(bad, 'w') as f:
            f.write('<!DOCTYPE html><html><body><p>x</p>'
                    '<script>console.error("control"); undefinedFunction();</script></body></html>')
        _, log = chromium('file://' + bad, self.profile, ['--dump-dom'])
        messages = console_messages(log)
        self.assertTrue(any('control' in m for m in messages), log[-3000:])
        self.assertTrue(any('Uncaught' in m for m in messages), log[-3000:])

    def test_no_console_messages(self):
        self.assertEqual(console_messages(self.dom_log), [])
        self.assertEqual(console_messages(self.shot_log), [])

    def test_explorer_is_ready(self):
        html = self.dom.find_all('html')
        self.assertEqual(len(html), 1)
        self.assertEqual(html[0].attrs.get('data-explorer'), 'ready')
        nav = self.dom.find_all('nav', id='vk-nav')
        self.assertEqual(len(nav), 1)
        self.assertEqual([a.attrs.get('href') for a in nav[0].find_all('a')],
                         ['#timeline', '#flamegraph', '#findings', '#retainers', '#diff'])

    # --- the DOM -------------------------------------------------------------------------------

    def chart(self, chart_id):
        svgs = self.dom.find_all('svg', cls='vk-chart', id=chart_id)
        self.assertEqual(len(svgs), 1, 'svg.vk-chart#%s' % chart_id)
        svg = svgs[0]
        self.assertEqual(svg.attrs.get('role'), 'img')
        self.assertTrue(svg.attrs.get('aria-label'), chart_id + ' has no aria-label')
        titles = [c for c in svg.children if c.tag == 'title']
        self.assertEqual(len(titles), 1, chart_id + ' needs one <title>')
        self.assertTrue(titles[0].all_text().strip())
        return svg

    def test_type_charts_have_many_point_lines_and_legends(self):
        types = self.doc['series']['types']
        for chart_id in ('chart-live', 'chart-bytes'):
            svg = self.chart(chart_id)
            paths = svg.find_all('path', cls='vk-series')
            self.assertGreaterEqual(len(paths), 3, chart_id)
            for p in paths:
                self.assertGreaterEqual(path_points(p.attrs.get('d')), 10,
                                        '%s: %s' % (chart_id, p.attrs.get('d')))
            legend = svg.find_all('g', cls='vk-legend-item')
            self.assertEqual(len(legend), len(paths), chart_id)
            # Axes with ticks and labels.
            self.assertGreaterEqual(len(svg.find_all('text', cls='vk-tick-label')), 6)
            labels = [t.all_text() for t in svg.find_all('text', cls='vk-axis-label')]
            self.assertIn('frame', labels)
        live = self.chart('chart-live')
        shown = {p.attrs.get('data-series') for p in live.find_all('path', cls='vk-series')}
        self.assertIn('VkBuffer', shown)
        self.assertIn('VkDescriptorSet', shown)
        # Ten types: VkFence has VkCommandBuffer's counts and shares its line; eight lines and
        # one "other" line.
        self.assertEqual(len(types), 10)
        self.assertIn('other (1 type)', shown)
        same = [t.all_text() for t in live.find_all('tspan', cls='vk-legend-same')]
        self.assertEqual(same, ['= VkFence'])

    def test_group_small_multiples(self):
        groups = self.dom.find_all('div', id='chart-groups')
        self.assertEqual(len(groups), 1)
        charts = groups[0].find_all('svg', cls='vk-group-chart')
        self.assertEqual(len(charts), 6)
        for svg in charts:
            self.chart(svg.attrs['id'])
            paths = svg.find_all('path', cls='vk-series')
            self.assertEqual(len(paths), 1)
            self.assertGreaterEqual(path_points(paths[0].attrs.get('d')), 10)
        # Ranked by growth: the wrapper buffers (+280) come first.
        first = groups[0].find_all('figcaption')[0].all_text()
        self.assertIn('wrapper.vertices', first)

    def test_chain_diagrams(self):
        svg = self.chart('chart-chains')
        chains = svg.find_all('g', cls='vk-chain')
        with_chain = [f for f in self.doc['findings'] if f['chains']]
        self.assertEqual(len(chains), len(with_chain))
        first = chains[0]
        self.assertEqual([l.attrs.get('data-type') for l in first.find_all('g', cls='vk-chain-link')],
                         ['VkBufferView', 'VkBuffer', 'VkDeviceMemory'])
        self.assertEqual(len(first.find_all('line', cls='vk-arrow')), 2)
        self.assertIn('4.0 MiB', first.all_text())

    def test_findings_table_and_summary(self):
        rows = self.dom.find_all('tr', cls='vk-finding')
        self.assertEqual(len(rows), len(self.doc['findings']))
        self.assertEqual([r.attrs.get('data-kind') for r in rows],
                         [f['kind'] for f in self.doc['findings']])
        self.assertIn('18.8 MiB', rows[0].all_text())
        self.assertIn('GpuBuffer::GpuBuffer() (incident1_wrapper_growth.cpp:42)', rows[0].all_text())
        self.assertEqual(len(self.dom.find_all('details', cls='vk-detail')), len(rows))
        verdict = self.dom.find_all(id='verdict')
        self.assertEqual(len(verdict), 1)
        # A report is no gate: what it found, not FAIL (issue 27).
        self.assertIn('found', verdict[0].all_text())
        self.assertNotIn('FAIL', verdict[0].all_text())
        cards = self.dom.find_all('div', cls='vk-card')
        self.assertEqual(len(cards), 6)  # five kinds and the total

    def test_user_data_stays_text(self):
        # Debug names hold <script>, quotes and an <img onerror>: none may become markup.
        scripts = self.dom.find_all('script')
        code = [e for e in scripts if e.attrs.get('type') != 'application/json']
        data = [e for e in scripts if e.attrs.get('type') == 'application/json']
        self.assertEqual(len(code), 1, 'exactly the embedded explorer')
        self.assertEqual(code[0].attrs, {})
        self.assertIn('vkleak report explorer', code[0].all_text())
        self.assertLessEqual(len(data), 1)
        for e in data:
            self.assertEqual(e.attrs, {'type': 'application/json', 'id': 'vkleak-explorer-data'})
        self.assertEqual(self.dom.find_all('img'), [])
        for element in self.dom.walk():
            for attr in element.attrs:
                self.assertFalse(attr.startswith('on'), '%s has %s' % (element.tag, attr))
        text = self.dom.all_text()
        self.assertIn("imgui.texture.<script>alert(1)</script>", text)
        self.assertIn('tex "atlas" & \'hud\' </td></table>', text)

    def test_empty_document_says_no_leaks(self):
        page, _ = self.render('empty')
        dom_text, log = chromium('file://' + page, self.profile, ['--dump-dom'])
        self.assertEqual(console_messages(log), [])
        dom = parse_dom(dom_text)
        self.assertEqual(len(dom.find_all(id='no-findings')), 1)
        self.assertIn('PASS', dom.find_all(id='verdict')[0].all_text())
        self.assertEqual(dom.find_all('svg'), [])

    # --- the pixels ----------------------------------------------------------------------------

    def test_screenshot_shows_the_charts(self):
        self.assertTrue(os.path.exists(self.screenshot), self.shot_log[-3000:])
        image = png_reader.read_png(self.screenshot)
        self.assertEqual((image.width, image.height), (1280, 2000))
        # The plot areas: rows where the plot background spans most of a chart's width.
        plot_rows = []
        for y in range(image.height):
            row = image.rows[y]
            c = image.channels
            bg = sum(1 for x in range(0, image.width, 4)
                     if tuple(row[x * c:x * c + 3]) == PLOT_BG)
            if bg * 4 > 400:
                plot_rows.append(y)
        self.assertGreater(len(plot_rows), 150, 'no plot area in the screenshot')
        # The first block of rows is the live-objects chart (grid lines make gaps of a row).
        block = [plot_rows[0]]
        for y in plot_rows[1:]:
            if y > block[-1] + 4:
                break
            block.append(y)
        self.assertGreater(len(block), 150)

        def near(p, q):
            return all(abs(a - b) <= 24 for a, b in zip(p, q))
        counts = [0] * len(SERIES_COLOURS)
        colours = set()
        for y in block:
            for x in range(image.width):
                p = image.pixel(x, y)
                colours.add(p)
                for i, s in enumerate(SERIES_COLOURS):
                    if near(p, s):
                        counts[i] += 1
        # A drawn line crosses the plot: hundreds of pixels of its colour (a legend swatch
        # alone is 54).
        for i, n in enumerate(counts):
            self.assertGreater(n, 300, 'series colour %d: %d pixels' % (i, n))
        self.assertGreater(len(colours), 50)


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument('--render', required=True)
    parser.add_argument('--chromium', required=True)
    ARGS, rest = parser.parse_known_args()
    if not (os.path.isfile(ARGS.chromium) and os.access(ARGS.chromium, os.X_OK)):
        print('SKIP: %s is not installed (tools/deps.sh test installs chromium)' % ARGS.chromium)
        return SKIP
    program = unittest.main(argv=[sys.argv[0], '-v'] + rest, exit=False)
    return 0 if program.result.wasSuccessful() else 1


if __name__ == '__main__':
    sys.exit(main())
