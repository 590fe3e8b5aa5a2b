"""What the trace tests share: `lastwords trace` of some inputs, decoded
by protoc with Perfetto's own schema (the subset kept in
../shared/research/perfetto/, read at run time; the project keeps no copy),
and the decoded text read back as packets.

    from trace_decode import decoder, trace_packets

    proto_dir = decoder()            # skips with 77 without protoc or the schema
    packets, stderr, status = trace_packets(lw, proto_dir, ["--tz", "+02:00", "bundle"], tmp)
"""
import os
import re
import shutil
import subprocess

from helpers import check, fail, skip

SCHEMA = "perfetto_trace_subset.proto"
# A field the schema does not know decodes as a bare number: a wrong field
# number, or a field outside the subset.
BARE_TAG = re.compile(r"^ *[0-9]+[:{ ]", re.M)


def decoder():
    """The folder of Perfetto's schema subset, beside the source root; skips
    (77) when it or protoc is missing."""
    proto_dir = os.path.join(os.getcwd(), "..", "shared", "research", "perfetto")
    if not os.path.exists(os.path.join(proto_dir, SCHEMA)):
        skip("no %s in ../shared/research/perfetto" % SCHEMA)
    if not shutil.which("protoc"):
        skip("protoc is missing (Debian's protobuf-compiler: .ci/install-deps --tests)")
    return os.path.abspath(proto_dir)


def parse_text(text):
    """protoc's text format as nested lists of (field, value) pairs: a
    message's value is its list; a scalar's is an int, a float, a string,
    or an enum's name."""
    root, stack = [], []
    cur = root
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        if s == "}":
            cur = stack.pop()
        elif s.endswith("{"):
            child = []
            cur.append((s[:-1].strip(), child))
            stack.append(cur)
            cur = child
        else:
            key, _, v = s.partition(": ")
            if v.startswith('"'):
                v = v[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape").encode(
                    "latin-1").decode("utf-8", "replace")
            elif re.fullmatch(r"-?[0-9]+", v):
                v = int(v)
            elif re.fullmatch(r"-?[0-9.e+-]+", v):
                v = float(v)
            cur.append((key, v))
    if stack:
        fail("decoded trace: unbalanced braces")
    return root


def get(msg, key, default=None):
    """The first value of field key in msg (a list of pairs)."""
    for k, v in msg:
        if k == key:
            return v
    return default


def get_all(msg, key):
    return [v for k, v in msg if k == key]


def annotations(event):
    """A track event's debug annotations as a dict."""
    out = {}
    for a in get_all(event, "debug_annotations"):
        name = get(a, "name")
        out[name] = get(a, "string_value", get(a, "int_value"))
    return out


def trace_packets(lw, proto_dir, args, tmp, name="trace.pftrace"):
    """`lastwords trace -o FILE ARGS`, decoded: (the packets, each a list of
    pairs; lastwords's stderr; its exit status). The decoding must exit 0
    and hold no bare numeric field tag; packets is None when the trace
    cannot be checked further."""
    out = os.path.join(tmp, name)
    if os.path.exists(out):
        os.unlink(out)
    p = subprocess.run([lw, "trace", "-o", out] + list(args), capture_output=True, text=True)
    if p.returncode < 0:
        fail("trace %s killed by signal %d" % (" ".join(args), -p.returncode))
        return None, p.stderr, p.returncode
    if not os.path.exists(out):
        return None, p.stderr, p.returncode
    with open(out, "rb") as f:
        d = subprocess.run(["protoc", "-I", proto_dir, "--decode=perfetto.protos.Trace", SCHEMA],
                           stdin=f, capture_output=True)
    where = "trace %s" % " ".join(args)
    if not check(d.returncode == 0, "%s: protoc exits %d: %s" % (where, d.returncode,
                                                               d.stderr.decode(errors="replace"))):
        return None, p.stderr, p.returncode
    text = d.stdout.decode("utf-8", "replace")
    bare = BARE_TAG.findall(text)
    check(not bare, "%s: %d field(s) the schema does not know, such as %r"
          % (where, len(bare), bare[:1]))
    return get_all(parse_text(text), "packet"), p.stderr, p.returncode
