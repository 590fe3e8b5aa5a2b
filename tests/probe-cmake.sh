#!/bin/sh
# The CMake build of the probe (probe/CMakeLists.txt), as Gradle's
# externalNativeBuild uses it: configured on its own, it builds
# liblastwords.so warning-free with the soname liblastwords.so (no version),
# every LOAD segment aligned for 16 KB pages, and the same exported symbols
# as meson's liblastwords.so. Then an app's CMake project adds it with
# add_subdirectory and links the demo (tests/demo.c) once against the shared
# and once against the static library; each run leaves a ring that
# lastwords verify and dump read whole. With a JDK, liblastwords_jni.so too
# (soname, alignment, over liblastwords.so). Skips (77) without cmake.
#
# usage: probe-cmake.sh SOURCE_ROOT MESON_SHARED_LIB LASTWORDS
set -u
src=$1
meson_so=$2
lastwords=$3

. "$(dirname "$0")/helpers.sh"
need cmake ninja readelf

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The sanitizers of the meson build do not apply to this build, and its
# library (meson test's LD_LIBRARY_PATH) is not the one the demo must load.
unset ASAN_OPTIONS UBSAN_OPTIONS LD_LIBRARY_PATH

# cmake_build DIR SOURCE [ARG...]: configure (with ARGs) and build, warning-free.
cmake_build() {
	dir=$1 source=$2
	shift 2
	if ! cmake -S "$source" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DCMAKE_C_FLAGS="-Wall -Wextra -Wpedantic -Werror" "$@" >"$dir.log" 2>&1 ||
		! cmake --build "$dir" >>"$dir.log" 2>&1; then
		tail -40 "$dir.log"
		echo "FAIL: cmake build of $source"
		exit 1
	fi
}

# With the flags that the sample Gradle module's externalNativeBuild passes
# (probe/android/build.gradle.kts; Gradle adds the NDK's toolchain, which
# is not here): the ABI, RelWithDebInfo (above) and flexible page sizes.
cmake_build "$tmp/probe" "$src/probe" -DANDROID_ABI=x86_64 -DANDROID_SUPPORT_FLEXIBLE_PAGE_SIZES=ON
if grep -q "CMake Error" "$tmp/probe.log"; then
	echo "FAIL: cmake with Gradle's flags: $(grep -A3 'CMake Error' "$tmp/probe.log")"
	exit 1
fi
so="$tmp/probe/liblastwords.so"
[ -f "$tmp/probe/liblastwords.a" ] || { echo "FAIL: no liblastwords.a"; exit 1; }

check_android_so "$so" cmake

# The JNI library, built whenever CMake finds a JDK (as here when javac is
# there): over liblastwords.so, with JNI_OnLoad its only export.
jni="$tmp/probe/liblastwords_jni.so"
if command -v javac >/dev/null 2>&1 || [ -f "$jni" ]; then
	[ -f "$jni" ] || { echo "FAIL: a JDK is here, and CMake built no liblastwords_jni.so"; exit 1; }
	check_android_so "$jni" cmake-jni liblastwords_jni.so
	readelf -d "$jni" | grep -q 'NEEDED.*\[liblastwords\.so\]' ||
		{ echo "FAIL: liblastwords_jni.so does not load liblastwords.so"; exit 1; }
	jni_exports=$(readelf --dyn-syms -W "$jni" |
		awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") {print $8}' | sort | tr '\n' ' ')
	[ "$jni_exports" = "JNI_OnLoad " ] ||
		{ echo "FAIL: liblastwords_jni.so exports '$jni_exports', not JNI_OnLoad alone"; exit 1; }
	echo "cmake-jni: exports $jni_exports"
fi

# The defined global symbols, with their versions and types.
exports() {
	readelf --dyn-syms -W "$1" |
		awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") {print $8, $4}' | sort
}
exports "$so" >"$tmp/cmake.syms"
exports "$meson_so" >"$tmp/meson.syms"
if ! diff "$tmp/meson.syms" "$tmp/cmake.syms"; then
	echo "FAIL: CMake's liblastwords.so exports other symbols than meson's (< meson, > cmake)"
	exit 1
fi
echo "exports: $(wc -l <"$tmp/cmake.syms") symbols, as meson's"

# An app's own CMake project, which adds the probe as a subdirectory.
mkdir "$tmp/app"
cat >"$tmp/app/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.18)
project(app C)
add_subdirectory("$src/probe" lastwords)
add_executable(demo-shared "$src/tests/demo.c")
target_link_libraries(demo-shared PRIVATE lastwords)
add_executable(demo-static "$src/tests/demo.c")
target_link_libraries(demo-static PRIVATE lastwords_static)
CMAKE
cmake_build "$tmp/app-build" "$tmp/app"
if ! readelf -d "$tmp/app-build/demo-shared" | grep -q 'NEEDED.*\[liblastwords\.so\]' ||
	readelf -d "$tmp/app-build/demo-static" | grep -q 'NEEDED.*liblastwords'; then
	echo "FAIL: the demos do not link liblastwords as asked (shared, static)"
	exit 1
fi
if readelf -sW "$tmp/app-build/demo-shared" | awk '$8 == "lw_open" && $7 != "UND"' | grep -q .; then
	echo "FAIL: demo-shared holds its own copy of the probe"
	exit 1
fi
loaded=$(ldd "$tmp/app-build/demo-shared" | grep liblastwords)
case $loaded in
*" $tmp/app-build/lastwords/liblastwords.so "*) ;;
*) echo "FAIL: demo-shared loads another liblastwords: $loaded"; exit 1 ;;
esac

for kind in shared static; do
	"$tmp/app-build/demo-$kind" "$tmp/rings-$kind" >/dev/null 2>&1
	ring=$(ls "$tmp/rings-$kind"/*.lwr 2>/dev/null | head -n 1)
	[ -n "$ring" ] || { echo "FAIL: the $kind demo left no ring"; exit 1; }
	verdict=$("$lastwords" verify "$ring")
	status=$?
	echo "$kind: $verdict"
	if [ $status -ne 0 ] || ! echo "$verdict" | grep -q ': died .* 0 corrupt'; then
		echo "FAIL: lastwords verify on the $kind demo's ring (exit $status)"
		exit 1
	fi
	last=$("$lastwords" dump --json "$ring" | tail -n 1)
	case $last in
	*'"stage":"inference"'*) ;;
	*) echo "FAIL: the $kind demo's last record is not in inference: $last"; exit 1 ;;
	esac
done
echo "pass: the CMake build gives liblastwords.so for Android and both libraries link"
