#!/usr/bin/env python3
"""The ring of a 32-bit process reads as the 64-bit one's. In a cross build
(tests/cross-32.sh: 32-bit ARM under qemu-arm, 32-bit x86), this build's
tests/abi-story writes its fixed story (tests/abi-story.c), and the 64-bit
build's (LASTWORDS_HOST_BUILD) writes the same; the 64-bit lastwords then
reads both, and they must agree:
  - clean, and segv (a real SIGSEGV in session 1's inference, with the
    crash handler): every record the same but for clocks, thread ids and
    memory readings (their kinds and sources must agree), the ring lines'
    counts and identity the same, and verify finds nothing wrong;
  - kill (SIGKILL while the process writes marks as fast as it can): the
    ring reads whole (no corrupt slot, at most one torn), died with
    session 1's inference open;
  - for each: `lastwords report --format json` gives the same outcome,
    stages, sessions, candidate, classification, evidence level, rules and
    recovery actions.
Skips (77) outside a cross build's environment (no LASTWORDS_HOST_BUILD).

usage: abi-story.py ABI_STORY (the cross build's tests/abi-story)
Environment: LASTWORDS_HOST_BUILD, the 64-bit build directory (its
analyzer/lastwords and tests/abi-story); MESON_EXE_WRAPPER, set by meson
test in a cross build that runs under an emulator.
"""
import json
import os
import random
import select
import shlex
import signal
import subprocess
import sys
import tempfile
import time

from helpers import check, finish, skip

# Members that differ between two runs of the same story: times, ids,
# paths and memory readings.
VOLATILE = {"file", "t_mono_ns", "t_ms", "time", "tid", "rss_kb", "rss_age_ms", "boottime_ns",
            "realtime_ns", "pid", "run_id", "start_time", "start_real_ns", "start_boot_ns",
            "start_mono_ns", "peak_rss_kb", "vm_kb", "anon_kb", "file_kb", "shmem_kb",
            "swap_kb", "psi_some", "psi_full", "psi_total_us", "opened_mono_ns"}


def steady(v):
    """v without the VOLATILE members, at any depth."""
    if isinstance(v, dict):
        return {k: steady(x) for k, x in v.items() if k not in VOLATILE}
    if isinstance(v, list):
        return [steady(x) for x in v]
    return v


def run_story(cmd, directory, mode):
    """Run the story in directory; the exit status (negative: a signal)."""
    os.makedirs(directory)
    if mode != "kill":
        return subprocess.run(cmd + [directory, mode], capture_output=True, text=True,
                              timeout=40).returncode
    p = subprocess.Popen(cmd + [directory, mode], stdout=subprocess.PIPE, text=True)
    ready, _, _ = select.select([p.stdout], [], [], 30)
    line = p.stdout.readline() if ready else ""
    check(line == "ready\n", "%s kill: the story said %r before its marks" % (cmd[-1], line))
    time.sleep(random.uniform(0.02, 0.06))
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=30)
    return p.returncode


def ring_of(directory):
    rings = [f for f in os.listdir(directory) if f.endswith(".lwr")]
    check(len(rings) == 1, "%s: one ring: %r" % (directory, rings))
    return os.path.join(directory, rings[0]) if rings else None


def lastwords(lw, args):
    p = subprocess.run([lw] + args, capture_output=True, text=True, timeout=40)
    return p


def records(lw, ring):
    """The ring line and the records of dump --json, less what varies."""
    p = lastwords(lw, ["dump", "--json", ring])
    check(p.returncode == 0, "dump --json %s exits %d: %s" % (ring, p.returncode, p.stderr))
    out = [steady(json.loads(x)) for x in p.stdout.splitlines() if x.strip()]
    return (out[0], out[1:]) if out else ({}, [])


