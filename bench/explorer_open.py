#!/usr/bin/env python3
"""How long an HTML report takes to open: from navigation start to data-explorer="ready",
performance.now() in the page (headless Chromium over the DevTools protocol, tests/html/cdp.py).

A MutationObserver installed before the page's own scripts records the moment the attribute
turns "ready", so pages of any version compare. The page's "vkleak:*" performance measures
(one per view built, when the script has them) are printed too.

Usage: bench/explorer_open.py [--chromium /usr/bin/chromium] [--repeat 5] PAGE.html...
"""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'html'))
import cdp  # noqa: E402

OBSERVER = r'''
new MutationObserver((_, obs) => {
  const v = document.documentElement && document.documentElement.dataset.explorer;
  if (v) { window.__vkReadyAt = performance.now(); window.__vkState = v; obs.disconnect(); }
}).observe(document, {attributes: true, subtree: true, attributeFilter: ['data-explorer']});
'''


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--chromium', default='/usr/bin/chromium')
    p.add_argument('--repeat', type=int, default=5)
    p.add_argument('pages', nargs='+')
    a = p.parse_args()
    with cdp.Browser(a.chromium, 1280, 900, timeout=120) as b:
        b.send('Page.addScriptToEvaluateOnNewDocument', {'source': OBSERVER})
        for page in a.pages:
            url = 'file://' + os.path.abspath(page)
            ready, steps = [], {}
            for _ in range(a.repeat):
                b.open(url, ready=False)
                b.wait_for('window.__vkState !== undefined', timeout=120)
                state = b.evaluate('window.__vkState')
                if state != 'ready':
                    sys.exit('%s: data-explorer=%s' % (page, state))
                ready.append(b.evaluate('window.__vkReadyAt'))
                for name, ms in b.evaluate(
                        '[...performance.getEntriesByType("measure")].filter(m => '
                        'm.name.startsWith("vkleak:")).map(m => [m.name, m.duration])'):
                    steps.setdefault(name, []).append(ms)
            if b.messages:
                sys.exit('%s: the page logged %s' % (page, b.messages))
            print('%s (%.2f MB): ready at %.0f ms median (min %.0f, max %.0f, %d runs)' % (
                page, os.path.getsize(page) / 1e6, statistics.median(ready), min(ready),
                max(ready), len(ready)))
            for name, ms in steps.items():
                print('  %-20s %7.0f ms median' % (name, statistics.median(ms)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
