#!/usr/bin/env bash
# scripts/build-busybox.sh BUILD_DIR — static BusyBox (musl) for the rescue image.
#
# Produces BUILD_DIR/busybox/busybox and BUILD_DIR/busybox/config (the final .config).
# The config is `make allnoconfig` plus the applets named in rootfs/busybox.fragment,
# settled with `make oldconfig`; every line of the fragment must survive that, or the
# build stops and names the ones that did not (a typo or a dependency would otherwise
# silently drop an applet the image relies on).
# Source: `apt-get source busybox` (Debian's patches applied), kept in BUILD_DIR/src/dl-busybox.
# Needs the kernel headers folder that scripts/build-musl-libs.sh makes (BUILD_DIR/kheaders).
set -euo pipefail

BUILD_NAME=busybox
# shellcheck source=build-common.sh
. "$(dirname "${BASH_SOURCE[0]}")/build-common.sh"
build_dir_arg "$@"
mkdir -p "$1"
B=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")/.." && pwd)
FRAGMENT=$HERE/rootfs/busybox.fragment
SRC=$B/src
DL=$SRC/dl-busybox
TREE=$SRC/busybox
LOGF=$SRC/busybox.log
OUT=$B/busybox
MUSLCC=${MUSLCC:-musl-gcc}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
# The build banner's date (include/autoconf.h, written by kconfig) comes from here:
# two builds give one binary.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1767225600}
T0=$SECONDS

command -v "$MUSLCC" >/dev/null 2>&1 || die "$MUSLCC not found (package musl-tools) — run make deps"
[ -d "$B/kheaders/linux" ] || die "$B/kheaders missing — run scripts/build-musl-libs.sh $B first"

mkdir -p "$SRC"
: >"$LOGF"
apt_source busybox "$DL"
dsc=$(find "$DL" -maxdepth 1 -name '*.dsc' | head -n 1)
[ -n "$dsc" ] || die "no .dsc in $DL (remove it and retry)"
rm -rf "$TREE"
log "unpacking $(basename "$dsc")"
run_logged dpkg-source -x "$dsc" "$TREE"

# The config: allnoconfig, then each fragment line replaces its symbol's line.
run_logged make -C "$TREE" allnoconfig
grep -E '^CONFIG_[A-Za-z0-9_]+=' "$FRAGMENT" | while IFS= read -r line; do
    sym=${line%%=*}
    sed -i -e "/^# $sym is not set\$/d" -e "/^$sym=/d" "$TREE/.config"
    printf '%s\n' "$line" >>"$TREE/.config"
done
{ yes "" || true; } | make -C "$TREE" oldconfig >>"$LOGF" 2>&1 || die "make oldconfig failed (see $LOGF)"
lost=$(grep -E '^CONFIG_[A-Za-z0-9_]+=' "$FRAGMENT" | while IFS= read -r line; do
           grep -qxF "$line" "$TREE/.config" || printf ' %s' "$line"; done)
[ -z "$lost" ] || die "these lines of $FRAGMENT did not survive oldconfig:$lost"

log "make busybox (CC=$MUSLCC, static, $(grep -c '=y$' "$TREE/.config") options on)"
run_logged make -C "$TREE" -j"$JOBS" CC="$MUSLCC" HOSTCC=gcc \
    EXTRA_CFLAGS="-isystem $B/kheaders" busybox
mkdir -p "$OUT"
install -m 755 "$TREE/busybox" "$OUT/busybox.tmp"
mv "$OUT/busybox.tmp" "$OUT/busybox"
cp "$TREE/.config" "$OUT/config"
file "$OUT/busybox" | grep -q 'statically linked' || die "busybox is not static"
log "done in $((SECONDS - T0)) s: $OUT/busybox $(stat -c %s "$OUT/busybox") bytes, $("$OUT/busybox" --list | wc -l) applets"
