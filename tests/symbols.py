"""What the symbol checks of the probe share (probe-signal-safety.py,
probe-libc-portability.py): allow-lists of 'symbol  # why' lines, and the
filter that names the symbols an object uses off its list."""
from helpers import fatal

SANITIZER_PREFIXES = ("__asan_", "__ubsan_", "__sanitizer_", "__tsan_", "__lsan_", "__msan_")


def read_allow(path):
    """symbol -> why, from a file of 'symbol  # why' lines; fails on any
    other line or an empty list."""
    allow = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            body, _, why = line.partition("#")
            words = body.split()
            if not words:
                continue
            if len(words) != 1 or not why.strip():
                fatal("%s:%d: expected 'symbol  # why', got '%s'" % (path, n, line.rstrip()))
            allow[words[0]] = why.strip()
    if not allow:
        fatal("%s: empty allow-list" % path)
    return allow


def rejected(names, allow, sanitized):
    """The names not on the allow-list, sorted; a sanitized build's runtime
    symbols are not counted."""
    return sorted({n for n in names
                   if not (sanitized and n.startswith(SANITIZER_PREFIXES)) and n not in allow})
