"""What the Python tests share, as tests/helpers.h is for the C ones: the
command line meson gives them, failures that are counted and reported
together, running a program, and the exit codes meson reads (0 pass,
77 skip, anything else fail).

A test does:

    from helpers import check, fail, failures, finish, run, setup

    def main():
        lw, root = setup("usage: report-demo.py LASTWORDS SOURCE_ROOT")
        p = run([lw, "report", "fixtures/demo"])
        check(p.returncode == 0, "report exits %d" % p.returncode)
        return finish("demo: %d runs" % n)
"""
import os
import subprocess
import sys

PASS, FAIL, SKIP = 0, 1, 77

failures = []  # every failure so far, in order


def fail(*what):
    """Count a failure and say it, its parts joined by ": " (fail(where,
    msg)); the test goes on."""
    msg = ": ".join(what)
    failures.append(msg)
    print("FAIL: " + msg)


def check(cond, msg):
    """fail(msg) unless cond holds; returns cond."""
    if not cond:
        fail(msg)
    return cond


def fatal(msg):
    """A failure after which nothing else can be checked: say it, exit 1."""
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(FAIL)


def skip(msg):
    """Nothing can be checked here (a tool or ../shared is missing): exit 77."""
    print("SKIP: " + msg)
    sys.exit(SKIP)


def corpus_or_skip(root):
    """The real-device corpus: $LASTWORDS_CORPUS, or ../shared/corpus beside
    the source root. Skips (77), saying so, when it is absent: the project
    may not ship those samples."""
    corpus = os.environ.get("LASTWORDS_CORPUS", os.path.join(root, "..", "shared", "corpus"))
    if not os.path.isdir(corpus):
        skip("needs the real-device corpus (../shared/corpus, or $LASTWORDS_CORPUS), which the "
             "project may not ship: no directory %s" % os.path.normpath(corpus))
    return corpus


def setup(usage, extra=0):
    """Read 'LASTWORDS SOURCE_ROOT' and `extra` more arguments from the
    command line (options, which start with "--", are the test's own: see
    option()), and change to SOURCE_ROOT, so that fixtures/ and schemas/
    are relative paths. Returns (lastwords as an absolute path,
    SOURCE_ROOT as an absolute path, then the extra arguments)."""
    words = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(words) != 2 + extra:
        print(usage, file=sys.stderr)
        sys.exit(2)
    lw, root = os.path.abspath(words[0]), os.path.abspath(words[1])
    os.chdir(root)
    return (lw, root) + tuple(words[2:])


def option(name):
    """Whether the command line has the option name ("--update")."""
    return name in sys.argv[1:]


def run(cmd, text=True, **kw):
    """Run cmd, capturing its output (as text unless text=False). A program
    killed by a signal is a failure whatever the test expected of it."""
    p = subprocess.run(cmd, capture_output=True, text=text, **kw)
    if p.returncode < 0:
        fail("%s killed by signal %d" % (" ".join(str(c) for c in cmd), -p.returncode))
    return p


def finish(summary):
    """Print the test's one-line summary with the failure count; return the
    exit status (for sys.exit(main()))."""
    print("%s; %d failure%s" % (summary, len(failures), "" if len(failures) == 1 else "s"))
    return FAIL if failures else PASS


def lastwords(lw, args, **kw):
    """run() of the lastwords program lw with args."""
    return run([lw] + list(args), **kw)


def lastwords_within(lw, args, timeout, **kw):
    """lastwords(lw, args), or None, counted as a failure, when it still
    runs after timeout seconds (it waits, or loops); it is then killed."""
    try:
        return lastwords(lw, args, timeout=timeout, **kw)
    except subprocess.TimeoutExpired:
        fail("lastwords %s still runs after %g s" % (" ".join(str(a) for a in args), timeout))
        return None


def schema_errors(schema, obj):
    """What obj breaks of the JSON schema in the file schema (Draft 7), as
    messages; a failure when python3-jsonschema is missing (.ci/install-deps
    installs it)."""
    try:
        import jsonschema
    except ImportError:
        fail("python3-jsonschema is not installed (.ci/install-deps --tests installs it)")
        return []
    import json
    with open(schema) as f:
        s = json.load(f)
    jsonschema.Draft7Validator.check_schema(s)
    return ["%s: %s" % ("/".join(str(p) for p in e.absolute_path), e.message[:200])
            for e in jsonschema.Draft7Validator(s).iter_errors(obj)]


def report_json(lw, args, timeout=60):
    """`lastwords report --format json` of args, checked against
    schemas/report.schema.json: (the report, its inputs by file), or
    (None, {}), a failure, when it does not exit 0 within timeout seconds."""
    import json
    p = lastwords_within(lw, ["report", "--format", "json"] + list(args), timeout)
    if not p or not check(p.returncode == 0, "report %s: exit %d, %r"
                          % (" ".join(args), p.returncode, p.stderr)):
        return None, {}
    rep = json.loads(p.stdout)
    for e in schema_errors("schemas/report.schema.json", rep):
        fail("report %s: schema: %s" % (" ".join(args), e))
    return rep, {i["file"]: i for i in rep["inputs"]}


