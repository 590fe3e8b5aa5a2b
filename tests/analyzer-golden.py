#!/usr/bin/env python3
"""lastwords dump and verify on the committed ring fixtures.

Two kinds of checks:
  * golden: the exact output of each command on each fixture, stored in
    fixtures/expected/<fixture>.<command>.txt (exit status, stdout, stderr);
    regenerate on purpose with --update and review the diff;
  * meaning: what the output must say whatever its layout (outcome, crash
    signal and stage, counts, exit statuses, error messages), so a golden
    update cannot hide a wrong answer.

usage: analyzer-golden.py LASTWORDS SOURCE_ROOT [--update]
"""
import json
import os
import sys
import tempfile

from helpers import check, fail, finish, lastwords, setup

COMMANDS = {
    "dump": ["dump"],
    "dump-json": ["dump", "--json"],
    "verify": ["verify"],
    "verify-json": ["verify", "--json"],
}

def render(p):
    return "exit: %d\n--- stdout\n%s--- stderr\n%s" % (p.returncode, p.stdout, p.stderr)


def golden(lw, update):
    fixtures = sorted("fixtures/rings/" + f for f in os.listdir("fixtures/rings"))
    fixtures += sorted("fixtures/bad/" + f for f in os.listdir("fixtures/bad"))
    checked = 0
    for fx in fixtures:
        stem = os.path.basename(fx)[:-len(".lwr")]
        kind = "bad-" if fx.startswith("fixtures/bad/") else ""
        for name, args in COMMANDS.items():
            p = lastwords(lw, args + [fx])
            got = render(p)
            path = "fixtures/expected/%s%s.%s.txt" % (kind, stem, name)
            if update:
                with open(path, "w") as f:
                    f.write(got)
                continue
            try:
                with open(path) as f:
                    want = f.read()
            except FileNotFoundError:
                fail("no expected output %s (run with --update)" % path)
                continue
            if got != want:
                fail("%s %s differs from %s:\n%s" % (" ".join(args), fx, path, got))
            checked += 1
    return checked


def json_lines(text):
    out = []
    for i, line in enumerate(text.splitlines()):
        try:
            out.append(json.loads(line))
        except ValueError as e:
            fail("line %d is not JSON: %s (%s)" % (i + 1, line[:80], e))
    return out


