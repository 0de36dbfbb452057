"""A scenario program run under the real layer on lavapipe (as tests/integration does), and its
report: `vkleak report DIR --format json --html page.html` on the same snapshots. Shared by the
explorer's browser tests and tools/screenshots.sh.

Command line (for tools/screenshots.sh): scenario_page.py BUILD_DIR SCENARIO OUT_DIR [ARGS...]
writes OUT_DIR/report.html and OUT_DIR/report.json."""

import glob
import html.parser
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'integration'))


class Run:
    def __init__(self, out, page, doc, snapshots):
        self.out = out                # the snapshot directory
        self.page = page              # the HTML report
        self.doc = doc                # the findings document (JSON)
        self.snapshots = snapshots    # the snapshot files, in the order they were taken

    def url(self, fragment=''):
        return 'file://' + self.page + fragment


def run_scenario(build, tmp, name, args=(), every='25', report_args=()):
    os.environ.setdefault('VKLEAK_TEST_BUILD_DIR', build)
    os.environ.setdefault('VKLEAK_TEST_SOURCE_DIR', os.path.join(HERE, '..', '..'))
    import harness  # after the environment: it reads the build directory on import
    out = os.path.join(tmp, name + '-snapshots')
    os.makedirs(out, exist_ok=True)
    env = harness.explicit_env(tmp, out)
    env['VKLEAK_SNAPSHOT_EVERY'] = every
    env['VKLEAK_FRAME_BOUNDARY'] = 'submit'  # headless: frames end at submits
    proc = subprocess.run([harness.scenario(name)] + list(args), env=env, capture_output=True,
                          text=True, timeout=240)
    if proc.returncode != 0:
        raise RuntimeError('%s exited %d\n%s' % (name, proc.returncode, proc.stderr[-3000:]))
    page = os.path.join(tmp, name + '.html')
    vkleak = os.path.join(build, 'bin', 'vkleak')
    proc = subprocess.run([vkleak, 'report', out, '--format', 'json', '--html', page,
                           *report_args],
                          capture_output=True, text=True, timeout=240,
                          env=dict(os.environ, DEBUGINFOD_URLS=''))
    if proc.returncode not in (0, 1):  # 1: findings
        raise RuntimeError('vkleak report exited %d\n%s' % (proc.returncode, proc.stderr[-3000:]))
    doc = json.loads(proc.stdout)
    snapshots = sorted(glob.glob(os.path.join(out, '*.json')), key=_sequence)
    return Run(out, page, doc, snapshots)


def _sequence(path):
    with open(path) as f:
        return json.load(f)['sequence']


class _DataScript(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.inside = False
        self.found = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.inside = tag == 'script' and a.get('id') == 'vkleak-explorer-data'
        if self.inside:
            self.found.append('')

    def handle_endtag(self, tag):
        self.inside = False

    def handle_data(self, data):
        if self.inside:
            self.found[-1] += data


def explorer_data(page):
    """The page's embedded explorer data (contract §2): every script#vkleak-explorer-data."""
    with open(page, encoding='utf-8') as f:
        text = f.read()
    parser = _DataScript()
    parser.feed(text)
    return [json.loads(t) for t in parser.found]


def main():
    import tempfile
    build, name, dest = sys.argv[1:4]
    tmp = tempfile.mkdtemp(prefix='vkleak-shots-')
    run = run_scenario(os.path.abspath(build), tmp, name, sys.argv[4:])
    os.makedirs(dest, exist_ok=True)
    os.replace(run.page, os.path.join(dest, 'report.html'))
    with open(os.path.join(dest, 'report.json'), 'w') as f:
        json.dump(run.doc, f)
    print(tmp)


if __name__ == '__main__':
    main()
