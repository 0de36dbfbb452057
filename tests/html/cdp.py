"""A small Chrome DevTools Protocol client: Chromium started with --remote-debugging-pipe
(commands on fd 3, replies and events on fd 4, NUL-separated JSON), standard library only.

Enough of Target/Page/Runtime/Input/Emulation to open a page, wait for the explorer, evaluate
JavaScript, send real mouse and keyboard input and take screenshots, while recording every
console message, uncaught exception and log entry. Every wait has a timeout: a dead or stuck
browser raises CdpError instead of hanging the test."""

import base64
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time


class CdpError(Exception):
    pass


class Browser:
    def __init__(self, chromium='/usr/bin/chromium', width=1280, height=900, timeout=15.0):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix='vkleak-cdp-')
        self._lock = threading.Condition()
        self._replies = {}
        self._events = []
        self._next_id = 0
        self._closed = False
        self.messages = []  # console messages, exceptions and log entries, as text
        to_browser_r, to_browser_w = os.pipe()
        from_browser_r, from_browser_w = os.pipe()
        # Moved above 10 so the child's dup2 onto 3 and 4 cannot overwrite one with the other.
        child_in = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
        child_out = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
        os.close(to_browser_r)
        os.close(from_browser_w)

        def fds():
            os.dup2(child_in, 3)
            os.dup2(child_out, 4)

        cmd = [chromium, '--headless', '--remote-debugging-pipe', '--no-sandbox', '--disable-gpu',
               '--no-first-run', '--no-default-browser-check', '--disable-background-networking',
               '--disable-component-update', '--disable-sync', '--disable-extensions',
               '--hide-scrollbars', '--mute-audio', '--user-data-dir=' + self.profile,
               '--window-size=%d,%d' % (width, height), 'about:blank']
        try:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.PIPE, pass_fds=(3, 4),
                                         preexec_fn=fds)
        finally:
            os.close(child_in)
            os.close(child_out)
        self._write = to_browser_w
        self._read = from_browser_r
        self.stderr = b''
        threading.Thread(target=self._reader, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        self.session = None
        try:
            self._attach(width, height)
        except Exception:
            self.close()
            raise

    # --- the pipe ---------------------------------------------------------------------------

    def _drain_stderr(self):
        try:
            for chunk in iter(lambda: self.proc.stderr.read(4096), b''):
                self.stderr = (self.stderr + chunk)[-20000:]
        except (OSError, ValueError):  # closed by close()
            pass

    def _reader(self):
        buf = b''
        while True:
            try:
                chunk = os.read(self._read, 1 << 16)
            except OSError:
                chunk = b''
            if not chunk:
                break
            buf += chunk
            while b'\0' in buf:
                raw, buf = buf.split(b'\0', 1)
                self._dispatch(json.loads(raw.decode('utf-8')))
        with self._lock:
            self._closed = True
            self._lock.notify_all()

    def _dispatch(self, msg):
        with self._lock:
            if 'id' in msg:
                self._replies[msg['id']] = msg
            else:
                self._record(msg)
                self._events.append(msg)
            self._lock.notify_all()

    def _record(self, msg):
        method, p = msg.get('method'), msg.get('params', {})
        if method == 'Runtime.consoleAPICalled':
            text = ' '.join(str(a.get('value', a.get('description', '')))
                            for a in p.get('args', []))
            self.messages.append('console.%s: %s' % (p.get('type'), text))
        elif method == 'Runtime.exceptionThrown':
            d = p.get('exceptionDetails', {})
            text = d.get('exception', {}).get('description') or d.get('text')
            self.messages.append('exception: %s (line %s)' % (text, d.get('lineNumber')))
        elif method == 'Log.entryAdded':
            e = p.get('entry', {})
            self.messages.append('log.%s (%s): %s' % (e.get('level'), e.get('source'),
                                                      e.get('text')))

    def _wait(self, predicate, timeout, what):
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        with self._lock:
            while True:
                result = predicate()
                if result is not None:
                    return result
                if self._closed:
                    raise CdpError('browser closed while waiting for %s\n%s' % (
                        what, self.stderr[-3000:].decode('utf-8', 'replace')))
                left = deadline - time.monotonic()
                if left <= 0:
                    raise CdpError('timed out waiting for %s' % what)
                self._lock.wait(left)

    def send(self, method, params=None, session=True, timeout=None):
        with self._lock:
            self._next_id += 1
            mid = self._next_id
        msg = {'id': mid, 'method': method, 'params': params or {}}
        if session and self.session:
            msg['sessionId'] = self.session
        data = json.dumps(msg).encode('utf-8') + b'\0'
        try:
            while data:
                data = data[os.write(self._write, data):]
        except OSError as e:
            raise CdpError('%s: cannot write to the browser: %s' % (method, e))
        reply = self._wait(lambda: self._replies.pop(mid, None), timeout, method)
        if 'error' in reply:
            raise CdpError('%s: %s' % (method, reply['error']))
        return reply.get('result', {})

    def wait_event(self, method, timeout=None, since=0):
        """The first event `method` of this session at or after index `since` of the events."""
        def find():
            for e in self._events[since:]:
                if e.get('method') == method and e.get('sessionId') == self.session:
                    return e
            return None
        return self._wait(find, timeout, method)

    def _attach(self, width, height):
        targets = self.send('Target.getTargets', session=False)['targetInfos']
        pages = [t for t in targets if t['type'] == 'page']
        if pages:
            target = pages[0]['targetId']
        else:
            target = self.send('Target.createTarget', {'url': 'about:blank'},
                               session=False)['targetId']
        self.session = self.send('Target.attachToTarget', {'targetId': target, 'flatten': True},
                                 session=False)['sessionId']
        for domain in ('Page', 'Runtime', 'Log'):
            self.send(domain + '.enable')
        self.resize(width, height)

    # --- pages ------------------------------------------------------------------------------

    def resize(self, width, height):
        self.send('Emulation.setDeviceMetricsOverride',
                  {'width': width, 'height': height, 'deviceScaleFactor': 1, 'mobile': False})

    def disable_scripts(self, disabled=True):
        self.send('Emulation.setScriptExecutionDisabled', {'value': disabled})

    def open(self, url, ready=True, timeout=None):
        """Navigates and waits for the load event; with ready, also for the explorer's
        document.documentElement.dataset.explorer == "ready"."""
        for target in ('about:blank', url):  # a new document even if only the fragment changes
            since = len(self._events)
            reply = self.send('Page.navigate', {'url': target})
            if reply.get('errorText'):
                raise CdpError('navigate %s: %s' % (target, reply['errorText']))
            self.wait_event('Page.loadEventFired', timeout, since)
        if ready:
            self.wait_for('document.documentElement.dataset.explorer === "ready"', timeout)

    def evaluate(self, expression, timeout=None):
        """The value of a JavaScript expression (JSON-able), awaiting a promise; a thrown
        exception raises CdpError (and is not counted as a page error)."""
        reply = self.send('Runtime.evaluate', {'expression': expression, 'returnByValue': True,
                                               'awaitPromise': True}, timeout=timeout)
        if 'exceptionDetails' in reply:
            d = reply['exceptionDetails']
            raise CdpError('evaluate %r: %s' % (expression[:200], d.get('exception', {}).get(
                'description') or d.get('text')))
        return reply['result'].get('value')

    def wait_for(self, expression, timeout=None):
        """Polls until a JavaScript expression is truthy; returns its value."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise CdpError('timed out waiting for %s' % expression)
            time.sleep(0.05)

    # --- input ------------------------------------------------------------------------------

    def centre(self, selector):
        """The viewport centre of the first element matching selector, scrolled into view."""
        box = self.evaluate('''(() => {
            const e = document.querySelector(%s);
            if (!e) return null;
            e.scrollIntoView({block: "center", inline: "center"});
            const r = e.getBoundingClientRect();
            return [r.left + r.width / 2, r.top + r.height / 2, r.width, r.height];
        })()''' % json.dumps(selector))
        if box is None:
            raise CdpError('no element matches %s' % selector)
        if box[2] <= 0 or box[3] <= 0:
            raise CdpError('%s is not displayed (%gx%g)' % (selector, box[2], box[3]))
        return box[0], box[1]

    def mouse(self, kind, x, y, button='none', clicks=0, buttons=0):
        self.send('Input.dispatchMouseEvent', {'type': kind, 'x': x, 'y': y, 'button': button,
                                               'clickCount': clicks, 'buttons': buttons})

    def click(self, selector):
        x, y = self.centre(selector)
        self.click_at(x, y)

    def click_at(self, x, y):
        self.mouse('mouseMoved', x, y)
        self.mouse('mousePressed', x, y, 'left', 1, 1)
        self.mouse('mouseReleased', x, y, 'left', 1, 0)

    def hover(self, selector):
        x, y = self.centre(selector)
        self.mouse('mouseMoved', x, y)

    def drag(self, start, end, steps=8):
        (x0, y0), (x1, y1) = start, end
        self.mouse('mouseMoved', x0, y0)
        self.mouse('mousePressed', x0, y0, 'left', 1, 1)
        for i in range(1, steps + 1):
            self.mouse('mouseMoved', x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps,
                       'left', 0, 1)
        self.mouse('mouseReleased', x1, y1, 'left', 1, 0)

    def type_text(self, text):
        self.send('Input.insertText', {'text': text})

    def key(self, key, code=None, keycode=0):
        """One key press: key as in KeyboardEvent.key ("Enter", "Tab", "ArrowDown", "a")."""
        params = {'key': key, 'code': code or key, 'windowsVirtualKeyCode': keycode,
                  'nativeVirtualKeyCode': keycode}
        if len(key) == 1:
            params['text'] = key
        self.send('Input.dispatchKeyEvent', dict(params, type='keyDown'))
        self.send('Input.dispatchKeyEvent', dict(params, type='keyUp'))

    def focus(self, selector):
        self.evaluate('document.querySelector(%s).focus()' % json.dumps(selector))

    # --- screenshots ------------------------------------------------------------------------

    def screenshot(self, path, clip=None, full_page=False):
        """A PNG of the viewport, of clip (x, y, width, height in page coordinates), or of the
        whole page."""
        params = {'format': 'png', 'captureBeyondViewport': bool(clip or full_page)}
        if clip:
            params['clip'] = {'x': clip[0], 'y': clip[1], 'width': clip[2], 'height': clip[3],
                              'scale': 1}
        elif full_page:
            w, h = self.evaluate('[document.documentElement.scrollWidth, '
                                 'document.documentElement.scrollHeight]')
            params['clip'] = {'x': 0, 'y': 0, 'width': w, 'height': h, 'scale': 1}
        data = self.send('Page.captureScreenshot', params, timeout=60)['data']
        with open(path, 'wb') as f:
            f.write(base64.b64decode(data))
        return path

    def element_clip(self, selector, pad=0):
        r = self.evaluate('''(() => {
            const e = document.querySelector(%s);
            if (!e) return null;
            const r = e.getBoundingClientRect();
            return [r.left + scrollX, r.top + scrollY, r.width, r.height];
        })()''' % json.dumps(selector))
        if r is None:
            raise CdpError('no element matches %s' % selector)
        return (max(0, r[0] - pad), max(0, r[1] - pad), r[2] + 2 * pad, r[3] + 2 * pad)

    # --- the end ----------------------------------------------------------------------------

    def close(self):
        if self.proc.poll() is None:
            try:
                self.send('Browser.close', session=False, timeout=5)
            except CdpError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        if self.proc.stderr:
            self.proc.stderr.close()
        for fd in (self._write, self._read):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
