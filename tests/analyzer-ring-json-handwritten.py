#!/usr/bin/env python3
"""A ring written by hand, as a team writes its fixtures, reads as the run
that `dump --json` gives of the same ring: its ring value holds only the
identity (process, pid, app version, start times, run id), its records
only what they record (no ticket, file, time or zero member), and it is
pretty-printed with Python's json.dumps spacing. The reader works out
the rest (outcome, open stage, budget, candidate, sessions, counters):
`report --format json` and `inspect --json` give the same as for the full
lines. A counter given that disagrees with the records is a warning that
names the file, the line and the member, and the report still comes out.

usage: analyzer-ring-json-handwritten.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import sys
import tempfile

from helpers import check, fail, finish, lastwords, setup

IDENTITY = ("type", "process", "pid", "app_version", "start_real_ns", "start_boot_ns",
            "start_mono_ns", "run_id")
# Rings whose records are all there (none lapped, torn or damaged): what
# their header says follows from them.
RINGS = ("clean-exit", "crashed-delegate", "killed-inference", "peer-inference", "peer-main",
         "sessions-switch")


def by_hand(vals):
    ring = {k: vals[0][k] for k in IDENTITY}
    recs = []
    for v in vals[1:]:
        r = {k: x for k, x in v.items()
             if k not in ("file", "ticket", "t_ms", "time") and x not in (None, 0, "none")}
        recs.append(r)
    return [ring] + recs


def same_output(lw, args, a, b):
    pa, pb = lastwords(lw, args + [a]), lastwords(lw, args + [b])
    return (pa.returncode, pa.stdout.replace(a, "RING")) == \
        (pb.returncode, pb.stdout.replace(b, "RING")), pa, pb


def main():
    lw, _ = setup(__doc__)
    with tempfile.TemporaryDirectory() as tmp:
        for name in RINGS:
            text = lastwords(lw, ["dump", "--json", "fixtures/rings/%s.lwr" % name]).stdout
            vals = [json.loads(line) for line in text.splitlines()]
            full = os.path.join(tmp, name + ".jsonl")
            hand = os.path.join(tmp, name + ".json")
            with open(full, "w") as f:
                f.write(text)
            with open(hand, "w") as f:
                f.write("".join(json.dumps(v, indent=2) + "\n" for v in by_hand(vals)))
            for args in (["report", "--format", "json"], ["report"], ["inspect", "--json"]):
                ok, pa, pb = same_output(lw, args, full, hand)
                if not ok:
                    fail("%s: '%s' differs for the hand-written ring:\n%s\n%s\n%s" %
                         (name, " ".join(args), pb.stderr, pa.stdout[:3000], pb.stdout[:3000]))
                check(pb.stderr == "", "%s: '%s' of the hand-written ring warns: %s" %
                      (name, " ".join(args), pb.stderr))
            # Without its run id, the run has none: null, never 32 zeros.
            anon = os.path.join(tmp, name + "-anon.json")
            with open(anon, "w") as f:
                f.write("".join(json.dumps(v) + "\n" for v in
                                [{k: x for k, x in by_hand(vals)[0].items() if k != "run_id"}] +
                                by_hand(vals)[1:]))
            runs = json.loads(lastwords(lw, ["report", "--format", "json", anon]).stdout)["runs"]
            check([r["run_id"] for r in runs if r["ring"] == "probe"] == [None],
                  "%s: a ring with no run id reports %r" % (name, [r["run_id"] for r in runs]))

        # A counter that disagrees: a warning, and the same report.
        text = lastwords(lw, ["dump", "--json", "fixtures/rings/killed-inference.lwr"]).stdout
        vals = [json.loads(line) for line in text.splitlines()]
        good = os.path.join(tmp, "good.jsonl")
        with open(good, "w") as f:
            f.write(text)
        wrong = dict(vals[0], valid=99, peak_rss_kb=1)
        bad = os.path.join(tmp, "counters.jsonl")
        with open(bad, "w") as f:
            f.write("".join(json.dumps(v) + "\n" for v in [wrong] + vals[1:]))
        ok, pa, pb = same_output(lw, ["report", "--format", "json"], good, bad)
        check(ok, "a wrong counter changes the report")
        want = ["lastwords: warning: '%s': line 1: \"valid\" is 99, the records give 24" % bad,
                "lastwords: warning: '%s': line 1: \"peak_rss_kb\" is 1, the records give 124412"
                % bad]
        check(pb.stderr.splitlines() == want, "warnings: %r, expected %r" % (pb.stderr, want))

        # Without its identity, the ring is refused, naming the member.
        short = os.path.join(tmp, "short.json")
        with open(short, "w") as f:
            ring = {k: v for k, v in vals[0].items() if k != "start_mono_ns"}
            f.write(json.dumps(ring, indent=2) + "\n")
        p = lastwords(lw, ["report", short])
        check(p.returncode == 4 and
              p.stderr == "lastwords: '%s': line 1: missing \"start_mono_ns\"\n" % short,
              "a ring without start_mono_ns: exit %d, %r" % (p.returncode, p.stderr))
    return finish("%d hand-written rings read as their dump --json" % len(RINGS))


if __name__ == "__main__":
    sys.exit(main())
