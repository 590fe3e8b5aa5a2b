# Shared by the shell tests, which read it with
#   . "$(dirname "$0")/helpers.sh"

# need TOOL...: skip (77) unless every TOOL is installed.
need() {
	for tool in "$@"; do
		if ! command -v "$tool" >/dev/null 2>&1; then
			echo "skip: $tool is not installed (.ci/install-deps --tests installs it)"
			exit 77
		fi
	done
}

# need_arm64_libc: skip (77) without Debian's arm64 glibc (to link against).
need_arm64_libc() {
	if [ ! -d /usr/aarch64-linux-gnu/lib ]; then
		echo "skip: no arm64 libc (libc6-dev-arm64-cross)"
		exit 77
	fi
}

# check_android_so SO LABEL [SONAME]: fail unless the shared object SO is
# what an APK ships: the soname SONAME (liblastwords.so by default), with no
# version, and every LOAD segment aligned for 16 KB pages. Prints what it
# read, each line after LABEL.
check_android_so() {
	want=${3:-liblastwords.so}
	soname=$(readelf -d "$1" | grep SONAME)
	echo "$2: $soname"
	case $soname in
	*"[$want]") ;;
	*) echo "FAIL: $2: the soname is not $want"; exit 1 ;;
	esac
	# The last field of a LOAD line is its alignment, in hex.
	for align in $(readelf -lW "$1" | awk '$1 == "LOAD" {print $NF}'); do
		echo "$2: LOAD aligned at $align"
		if [ $((align)) -lt 16384 ]; then
			echo "FAIL: $2: a LOAD segment aligned below 16 KB"
			exit 1
		fi
	done
}

# install_destdir BUILD DEST: `meson install` of the build directory BUILD
# into the scratch DESTDIR DEST, as a user's would be; fail with its log if
# it fails.
install_destdir() {
	if ! meson install -C "$1" --no-rebuild --destdir "$2" >"$2.log" 2>&1; then
		cat "$2.log"
		echo "FAIL: meson install"
		exit 1
	fi
}
