#!/usr/bin/env python3
"""The tombstone protobuf reader (analyzer/evidence/tombstone-proto.c) on
the fixtures of fixtures/tombstone-pb/: each X.pb is what `protoc
--encode=Tombstone schemas/tombstone.proto < X.txtpb` writes (checked byte
for byte when protoc is installed; the .pb are read either way), and
`lastwords inspect --json` gives what the text says: a SIGSEGV in the GPU
delegate with three threads, an abort with its abort message, a tombstone
of 64 threads. Then hostile bytes, made here: the fixture cut at every
97th byte, a wrong wire type, a length of 2^40, a nesting 10,000 deep, an
empty file: never a crash, exit 4, and the error names the field's path
and the byte. And each plain text tombstone of fixtures/evidence/tombstone
reads to the same record as its protobuf twin (tombstone_pb.twin_of_text).

usage: tombstone-proto.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from helpers import check, fail, finish, lastwords, setup
from tombstone_pb import field, frame, thread, tombstone, twin_of_text, varint

DIR = "fixtures/tombstone-pb"
ERROR = re.compile(r"^lastwords: '[^']*': (?:(\S+): )?.* at byte (\d+)$", re.M)


def record(lw, path):
    """The one tombstone record of inspect --json of path, or {}."""
    p = lastwords(lw, ["inspect", "--json", path], text=False)
    if not check(p.returncode == 0, "inspect %s: exit %d %r" % (path, p.returncode, p.stderr)):
        return {}
    files = json.loads(p.stdout)
    recs = files[0]["records"]
    check(files[0]["kind"] == "tombstone" and len(recs) == 1,
          "%s: one tombstone: %s %d" % (path, files[0]["kind"], len(recs)))
    return recs[0] if recs else {}


def expect(name, rec, want):
    for k, v in want.items():
        check(rec.get(k) == v, "%s: %s is %r, not %r" % (name, k, rec.get(k), v))


def encodings(protoc):
    for name in sorted(os.listdir(DIR)):
        if not name.endswith(".txtpb"):
            continue
        pb = os.path.join(DIR, name[:-6] + ".pb")
        if not check(os.path.exists(pb), "%s has no encoded %s" % (name, pb)) or not protoc:
            continue
        with open(os.path.join(DIR, name), "rb") as src:
            p = subprocess.run([protoc, "--encode=Tombstone", "schemas/tombstone.proto"],
                               stdin=src, capture_output=True)
        with open(pb, "rb") as f:
            check(p.returncode == 0 and p.stdout == f.read(),
                  "%s: protoc encodes it as committed (exit %d, %s)" % (name, p.returncode,
                                                                       p.stderr))


def fixtures(lw):
    mali = "/vendor/lib64/egl/libGLES_mali.so"
    r = record(lw, os.path.join(DIR, "gpu-delegate.pb"))
    expect("gpu-delegate", r, dict(
        protobuf=True, line=0, abi="arm64", pid=23817, tid=23901, uid=10287,
        thread="inference-0", process="com.example.vision", cmdline="com.example.vision",
        signo=11, code=1, code_name="SEGV_MAPERR", fault_addr="0x40",
        cause="null pointer dereference", abort_message=None, threads=2, mappings=3,
        log_lines=2, runtime_frames=8, first_runtime="gles",
        timestamp="2024-09-12 21:04:33.518042611+0200"))
    fr = r.get("frames", [])
    if check(len(fr) == 10, "gpu-delegate: 10 frames: %d" % len(fr)):
        # the build id of the mapping of its name; one written in capitals
        expect("gpu-delegate #00", fr[0], dict(index=0, pc="0x8fb51c", library=mali,
                                               symbol=None, file_offset=None,
                                               build_id="5d1c0f3e6a0b4a8c9e2d7f10aa34c6e1"))
        expect("gpu-delegate #01", fr[1], dict(build_id="5d1c0f3e6a0b4a8c9e2d7f10aa34c6e1"))
        expect("gpu-delegate #04", fr[4], dict(
            symbol="tflite::gpu::(anonymous namespace)::DelegateKernel::Invoke(TfLiteContext*)+96",
            runtime="tflite-gpu", build_id="7f21c9d0e4b5a6f8"))

    r = record(lw, os.path.join(DIR, "abort.pb"))
    expect("abort", r, dict(
        abi="arm", uid=0, pid=4410, tid=4410, thread="nnservice", signo=6, code=-6,
        code_name="SI_TKILL", fault_addr=None, process="/system/bin/nnservice",
        cmdline="/system/bin/nnservice --model /data/local/tmp/m.tflite",
        abort_message="Check failed: delegate != nullptr NNAPI delegate missing", threads=1,
        mappings=0, log_lines=0, cause=None))
    fr = r.get("frames", [])
    if check(len(fr) == 3, "abort: 3 frames: %d" % len(fr)):
        expect("abort #00", fr[0], dict(symbol="abort+164", build_id="ab12cd34"))
        expect("abort #01", fr[1], dict(build_id="ef56ab78"))
        expect("abort #02", fr[2], dict(file_offset="0x2f3000", build_id=None,
                                        library="/data/app/x/base.apk!libnnservice.so"))

    r = record(lw, os.path.join(DIR, "threads-64.pb"))
    expect("threads-64", r, dict(abi="x86_64", tid=9001, thread="worker-1", threads=63,
                                 code_name="SEGV_ACCERR", fault_addr="0x800000000000"))
    fr = r.get("frames", [])
    if check(len(fr) == 2, "threads-64: 2 frames: %d" % len(fr)):
        expect("threads-64 #00", fr[0], dict(symbol="work_1+4", build_id="c0ffee01"))
        expect("threads-64 #01", fr[1], dict(build_id="a1b2c3d4"))


def twins(lw, tmp):
    """Each plain text tombstone of fixtures/evidence/tombstone and the
    protobuf twin of it (twin_of_text()) read to the same record, but for
    what the text leaves out (uid, Cmdline); not cut-off.txt, three reports
    cut short (with no fingerprint, a protobuf is none to tell)."""
    d, n = "fixtures/evidence/tombstone", 0
    for name in sorted(os.listdir(d)):
        if not name.endswith(".txt") or name.startswith(("logcat-", "pasted-", "two-", "cut-off")):
            continue
        with open(os.path.join(d, name), errors="surrogateescape") as f:
            text = f.read()
        pb = os.path.join(tmp, name + ".pb")
        with open(pb, "wb") as f:
            f.write(twin_of_text(text))
        a, b = record(lw, pb), record(lw, os.path.join(d, name))
        n += 1
        for k in a:
            if k in ("line", "protobuf", "mappings", "log_lines") or b.get(k) is None:
                continue
            check(a[k] == b.get(k), "%s and its twin: %s: %r, %r" % (name, k, a[k], b.get(k)))
        check(a.get("protobuf") is True and b.get("protobuf") is False and a.get("frames"),
              "%s: the twin is the protobuf" % name)
    check(n >= 4, "text fixtures with twins: %d" % n)


def refused(lw, path, what, place=None, at=None):
    """inspect of path exits 4 without a crash; its error names place (the
    field's path) and the byte at."""
    p = lastwords(lw, ["inspect", path])
    if not check(p.returncode == 4, "%s: exit 4, not %d: %s" % (what, p.returncode, p.stderr)):
        return None
    check("ERROR: AddressSanitizer" not in p.stderr and "runtime error" not in p.stderr,
          "%s: sanitizers quiet: %s" % (what, p.stderr))
    m = ERROR.search(p.stderr)
    if place is None:
        return m
    if check(m, "%s: the error names a place and a byte: %r" % (what, p.stderr)):
        check(m.group(1) == place and (at is None or int(m.group(2)) == at),
              "%s: at %s byte %s, not %s byte %s" % (what, m.group(1), m.group(2), place, at))
    return m


def hostile(lw, tmp):
    def put(name, data):
        path = os.path.join(tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    with open(os.path.join(DIR, "threads-64.pb"), "rb") as f:
        whole = f.read()
    cuts = errors = 0
    for n in range(97, len(whole), 97):
        path = put("cut.pb", whole[:n])
        p = lastwords(lw, ["inspect", "--json", path], text=False)
        err = p.stderr.decode(errors="replace")
        if p.returncode < 0 or "AddressSanitizer" in err or "runtime error" in err:
            fail("cut at %d: killed or sanitizer: %d %s" % (n, p.returncode, err))
            continue
        cuts += 1
        # cut between two fields the rest is a tombstone of fewer threads;
        # cut before its pid it is no tombstone to tell
        if p.returncode == 0 or (n < 200 and p.returncode == 4 and "unknown kind" in err):
            continue
        m = ERROR.search(err)
        if check(p.returncode == 4 and m, "cut at %d: exit %d %r" % (n, p.returncode, err)):
            errors += 1
            check((m.group(1) or "").startswith(("threads[", "memory_mappings[")) or
                  "field key cut short" in err, "cut at %d: names the cut field: %r" % (n, err))
            check(int(m.group(2)) < n, "cut at %d: a byte before the cut: %r" % (n, err))
    check(cuts > 100 and errors > cuts * 9 // 10,
          "cuts refused: %d of %d" % (errors, cuts))

    head = tombstone(1, "x")
    bad = field(1, 5) + field(2, field(4, field(8, 7)))  # build_id as a varint
    at = len(head) + len(varint(16 << 3 | 2)) + len(varint(len(bad))) + 2 + 1 + \
        len(varint(len(field(4, field(8, 7))))) + 1 + 1
    refused(lw, put("wire.pb", head + field(16, bad)), "a wrong wire type",
            "threads[0].current_backtrace[0].build_id", at)
    refused(lw, put("wire2.pb", head + field(16, field(1, 2) + field(2, field(4, frame(1, "/l")))) +
                        field(16, field(1, 3) + field(2, field(1, 3) + field(2, 7)))),
                "a thread's name as a varint", "threads[1].name")
    refused(lw, put("huge.pb", head + varint(16 << 3 | 2) + varint(1 << 40) + b"abc"),
            "a length of 2^40", "threads[0]", len(head))
    p = lastwords(lw, ["inspect", put("huge-msg.pb", head + varint(16 << 3 | 2) +
                                      varint(1 << 40) + b"abc")])
    check("1099511627776" in p.stderr, "the length is said: %s" % p.stderr)
    deep = b""
    for _ in range(10000):
        deep = field(16, deep)
    refused(lw, put("deep.pb", head + deep), "nesting 10,000 deep", "threads[0]", None)
    p = lastwords(lw, ["inspect", put("empty.pb", b"")])
    check(p.returncode == 4 and "unknown kind" in p.stderr,
          "an empty file: unknown kind: %d %s" % (p.returncode, p.stderr))
    # unknown fields, deep ones too, are skipped
    r = record(lw, put("unknown.pb", head + field(16, field(1, 1) + field(2, field(99, deep))) +
                       field(500, deep)))
    check(r.get("pid") == 1 and r.get("threads") == 0 and r.get("thread") is None,
          "unknown fields skipped: %r" % {k: r.get(k) for k in ("pid", "threads", "thread")})


def caps(lw, tmp):
    """The caps: 1,024 other threads and 256 frames a thread kept, the rest
    counted (cut_threads, cut_frames)."""
    deep = [frame(0x100 + i, "/system/lib64/libdeep.so", "f", i) for i in range(300)]
    data = tombstone(1, "x") + thread(1, "crashing", deep) + b"".join(
        thread(2 + k, "t%d" % k, deep[:3] if k else deep) for k in range(1100))
    path = os.path.join(tmp, "caps.pb")
    with open(path, "wb") as f:
        f.write(data)
    p = lastwords(lw, ["inspect", "--json", path])
    got = json.loads(p.stdout)[0] if p.returncode == 0 else {}
    rec = (got.get("records") or [{}])[0]
    check(rec.get("threads") == 1024 and len(rec.get("frames", [])) == 256 and
          got.get("cut_threads") == 1100 - 1024 and got.get("cut_frames") == 2 * 44,
          "caps: %r threads, %d frames, cut %r threads %r frames" % (
              rec.get("threads"), len(rec.get("frames", [])), got.get("cut_threads"),
              got.get("cut_frames")))
    p = lastwords(lw, ["inspect", path])
    check("76 tombstone threads past the first 1024 not kept" in p.stdout,
          "caps said: %s" % p.stdout[:300])


def main():
    lw, root = setup(__doc__.strip().splitlines()[-1])
    protoc = shutil.which("protoc")
    encodings(protoc)
    fixtures(lw)
    tmp = tempfile.mkdtemp(prefix="lw-tomb-proto-")
    try:
        hostile(lw, tmp)
        twins(lw, tmp)
        caps(lw, tmp)
    finally:
        shutil.rmtree(tmp)
    return finish("the tombstone protobuf reader: fixtures%s, hostile bytes refused with "
                  "their place" % (" (encoded by protoc)" if protoc else ""))


if __name__ == "__main__":
    sys.exit(main())
