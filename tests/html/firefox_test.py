#!/usr/bin/env python3
"""The explorer page in headless Firefox (Debian's firefox-esr): it renders, and its script runs
without errors.

Firefox is driven by its command line (--headless --screenshot) with a profile that sends the
page's console to stdout (devtools.console.stdout.content) and prints uncaught errors as
"JavaScript error: <url>, line N: ..."; a control page with a deliberate error proves that
output is read. Checks: no message from the page, a screenshot with drawn content, and a
different picture with JavaScript off (the script did build the views).

Exit 77 (ctest SKIP_RETURN_CODE) when Firefox is not installed; tools/deps.sh test installs it."""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import png_reader  # noqa: E402
import scenario_page  # noqa: E402

ARGS = None
SKIP = 77
WIDTH, HEIGHT = 1280, 1600
# Firefox's own modules log too ("console.error: services.settings: ..."): a message from the
# page quotes its strings or has no module prefix.
BROWSER_MODULE = re.compile(r'^console\.\w+: [A-Za-z][\w.\-]*:( |$)')


def firefox(url, profile, shot, javascript=True):
    os.makedirs(profile, exist_ok=True)
    prefs = {'devtools.console.stdout.content': 'true', 'browser.dom.window.dump.enabled': 'true',
             'javascript.enabled': 'true' if javascript else 'false',
             'datareporting.policy.dataSubmissionEnabled': 'false',
             'app.update.enabled': 'false', 'browser.shell.checkDefaultBrowser': 'false'}
    with open(os.path.join(profile, 'user.js'), 'w') as f:
        for k, v in prefs.items():
            f.write('user_pref("%s", %s);\n' % (k, v))
    env = dict(os.environ, MOZ_HEADLESS='1', HOME=profile)
    env.pop('DISPLAY', None)
    proc = subprocess.run([ARGS.firefox, '--headless', '--no-remote', '--profile', profile,
                           '--window-size', '%d,%d' % (WIDTH, HEIGHT), '--screenshot', shot, url],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120, env=env)
    return proc.stdout.decode('utf-8', 'replace')


def page_messages(log, url_prefix='file://'):
    messages = []
    for line in log.splitlines():
        if line.startswith(('JavaScript error: ', 'JavaScript warning: ')):
            if url_prefix in line:
                messages.append(line)
        elif line.startswith('console.') and not BROWSER_MODULE.match(line):
            messages.append(line)
        elif 'Content-Security-Policy' in line or 'Content Security Policy' in line:
            messages.append(line)
    return messages


def drawn(path):
    """(distinct colours, fraction of pixels that are not the most common colour)."""
    image = png_reader.read_png(path)
    counts = {}
    for y in range(0, image.height, 2):
        for x in range(0, image.width, 2):
            p = image.pixel(x, y)
            counts[p] = counts.get(p, 0) + 1
    total = sum(counts.values())
    return image, len(counts), 1 - max(counts.values()) / total


class FirefoxTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix='vkleak-firefox-')
        cls.scn = scenario_page.run_scenario(ARGS.build, cls.tmp, 'incident5_bindgroup_cache')
        cls.shot = os.path.join(cls.tmp, 'on.png')
        cls.log = firefox(cls.scn.url(), os.path.join(cls.tmp, 'p1'), cls.shot)
        cls.shot_off = os.path.join(cls.tmp, 'off.png')
        cls.log_off = firefox(cls.scn.url(), os.path.join(cls.tmp, 'p2'), cls.shot_off,
                              javascript=False)
        keep = os.environ.get('VKLEAK_HTML_KEEP')
        if keep:
            os.makedirs(keep, exist_ok=True)
            for p in (cls.shot, cls.shot_off):
                if os.path.exists(p):
                    shutil.copy(p, os.path.join(keep, 'firefox-' + os.path.basename(p)))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_errors_are_detected(self):
        # Control: a change in Firefox's output would otherwise make the checks pass vacuously.
        bad = os.path.join(self.tmp, 'control.html')
        with open(bad, 'w') as f:
            f.write('<!DOCTYPE html><html><body><p>x</p><script>console.error("control");'
                    'undefinedFunction();</script></body></html>')
        log = firefox('file://' + bad, os.path.join(self.tmp, 'p3'),
                      os.path.join(self.tmp, 'control.png'))
        messages = page_messages(log)
        self.assertTrue(any('"control"' in m for m in messages), log[-3000:])
        self.assertTrue(any('undefinedFunction' in m for m in messages), log[-3000:])

    def test_no_page_errors(self):
        self.assertEqual(page_messages(self.log), [], self.log[-3000:])
        self.assertEqual(page_messages(self.log_off), [], self.log_off[-3000:])

    def test_screenshot_has_drawn_content(self):
        self.assertTrue(os.path.exists(self.shot), self.log[-3000:])
        image, colours, ink = drawn(self.shot)
        self.assertEqual((image.width, image.height), (WIDTH, HEIGHT))
        self.assertGreater(colours, 40)
        self.assertGreater(ink, 0.03)

    def test_script_builds_the_views(self):
        # With JavaScript off the page is the server-side one: still drawn, but not the same.
        self.assertTrue(os.path.exists(self.shot_off), self.log_off[-3000:])
        _, colours, ink = drawn(self.shot_off)
        self.assertGreater(colours, 40)
        self.assertGreater(ink, 0.03)
        on = png_reader.read_png(self.shot)
        off = png_reader.read_png(self.shot_off)
        self.assertNotEqual(on.rows, off.rows, 'the script changed nothing')


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument('--build', required=True)
    parser.add_argument('--firefox', required=True)
    ARGS, rest = parser.parse_known_args()
    if not (os.path.isfile(ARGS.firefox) and os.access(ARGS.firefox, os.X_OK)):
        print('SKIP: %s is not installed (tools/deps.sh test installs firefox-esr)' % ARGS.firefox)
        return SKIP
    program = unittest.main(argv=[sys.argv[0], '-v'] + rest, exit=False)
    return 0 if program.result.wasSuccessful() else 1


if __name__ == '__main__':
    sys.exit(main())
