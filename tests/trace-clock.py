#!/usr/bin/env python3
"""`lastwords trace` puts a hand-made ring with known clock triples, and
its evidence, at the BOOTTIME timestamps worked out here by hand.

The ring (JSON lines, as dump --json writes them) starts at MONOTONIC 1 s,
BOOTTIME 5 s, REALTIME R0; its stage records' triples say that the device
slept 100 s between the load's begin (MONOTONIC 2 s, BOOTTIME 6 s) and its
end (MONOTONIC 3 s, BOOTTIME 107 s). A record takes the offset of the
triple nearest to it in MONOTONIC, so a mark at 2.4 s lands at 6.4 s and
one at 3.5 s at 107.5 s. Its RSS samples land when they were taken (the
record's time less the sample's age). The evidence is wall-clock time: an
exit record in the app's JSON (UTC ms) and an lmkd line in logcat's local
time (--tz +02:00, which correlate.c applies), each placed with the
triple nearest in REALTIME. A ring-less run of the same app takes the
ring's triples; one from before the ring's boot cannot be placed and is
said to be left out. The ClockSnapshot holds the header's triple.

A second ring's stages overlap in one session without nesting (two
threads: load from 1 s to 3 s, inference from 2 s to 4 s): Perfetto's
slices on one track nest like a call stack, so the inference goes on a
second track of the session, and each slice, read back by pairing each
END with the innermost open BEGIN of its track, has its own times.
Decoded with protoc and tests/perfetto/lastwords_trace.proto
(trace_decode.py; skips with 77 without protoc).

usage: trace-clock.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import tempfile

from helpers import check, finish, setup
from trace_decode import annotations, decoder, get, get_all, trace_packets

S = 1000000000        # 1 s in ns
R0 = 1750000000 * S   # 2025-06-15T15:06:40Z
PROCESS = "com.example.clock:inference"
RING = "com.example.clock_inference.1750000000.4242.lwr"


def rec(ticket, kind, t_mono, tid=4242, rss=0, age=0, **more):
    r = {"type": kind, "file": RING, "ticket": ticket, "t_mono_ns": t_mono, "tid": tid,
         "flags": 0, "stage": more.pop("stage", "none"), "rss_kb": rss, "rss_age_ms": age}
    r.update(more)
    return r


def triple(boot, real):
    return {"boottime_ns": boot, "realtime_ns": real}


def bundle(d):
    head = {"type": "ring", "file": RING, "format_version": 1, "process": PROCESS, "pid": 4242,
            "app_version": 42, "run_id": "0123456789abcdef0123456789abcdef",
            "boot_id": "00112233445566778899aabbccddeeff", "start_real_ns": R0,
            "start_boot_ns": 5 * S, "start_mono_ns": 1 * S, "outcome": "crashed", "state": 3,
            "signal": "SIGSEGV", "open_stage": "inference", "memory_budget_kb": 65536,
            "slot_count": 16, "valid": 8, "torn": 0, "stale": 0, "corrupt": 0,
            "never_written": 8, "missing": 0, "lapped": 0, "dropped": 0, "candidate": None,
            "ok_candidate": None, "stable_candidate": None, "head": 8}
    recs = [
        rec(0, "open", S + 100000, app_version=42, backing="file", **triple(5 * S, R0)),
        rec(1, "mark", S + 200000, rss=1000, mark="budget", value=65536),
        rec(2, "stage_begin", 2 * S, stage="load", **triple(6 * S, R0 + 1 * S)),
        rec(3, "mark", 2400000000, tid=4243, rss=2000, age=100, stage="load", mark="sessions",
            value=1),
        rec(4, "stage_end", 3 * S, rss=2000, stage="load", error="none",
            **triple(107 * S, R0 + 102 * S)),
        rec(5, "mark", 3500000000, rss=2000, mark="sessions", value=2),
        rec(6, "stage_begin", 3600000000, rss=2000, stage="inference",
            **triple(107600000000, R0 + 102600000000)),
        rec(7, "crash", 4 * S, tid=4243, rss=3000, stage="inference", signo=11,
            signal="SIGSEGV", si_code=1, si_code_name="SEGV_MAPERR", fault_addr="0x10"),
    ]
    with open(os.path.join(d, RING.replace(".lwr", ".jsonl")), "w") as f:
        for x in [head] + recs:
            f.write(json.dumps(x, separators=(",", ":")) + "\n")
    ms = R0 // 1000000

    def exit_record(pid, t):
        return {"pid": pid, "processName": PROCESS, "reason": 3, "subReason": 0, "status": 0,
                "importance": 125, "pss": 0, "rss": 0, "timestamp": t, "description": None}
    with open(os.path.join(d, "exit-info.json"), "w") as f:
        json.dump({"packageName": "com.example.clock", "appVersion": 42,
                   "records": [exit_record(4242, ms + 103500),   # after the crash
                               exit_record(5151, ms + 50000),    # a ring-less run
                               exit_record(6161, ms - 10000)]},  # before the ring's boot
                  f)
    # 15:08:24 UTC at +02:00: R0 + 104 s.
    with open(os.path.join(d, "logcat.txt"), "w") as f:
        f.write("06-15 17:08:24.000   612   612 I lowmemorykiller: Kill '%s' (4242), uid 10231, "
                "oom_score_adj 200 to free 3000kB rss, 0kB swap; reason: low watermark is "
                "breached\n" % PROCESS)


def overlap_bundle(d):
    """A ring whose two stages of session 0 overlap without nesting."""
    head = {"type": "ring", "file": "overlap.lwr", "format_version": 1, "process": PROCESS,
            "pid": 4300, "app_version": 42, "run_id": "1123456789abcdef0123456789abcdef",
            "start_real_ns": R0, "start_boot_ns": 5 * S, "start_mono_ns": 1 * S,
            "outcome": "clean", "state": 2, "open_stage": "none", "slot_count": 16, "head": 5}
    recs = [
        rec(0, "open", S, tid=4300, app_version=42, backing="file", **triple(5 * S, R0)),
        rec(1, "stage_begin", S, tid=4300, stage="load", **triple(5 * S, R0)),
        rec(2, "stage_begin", 2 * S, tid=4301, stage="inference", **triple(6 * S, R0 + S)),
        rec(3, "stage_end", 3 * S, tid=4300, stage="load", error="none", **triple(7 * S, R0 + 2 * S)),
        rec(4, "stage_end", 4 * S, tid=4301, stage="inference", error="timeout",
            **triple(8 * S, R0 + 3 * S)),
        rec(5, "close", 4 * S, tid=4300, **triple(8 * S, R0 + 3 * S)),
    ]
    for r in recs:
        r["file"] = "overlap.lwr"
    with open(os.path.join(d, "overlap.jsonl"), "w") as f:
        for x in [head] + recs:
            f.write(json.dumps(x, separators=(",", ":")) + "\n")


def slices(packets):
    """(track, name, begin, end) of each slice: each END closes the
    innermost open BEGIN of its track."""
    names, stacks, out = {}, {}, []
    for p in packets:
        t = get(p, "track_descriptor")
        if t is not None:
            names[get(t, "uuid")] = get(t, "name")
        e = get(p, "track_event")
        if e is None:
            continue
        uuid = get(e, "track_uuid")
        if get(e, "type") == "TYPE_SLICE_BEGIN":
            stacks.setdefault(uuid, []).append((get(e, "name"), get(p, "timestamp")))
        elif get(e, "type") == "TYPE_SLICE_END" and stacks.get(uuid):
            name, begin = stacks[uuid].pop()
            out.append((names[uuid], name, begin, get(p, "timestamp")))
    return sorted(out)


def main():
    lw, root = setup(__doc__.strip().splitlines()[-1])
    schemas = decoder()
    with tempfile.TemporaryDirectory() as tmp:
        d = os.path.join(tmp, "bundle")
        os.mkdir(d)
        bundle(d)
        packets, err, status = trace_packets(lw, schemas, ["--tz", "+02:00", d], tmp)
        check(status == 0, "trace exits %d: %s" % (status, err))
        if packets is None:
            return finish("trace-clock: no trace")
        check("1 event left out" in err and "before the boot" in err,
              "the evidence of an earlier boot is not said to be left out: %r" % err)
        tracks, got = {}, []
        snapshots = [get(p, "clock_snapshot") for p in packets if get(p, "clock_snapshot")]
        for p in packets:
            t = get(p, "track_descriptor")
            if t is not None:
                proc, th = get(t, "process"), get(t, "thread")
                tracks[get(t, "uuid")] = (
                    "process %d" % get(proc, "pid") if proc else
                    "thread %d" % get(th, "tid") if th else get(t, "name"))
            e = get(p, "track_event")
            if e is None:
                continue
            check(get(p, "timestamp_clock_id") == 6, "an event not on BOOTTIME")
            what = get(e, "name") or get(e, "counter_value")
            if get(e, "type") == "TYPE_SLICE_END":
                what = "end"
            got.append((get(p, "timestamp"), tracks[get(e, "track_uuid")], what))
            if what == "load":
                check(annotations(e).get("result") == "none", "load's result: %s" % annotations(e))
        want = [
            (5 * S, "memory budget", 65536 * 1024),          # the header's, at the start
            (5 * S + 200000, "RSS", 1000 * 1024),
            (5 * S + 200000, "thread 4242", "mark budget"),
            (5 * S + 200000, "memory budget", 65536 * 1024),
            (6 * S, "stages", "load"),
            (6300000000, "RSS", 2000 * 1024),                # 6.4 s less its 100 ms age
            (6400000000, "thread 4243", "mark sessions"),
            (107 * S, "stages", "end"),
            (107500000000, "thread 4242", "mark sessions"),
            (107600000000, "stages", "inference"),
            (108 * S, "RSS", 3000 * 1024),
            (108 * S, "thread 4243", "CRASH"),
            (108 * S, "stages", "end"),                      # open at the ring's last record
            (108500000000, "process 4242", "exit record: LOW_MEMORY"),
            (109 * S, "process 4242", "log: lmkd_kill"),     # 17:08:24 at +02:00
            (55 * S, "process 5151", "exit record: LOW_MEMORY"),  # the ring's triples
        ]
        for w in want:
            check(w in got, "expected %s at %d ns on %s; the trace has %s"
                  % (w[2], w[0], w[1], [g for g in got if g[2] == w[2]]))
        extra = [g for g in got if g not in want]
        check(not extra, "events not expected: %s" % extra)
        check("process 6161" in tracks.values(), "the run of an earlier boot has no process track")
        clocks = {get(c, "clock_id"): get(c, "timestamp")
                  for s in snapshots for c in get_all(s, "clocks")}
        check(clocks == {6: 5 * S, 1: R0, 3: S}, "clock snapshot %s" % clocks)
        check(all(get(s, "primary_trace_clock") == "BUILTIN_CLOCK_BOOTTIME" for s in snapshots),
              "the snapshot's primary clock is not BOOTTIME")
        d = os.path.join(tmp, "overlap")
        os.mkdir(d)
        overlap_bundle(d)
        packets, err, status = trace_packets(lw, schemas, [d], tmp, "overlap.pftrace")
        check(status == 0, "overlap: trace exits %d: %s" % (status, err))
        got_slices = slices(packets or [])
        want = [("stages", "load", 5 * S, 7 * S), ("stages (2)", "inference", 6 * S, 8 * S)]
        check(got_slices == want, "overlapping stages: %s, not %s" % (got_slices, want))
    return finish("trace-clock: %d events" % len(got))


if __name__ == "__main__":
    raise SystemExit(main())