def strip_fail_on(args):
    """A scenario's args less its --fail-on (and the option's value)."""
    out, skip_next = [], False
    for a in args:
        if skip_next:
            skip_next = False
        elif a == "--fail-on":
            skip_next = True
        elif not a.startswith("--fail-on="):
            out.append(a)
    return out


def verdicts(rep):
    """A report's runs as (pid, classification, evidence_level)."""
    return [(r["pid"], r["classification"], r["evidence_level"]) for r in rep["runs"]]


def crc32c(data):
    """CRC-32C (Castagnoli) of data, as the ring format uses it."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def ring_edit(src, dst, process=None, slot=None):
    """Copy the binary ring src to dst, as a writer could have written it:
    with the header's process name set to the bytes process, and each
    published slot passed to slot(ticket, bytearray of its 64 bytes),
    which may change bytes [8, 60) in place; checksums are recomputed
    (schemas/ring-format.md)."""
    import struct
    data = bytearray(open(src, "rb").read())
    if process is not None:
        data[112:176] = process[:63].ljust(64, b"\0")
        struct.pack_into("<I", data, 252, crc32c(bytes(data[0:252])))
    header_size, _, slot_count = struct.unpack_from("<HHI", data, 12)
    for i in range(slot_count if slot else 0):
        at = header_size + 64 * i
        seq = struct.unpack_from("<Q", data, at)[0]
        if seq == 0 or seq % 2:
            continue
        ticket = seq // 2 - 1
        s = data[at:at + 64]
        slot(ticket, s)
        struct.pack_into("<I", s, 60, crc32c(struct.pack("<Q", ticket) + bytes(s[8:60])))
        data[at:at + 64] = s
    with open(dst, "wb") as f:
        f.write(data)


def demo_history(lw, folder, name="history.db"):
    """A history database in folder that holds fixtures/demo, as ingest
    stores it (with the demo's zone, +01:00); returns its path."""
    db = os.path.join(folder, name)
    p = lastwords(lw, ["ingest", "--db", db, "--tz", "+01:00", "fixtures/demo"])
    check(p.returncode == 0, "ingest of the demo: %d %s" % (p.returncode, p.stderr))
    return db


SANITIZER_EXIT = 86  # what a sanitizer's report exits with, under bounded_env()


def bounded_env():
    """The environment for run_bounded(): an ASan or UBSan report exits
    SANITIZER_EXIT (a status no command uses), and ASan keeps little freed
    memory in quarantine, so that peak RSS measures what the program holds."""
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = ("exitcode=%d:detect_leaks=1:quarantine_size_mb=16:handle_segv=1"
                           % SANITIZER_EXIT)
    env["UBSAN_OPTIONS"] = "exitcode=%d:halt_on_error=1:print_stacktrace=1" % SANITIZER_EXIT
    return env


def run_bounded(cmd, timeout, cwd=None):
    """Run cmd (stdin /dev/null, bounded_env()) and kill it after timeout
    seconds: (its exit status, or None when it was killed for the time,
    stdout bytes, stderr bytes, peak RSS in MiB, seconds).

    The peak is measured by tests/peak-rss (built beside the tests) when
    LASTWORDS_BUILD_ROOT names the build: a child forked by this Python
    process would start with this process's own high-water mark, which
    Linux copies at fork and keeps across exec."""
    import tempfile
    import time
    tool = os.path.join(os.environ.get("LASTWORDS_BUILD_ROOT", "/nonexistent"), "tests",
                        "peak-rss")
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r") as peak:
        if os.access(tool, os.X_OK):
            cmd = [tool, peak.name] + list(cmd)
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=cwd,
                             env=bounded_env())
        status = None
        while time.monotonic() - t0 < timeout:
            pid, st, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                status = os.waitstatus_to_exitcode(st)
                break
            time.sleep(0.01)
        if status is None:
            p.kill()
            _, st, ru = os.wait4(p.pid, 0)
        p.returncode = 0  # reaped here; keep Popen from waiting again
        secs = time.monotonic() - t0
        out.seek(0)
        err.seek(0)
        kib = ru.ru_maxrss
        measured = peak.read().split() if cmd[0] == tool else []
        if len(measured) == 2:  # the command's own, not the tool's
            kib, status = int(measured[0]), (status if status is None else int(measured[1]))
        return status, out.read(), err.read(), kib / 1024.0, secs



def vocab(name):
    """The names of one X-macro list of include/lastwords/vocab.h, in order
    (the test runs in the source root: setup())."""
    import re
    with open("include/lastwords/vocab.h") as f:
        text = f.read()
    m = re.search(r"#define %s\(X\)(.*?)\n\n" % name, text, re.S)
    return re.findall(r"X\(\w+, (\w+), \d+\)", m.group(1)) if m else []
