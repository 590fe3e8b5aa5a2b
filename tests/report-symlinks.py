#!/usr/bin/env python3
"""A bundle's evidence is its own files (issue 10, items 2 and 3): symbolic
links in a bundle's directory are never followed out of it or into loops.

- `ln -s . a; ln -s . b` in a bundle: the walk does not follow them (before
  the fix it doubled at each level, 16 levels down: the report never
  ended), and each run is reported once (one self-link reported each run
  16 times before);
- a link to a file outside the bundle (a logcat, /etc/passwd) is not read
  as evidence: before the fix its lmkd kill line joined a run, and changed
  its verdict; now the report names it as left out, in text and JSON;
- a link to a directory inside, and one that leads nowhere, are left out
  and named too; a link to a file inside the bundle is read, once;
- an input given by name is read wherever it leads.

usage: report-symlinks.py LASTWORDS SOURCE_ROOT
"""
import os
import shutil
import sys
import tempfile

from helpers import check, finish, lastwords_within, report_json, setup, verdicts

TIMEOUT = 20


def report(lw, args):
    """The JSON report of args, with the device's zone, and its inputs."""
    return report_json(lw, ["--tz", "+01:00"] + args, TIMEOUT)


def main():
    lw, _ = setup(__doc__)
    want, _ = report(lw, ["fixtures/demo"])
    if not want:
        return finish("symlinks")
    with tempfile.TemporaryDirectory() as d:
        # One self-link, then loops: two links to the bundle itself and
        # one from its rings to it.
        for name, links in (("self", ["self"]), ("loops", ["a", "b", "rings/up"])):
            bundle = os.path.join(d, name)
            shutil.copytree("fixtures/demo", bundle)
            for link in links:
                os.symlink(".." if "/" in link else ".", os.path.join(bundle, link))
            rep, inputs = report(lw, [bundle])
            if not rep:
                continue
            check(verdicts(rep) == verdicts(want), "%s: runs %r, expected %r"
                  % (name, verdicts(rep), verdicts(want)))
            for link in links:
                got = inputs.get(os.path.join(bundle, link), {}).get("skipped")
                check(got == "a symbolic link to a directory: not followed",
                      "%s: the link %s is named as not followed: %r" % (name, link, got))

        # Out of the bundle: a logcat whose lmkd line names the crashed
        # run's pid (it would read as a low-memory kill), and /etc/passwd.
        bundle = os.path.join(d, "links")
        shutil.copytree("fixtures/demo", bundle)
        outside = os.path.join(d, "elsewhere.txt")
        with open("fixtures/demo/logcat.txt") as f:
            lines = f.read()
        with open(outside, "w") as f:
            f.write(lines.replace("25711", "25706"))
        os.symlink(outside, os.path.join(bundle, "logcat-2.txt"))
        os.symlink("/etc/passwd", os.path.join(bundle, "passwd"))
        os.symlink(os.path.join(d, "nothing"), os.path.join(bundle, "dangling"))
        os.symlink("tombstone_00", os.path.join(bundle, "tombstone_00.link"))
        rep, inputs = report(lw, [bundle])
        if rep:
            check(verdicts(rep) == verdicts(want), "with links out: runs %r, expected %r"
                  % (verdicts(rep), verdicts(want)))
            for link, why in (("logcat-2.txt", "a symbolic link out of the input: not read"),
                              ("passwd", "a symbolic link out of the input: not read"),
                              ("dangling", "a symbolic link that leads nowhere: not read")):
                got = inputs.get(os.path.join(bundle, link), {})
                check(got.get("skipped") == why and "error" not in got,
                      "%s: %r, expected skipped %r" % (link, got, why))
            files = [i["file"] for i in rep["inputs"] if "skipped" not in i]
            check(os.path.join(bundle, "tombstone_00") in files,
                  "the tombstone is read: %r" % files)
            got = inputs.get(os.path.join(bundle, "tombstone_00.link"), {})
            check(got.get("duplicate_of") == os.path.join(bundle, "tombstone_00"),
                  "a link to a file inside is read, and counts once: %r" % got)
        p = lastwords_within(lw, ["report", "--tz", "+01:00", bundle], TIMEOUT)
        line = "  '%s/logcat-2.txt': a symbolic link out of the input: not read\n" % bundle
        check(p and "inputs left out:\n" in p.stdout and line in p.stdout,
              "the text names the links left out: %r" % (p and p.stdout[-800:]))

        # Given by name, a link is read wherever it leads.
        rep, inputs = report(lw, [os.path.join(bundle, "logcat-2.txt")])
        if rep:
            got = inputs.get(os.path.join(bundle, "logcat-2.txt"), {})
            check(got.get("kind") == "logcat" and "skipped" not in got,
                  "a link given by name is read: %r" % got)
    return finish("symlinks in a bundle")


if __name__ == "__main__":
    sys.exit(main())
