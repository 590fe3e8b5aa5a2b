#!/bin/sh
# The probe on musl, the libc nearest to Android's bionic that Debian has:
# build liblastwords and its probe and crash tests with musl-gcc, warning-free,
# and run those tests. A glibc-only call in the probe fails the build or the
# link here. Skips (77) when musl-gcc is not installed.
#
# usage: probe-musl.sh SOURCE_ROOT
set -u
src=$1

. "$(dirname "$0")/helpers.sh"
need musl-gcc meson ninja readelf

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# musl-gcc sees musl's headers only. The kernel's own (linux/, asm/), which
# a test uses (FIEMAP) and bionic ships too, come from linux-libc-dev.
kernel="$tmp/kernel"
mkdir "$kernel"
ln -s /usr/include/linux "$kernel/linux"
ln -s /usr/include/asm-generic "$kernel/asm-generic"
ln -s "/usr/include/$(gcc -print-multiarch)/asm" "$kernel/asm"

# The sanitizers of the host build do not apply to this build.
unset ASAN_OPTIONS UBSAN_OPTIONS
if ! CC=musl-gcc meson setup "$tmp/build" "$src" -Danalyzer=false \
	--buildtype=debugoptimized -Dwarning_level=3 -Dwerror=true \
	-Dc_args="-isystem $kernel" >"$tmp/setup.log" 2>&1; then
	cat "$tmp/setup.log"
	echo "FAIL: musl setup"
	exit 1
fi
if ! ninja -C "$tmp/build" >"$tmp/build.log" 2>&1; then
	grep -E 'error|warning|FAILED' "$tmp/build.log" | head -40
	echo "FAIL: the probe or its tests do not build warning-free against musl"
	exit 1
fi
# musl's libc is libc.so (glibc's libc.so.6), its loader ld-musl-*.
if ! readelf -d "$tmp/build/probe/liblastwords.so" | grep -q 'NEEDED.*\[libc\.so\]' ||
	! readelf -l "$tmp/build/tests/probe-crash" | grep -q 'interpreter: /lib/ld-musl-'; then
	readelf -d "$tmp/build/probe/liblastwords.so"
	echo "FAIL: not linked against musl"
	exit 1
fi

if ! meson test -C "$tmp/build" --suite probe --suite crash --num-processes 1 \
	--print-errorlogs >"$tmp/test.log" 2>&1; then
	cat "$tmp/test.log"
	echo "FAIL: the probe's tests fail against musl"
	exit 1
fi
grep -E '^ *[0-9]+/[0-9]+ ' "$tmp/test.log"
echo "pass: the probe and its probe and crash tests build and pass against musl"