def verdicts(lw, ring):
    """The report's account of the run, less what varies."""
    p = lastwords(lw, ["report", "--format", "json", ring])
    check(p.returncode in (0, 1), "report %s exits %d: %s" % (ring, p.returncode, p.stderr))
    try:
        runs = json.loads(p.stdout)["runs"]
    except (ValueError, KeyError):
        check(False, "report %s: no JSON runs: %r" % (ring, p.stdout[:300]))
        return None
    out = []
    for r in runs:
        out.append({
            "process": r.get("process"), "app_version": r.get("app_version"),
            "outcome": r.get("outcome"), "open_stage": r.get("open_stage"),
            "last_stage": r.get("last_stage"), "stage_open": r.get("stage_open"),
            "candidate": r.get("candidate"), "stable_candidate": r.get("stable_candidate"),
            "classification": r.get("classification"),
            "evidence_level": r.get("evidence_level"), "rules": r.get("rules"),
            "actions": [a.get("action") for a in (r.get("recovery") or {}).get("actions", [])]
            if isinstance(r.get("recovery"), dict) else r.get("recovery"),
            "sessions": [{k: s.get(k) for k in ("id", "candidate", "state", "opens", "result",
                                                "open_stages")}
                         for s in r.get("sessions") or []],
            "resident_candidates": r.get("resident_candidates"),
        })
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: abi-story.py ABI_STORY")
    host = os.environ.get("LASTWORDS_HOST_BUILD", "")
    if not host:
        skip("no LASTWORDS_HOST_BUILD: the 64-bit build to compare with (tests/cross-32.sh)")
    lw = os.path.join(host, "analyzer", "lastwords")
    host_story = [os.path.join(host, "tests", "abi-story")]
    wrapper = shlex.split(os.environ.get("MESON_EXE_WRAPPER", ""))
    story = wrapper + [os.path.abspath(sys.argv[1])]
    for path in (lw, host_story[0], story[-1]):
        if not os.access(path, os.X_OK):
            check(False, "%s is not an executable" % path)
            return finish("missing programs")
    tmp = tempfile.TemporaryDirectory(prefix="lw-abi-story-")
    want_status = {"clean": 0, "segv": -signal.SIGSEGV, "kill": -signal.SIGKILL}
    for mode in ("clean", "segv", "kill"):
        status = {}
        rings = {}
        for name, cmd in (("target", story), ("host", host_story)):
            d = os.path.join(tmp.name, name + "-" + mode)
            status[name] = run_story(cmd, d, mode)
            rings[name] = ring_of(d)
        check(status["target"] == status["host"] == want_status[mode],
              "%s: the stories' exit statuses %r, want %d" % (mode, status, want_status[mode]))
        if not rings["target"] or not rings["host"]:
            continue
        (th, trec), (hh, hrec) = records(lw, rings["target"]), records(lw, rings["host"])
        if mode != "kill":
            check(th == hh, "%s: the ring lines differ:\n32-bit %r\n64-bit %r" % (mode, th, hh))
            diff = [(i, a, b) for i, (a, b) in enumerate(zip(trec, hrec)) if a != b]
            check(len(trec) == len(hrec) and not diff,
                  "%s: %d and %d records; first difference %r" % (mode, len(trec), len(hrec),
                                                                  diff[:1]))
            check(th.get("corrupt") == 0 and th.get("torn") == 0 and th.get("missing") == 0,
                  "%s: the 32-bit ring reads whole: %r" % (mode, th))
        else:
            for name, h in (("32-bit", th), ("64-bit", hh)):
                check(h.get("corrupt") == 0 and h.get("torn", 9) <= 1 and
                      h.get("outcome") == "died" and h.get("open_stage") == "inference",
                      "kill: the %s ring reads whole and died in inference: %r" % (name, h))
        v = lastwords(lw, ["verify", rings["target"]])
        check(v.returncode == 0, "%s: verify of the 32-bit ring exits %d: %s"
              % (mode, v.returncode, v.stdout[-500:]))
        tv, hv = verdicts(lw, rings["target"]), verdicts(lw, rings["host"])
        check(tv == hv and tv, "%s: the reports differ:\n32-bit %s\n64-bit %s"
              % (mode, json.dumps(tv), json.dumps(hv)))
        print("%s: %d records; report: %s, %s %s" % (
            mode, len(trec), tv[0]["outcome"] if tv else "-",
            tv[0]["classification"] if tv else "-", tv[0]["evidence_level"] if tv else "-"))
    return finish("a 32-bit process's rings read as the 64-bit one's (%s)"
                  % (" ".join(wrapper) or "native"))


if __name__ == "__main__":
    sys.exit(main())
