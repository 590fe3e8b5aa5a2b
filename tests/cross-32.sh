#!/bin/sh
# The probe on Android's 32-bit ABIs, built and tested on this machine:
# armeabi-v7a as Debian's 32-bit ARM (gcc-arm-linux-gnueabihf, its tests run
# under qemu-arm) and x86 as i686 (gcc-i686-linux-gnu, run natively). For
# each, a probe-only cross build (-Danalyzer=false) of the probe, its JNI
# library and the probe's tests, warning-free, then `meson test` of its
# probe and crash suites there: the same tests as the 64-bit build's
# (the kill torture with its racing writer threads among them), the jni
# library's checks (tests/jni-library.sh; on x86 also on a 32-bit JVM,
# tests/jvm32-api.sh), and abi-story, which compares
# the 32-bit rings with the 64-bit build's as the 64-bit lastwords reads
# them. Under qemu the tests of suite not-emulated are left out
# (tests/meson.build says why).
# .ci/run runs this after the 64-bit suite; meson's logs of each build
# (OUT-armhf/meson-logs/testlog.json, OUT-i686/...) count in its total.
#
# usage: cross-32.sh SOURCE_ROOT HOST_BUILD OUT
#   HOST_BUILD: the 64-bit build (its analyzer/lastwords, tests/abi-story)
#   OUT: prefix of the build directories (OUT-armhf, OUT-i686)
# Exit status: 0 all passed, 1 a build or a test failed, 77 a cross
# compiler or qemu-arm is missing (.ci/install-deps --tests installs them).
set -u
src=$(cd "$1" && pwd)
host=$(cd "$2" && pwd)
out=$3

. "$src/tests/helpers.sh"
need arm-linux-gnueabihf-gcc i686-linux-gnu-gcc qemu-arm meson ninja
[ -d /usr/arm-linux-gnueabihf/lib ] && [ -d /usr/i686-linux-gnu/lib ] ||
	{ echo "skip: no 32-bit libc to link against (libc6-dev-armhf-cross, libc6-dev-i386-cross)"; exit 77; }

# The host build's programs that the comparison runs (meson test, as
# .ci/run uses it, builds only what the host's own tests need).
if ! ninja -C "$host" analyzer/lastwords tests/abi-story >/dev/null 2>&1; then
	echo "FAIL: cannot build $host's analyzer/lastwords and tests/abi-story"
	exit 1
fi
# The sanitizers of the host build do not apply to the cross builds.
unset ASAN_OPTIONS UBSAN_OPTIONS
# The logs, outside the build directories. The cross files are
# tests/cross/armhf.ini and i686.ini.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for abi in armhf i686; do
	dir=$out-$abi
	rm -rf "$dir"
	aux=$tmp/$abi
	skip_suite=none
	[ "$abi" = armhf ] && skip_suite=not-emulated
	if ! meson setup "$dir" "$src" --cross-file "$src/tests/cross/$abi.ini" -Danalyzer=false \
		--buildtype=debugoptimized -Dwarning_level=3 -Dwerror=true >"$aux.setup.log" 2>&1; then
		tail -30 "$aux.setup.log"
		echo "FAIL: $abi: meson setup"
		status=1
		continue
	fi
	if ! ninja -C "$dir" >"$aux.build.log" 2>&1; then
		grep -E 'error|warning' "$aux.build.log" | head -30
		echo "FAIL: $abi: the probe or its tests do not build warning-free"
		status=1
		continue
	fi
	if ! file "$dir/probe/liblastwords.so.0.1.0" | grep -q "ELF 32-bit"; then
		echo "FAIL: $abi: not a 32-bit library: $(file "$dir/probe/liblastwords.so.0.1.0")"
		status=1
		continue
	fi
	LASTWORDS_HOST_BUILD=$host \
		meson test -C "$dir" --suite probe --suite crash --no-suite "$skip_suite" \
		--num-processes 2 --print-errorlogs >"$aux.test.log" 2>&1 ||
		{ status=1; grep -B2 -A25 '^-* stdout -*$\|^-* stderr -*$' "$aux.test.log" | head -150; }
	grep -E '^ *[0-9]+/[0-9]+ ' "$aux.test.log" | sed "s/^/$abi: /"
	grep -E '^(Ok|Fail|Skipped|Timeout):' "$aux.test.log" | tr -s ' ' | tr '\n' ' ' |
		sed "s/^/$abi: /"
	echo
done
[ $status -eq 0 ] && echo "pass: the probe and its tests on 32-bit ARM (qemu-arm) and 32-bit x86"
exit $status
