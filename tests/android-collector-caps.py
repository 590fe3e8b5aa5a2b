#!/usr/bin/env python3
"""The Collector's caps, on a JVM against the stand-in android.* classes,
with rings made as files of the sizes that matter (sparse, named as runs;
the Collector copies them byte for byte):
  - the bundle's cap (MAX_BUNDLE_BYTES, 64 MiB of rings): the newest rings
    that fit are taken; an older one that would pass it is listed missing
    ("left for the next bundle") and goes in the next bundle; a smaller,
    older one that still fits is taken;
  - a huge ring (64 MiB and a page, as a ring of a million slots is): it
    goes alone in a bundle instead of waiting for one that never comes;
  - the count cap (MAX_BUNDLES, 8): the oldest bundles go first, the
    newest stays;
  - the total cap (MAX_TOTAL_BYTES, 256 MiB): the oldest go until the rest
    fit, and the newest is kept even alone over it;
  - a full disk (the external directory on a 24 MiB tmpfs, in a mount
    namespace of its own): collect() fails with the IOException, leaves no
    bundle and no temporary, marks no ring packed, and once there is room
    the next collect() packs the same rings.
Skips (77) without a JDK, or for the full disk without unshare(1) able to
mount a tmpfs.

usage: android-collector-caps.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from android_jvm import PROCESS, write_records
from helpers import check, finish, setup
from jvm import jvm_or_skip

MIB = 1 << 20
MAX_BUNDLE_BYTES = 64 * MIB
MAX_BUNDLES = 8
MAX_TOTAL_BYTES = 256 * MIB


class Phone:
    """A files directory of rings, the external directory of bundles, no
    exit records; collect() runs Collector.collect() on a JVM."""

    def __init__(self, jvm, root):
        self.jvm = jvm
        self.files = os.path.join(root, "files")
        self.ext = os.path.join(root, "external")
        self.records = os.path.join(root, "records.tsv")
        os.makedirs(self.files, exist_ok=True)
        write_records(self.records, [])
        self.n = 0

    def ring(self, size, when):
        """A ring file of size bytes (sparse), started at UTC time when
        (YYYYMMDDTHHMMSS.mmm), with a pid of its own: its name."""
        self.n += 1
        name = "%s.%sZ.%d.lwr" % (PROCESS, when, 1000 + self.n)
        with open(os.path.join(self.files, name), "wb") as f:
            f.truncate(size)
        return name

    def collect(self, wrap=()):
        cmd = list(wrap) + self.jvm.command("AndroidHelpers", ["collect", self.files, self.ext,
                                                               self.records],
                                            ["-Dandroid.sdk=30"])
        return subprocess.run(cmd, env=self.jvm.env(), capture_output=True, text=True,
                              timeout=50)

    def bundles(self):
        d = os.path.join(self.ext, "lastwords", "bundles")
        return sorted(os.listdir(d)) if os.path.isdir(d) else []

    def bundle_dir(self, name):
        return os.path.join(self.ext, "lastwords", "bundles", name)

    def rings_in(self, name):
        d = os.path.join(self.bundle_dir(name), "rings")
        return sorted(os.listdir(d)) if os.path.isdir(d) else []

    def manifest(self, name):
        with open(os.path.join(self.bundle_dir(name), "manifest.json")) as f:
            return json.load(f)


def new_bundle(phone, before, what):
    """collect(), which must make one bundle: its name."""
    p = phone.collect()
    after = phone.bundles()
    made = [b for b in after if b not in before]
    check(p.returncode == 0 and p.stdout.startswith("bundle ") and len(made) == 1,
          "%s: collect() makes a bundle: exit %d %r %s" % (what, p.returncode, p.stdout,
                                                          p.stderr[-1500:]))
    return made[0] if made else None


def bundle_cap(jvm, root):
    ph = Phone(jvm, os.path.join(root, "cap"))
    # Newest first: 30 + 30 MiB fit, the 20 MiB one would pass 64 MiB, the
    # 2 MiB one still fits.
    a = ph.ring(30 * MIB, "20261201T100000.000")
    b = ph.ring(30 * MIB, "20261201T090000.000")
    c = ph.ring(20 * MIB, "20261201T080000.000")
    d = ph.ring(2 * MIB, "20261201T070000.000")
    first = new_bundle(ph, [], "bundle cap")
    if not first:
        return
    check(ph.rings_in(first) == sorted([a, b, d]),
          "the newest rings that fit the 64 MiB cap, and an older one that still fits: %r"
          % ph.rings_in(first))
    total = sum(os.path.getsize(os.path.join(ph.bundle_dir(first), "rings", x))
                for x in ph.rings_in(first))
    check(total <= MAX_BUNDLE_BYTES, "the bundle's rings are %d bytes, within the cap" % total)
    missing = ph.manifest(first).get("missing", [])
    left = [m for m in missing if m.get("what", m.get("path")) == "rings/" + c
            or ("rings/" + c) in json.dumps(m)]
    check(left and "next bundle" in json.dumps(left[0]),
          "the manifest lists the ring over the cap as left for the next bundle: %r" % missing)
    second = new_bundle(ph, [first], "the next bundle")
    if second:
        check(ph.rings_in(second) == [c], "the ring left over goes in the next bundle: %r"
              % ph.rings_in(second))
    p = ph.collect()
    check(p.returncode == 0 and p.stdout.strip() == "bundle -",
          "then nothing is new: no bundle: %r" % p.stdout)


def huge_ring(jvm, root):
    ph = Phone(jvm, os.path.join(root, "huge"))
    huge = ph.ring(MAX_BUNDLE_BYTES + 4096, "20261201T100000.000")
    small = ph.ring(1 * MIB, "20261201T090000.000")
    first = new_bundle(ph, [], "a huge ring")
    if not first:
        return
    check(ph.rings_in(first) == [huge], "the ring over the cap on its own goes alone: %r"
          % ph.rings_in(first))
    check(os.path.getsize(os.path.join(ph.bundle_dir(first), "rings", huge)) ==
          MAX_BUNDLE_BYTES + 4096, "whole")
    second = new_bundle(ph, [first], "after the huge ring")
    if second:
        check(ph.rings_in(second) == [small], "the next ring goes in the next bundle: %r"
              % ph.rings_in(second))


def count_cap(jvm, root):
    ph = Phone(jvm, os.path.join(root, "count"))
    made = []
    for i in range(MAX_BUNDLES + 2):
        ph.ring(4096, "20261201T%02d0000.000" % i)
        b = new_bundle(ph, ph.bundles(), "bundle %d" % (i + 1))
        if not b:
            return
        made.append(b)
    check(ph.bundles() == made[-MAX_BUNDLES:], "%d bundles kept, the oldest removed first: "
          "%r of %r" % (MAX_BUNDLES, ph.bundles(), made))


def total_cap(jvm, root):
    ph = Phone(jvm, os.path.join(root, "total"))
    made = []
    for i in range(5):  # 5 x 60 MiB: past 256 MiB at the fifth
        ph.ring(60 * MIB, "20261201T%02d0000.000" % i)
        b = new_bundle(ph, ph.bundles(), "60 MiB bundle %d" % (i + 1))
        if not b:
            return
        made.append(b)
    check(ph.bundles() == made[1:], "past 256 MiB the oldest bundle goes: %r of %r"
          % (ph.bundles(), made))
    # One bundle over the total alone (a huge ring, 300 MiB): it stays, the
    # others go.
    ph.ring(300 * MIB, "20261201T100000.000")
    b = new_bundle(ph, ph.bundles(), "a bundle over the total alone")
    check(b and ph.bundles() == [b], "the newest is kept even over the total, alone: %r"
          % ph.bundles())
    shutil.rmtree(ph.ext)


def full_disk(jvm, root):
    unshare = shutil.which("unshare")
    ph = Phone(jvm, os.path.join(root, "full"))
    os.makedirs(ph.ext)
    wrap_base = [unshare, "-rm", "sh", "-c",
                 'mount -t tmpfs -o size=24m tmpfs "$0" && exec "$@"', ph.ext] if unshare else []
    probe = subprocess.run(wrap_base + ["true"], capture_output=True, text=True) \
        if unshare else None
    if not probe or probe.returncode != 0:
        print("skip: full disk: unshare -rm cannot mount a tmpfs here (%s)"
              % (probe.stderr.strip() if probe else "no unshare"))
        return "skipped"
    names = [ph.ring(10 * MIB, "20261201T%02d0000.000" % i) for i in range(3)]
    # 30 MiB of rings on 24 MiB: the copy fails with ENOSPC.
    p = ph.collect(wrap_base)
    check(p.returncode != 0 and "No space left on device" in p.stderr and "IOException" in
          p.stderr, "on a full disk collect() throws the IOException: exit %d %s"
          % (p.returncode, p.stderr[-800:]))
    # Full, then with room, on one tmpfs: the failure leaves nothing behind
    # and marks no ring packed; the next collect() packs them.
    script = ('mount -t tmpfs -o size=24m tmpfs "$0" && { "$@"; echo "status $?"; '
              'ls -A "$0/lastwords/bundles" 2>/dev/null | sed "s/^/left: /"; '
              'cat "$0/lastwords/collected" 2>/dev/null | sed "s/^/ledger: /"; '
              'mount -o remount,size=64m "$0" && "$@"; echo "status $?"; '
              'cat "$0/lastwords/collected" | sed "s/^/ledger: /"; }')
    p = subprocess.run([unshare, "-rm", "sh", "-c", script, ph.ext] +
                       jvm.command("AndroidHelpers", ["collect", ph.files, ph.ext, ph.records],
                                   ["-Dandroid.sdk=30"]),
                       env=jvm.env(), capture_output=True, text=True, timeout=50)
    out = p.stdout.splitlines()
    statuses = [x for x in out if x.startswith("status ")]
    left = [x[6:] for x in out[:out.index(statuses[0]) + 3] if x.startswith("left: ")] \
        if statuses else ["?"]
    first_ledger = [x for x in out[:out.index(statuses[1])] if x.startswith("ledger: ring")] \
        if len(statuses) == 2 else ["?"]
    last_ledger = sorted(x[len("ledger: ring "):] for x in out[out.index(statuses[1]):]
                         if x.startswith("ledger: ring ")) if len(statuses) == 2 else []
    check(len(statuses) == 2 and statuses[0] != "status 0" and statuses[1] == "status 0",
          "full, then with room: %r %s" % (statuses, p.stderr[-800:]))
    check(left == [], "the failed collect() leaves no bundle and no temporary: %r" % left)
    check(first_ledger == [], "the failed collect() marks no ring packed: %r" % first_ledger)
    check(last_ledger == sorted(names), "once there is room, the next packs the same rings: %r"
          % last_ledger)
    return "checked"


def main():
    setup(__doc__.strip().splitlines()[-1])
    jvm = jvm_or_skip()
    with tempfile.TemporaryDirectory(prefix="lw-collector-caps-") as root:
        bundle_cap(jvm, root)
        huge_ring(jvm, root)
        count_cap(jvm, root)
        total_cap(jvm, root)
        disk = full_disk(jvm, root)
    return finish("the Collector's bundle, count and total caps, a huge ring; full disk %s"
                  % disk)


if __name__ == "__main__":
    sys.exit(main())
