#!/usr/bin/env python3
"""A headless-Chromium judge for absolve's HTML rewrite (relocation invariance, or exactness).

    oracle.py PAGE RETRIEVAL_PATH [--rewritten FILE] [--charset CS] [--timeout S] [--dump DIR]
              [--exact [--resolve-fragments] [--known LEDGER]]

PAGE is served as it is at its retrieval URL, http://127.0.0.1:PORT/RETRIEVAL_PATH (PORT
chosen by the OS). The oracle prints that URL on its first line,
    oracle: retrieval URL http://127.0.0.1:PORT/RETRIEVAL_PATH
then reads the page rewritten with `absolve rewrite --url URL` from standard input (or
from --rewritten FILE) and serves it at another origin and path. Chromium loads both
(page scripts off, every other request answered 204 inside the browser, names not
resolved, so nothing but the two loopback servers is reached) and collect.js lists what
it parsed. Each URL of the original, resolved as the browser resolves it, must equal the
same value of the rewrite resolved against an unrelated https base: every link leads
where it led, on its own. Everything that is not a URL must be unchanged.

With --exact (for `absolve rewrite --spec whatwg`), each value of the rewrite is taken as
written (character references and CSS escapes decoded, not resolved again) and must equal,
byte for byte, the browser's resolution of the same value of the original at its retrieval
URL. Values absolve deliberately writes as they are must be unchanged instead (see
expectation()): empty values meaning "no resource"; fragment-only references, except in
HTML attributes when the rewrite was made with --resolve-fragments (say so with
--resolve-fragments here too); values the browser's URL parser rejected; javascript: and
data: URLs. --known LEDGER excuses the differences it lists for this page (same original,
Chromium and absolve values; `{origin}` for the retrieval origin), lists them as `known`
lines, and reports each entry for the page that is not seen as a mismatch. A summary line
`oracle: exact: ...` counts the values under each expectation.

Output: one tab-separated line per mismatch (KEY TAG ORIGINAL REWRITTEN WHY; in exact mode
KEY TAG EXPECTED WRITTEN WHY), one line per changed content item, then
    oracle: content: K items compared, C changed
    oracle: N urls compared, M mismatches
Exit status: 0 all equal, 1 mismatches or content changes, 2 the oracle could not run.
Python standard library only; Chromium from ABSOLVE_CHROMIUM, else /usr/bin/chromium.
"""
import argparse
import difflib
import http.server
import json
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HOST = '127.0.0.1'
MOVED_PATH = '/moved/elsewhere/page.html'
# The base the rewrite's values are resolved against: another scheme, host and path, so
# that a relative or scheme-relative value left in the rewrite cannot match.
NEUTRAL = 'https://relocated.invalid/zz/yy/other.html?q=1'
HERE = os.path.dirname(os.path.abspath(__file__))
CHROMIUM = os.environ.get('ABSOLVE_CHROMIUM', '/usr/bin/chromium')
# Characters for which the tool and the browser see the same bytes in the retrieval URL.
PATH_RE = re.compile(r"^/[A-Za-z0-9._~!$&'()*+,;=:@/-]*$")


class Failure(Exception):
    """The oracle could not run: exit status 2."""