def meaning(lw):
    # dump --json: every line parses; events carry the common fields.
    for fx in ("killed-inference", "crashed-delegate", "clean-exit", "wrapped"):
        p = lastwords(lw, ["dump", "--json", "fixtures/rings/%s.lwr" % fx])
        check(p.returncode == 0, "dump --json %s exits %d" % (fx, p.returncode))
        lines = json_lines(p.stdout)
        check(lines and lines[0]["type"] == "ring", "%s: first line is the ring" % fx)
        tickets = [e["ticket"] for e in lines[1:]]
        check(tickets == sorted(tickets) and len(set(tickets)) == len(tickets),
              "%s: events in ticket order" % fx)
        for e in lines[1:]:
            for key in ("type", "ticket", "t_ms", "time", "tid", "stage", "rss_kb"):
                check(key in e, "%s: event without %s: %s" % (fx, key, e))

    ring = json_lines(lastwords(lw, ["dump", "--json", "fixtures/rings/killed-inference.lwr"]).stdout)
    check(ring[0]["outcome"] == "died", "killed run: outcome %s" % ring[0]["outcome"])
    check(ring[0]["open_stage"] == "inference", "killed run: open stage %s" % ring[0]["open_stage"])
    check(ring[-1]["stage"] == "inference", "killed run: last record in inference")
    rss = [e["rss_kb"] for e in ring[1:] if e["rss_kb"]]
    check(rss[-1] > rss[0] and ring[0]["peak_rss_kb"] == max(rss), "killed run: memory grows")

    ring = json_lines(lastwords(lw, ["dump", "--json", "fixtures/rings/crashed-delegate.lwr"]).stdout)
    crash = [e for e in ring if e["type"] == "crash"]
    check(len(crash) == 1, "crashed run: one crash record, got %d" % len(crash))
    if crash:
        c = crash[0]
        check(c["signal"] == "SIGSEGV" and c["si_code_name"] == "SEGV_MAPERR",
              "crash record: %s %s" % (c.get("signal"), c.get("si_code_name")))
        check(c["stage"] == "delegate_prepare" and c["fault_addr"] == "0x10",
              "crash record: stage %s addr %s" % (c["stage"], c["fault_addr"]))
        dg = lastwords(lw, ["digest", "demo-model-v3-fp16"]).stdout.split()[0]
        check(c["candidate"] == dg, "crash candidate %s != digest %s" % (c["candidate"], dg))
    check(ring[0]["outcome"] == "crashed" and ring[0]["signal"] == "SIGSEGV",
          "crashed run: outcome %s" % ring[0]["outcome"])
    text = lastwords(lw, ["dump", "fixtures/rings/crashed-delegate.lwr"]).stdout
    check("last words: CRASH SIGSEGV (SEGV_MAPERR) at 0x10 in delegate_prepare" in text,
          "crashed run: last words line")

    # The main process's peer_died mark names its dead :inference process:
    # that ring's pid and the digest of its process name.
    main = json_lines(lastwords(lw, ["dump", "--json", "fixtures/rings/peer-main.lwr"]).stdout)
    peer = json_lines(lastwords(lw, ["dump", "--json", "fixtures/rings/peer-inference.lwr"]).stdout)
    marks = [e for e in main if e.get("mark") == "peer_died"]
    dg = lastwords(lw, ["digest", peer[0]["process"]]).stdout.split()[0]
    check(len(marks) == 1 and marks[0]["pid"] == peer[0]["pid"] == marks[0]["value"]
          and marks[0]["process_digest"] == dg and marks[0]["t_mono_ns"] > peer[-1]["t_mono_ns"],
          "peer_died: %r, the peer's pid %d, digest %s" % (marks, peer[0]["pid"], dg))
    text = lastwords(lw, ["dump", "fixtures/rings/peer-main.lwr"]).stdout
    check("mark peer_died" in text and "pid %d, process %s died" % (peer[0]["pid"], dg) in text,
          "peer_died: dump names the pid and the digest")
    check(peer[0]["outcome"] == "died" and peer[0]["open_stage"] == "inference"
          and main[0]["outcome"] == "clean", "peer rings: %s, %s" % (peer[0]["outcome"],
                                                                   main[0]["outcome"]))

    # Version 2: a run SIGKILLed during a model switch (tests/probe-sessions
    # made these rings): the header's session table names both sessions,
    # their candidates and open stages, also when the ring lapped past the
    # records of their opening; version 1 rings read as one session.
    da, db, dc = (lastwords(lw, ["digest", m]).stdout.split()[0]
                  for m in ("model-a", "model-b", "model-c"))
    for fx in ("sessions-switch", "sessions-lapped"):
        ring = json_lines(lastwords(lw, ["dump", "--json", "fixtures/rings/%s.lwr" % fx]).stdout)
        ses = {e["id"]: e for e in ring[0].get("sessions", [])}
        check(ring[0]["format_version"] == 2 and sorted(ses) == [0, 1, 2, 15],
              "%s: sessions %r" % (fx, sorted(ses)))
        check(ses.get(1, {}).get("candidate") == da and ses[1]["open_stages"] == ["inference"]
              and ses.get(2, {}).get("candidate") == db and ses[2]["open_stages"] == ["load"]
              and ses[1]["state"] == ses[2]["state"] == "open",
              "%s: session 1 %r, session 2 %r" % (fx, ses.get(1), ses.get(2)))
        check(ses.get(15, {}).get("state") == "closed" and ses[15]["result"] == "alloc_failed"
              and ses[15]["candidate"] == dc, "%s: session 15 %r" % (fx, ses.get(15)))
        opens = [e for e in ring[1:] if e["type"] == "session_open"]
        check(len(opens) == (0 if fx == "sessions-lapped" else 3), "%s: %d session_open records"
              % (fx, len(opens)))
        text = lastwords(lw, ["dump", "fixtures/rings/%s.lwr" % fx]).stdout
        check(("session   1  open" in text and "candidate %s  open stages: inference" % da in text
               and "candidate %s  open stages: load" % db in text),
              "%s: dump's session lines" % fx)
    text = lastwords(lw, ["dump", "fixtures/rings/sessions-switch.lwr"]).stdout
    check("open session 2" in text and "begin load" in text and "session 2" in text
          and "mark payload" in text and "image, 2^17 to 2^18 bytes" in text
          and "hit, key " in text and "files 0000000000005eed verified" in text,
          "sessions-switch: dump's records")
    # A damaged session entry (R7) is header damage: the slots still read.
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "bad-session.lwr")
        data = bytearray(open("fixtures/rings/sessions-switch.lwr", "rb").read())
        data[512 + 64 * 2] = 7  # session 2's state
        with open(path, "wb") as f:
            f.write(data)
        p = lastwords(lw, ["verify", "--json", path])
        v = json_lines(p.stdout)[0] if p.stdout else {}
        check(p.returncode == 1 and "session 2: state field holds 7" in v.get("header_damage", "")
              and v.get("valid") == 13, "damaged session entry: exit %d, %s" % (p.returncode, v))

    for fx in ("killed-inference", "clean-exit"):
        ring = json_lines(lastwords(lw, ["dump", "--json", "fixtures/rings/%s.lwr" % fx]).stdout)
        text = lastwords(lw, ["dump", "fixtures/rings/%s.lwr" % fx]).stdout
        check(ring[0]["format_version"] == 1 and "sessions" not in ring[0]
              and not any("session" in e for e in ring[1:]) and "\nsession " not in text,
              "%s: a version 1 ring shows sessions" % fx)

    v = json_lines(lastwords(lw, ["verify", "--json", "fixtures/rings/clean-exit.lwr"]).stdout)[0]
    check(v["outcome"] == "clean" and v["ok"] and v["valid"] == 14 and v["missing"] == 0,
          "clean run verify: %s" % v)

    p = lastwords(lw, ["verify", "--json", "fixtures/rings/corrupt-slots.lwr"])
    v = json_lines(p.stdout)[0]
    check(p.returncode == 1, "corrupt-slots: verify exits %d, want 1" % p.returncode)
    check(v["corrupt"] == 3 and v["torn"] == 1 and v["valid"] == 10 and v["missing"] == 4
          and not v["ok"], "corrupt-slots counts: %s" % v)

    v = json_lines(lastwords(lw, ["verify", "--json", "fixtures/rings/wrapped.lwr"]).stdout)[0]
    check(v["valid"] == 16 and v["first_ticket"] == 27 and v["last_ticket"] == 42,
          "wrapped ring keeps the newest 16 records: %s" % v)

    # A damaged run-time header field (R7): slots still read, verify exits 1.
    p = lastwords(lw, ["verify", "--json", "fixtures/rings/damaged-state.lwr"])
    v = json_lines(p.stdout)[0]
    check(p.returncode == 1 and not v["ok"] and v["valid"] == 24
          and "state field holds 9" in v.get("header_damage", ""),
          "damaged state: exit %d, %s" % (p.returncode, v))
    text = lastwords(lw, ["dump", "fixtures/rings/damaged-state.lwr"]).stdout
    check("outcome   unknown: the state field is damaged" in text, "damaged state: dump outcome")

    # Untrusted input: one clear line naming the file, exit 4, nothing on stdout.
    bad = {
        "truncated": "truncated: 5000 bytes, the header describes 20480",
        "foreign": "not a lastwords ring (bad magic)",
        "future-version": "ring format version 4 needs a reader of version 4",
        "header-checksum": "header checksum mismatch",
    }
    for stem, reason in bad.items():
        fx = "fixtures/bad/%s.lwr" % stem
        for cmd in ("dump", "verify"):
            p = lastwords(lw, [cmd, fx])
            lines = p.stderr.splitlines()
            check(p.returncode == 4, "%s %s exits %d, want 4" % (cmd, fx, p.returncode))
            check(len(lines) == 1 and lines[0].startswith("lastwords: '%s': " % fx)
                  and reason in lines[0], "%s %s says %r" % (cmd, fx, p.stderr))
            check(p.stdout == "", "%s %s printed to stdout" % (cmd, fx))

    # An empty ring file is an empty run, named, as an all-zero one is.
    for cmd in ("dump", "verify"):
        p = lastwords(lw, [cmd, "fixtures/bad/empty.lwr"])
        check(p.returncode == 0 and "empty file: never initialized" in p.stdout and not p.stderr,
              "%s fixtures/bad/empty.lwr: exit %d, %r %r" % (cmd, p.returncode, p.stdout, p.stderr))

    p = lastwords(lw, ["verify", "fixtures/rings/no-such-file.lwr"])
    check(p.returncode == 4 and "cannot open 'fixtures/rings/no-such-file.lwr': No such file"
          in p.stderr, "missing file: %d %r" % (p.returncode, p.stderr))
    p = lastwords(lw, ["dump", "fixtures"])
    check(p.returncode == 4 and "Is a directory" in p.stderr, "directory: %r" % p.stderr)

    # A bad file among good ones: the good ones are still read, exit 4.
    p = lastwords(lw, ["verify", "fixtures/bad/foreign.lwr", "fixtures/rings/clean-exit.lwr"])
    check(p.returncode == 4 and "clean-exit.lwr: ended cleanly" in p.stdout,
          "mixed inputs: %d %r" % (p.returncode, p.stdout))

    # Usage errors exit 2.
    for args in (["dump"], ["verify"], ["dump", "--bogus", "x"], ["frobnicate"], [], ["digest"],
                 ["digest", "--frobnicate"], ["digest", "model", "-x"]):
        p = lastwords(lw, args)
        check(p.returncode == 2 and p.stderr.startswith("lastwords: ") or (
           not args and p.returncode == 2), "usage %r exits %d" % (args, p.returncode))
    # A name that starts with '-' comes after "--".
    p = lastwords(lw, ["digest", "--", "-model"])
    check(p.returncode == 0 and p.stdout.endswith("  -model\n") and len(p.stdout.split()[0]) == 16,
          "digest -- -model: %d %r" % (p.returncode, p.stdout))
    p = lastwords(lw, ["--version"])
    check(p.returncode == 0 and p.stdout.startswith("lastwords "), "--version")

    # A ring a writer still holds is reported live.
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "held.lwr")
        with open("fixtures/rings/killed-inference.lwr", "rb") as src, open(path, "wb") as dst:
            dst.write(src.read())
        import fcntl
        with open(path, "rb") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            v = json_lines(lastwords(lw, ["verify", "--json", path]).stdout)[0]
            check(v["outcome"] == "live", "locked ring: outcome %s" % v["outcome"])
        v = json_lines(lastwords(lw, ["verify", "--json", path]).stdout)[0]
        check(v["outcome"] == "died", "unlocked ring: outcome %s" % v["outcome"])


def main():
    lw, _ = setup(__doc__)
    update = "--update" in sys.argv[3:]
    n = golden(lw, update)
    if update:
        print("expected outputs rewritten; review them with git diff")
        return 0
    meaning(lw)
    return finish("%d golden outputs compared" % n)


if __name__ == "__main__":
    sys.exit(main())
