"""A tombstone in debuggerd's protobuf (tombstone.proto), as
/data/tombstones/tombstone_NN.pb and ApplicationExitInfo.getTraceInputStream()
of a native crash (API 31) give it, for the tests that need one
(report-tombstone-proto.py, android-exit-info.py, bugreports.py)."""


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