class Server:
    """One page on a loopback port chosen by the OS, for any path."""

    def __init__(self, charset):
        self.body = b''
        owner = self
        content_type = 'text/html' + ('; charset=' + charset if charset else '')

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'

            def do_GET(self):
                self.send_response(200)
                self.send_header('Content-Type', content_type)
                self.send_header('Content-Length', str(len(owner.body)))
                self.send_header('Cache-Control', 'no-store')
                self.end_headers()
                self.wfile.write(owner.body)

            def log_message(self, *args):
                pass

        class Quiet(http.server.ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request, client_address):
                pass

        self.httpd = Quiet((HOST, 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, args=(0.1,), daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class Chromium:
    """Headless Chromium driven over CDP on --remote-debugging-pipe (fd 3 in, fd 4 out)."""

    def __init__(self, workdir):
        if not os.path.exists(CHROMIUM):
            raise Failure('%s not found: apt-get install chromium (or set ABSOLVE_CHROMIUM)' % CHROMIUM)
        # A proxy that refuses every connection: anything that is not loopback fails here.
        self.refuser = socket.socket()
        self.refuser.bind((HOST, 0))
        self.log = open(os.path.join(workdir, 'chromium.log'), 'wb')
        argv = [CHROMIUM, '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
                '--no-first-run', '--no-default-browser-check', '--disable-extensions',
                '--disable-background-networking', '--disable-component-update', '--disable-sync',
                '--disable-default-apps', '--disable-breakpad', '--disable-quic', '--dns-prefetch-disable',
                '--disable-features=HttpsUpgrades,Translate,MediaRouter,OptimizationHints',
                '--proxy-server=http://%s:%d' % (HOST, self.refuser.getsockname()[1]),
                '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
                '--user-data-dir=' + os.path.join(workdir, 'profile'),
                '--remote-debugging-pipe', 'about:blank']
        to_browser, self.inbox = os.pipe()
        self.outbox, from_browser = os.pipe()

        def pipes_at_3_and_4():
            a, b = os.dup(to_browser), os.dup(from_browser)
            os.dup2(a, 3)
            os.dup2(b, 4)

        env = {k: v for k, v in os.environ.items() if 'proxy' not in k.lower()}
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                                     preexec_fn=pipes_at_3_and_4, start_new_session=True, env=env,
                                     close_fds=True, pass_fds=(3, 4))
        os.close(to_browser)
        os.close(from_browser)
        self.lock = threading.Lock()
        self.next_id = 0
        self.waiting = {}
        self.on_event = {}
        self.closed = False
        threading.Thread(target=self._read, daemon=True).start()
        try:
            self.call('Browser.getVersion', timeout=90)
        except Failure as e:
            self.close()
            raise Failure('%s did not start (%s); its log ends:\n%s' % (CHROMIUM, e, self.log_tail()))
        except BaseException:
            self.close()
            raise

    def log_tail(self, lines=10):
        with open(self.log.name, 'rb') as f:
            return b'\n'.join(f.read().splitlines()[-lines:]).decode('utf-8', 'replace')

    def _read(self):
        buf = b''
        while True:
            try:
                chunk = os.read(self.outbox, 1 << 20)
            except OSError:
                chunk = b''
            if not chunk:
                break
            buf += chunk
            *messages, buf = buf.split(b'\0')
            for raw in messages:
                m = json.loads(raw)
                if 'id' in m:
                    self.waiting.pop(m['id'], queue.Queue()).put(m)
                elif m.get('sessionId') in self.on_event:
                    self.on_event[m['sessionId']](m)
        self.closed = True
        for q in list(self.waiting.values()):
            q.put(None)

    def send(self, method, params=None, session=None):
        with self.lock:
            if self.closed:
                raise Failure('Chromium exited')
            self.next_id += 1
            q = queue.Queue()
            self.waiting[self.next_id] = q
            m = {'id': self.next_id, 'method': method, 'params': params or {}}
            if session:
                m['sessionId'] = session
            os.write(self.inbox, json.dumps(m).encode() + b'\0')
        return q

    def call(self, method, params=None, session=None, timeout=60):
        try:
            m = self.send(method, params, session).get(timeout=timeout)
        except queue.Empty:
            raise Failure('Chromium did not answer %s within %d s' % (method, timeout))
        if m is None:
            raise Failure('Chromium exited during %s' % method)
        if 'error' in m:
            raise Failure('%s: %s' % (method, m['error'].get('message')))
        return m['result']

    def close(self):
        try:
            if not self.closed:
                self.send('Browser.close')
        except (Failure, OSError):
            pass
        # Wait for the browser to exit without reaping it: while it is a zombie its
        # process group id cannot be reused, so the group kill below reaches only its
        # helpers (which share the group), and none outlives the run.
        end = time.time() + 10
        while time.time() < end:
            if os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                break
            time.sleep(0.05)
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        for fd in (self.inbox, self.outbox):
            try:
                os.close(fd)
            except OSError:
                pass
        self.log.close()
        self.refuser.close()


def collect(browser, url, options, timeout):
    """Load url in a new tab, page scripts off, and run collect.js in it."""
    target = browser.call('Target.createTarget', {'url': 'about:blank'})['targetId']
    session = browser.call('Target.attachToTarget', {'targetId': target, 'flatten': True})['sessionId']
    served = []

    def on_event(m):
        if m.get('method') != 'Fetch.requestPaused':
            return
        p = m['params']
        if not served and p.get('resourceType') == 'Document' and p['request']['url'] == url:
            served.append(url)
            browser.send('Fetch.continueRequest', {'requestId': p['requestId']}, session)
        else:
            # Every subresource and every navigation (meta refresh, iframe src) gets an
            # empty answer from inside the browser: the document stays, nothing leaves.
            browser.send('Fetch.fulfillRequest', {'requestId': p['requestId'], 'responseCode': 204,
                                                  'responseHeaders': []}, session)

    browser.on_event[session] = on_event
    try:
        browser.call('Emulation.setScriptExecutionDisabled', {'value': True}, session)
        browser.call('Fetch.enable', {'patterns': [{'urlPattern': '*'}]}, session)
        nav = browser.call('Page.navigate', {'url': url}, session, timeout=timeout)
        if nav.get('errorText'):
            raise Failure('loading %s: %s' % (url, nav['errorText']))
        end = time.time() + timeout
        while True:
            r = browser.call('Runtime.evaluate', {'expression': '[location.href, document.readyState]',
                                                  'returnByValue': True}, session)
            if r['result']['value'] == [url, 'complete']:
                break
            if time.time() > end:
                raise Failure('%s did not finish loading: %r' % (url, r['result']['value']))
            time.sleep(0.05)
        with open(os.path.join(HERE, 'collect.js'), encoding='utf-8') as f:
            expression = '(%s)(%s)' % (f.read(), json.dumps(options))
        r = browser.call('Runtime.evaluate', {'expression': expression, 'returnByValue': True}, session,
                         timeout=timeout)
        if 'exceptionDetails' in r:
            d = r['exceptionDetails']
            raise Failure('collect.js on %s: %s' % (url, d.get('exception', {}).get('description', d)))
        data = json.loads(r['result']['value'])
        if data['url'] != url:
            raise Failure('%s navigated to %s' % (url, data['url']))
        return data
    finally:
        browser.on_event.pop(session, None)
        try:
            browser.call('Target.closeTarget', {'targetId': target}, timeout=20)
        except Failure:
            pass


def changed_value_is_clean(raw):
    """Rule 5: a rewritten value is the absolute URL alone."""
    return raw == raw.strip('\t\n\f\r ') and not re.search(r'[\t\n\r]', raw)


def compare(original, rewrite):
    """Mismatches as (key, tag, original, rewritten, why); and the number of URLs compared."""
    ours = {r[0]: r for r in rewrite['records']}
    theirs = {r[0]: r for r in original['records']}
    out = []
    for key, tag, _attr, raw, resolved, kind, *_ in original['records']:
        r = ours.get(key)
        if r is None:
            out.append((key, tag, resolved or raw, '(missing)', 'lost'))
            continue
        if r[1] != tag:
            out.append((key, tag, resolved or raw, r[1], 'element changed'))
        elif kind == 'computed':
            # Resolved by the browser in each page, against each page's own base: this checks
            # that the browser still reads the same URLs from the rewritten CSS.
            if r[4] != resolved:
                out.append((key, tag, resolved, r[4], 'CSS read differently'))
        elif kind == 'url':
            if r[4] != resolved:
                out.append((key, tag, resolved, r[4] if r[4] is not None else r[3], 'leads elsewhere'))
            elif r[3] != raw and not changed_value_is_clean(r[3]):
                out.append((key, tag, repr(raw), repr(r[3]), 'not the URL alone'))
        elif r[3] != raw:
            why = {'fragment': 'fragment changed', 'empty': 'empty value filled',
                   'other': 'non-http value changed'}[kind]
            out.append((key, tag, raw, r[3], why))
    for key in ours.keys() - theirs.keys():
        r = ours[key]
        out.append((key, r[1], '(absent)', r[3], 'added'))
    return out, len(original['records'])


# Schemes whose values absolve leaves as written whatever the standard: a script and a
# document in the URL itself, which have no base to be resolved against.
LEFT_SCHEMES = ('javascript:', 'data:')

# What an exact comparison expects of one value, by kind: the browser's URL, or the value
# as written (and why), with the word the summary counts it under.
EXPECTATIONS = {
    'url': 'as the browser resolves them',
    'fragment': 'fragments kept',
    'empty': 'empty values kept',
    'unparsed': 'values the browser could not parse kept',
    'scheme': 'javascript:/data: values kept',
    'computed': 'computed CSS URLs',
}


def expectation(record, resolve_fragments):
    """What the rewrite must hold for one value of the original, in exact mode:
    (category, expected value). The browser's resolution, except where absolve
    deliberately writes the value as it is (GUIDE.md, "Which standard"):
    - an empty value that means "no resource" (`<img src="">`);
    - a fragment-only reference (`#x`), unless --resolve-fragments, and always in SVG and
      MathML attributes and in CSS (CSS Values 4 §4.5.1: `url(#x)` always points into the
      document; SVG 2 §5.3.2 same-document references), which absolve never resolves;
    - a value the browser's URL parser rejected (URL Standard "basic URL parser" failure):
      left as written, as the standard's parse gives nothing to write;
    - javascript: and data: URLs."""
    _key, _tag, _attr, raw, resolved, kind, context, parsed = record
    if kind == 'computed':
        return 'computed', resolved
    if kind == 'empty':
        return 'empty', raw
    if kind == 'fragment' and not (resolve_fragments and context == 'html'):
        return 'fragment', raw
    if not parsed or resolved is None:
        return 'unparsed', raw
    if resolved.startswith(LEFT_SCHEMES):
        return 'scheme', raw
    return 'url', resolved


def compare_exact(original, rewrite, resolve_fragments):
    """Mismatches as (key, tag, expected, written, why): each value of the rewrite, as
    written (character references and CSS escapes decoded, not resolved again), against
    the browser's resolution of the original; and the count of each category."""
    ours = {r[0]: r for r in rewrite['records']}
    theirs = {r[0]: r for r in original['records']}
    out = []
    counts = dict.fromkeys(EXPECTATIONS, 0)
    for record in original['records']:
        key, tag = record[0], record[1]
        category, expected = expectation(record, resolve_fragments)
        counts[category] += 1
        r = ours.get(key)
        if r is None:
            out.append((key, tag, expected, '(missing)', 'lost'))
        elif r[1] != tag:
            out.append((key, tag, expected, r[1], 'element changed'))
        elif category == 'computed':
            if r[4] != expected:
                out.append((key, tag, expected, r[4], 'CSS read differently'))
        elif r[3] != expected:
            why = {'url': 'not the browser\'s URL', 'fragment': 'fragment changed',
                   'empty': 'empty value filled', 'unparsed': 'unparsable value changed',
                   'scheme': 'javascript:/data: value changed'}[category]
            out.append((key, tag, expected, r[3], why))
    for key in ours.keys() - theirs.keys():
        r = ours[key]
        out.append((key, r[1], '(absent)', r[3], 'added'))
    return out, counts


def known_differences(path, page):
    """The entries of the ledger at path (JSON Lines, `#` lines are comments) for the page
    named page: {(original, chromium, absolve): cause}. In the values, `{origin}` stands
    for the retrieval URL's origin (its port is chosen anew at each run)."""
    known = {}
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith('#'):
                continue
            try:
                entry = json.loads(line)
                if entry['page'] == page:
                    known[(entry['original'], entry['chromium'], entry['absolve'])] = entry['cause']
            except (ValueError, KeyError, TypeError) as e:
                raise Failure('%s line %d: not a ledger entry (%s)' % (path, number, e))
    return known


def apart_known(mismatches, original, origin, known):
    """Splits exact mismatches into those the ledger names (same original value, same
    Chromium value, same absolve value) and the others; and returns the ledger entries
    that no mismatch matched (stale: the difference is gone, the entry must go too)."""
    raw = {r[0]: r[3] for r in original['records']}
    generic = lambda v: v.replace(origin, '{origin}') if isinstance(v, str) else v
    seen, left, matched = set(), [], []
    for m in mismatches:
        entry = (generic(raw.get(m[0])), generic(m[2]), generic(m[3]))
        if m[4] not in ('lost', 'added', 'element changed') and entry in known:
            seen.add(entry)
            matched.append(m + (known[entry],))
        else:
            left.append(m)
    stale = [entry for entry in known if entry not in seen]
    return matched, left, stale


def content_changes(a, b):
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return [(i1, a[i1:i2], b[j1:j2]) for op, i1, i2, j1, j2 in sm.get_opcodes() if op != 'equal']


def shown(a, b, n=90):
    """The two sides of a content change, cut around where they first differ."""
    a, b = clean(' | '.join(a) or '(nothing)'), clean(' | '.join(b) or '(nothing)')
    k = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    start = max(0, k - n // 3)
    cut = lambda s: ('...' if start else '') + s[start:start + n] + ('...' if len(s) > start + n else '')
    return cut(a), cut(b)


def clean(s):
    return str(s).replace('\t', '\\t').replace('\n', '\\n').replace('\r', '\\r')


def run(args):
    with open(args.page, 'rb') as f:
        page = f.read()
    if not PATH_RE.match(args.path) or re.search(r'(^|/)\.\.?(/|$)', args.path):
        raise Failure('RETRIEVAL_PATH must be an absolute path of URL-safe characters, no dot segments')
    workdir = tempfile.mkdtemp(prefix='absolve-oracle-')
    servers, browser = [], None
    try:
        servers.append(Server(args.charset))
        servers.append(Server(args.charset))
        servers[0].body = page
        url = 'http://%s:%d%s' % (HOST, servers[0].port, args.path)
        moved = 'http://%s:%d%s' % (HOST, servers[1].port, MOVED_PATH)
        print('oracle: retrieval URL ' + url, flush=True)
        if args.rewritten:
            with open(args.rewritten, 'rb') as f:
                servers[1].body = f.read()
        else:
            servers[1].body = sys.stdin.buffer.read()
        print('oracle: rewrite served at %s, resolved against %s' % (moved, NEUTRAL), flush=True)
        browser = Chromium(workdir)
        original = collect(browser, url, {}, args.timeout)
        rewrite = collect(browser, moved, {'neutral': NEUTRAL}, args.timeout)
    finally:
        if browser is not None:
            browser.close()
        for s in servers:
            s.close()
        shutil.rmtree(workdir, ignore_errors=True)
    if args.dump:
        os.makedirs(args.dump, exist_ok=True)
        for name, data in (('original', original), ('rewrite', rewrite)):
            with open(os.path.join(args.dump, name + '.json'), 'w') as f:
                json.dump(data, f, indent=1)
    if args.exact:
        mismatches, counts = compare_exact(original, rewrite, args.resolve_fragments)
        compared = len(original['records'])
        print('oracle: exact: ' + ', '.join('%d %s' % (counts[c], EXPECTATIONS[c]) for c in EXPECTATIONS))
        if args.known:
            origin = url[:url.index('/', len('http://'))]
            known = known_differences(args.known, os.path.basename(args.page))
            matched, mismatches, stale = apart_known(mismatches, original, origin, known)
            for m in matched:
                print('known\t' + '\t'.join(clean(x) for x in m))
            for entry in stale:
                print('stale\t' + '\t'.join(clean(x) for x in entry))
            print('oracle: exact: %d known differences (%s), %d ledger entries not seen' % (
                len(matched), os.path.basename(args.known), len(stale)))
            mismatches += [('(ledger)', '', e[1], e[2], 'known difference not seen: remove it from the ledger')
                           for e in stale]
    else:
        mismatches, compared = compare(original, rewrite)
    for m in mismatches:
        print('\t'.join(clean(x) for x in m))
    changes = content_changes(original['content'], rewrite['content'])
    for pos, a, b in changes:
        print('oracle: content changed at item %d: %s -> %s' % ((pos,) + shown(a, b)))
    changed = sum(max(len(a), len(b)) for _, a, b in changes)
    print('oracle: content: %d items compared, %d changed' % (len(original['content']), changed))
    print('oracle: %d urls compared, %d mismatches' % (compared, len(mismatches)), flush=True)
    return 1 if mismatches or changed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('page')
    ap.add_argument('path', help='path of the retrieval URL, e.g. /docs/a/page.html')
    ap.add_argument('--rewritten', help='the rewrite (default: read from standard input)')
    ap.add_argument('--timeout', type=float, default=120, help='seconds per browser step (default 120)')
    ap.add_argument('--charset', help='charset parameter sent with both pages (default none: a BOM, '
                    '<meta charset> or the browser\'s default decides; absolve\'s default is UTF-8)')
    ap.add_argument('--exact', action='store_true',
                    help='compare each value of the rewrite, as written, to the browser\'s resolution of '
                    'the original (for `absolve rewrite --spec whatwg`), not relocation invariance')
    ap.add_argument('--resolve-fragments', action='store_true',
                    help='with --exact: the rewrite was made with --resolve-fragments (HTML `#x` '
                    'values are expected resolved)')
    ap.add_argument('--known', help='with --exact: a ledger of known differences (JSON Lines: page, '
                    'original, chromium, absolve, cause); those found are listed, not counted, and an '
                    'entry of this page not found is a mismatch')
    ap.add_argument('--dump', help='write what the browser listed as JSON into this directory')
    ap.add_argument('--deadline', type=int, default=600, help='seconds for the whole run (default 600)')
    args = ap.parse_args()

    def stop(signum, _frame):
        raise Failure('stopped by signal %d (deadline %d s)' % (signum, args.deadline))

    # On a deadline or SIGTERM the exception unwinds through run(), whose cleanup stops
    # Chromium and removes the temporary directory.
    signal.signal(signal.SIGALRM, stop)
    signal.signal(signal.SIGTERM, stop)
    signal.alarm(args.deadline)
    try:
        return run(args)
    except (Failure, OSError) as e:
        print('oracle: error: %s' % e, file=sys.stderr, flush=True)
        return 2


if __name__ == '__main__':
    sys.exit(main())
