"""A tombstone in debuggerd's protobuf (tombstone.proto), as
/data/tombstones/tombstone_NN.pb and ApplicationExitInfo.getTraceInputStream()
of a native crash (API 31) give it, for the tests that need one
(report-tombstone-proto.py, android-exit-info.py, bugreports.py)."""
import re


def varint(n):
    if n < 0:
        n += 1 << 64  # int32 and int64 are written as 64 bits, ten bytes
    out = b""
    while True:
        b, n = n & 0x7F, n >> 7
        if not n:
            return out + bytes([b])
        out += bytes([b | 0x80])


def field(number, value):
    """A field: an int as a varint, bytes or a str length-delimited."""
    if isinstance(value, int):
        return varint(number << 3) + varint(value)
    if isinstance(value, str):
        value = value.encode()
    return varint(number << 3 | 2) + varint(len(value)) + value


def tombstone(pid, process, when="2026-11-30 00:28:04.675+0100", signal=11):
    """The bytes of a tombstone of pid's SIGSEGV: arch arm64, build
    fingerprint, revision, timestamp, pid, tid, uid, command line, signal."""
    return (field(1, 1) +
            field(2, "google/panther/panther:14/UQ1A.240205.004/11269751:user/release-keys") +
            field(3, "0") + field(4, when) + field(5, pid) + field(6, pid) + field(7, 10231) +
            field(9, process) + field(10, field(1, signal) + field(2, "SIGSEGV")))


def frame(rel_pc, file_name, function=None, offset=0, build_id=None, map_offset=0):
    """A BacktraceFrame: rel_pc, pc, function name and offset, file name,
    file map offset, build id (only the fields that are not zero)."""
    out = field(1, rel_pc) + field(2, rel_pc + 0x7a00000000)
    if function:
        out += field(4, function)
    if offset:
        out += field(5, offset)
    out += field(6, file_name)
    if map_offset:
        out += field(7, map_offset)
    if build_id:
        out += field(8, build_id)
    return out


def thread(tid, name, frames):
    """An entry of the threads map: {key: tid, value: Thread}."""
    value = field(1, tid) + field(2, name) + b"".join(field(4, f) for f in frames)
    return field(16, field(1, tid) + field(2, value))


def full_tombstone(pid, tid, process, when, fingerprint, uid, signal, code, code_name,
                   fault, cause, threads, abort=None):
    """A tombstone with its threads (thread() entries, in order) and the
    fields as debuggerd writes them, ascending."""
    sig = (field(1, signal) + field(2, {6: "SIGABRT", 11: "SIGSEGV"}.get(signal, "SIG")) +
           field(3, code) + field(4, code_name))
    if fault is not None:
        sig += field(8, 1) + field(9, fault)
    out = (field(1, 1) + field(2, fingerprint) + field(3, "0") + field(4, when) +
           field(5, pid) + field(6, tid) + field(7, uid) + field(9, process) + field(10, sig))
    if abort:
        out += field(14, abort)
    if cause:
        out += field(15, field(1, cause))
    return out + b"".join(threads)


def demo_twin():
    """The protobuf twin of fixtures/demo/tombstone_00 (its crash, frame for
    frame), with two threads more than the text's crashing one."""
    mali, app = "/vendor/lib64/egl/libGLES_mali.so", "/data/app/~~demo==/com.example.demo-1/lib/arm64/"
    libc = "/apex/com.android.runtime/lib64/bionic/libc.so"
    crashing = [frame(0x1a7c40, mali, build_id="4f2a9c0e1d"),
                frame(0x412c18, mali, build_id="4f2a9c0e1d"),
                frame(0xe83a4, app + "libtensorflowlite_gpu_delegate.so",
                      "tflite::gpu::cl::InferenceContext::InitFromGraph", 612),
                frame(0xd1f20, app + "libtensorflowlite_gpu_delegate.so",
                      "TfLiteGpuDelegateV2Prepare", 96),
                frame(0x301a54, app + "libtensorflowlite_jni.so"),
                frame(0xb1e10, libc, "__pthread_start", 208)]
    idle = [frame(0xd51a8, libc, "__epoll_pwait", 8)]
    return full_tombstone(
        25706, 25706, "com.example.demo:inference", "2026-11-30 01:28:04.675+0100",
        "demo/device/demo:14/UQ1A.240205.004/11269751:user/release-keys", 10187, 11, 1,
        "SEGV_MAPERR", 0x10, "null pointer dereference",
        [thread(25706, "inference", crashing), thread(25709, "RenderThread", idle),
         thread(25710, "binder:25706_1", idle)])


