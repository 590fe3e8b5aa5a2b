#!/bin/sh
# The probe on arm64: cross-build liblastwords and the demo for aarch64, run
# the demo under qemu-user, and read its ring with the host's lastwords. The
# ring was checksummed with the ARMv8 CRC32C instructions (qemu's cortex-a76
# has them) and is verified with SSE4.2 or the table here: every slot must
# agree. Skips (77) when the cross compiler or qemu is not installed.
#
# usage: probe-cross-aarch64.sh SOURCE_ROOT LASTWORDS
set -u
src=$1
lastwords=$2

. "$(dirname "$0")/helpers.sh"
need aarch64-linux-gnu-gcc qemu-aarch64 meson ninja
need_arm64_libc

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/cross.ini" <<INI
[binaries]
c = 'aarch64-linux-gnu-gcc'
ar = 'aarch64-linux-gnu-ar'
strip = 'aarch64-linux-gnu-strip'
pkg-config = 'false'
exe_wrapper = ['qemu-aarch64', '-L', '/usr/aarch64-linux-gnu']

[host_machine]
system = 'linux'
cpu_family = 'aarch64'
cpu = 'cortex-a76'
endian = 'little'
INI

# The sanitizers of the host build do not apply to the cross build.
unset ASAN_OPTIONS UBSAN_OPTIONS
if ! meson setup "$tmp/build" "$src" --cross-file "$tmp/cross.ini" \
	-Danalyzer=false -Dtests=false --buildtype=debugoptimized \
	-Dwarning_level=3 -Dwerror=true >"$tmp/setup.log" 2>&1; then
	cat "$tmp/setup.log"
	echo "FAIL: cross setup"
	exit 1
fi
if ! ninja -C "$tmp/build" >"$tmp/build.log" 2>&1; then
	tail -40 "$tmp/build.log"
	echo "FAIL: the probe does not build warning-free for aarch64"
	exit 1
fi
if ! file "$tmp/build/probe/liblastwords.so.0.1.0" | grep -q "ARM aarch64"; then
	echo "FAIL: not an aarch64 library"
	exit 1
fi

QEMU_LD_PREFIX=/usr/aarch64-linux-gnu qemu-aarch64 -cpu cortex-a76 \
	"$tmp/build/lastwords-demo" "$tmp/rings" >"$tmp/demo.log" 2>&1
ring=$(ls "$tmp"/rings/*.lwr 2>/dev/null | head -n 1)
if [ -z "$ring" ]; then
	cat "$tmp/demo.log"
	echo "FAIL: the arm64 demo left no ring"
	exit 1
fi

out=$("$lastwords" verify --json "$ring")
status=$?
echo "$out"
if [ $status -ne 0 ]; then
	echo "FAIL: lastwords verify exits $status on the arm64 ring"
	exit 1
fi
echo "$out" | python3 -c '
import json, sys
v = json.loads(sys.stdin.read())
ok = v["outcome"] == "died" and v["corrupt"] == 0 and v["torn"] == 0 and v["valid"] >= 40
print("arm64 ring: %d valid, %d corrupt, outcome %s" % (v["valid"], v["corrupt"], v["outcome"]))
sys.exit(0 if ok else 1)
' || { echo "FAIL: the arm64 ring does not read back whole"; exit 1; }
last=$("$lastwords" dump --json "$ring" | tail -n 1)
case $last in
*'"stage":"inference"'*) ;;
*) echo "FAIL: last record not in inference: $last"; exit 1 ;;
esac
echo "pass: arm64 probe ring verified on $(uname -m)"
