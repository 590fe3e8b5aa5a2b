#!/usr/bin/env python3
"""`lastwords trace`: every scenario of fixtures/scenarios/ (with its args,
less --fail-on), the demo and each ring of fixtures/rings/ as a Perfetto
trace, decoded by protoc with the project's schema of Perfetto's fields,
tests/perfetto/lastwords_trace.proto, and with ../shared/research/perfetto's
where present (trace_decode.py; skips with 77 without protoc):

- protoc exits 0 and no field decodes as a bare number;
- the trace is well formed for trace processor: every packet has the
  writer's sequence id (not 1, which a system trace's writers take), the first clears the incremental state, every track an
  event names was described before it, slices begin and end on one track
  like a call stack (never an END with none open, none left open), counter
  values only on counter tracks, each track's times never go back;
- the counts, worked out here from `report --format json` and the runs'
  records (`dump --json`, or the JSON lines themselves), not from the
  trace: one process track per run (pid and name; a seed run has none; a
  run of pid 0 a named track, with no thread tracks),
  one thread track per thread that wrote a point record, the stages'
  slices (each begin, each end whose begin is not in the ring, and each
  stage the header's session table says was open at the end with no
  begin in the ring), the
  RSS counter's values (each new sample), the budget's (the header's, and
  each budget mark), a version 3 ring's memory kinds' (each figure a memory
  record's composition or a graphics record gives, on a track "memory:
  KIND"), one instant per point record, and one per exit record
  of the run (a ring-less run's, where its time falls in the rings' boot);
  the main process's peer_died on the dead run's track at its mark's time;
- a ring's clock snapshot, and everything on BOOTTIME (REALTIME with no
  ring);
- without -o, to a terminal, it refuses (exit 2); with -o, nothing is
  left beside FILE; an input that cannot be read gives exit 4 and the
  trace of the rest.

usage: trace-scenarios.py LASTWORDS SOURCE_ROOT
"""
import collections
import glob
import json
import os
import pty
import shlex
import subprocess
import tempfile

from helpers import check, fail, finish, lastwords, report_json, setup, strip_fail_on
from trace_decode import annotations, decoder, get, get_all, trace_packets

POINT = {"open", "stage_begin", "stage_end", "memory"}  # not instants
SEQUENCE_ID = 0x4c57  # "LW": not one of traced's, which start at 1


def pid_unknown_bundle(tmp):
    """lmk-confirmed with its ring's pid 0 (a ring in JSON lines may say so):
    a named track, not Perfetto's pid 0 (the idle task), and no threads."""
    d = os.path.join(tmp, "pid-unknown")
    os.mkdir(d)
    src = os.path.join("fixtures", "scenarios", "lmk-confirmed", "bundle")
    for name in os.listdir(src):
        if name.endswith(".jsonl"):
            lines = [json.loads(x) for x in open(os.path.join(src, name))]
            lines[0]["pid"] = 0
            with open(os.path.join(d, name), "w") as f:
                for x in lines:
                    f.write(json.dumps(x, separators=(",", ":")) + "\n")
    return d


def cases(root, pid_unknown):
    base = os.path.join("fixtures", "scenarios")
    for name in sorted(os.listdir(base)):
        d = os.path.join(base, name)
        if not os.path.isdir(os.path.join(d, "bundle")):
            continue
        args = []
        if os.path.exists(os.path.join(d, "args")):
            args = strip_fail_on(shlex.split(open(os.path.join(d, "args")).read()))
        yield name, args + [os.path.join(d, "bundle")]
    yield "demo", ["--tz", "+01:00", os.path.join("fixtures", "demo")]
    yield "pid-unknown", ["--tz", "+02:00", pid_unknown]
    for ring in sorted(glob.glob(os.path.join("fixtures", "rings", "*.lwr"))):
        yield os.path.basename(ring), [ring]


def records(lw, path):
    """A ring's header line and its records, as dump --json gives them (a
    ring of JSON lines is that text already)."""
    with open(path, "rb") as f:
        binary = not f.read(1).startswith(b"{")
    if binary:
        p = lastwords(lw, ["dump", "--json", path])
        text = p.stdout
    else:
        text = open(path).read()
    lines = [json.loads(x) for x in text.splitlines() if x.strip()]
    head = [x for x in lines if x["type"] == "ring"]
    return (head[0] if head else {}), [x for x in lines if x["type"] not in ("ring", "error")]