ARCHES = {"arm": 0, "arm64": 1, "x86": 2, "x86_64": 3, "riscv64": 4}
FRAME = re.compile(r"^#(\d+) pc ([0-9a-fA-F]+)\s+(\[[^\]]*\]|.*?)((?: \(.*)?)$")


def twin_of_text(text):
    """The protobuf that debuggerd writes beside a plain text tombstone, as
    far as the text tells it: its header, signal, cause, abort message and
    every thread with its frames (the text's first "pid:" line is the
    crashing thread). The text's "Fatal signal" line and registers are not
    in it, as they are not in debuggerd's."""
    top, sig, threads, cur = {}, {}, [], None
    for raw in text.splitlines():
        line = raw.strip()
        m = re.match(r"pid: (\d+), tid: (\d+)(?:, name: (.*?))?(?:  >>> (.*) <<<)?$", line)
        if m:
            top.setdefault("pid", int(m.group(1)))
            top.setdefault("tid", int(m.group(2)))
            if m.group(4):
                top.setdefault("process", m.group(4))
            cur = [int(m.group(2)), m.group(3) or "", []]
            threads.append(cur)
            continue
        for key, name in (("Build fingerprint:", "fingerprint"), ("ABI:", "abi"),
                          ("Timestamp:", "timestamp"), ("Cmdline:", "cmdline"),
                          ("Cause:", "cause"), ("Abort message:", "abort")):
            if line.startswith(key) and name not in top:
                v = line[len(key):].strip()
                if name != "timestamp" and name != "cmdline" and v.startswith("'"):
                    v = v[1:v.rindex("'")] if v.count("'") > 1 else v[1:]
                top[name] = v
        if line.startswith("uid: ") and "uid" not in top:
            top["uid"] = int(line[5:].split()[0])
        m = re.match(r"signal (\d+) \((\w+)\), code (-?\d+)(?: \((\w+))?.*?"
                     r"(?:fault addr (0x[0-9a-fA-F]+|-+))?$", line)
        if m and not sig:
            sig = dict(number=int(m.group(1)), name=m.group(2), code=int(m.group(3)),
                       code_name=m.group(4) or "", fault=m.group(5))
        m = FRAME.match(line)
        if m and cur is not None and not (int(m.group(1)) == 0 and cur[2]):
            rest, fn, off, bid, mapoff = m.group(4), None, 0, None, 0
            for g in re.findall(r"\(((?:[^()]|\([^()]*\))*)\)", rest):
                if g.startswith("BuildId: "):
                    bid = g[9:]
                elif g.startswith("offset 0x"):
                    mapoff = int(g[7:], 16)
                elif fn is None and g != "deleted":
                    name, plus, num = g.rpartition("+")
                    fn, off = (name, int(num)) if plus and num.isdigit() else (g, 0)
            cur[2].append(frame(int(m.group(2), 16), m.group(3).strip(), fn, off, bid, mapoff))
    s = b""
    if sig:
        s = (field(1, sig["number"]) + field(2, sig["name"]) + field(3, sig["code"]) +
             field(4, sig["code_name"]))
        if sig["fault"] and not sig["fault"].startswith("-"):
            s += field(8, 1) + field(9, int(sig["fault"], 16))
    out = b""
    if ARCHES.get(top.get("abi"), 0):
        out += field(1, ARCHES[top["abi"]])
    out += field(2, top.get("fingerprint", "")) + field(3, "0")
    out += field(4, top.get("timestamp", ""))
    for k, n in (("pid", 5), ("tid", 6), ("uid", 7)):
        if top.get(k):
            out += field(n, top[k])
    for arg in (top.get("cmdline") or top.get("process") or "").split(" "):
        out += field(9, arg)
    out += field(10, s)
    if top.get("abort"):
        out += field(14, top["abort"])
    if top.get("cause"):
        out += field(15, field(1, top["cause"]))
    return out + b"".join(thread(tid, name, frames) for tid, name, frames in threads)
