#!/bin/sh
# What `meson install` gives a user: headers, both libraries, the pkg-config
# file and the man pages. Installs into a scratch DESTDIR, then builds a
# program against it with pkg-config, once shared and once static, and runs
# both. Also checks that the shared library exports the lw_ API, every
# function the installed probe.h declares, and nothing else.
#
# usage: install-pkgconfig.sh BUILD_ROOT CC SANITIZE
set -u
. "$(dirname "$0")/helpers.sh"
build=$1
cc=$2
sanitize=$3

for tool in pkg-config nm; do
	command -v "$tool" >/dev/null 2>&1 || { echo "skip: no $tool"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest="$tmp/root"
install_destdir "$build" "$dest"
pc=$(find "$dest" -name liblastwords.pc | head -n 1)
[ -n "$pc" ] || { echo "FAIL: no liblastwords.pc installed"; exit 1; }
so=$(find "$dest" -name 'liblastwords.so.*.*.*' | head -n 1)
[ -n "$so" ] || { echo "FAIL: no liblastwords.so installed"; exit 1; }
[ -n "$(find "$dest" -name liblastwords.a)" ] || { echo "FAIL: no static library"; exit 1; }
for h in probe.h ring.h vocab.h; do
	[ -n "$(find "$dest" -path "*/include/lastwords/$h")" ] || { echo "FAIL: $h not installed"; exit 1; }
done
for page in man1/lastwords.1 man3/liblastwords.3 man3/lw_open.3 man3/lw_stage_end.3 man5/lastwords-ring.5; do
	[ -n "$(find "$dest" -path "*/share/man/$page")" ] || { echo "FAIL: $page not installed"; exit 1; }
done

# The lw_ API is exported, all of it (each LW_API function of probe.h),
# and the shared internals stay hidden.
exported=$(nm -D --defined-only "$so" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sed 's/@.*//' | sort -u)
bad=$(echo "$exported" | grep -v '^lw_' | grep -v '^$' || true)
if [ -n "$bad" ]; then
	echo "FAIL: exported beyond lw_*: $bad"
	exit 1
fi
api=$(grep '^LW_API' "$(find "$dest" -path '*/include/lastwords/probe.h')" | sed 's/(.*//; s/.*[ *]//' | sort -u)
[ -n "$api" ] || { echo "FAIL: no LW_API function in the installed probe.h"; exit 1; }
if [ "$api" != "$exported" ]; then
	echo "FAIL: the exports are not probe.h's functions (< exported, > declared):"
	echo "$exported" >"$tmp/exported"
	echo "$api" >"$tmp/api"
	diff "$tmp/exported" "$tmp/api"
	exit 1
fi
echo "exports: the $(echo "$api" | wc -l) functions of probe.h"

export PKG_CONFIG_PATH="$(dirname "$pc")"
export PKG_CONFIG_SYSROOT_DIR="$dest"
cat >"$tmp/use.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <lastwords/probe.h>

int main(int argc, char **argv)
{
	struct lw_config cfg = { .dir = argv[1], .process_name = "pkgconfig.test" };
	struct lw_info info;
	struct lw *lw;

	if (argc != 2 || lw_open(&cfg, &lw) != 0)
		return 1;
	lw_candidate(lw, "m");
	lw_stage_begin(lw, LW_STAGE_LOAD);
	lw_stage_end(lw, LW_STAGE_LOAD, LW_ERR_NONE);
	lw_info(lw, &info);
	printf("%s\n", info.path);
	return lw_close(lw) == 0 && strcmp(lw_stage_name(LW_STAGE_LOAD), "load") == 0 ? 0 : 1;
}
C
san=""
[ "$sanitize" != "none" ] && san="-fsanitize=$sanitize"
# shellcheck disable=SC2046
if ! $cc $san -std=c11 -Wall -Wextra -Werror "$tmp/use.c" -o "$tmp/use-shared" \
	$(pkg-config --cflags --libs liblastwords); then
	echo "FAIL: cannot build against the installed shared library"
	exit 1
fi
# shellcheck disable=SC2046
if ! $cc $san -std=c11 -Wall -Wextra -Werror -static-libgcc "$tmp/use.c" -o "$tmp/use-static" \
	$(pkg-config --cflags liblastwords) "$(find "$dest" -name liblastwords.a)" \
	$(pkg-config --static --libs-only-other liblastwords); then
	echo "FAIL: cannot build against the installed static library"
	exit 1
fi
mkdir "$tmp/rings"
libdir=$(dirname "$so")
LD_LIBRARY_PATH="$libdir" "$tmp/use-shared" "$tmp/rings" >/dev/null || { echo "FAIL: shared build runs"; exit 1; }
"$tmp/use-static" "$tmp/rings" >/dev/null || { echo "FAIL: static build runs"; exit 1; }
if ldd "$tmp/use-static" 2>/dev/null | grep -q liblastwords; then
	echo "FAIL: the static build loads the shared library"
	exit 1
fi
n=$(ls "$tmp/rings" | grep -c '\.lwr$')
[ "$n" -eq 2 ] || { echo "FAIL: expected 2 rings, found $n"; exit 1; }
echo "pass: installed headers, libraries, pkg-config file and man pages work"
