#!/bin/sh
# The JNI library of the 32-bit x86 build on a 32-bit JVM: Debian's
# openjdk-17-jre-headless:i386, unpacked (not installed) under
# /opt/lastwords/jvm-i386 by .ci/install-deps --tests, started through the
# i686 C library of libc6-dev-i386-cross. tests/java/JvmApi.java (the
# facade's calls, exceptions and close, as jvm-api runs it on the 64-bit
# JVM) runs there against this build's lastwords.jar and
# liblastwords_jni.so, and the 64-bit lastwords (LASTWORDS_HOST_BUILD)
# verifies the rings it leaves. Skips (77) without that JVM, or outside
# tests/cross-32.sh (no LASTWORDS_HOST_BUILD).
#
# usage: jvm32-api.sh SOURCE_ROOT LASTWORDS_JAR
set -u
src=$1
jar=$2
jvm_root=${LASTWORDS_JVM32:-/opt/lastwords/jvm-i386}
java_home=$jvm_root/usr/lib/jvm/java-17-openjdk-i386
libc=/usr/i686-linux-gnu/lib

. "$src/tests/helpers.sh"
need javac
[ -n "${LASTWORDS_HOST_BUILD:-}" ] || { echo "skip: no LASTWORDS_HOST_BUILD (tests/cross-32.sh)"; exit 77; }
[ -x "$java_home/bin/java" ] ||
	{ echo "skip: no 32-bit JVM at $java_home (.ci/install-deps --tests unpacks one)"; exit 77; }
[ -x "$libc/ld-linux.so.2" ] || { echo "skip: no i686 C library (libc6-dev-i386-cross)"; exit 77; }
lastwords=$LASTWORDS_HOST_BUILD/analyzer/lastwords
probe_dir=$(dirname "$jar")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! javac --release 8 -nowarn -d "$tmp/classes" -cp "$jar" "$src/tests/java/JvmApi.java" \
	>"$tmp/javac.log" 2>&1; then
	cat "$tmp/javac.log"
	echo "FAIL: JvmApi.java does not compile against $jar"
	exit 1
fi
mkdir "$tmp/rings"
path=$libc:$jvm_root/lib/i386-linux-gnu:$jvm_root/usr/lib/i386-linux-gnu:$java_home/lib
path=$path:$java_home/lib/server:$probe_dir
"$libc/ld-linux.so.2" --library-path "$path" "$java_home/bin/java" -Xshare:auto \
	-cp "$jar:$tmp/classes" -Djava.library.path="$probe_dir" JvmApi "$tmp/rings" \
	>"$tmp/out.log" 2>&1
status=$?
grep '^FAIL' "$tmp/out.log"
ok=$(grep '^ok ' "$tmp/out.log")
if [ $status -ne 0 ] || [ -z "$ok" ] || grep -q '^FAIL' "$tmp/out.log"; then
	tail -20 "$tmp/out.log"
	echo "FAIL: JvmApi on the 32-bit JVM exits $status"
	exit 1
fi
"$libc/ld-linux.so.2" --library-path "$path" "$java_home/bin/java" -XshowSettings:properties \
	-version 2>&1 | grep -q 'sun.arch.data.model = 32' ||
	{ echo "FAIL: $java_home/bin/java is not a 32-bit JVM"; exit 1; }
n=0
for ring in "$tmp"/rings/*.lwr; do
	[ -f "$ring" ] || continue
	n=$((n + 1))
	"$lastwords" verify "$ring" >"$tmp/verify.log" 2>&1 ||
		{ cat "$tmp/verify.log"; echo "FAIL: lastwords verify $ring"; exit 1; }
done
[ $n -ge 2 ] || { echo "FAIL: JvmApi left $n rings, not 2"; exit 1; }
echo "pass: JvmApi on the 32-bit JVM ($ok), its $n rings verified by the 64-bit lastwords"
