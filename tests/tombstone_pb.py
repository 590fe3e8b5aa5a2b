"""A tombstone in debuggerd's protobuf (tombstone.proto), as
/data/tombstones/tombstone_NN.pb and ApplicationExitInfo.getTraceInputStream()
of a native crash (API 31) give it, for the tests that need one
(report-tombstone-proto.py, android-exit-info.py)."""


def varint(n):
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