def expected(run, head, recs):
    """What the trace must hold for one run, from its report and records."""
    e = collections.Counter()
    if run["ring"] != "probe":
        return e
    threads = set()
    open_stages = collections.Counter()
    last_rss = None
    for r in recs:
        t = r["type"]
        if t not in POINT:
            e["instants"] += 1
            if r.get("tid"):
                threads.add(r["tid"])
        if t == "mark" and r.get("mark") == "budget":
            e["budget"] += 1
        if t == "memory" and r.get("memory_source") in ("status", "statm"):
            e["memory"] += sum(r.get(k) is not None
                               for k in ("anon_kb", "file_kb", "shmem_kb", "swap_kb"))
        if t == "graphics":
            e["memory"] += 1
        if t in ("stage_begin", "stage_end"):
            key = (r.get("session", 0), r["stage"])
            if t == "stage_begin":
                open_stages[key] += 1
                e["slices"] += 1
            elif open_stages[key]:
                open_stages[key] -= 1
            else:
                e["slices"] += 1
        if r.get("rss_kb") and r["rss_kb"] != last_rss:
            last_rss = r["rss_kb"]
            e["rss"] += 1
    # A stage the header's session table says was open at the end, whose
    # begin the ring lost, is a slice too.
    for sess in head.get("sessions", []) or [{"id": 0, "open_stages": [head["open_stage"]]
                                               if head.get("open_stage") not in (None, "none")
                                               else []}]:
        for stage in sess.get("open_stages", []):
            if not open_stages[(sess["id"], stage)]:
                e["slices"] += 1
    if head.get("memory_budget_kb"):
        e["budget"] += 1
    e["threads"] = len(threads) if run["pid"] else 0  # pid 0: the kernel's to Perfetto
    return e


class Tracks:
    """The trace read back: its tracks by uuid, grouped by run (each run's
    tracks follow its process track), and the events on them."""

    def __init__(self, where, packets):
        self.where, self.runs, self.kind, self.run_of = where, [], {}, {}
        self.snapshots, self.instants = [], []
        self.clocks = set()
        self.open = collections.defaultdict(list)
        self.last_ts = {}
        for i, p in enumerate(packets):
            check(get(p, "trusted_packet_sequence_id") == SEQUENCE_ID,
                  "%s: packet %d is not on sequence %d" % (where, i, SEQUENCE_ID))
            if i == 0:
                check(get(p, "sequence_flags") == 1,
                      "%s: the first packet does not clear the incremental state" % where)
            if get(p, "clock_snapshot") is not None:
                self.snapshots.append(get(p, "clock_snapshot"))
            d = get(p, "track_descriptor")
            if d is not None:
                self.describe(d)
            ev = get(p, "track_event")
            if ev is not None:
                self.event(i, p, ev)
        for uuid, stack in self.open.items():
            check(not stack, "%s: %d slice(s) never end on track %d" % (where, len(stack), uuid))

    def describe(self, d):
        uuid = get(d, "uuid")
        check(uuid not in self.kind, "%s: track %d described twice" % (self.where, uuid))
        if get(d, "process") is not None or get(d, "parent_uuid") is None and \
                get(d, "thread") is None:
            # A run's track: its process's, or a named one for a pid unknown.
            proc = get(d, "process") or []
            name = get(proc, "process_name") if proc else get(d, "name").replace(" (pid unknown)", "")
            self.runs.append({"pid": get(proc, "pid", 0), "process": name,
                              "labels": get_all(proc, "process_labels"),
                              "counts": collections.Counter(), "exits": 0, "names": [],
                              "named": not proc})
            self.kind[uuid] = "process"
        elif get(d, "thread") is not None:
            th = get(d, "thread")
            check(self.runs and get(th, "pid") == self.runs[-1]["pid"],
                  "%s: thread track %d is not of the run before it" % (self.where, uuid))
            self.kind[uuid] = "thread"
            self.runs[-1]["counts"]["threads"] += 1
        else:
            check(self.runs and self.run_of.get(get(d, "parent_uuid")) == len(self.runs) - 1,
                  "%s: track %d's parent is not its run's process" % (self.where, uuid))
            self.kind[uuid] = "counter:" + get(d, "name") if get(d, "counter") is not None else "stages"
        self.run_of[uuid] = len(self.runs) - 1

    def event(self, i, p, ev):
        uuid, ts, kind = get(ev, "track_uuid"), get(p, "timestamp"), get(ev, "type")
        if not check(uuid in self.kind, "%s: packet %d names track %s, not described before it"
                     % (self.where, i, uuid)):
            return
        self.clocks.add(get(p, "timestamp_clock_id"))
        check(ts is not None, "%s: packet %d has no timestamp" % (self.where, i))
        check(ts >= self.last_ts.get(uuid, 0), "%s: packet %d goes back in time on track %d"
              % (self.where, i, uuid))
        self.last_ts[uuid] = ts
        run = self.runs[self.run_of[uuid]]
        counter = self.kind[uuid].startswith("counter:")
        check(counter == (kind == "TYPE_COUNTER"), "%s: packet %d: %s on a %s track"
              % (self.where, i, kind, self.kind[uuid]))
        if kind == "TYPE_SLICE_BEGIN":
            self.open[uuid].append(ts)
            run["counts"]["slices"] += 1
            check(self.kind[uuid] == "stages", "%s: a slice on a %s track" % (self.where, self.kind[uuid]))
        elif kind == "TYPE_SLICE_END":
            check(self.open[uuid], "%s: packet %d ends a slice none began" % (self.where, i))
            if self.open[uuid]:
                self.open[uuid].pop()
        elif kind == "TYPE_COUNTER":
            run["counts"]["rss" if self.kind[uuid] == "counter:RSS"
                          else "memory" if self.kind[uuid].startswith("counter:memory: ")
                          else "budget"] += 1
            check(get(ev, "counter_value") is not None, "%s: a counter event with no value" % self.where)
        elif kind == "TYPE_INSTANT":
            name = get(ev, "name") or ""
            run["names"].append(name)
            self.instants.append((name, ts))
            if "ticket" in annotations(ev) and not name.startswith("peer_died"):
                run["counts"]["instants"] += 1
            if name.startswith("exit record"):
                run["exits"] += 1
        else:
            fail("%s: packet %d has event type %s" % (self.where, i, kind))


