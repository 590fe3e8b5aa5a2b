"""What the trace tests share: `lastwords trace` of some inputs, decoded
by protoc with the project's schema of the Perfetto fields that lastwords
writes (tests/perfetto/lastwords_trace.proto, each message from the
upstream file it names), and the decoded text read back as packets. Where
../shared/research/perfetto/ holds its subset of Perfetto's protos, each
trace is decoded against it too, as a second opinion that must read the
same fields by the same names.

    from trace_decode import decoder, trace_packets

    schemas = decoder()              # skips with 77 without protoc
    packets, stderr, status = trace_packets(lw, schemas, ["--tz", "+02:00", "bundle"], tmp)
"""
import os
import re
import shutil
import subprocess

from helpers import check, fail, skip

SCHEMA = ("tests/perfetto", "lastwords_trace.proto")
SECOND_OPINION = ("../shared/research/perfetto", "perfetto_trace_subset.proto")
# A field the schema does not know decodes as a bare number: a wrong field
# number, or a field outside the schema.
BARE_TAG = re.compile(r"^ *[0-9]+[:{ ]", re.M)


def decoder():
    """The schemas to decode with, as (folder, file) pairs, the project's
    first and then the outside copy where it is present (run from the
    source root); skips (77) when protoc is missing."""
    if not shutil.which("protoc"):
        skip("protoc is missing (Debian's protobuf-compiler: .ci/install-deps --tests)")
    check(os.path.exists(os.path.join(*SCHEMA)), "no %s in the source tree" % os.path.join(*SCHEMA))
    schemas = [(os.path.abspath(SCHEMA[0]), SCHEMA[1])]
    if os.path.exists(os.path.join(*SECOND_OPINION)):
        schemas.append((os.path.abspath(SECOND_OPINION[0]), SECOND_OPINION[1]))
    else:
        print("note: no %s: decoded against %s alone" % (os.path.join(*SECOND_OPINION),
                                                          os.path.join(*SCHEMA)))
    return schemas


def decode(path, schema, where):
    """protoc --decode of the trace file at path against schema (folder,
    file): the text, or None after a failed check. The text must hold no
    bare numeric field tag."""
    with open(path, "rb") as f:
        d = subprocess.run(["protoc", "-I", schema[0], "--decode=perfetto.protos.Trace", schema[1]],
                           stdin=f, capture_output=True)
    if not check(d.returncode == 0, "%s: protoc (%s) exits %d: %s" % (
            where, schema[1], d.returncode, d.stderr.decode(errors="replace"))):
        return None
    text = d.stdout.decode("utf-8", "replace")
    bare = BARE_TAG.findall(text)
    if not check(not bare, "%s: %d field(s) that %s does not know, such as %r"
                 % (where, len(bare), schema[1], bare[:1])):
        return None
    return text


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


def trace_packets(lw, schemas, args, tmp, name="trace.pftrace"):
    """`lastwords trace -o FILE ARGS`, decoded against each of schemas
    (decoder()): (the packets, each a list of pairs; lastwords's stderr;
    its exit status). Each decoding must exit 0, hold no bare numeric field
    tag, and read as the first one does; packets is None when the trace
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
    where = "trace %s" % " ".join(args)
    text = decode(out, schemas[0], where)
    if text is None:
        return None, p.stderr, p.returncode
    for other in schemas[1:]:
        second = decode(out, other, where)
        check(second is None or second == text,
              "%s: %s and %s decode it differently" % (where, schemas[0][1], other[1]))
    return get_all(parse_text(text), "packet"), p.stderr, p.returncode
