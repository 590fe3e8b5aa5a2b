#!/bin/sh
# The meson cross files for the Android NDK (probe/android/), without an NDK:
# there is none here. A stand-in NDK tree holds the tools at the paths the
# cross files name (toolchains/llvm/prebuilt/linux-x86_64/bin/
# ARCH-linux-android30-clang, llvm-ar, llvm-strip), as wrappers around the
# host's clang for the linux-gnu target of the same arch and binutils. So
# this checks the cross files (they parse; a file of the user's own given
# between them moves the NDK, as the README says) and meson's Android build:
# liblastwords.so named and sonamed without a version, for the right
# machine, every LOAD segment aligned for 16 KB pages. It does not check
# bionic: the library is linked against glibc here.
# Skips (77) when clang or the arm64 binutils are not installed.
#
# usage: probe-ndk-crossfiles.sh SOURCE_ROOT
set -u
src=$1

. "$(dirname "$0")/helpers.sh"
need clang aarch64-linux-gnu-ld aarch64-linux-gnu-ar ar meson ninja readelf
need_arm64_libc

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The sanitizers of the host build do not apply to these builds.
unset ASAN_OPTIONS UBSAN_OPTIONS

# The user's own file between ndk.ini and the arch's: the NDK moved, API 30.
cat >"$tmp/my-ndk.ini" <<INI
[constants]
ndk = '$tmp/ndk'
api = '30'
INI
bin="$tmp/ndk/toolchains/llvm/prebuilt/linux-x86_64/bin"
mkdir -p "$bin"

# ARCH MACHINE BINUTILS_PREFIX: one stand-in build and its checks.
check() {
	arch=$1 machine=$2 prefix=$3
	printf '#!/bin/sh\nexec clang --target=%s-linux-gnu "$@"\n' "$arch" \
		>"$bin/$arch-linux-android30-clang"
	printf '#!/bin/sh\nexec %sar "$@"\n' "$prefix" >"$bin/llvm-ar"
	printf '#!/bin/sh\nexec %sstrip "$@"\n' "$prefix" >"$bin/llvm-strip"
	chmod +x "$bin"/*
	build="$tmp/build-$arch"
	if ! meson setup "$build" "$src" --cross-file "$src/probe/android/ndk.ini" \
		--cross-file "$tmp/my-ndk.ini" --cross-file "$src/probe/android/ndk-$arch.ini" \
		--buildtype=release -Dwarning_level=3 -Dwerror=true >"$build.log" 2>&1 ||
		! ninja -C "$build" >>"$build.log" 2>&1; then
		tail -40 "$build.log"
		echo "FAIL: $arch: the cross files do not set up or build"
		exit 1
	fi
	so="$build/probe/liblastwords.so"
	if [ ! -f "$so" ] || ls "$build"/probe/liblastwords.so.[0-9]* >/dev/null 2>&1; then
		ls "$build/probe"
		echo "FAIL: $arch: not one unversioned liblastwords.so"
		exit 1
	fi
	readelf -h "$so" | grep -q "Machine: *$machine" ||
		{ echo "FAIL: $arch: not a $machine library"; exit 1; }
	check_android_so "$so" "$arch"
}

check aarch64 AArch64 aarch64-linux-gnu-
check x86_64 'Advanced Micro Devices X86-64' ''
echo "pass: the NDK cross files build an unversioned, 16 KB-aligned liblastwords.so (stand-in NDK, glibc)"