RINGLESS = "no ring: stage and candidate unknown"


def check_case(lw, schemas, name, args, tmp):
    packets, err, status = trace_packets(lw, schemas, args, tmp)
    rep, _ = report_json(lw, args)
    if packets is None or rep is None:
        return 0
    check(status == 0, "%s: trace exits %d: %s" % (name, status, err))
    t = Tracks(name, packets)
    runs = [r for r in rep["runs"] if r["ring"] != "seed"]
    rings = [r for r in runs if r["ring"] == "probe"]
    check(len(t.runs) == len(runs), "%s: %d process tracks for %d runs"
          % (name, len(t.runs), len(runs)))
    check(t.clocks <= ({6} if rings else {1}), "%s: timestamps on clocks %s, not %s"
          % (name, sorted(t.clocks), "BOOTTIME" if rings else "REALTIME"))
    check(len(t.snapshots) >= (1 if rings or runs else 0), "%s: no clock snapshot" % name)
    for run, got in zip(runs, t.runs):
        pid = run["pid"] or 0  # null: no witness named it
        where = "%s: %s pid %d" % (name, run["process"], pid)
        check((got["pid"], got["process"]) == (pid, run["process"]),
              "%s: its process track is of %s pid %s" % (where, got["process"], got["pid"]))
        check(got["named"] == (pid == 0), "%s: %s" % (
            where, "pid 0 as a process track" if pid == 0 else "no process track"))
        # A ring-less run's stage is unknown: the track says so, and holds
        # no stage; a ring's says its outcome (issue 20, part 3).
        if pid and run["ring"] == "none":
            check(RINGLESS in got["labels"] and got["counts"]["slices"] == 0 and
                  not any(l in ("none", "no_ring") for l in got["labels"]),
                  "%s: a ring-less run's labels %s, %d slices" % (where, got["labels"],
                                                                  got["counts"]["slices"]))
        elif pid and run["ring"] == "probe":
            check(run["outcome"] in got["labels"] and RINGLESS not in got["labels"],
                  "%s: labels %s lack the outcome %s" % (where, got["labels"], run["outcome"]))
        if run["classification"] and pid:
            check("%s, %s" % (run["classification"], run["evidence_level"]) in got["labels"],
                  "%s: labels %s lack the verdict" % (where, got["labels"]))
        head, recs = records(lw, run["file"]) if run["ring"] == "probe" else ({}, [])
        want = expected(run, head, recs)
        for k in ("threads", "slices", "rss", "budget", "memory", "instants"):
            check(got["counts"][k] == want[k], "%s: %d %s in the trace, %d in its records"
                  % (where, got["counts"][k], k, want[k]))
        timed = len([x for x in run["exit_records"] if x.get("timestamp")])
        if run["ring"] == "none" and rings:
            check(got["exits"] <= timed, "%s: %d exit record instants for %d exit records"
                  % (where, got["exits"], timed))
        else:
            check(got["exits"] == timed, "%s: %d exit record instants for %d exit records"
                  % (where, got["exits"], timed))
        if run["classification"] == "low_memory" and run["evidence_level"] == "confirmed" and \
                run["ring"] == "probe":
            check(any(n.startswith("log: lmkd_kill") for n in got["names"]) or got["exits"],
                  "%s: a confirmed low_memory death with no exit record or lmkd instant" % where)
    # The main process's peer_died, on the dead run's track, at its mark's time.
    marks = {ts for n, ts in t.instants if n == "mark peer_died"}
    for n, ts in t.instants:
        if n.startswith("peer_died:"):
            check(ts in marks, "%s: %s at %d, not at its mark's time %s" % (name, n, ts, sorted(marks)))
    return len(t.runs)


def main():
    lw, root = setup(__doc__.strip().splitlines()[-1])
    schemas = decoder()
    n = nruns = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, args in cases(root, pid_unknown_bundle(tmp)):
            nruns += check_case(lw, schemas, name, args, tmp)
            n += 1
        check(n > 60, "only %d cases" % n)

        # To a terminal without -o: refused, nothing written.
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(lw, [lw, "trace", "fixtures/demo"])
        out = b""
        try:
            while True:
                chunk = os.read(fd, 4096)
                if not chunk:
                    break
                out += chunk
        except OSError:
            pass
        _, st = os.waitpid(pid, 0)
        check(os.WEXITSTATUS(st) == 2 and b"-o FILE" in out,
              "trace to a terminal: exit %d, %r" % (os.WEXITSTATUS(st), out[:200]))

        # With -o: the file alone, no temporary beside it.
        d = os.path.join(tmp, "out")
        os.mkdir(d)
        p = lastwords(lw, ["trace", "-o", os.path.join(d, "t.pftrace"), "--tz", "+01:00",
                           "fixtures/demo"])
        check(p.returncode == 0 and os.listdir(d) == ["t.pftrace"],
              "trace -o: exit %d, %s" % (p.returncode, os.listdir(d)))
        # To stdout when it is not a terminal: the same bytes.
        q = subprocess.run([lw, "trace", "--tz", "+01:00", "fixtures/demo"], capture_output=True)
        check(q.returncode == 0 and q.stdout == open(os.path.join(d, "t.pftrace"), "rb").read(),
              "trace to a pipe: exit %d, not the bytes of -o" % q.returncode)
        # An input that cannot be read: exit 4, named, the rest traced.
        p = lastwords(lw, ["trace", "-o", os.path.join(d, "t.pftrace"), "--tz", "+01:00",
                           "fixtures/demo", os.path.join(tmp, "missing.lwr")])
        check(p.returncode == 4 and "missing.lwr" in p.stderr and "5 runs" in p.stderr,
              "trace with a missing input: exit %d, %r" % (p.returncode, p.stderr))
        # An output that cannot be written: exit 13, nothing left.
        p = lastwords(lw, ["trace", "-o", os.path.join(tmp, "no", "such", "t.pftrace"),
                           "fixtures/demo"])
        check(p.returncode == 13 and "cannot write" in p.stderr,
              "trace -o into a missing folder: exit %d, %r" % (p.returncode, p.stderr))
        p = lastwords(lw, ["trace", "-o", "/dev/full", "fixtures/demo"])
        check(p.returncode == 13, "trace -o /dev/full: exit %d, %r" % (p.returncode, p.stderr))
    return finish("trace-scenarios: %d cases, %d runs" % (n, nruns))


if __name__ == "__main__":
    raise SystemExit(main())
