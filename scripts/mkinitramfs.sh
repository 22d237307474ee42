#!/usr/bin/env bash
# scripts/mkinitramfs.sh BUILD_DIR OUT — the rescue image's initramfs (gzip'd newc cpio).
#
# Contents: rootfs/overlay/ (the /init and its helpers, /etc), static BusyBox with one
# symlink per applet, cxflash (burner/cxflash), lspci and a pci.ids trimmed to Mellanox,
# the subsystem vendors its entries name, and the device classes; the NIC firmware files
# of rootfs/nic-firmware.txt in /lib/firmware, with their copyright notices in
# /usr/share/doc/nic-firmware/copyright (scripts/nic-firmware.sh); and the firmware
# library in /usr/share/cxrescue (cxflash's CXFLASH_DATADIR): the board table
# (library/boards.txt), the .bin files of FIRMWARE_DIR (default library/firmware/) and
# manifest.json, what `cxflash library list` says of them. A file the library refuses
# (not a sound image, or a pinned hash that differs) stops the build. cxflash's manual,
# docs/cxflash.1, as /usr/share/man/man1/cxflash.1, and rendered to plain text by groff
# (groff-base) as /usr/share/man/cat1/cxflash.1: BusyBox's man shows a cat page with its
# pager, and less or more show it too (the shell has no groff).
# Assembled with the kernel's gen_init_cpio from a list file (OUT.list is kept), every
# entry owned by root and stamped SOURCE_DATE_EPOCH (default: a fixed date), then gzip -n:
# two builds from the same inputs are byte-identical.
set -euo pipefail

log() { printf 'initramfs: %s\n' "$*"; }
die() { printf 'initramfs: error: %s\n' "$*" >&2; exit 1; }

[ $# -eq 2 ] || { echo "usage: $0 BUILD_DIR OUT" >&2; exit 2; }
B=$(cd "$1" && pwd)
OUT=$2
HERE=$(cd "$(dirname "$0")/.." && pwd)
EPOCH=${SOURCE_DATE_EPOCH:-1767225600}   # 2026-01-01 00:00:00 UTC
GEN=${GEN_INIT_CPIO:-$B/kernel/gen_init_cpio}
BUSYBOX=$B/busybox/busybox
CXFLASH=$HERE/burner/cxflash
MANPAGE=$HERE/docs/cxflash.1
LSPCI=$B/sysroot/bin/lspci
IDS=$B/sysroot/share/pci.ids
for f in "$GEN" "$BUSYBOX" "$CXFLASH" "$LSPCI" "$IDS"; do
    [ -e "$f" ] || die "$f missing (make kernel busybox burner libs)"
done
[ -e "$MANPAGE" ] || die "$MANPAGE missing"
command -v groff >/dev/null || die "groff missing (make deps: groff-base)"

STAGE=$B/initramfs-stage
rm -rf "$STAGE"
mkdir -p "$STAGE"
LIST=$OUT.list
: >"$LIST.tmp"
entry() { printf '%s\n' "$*" >>"$LIST.tmp"; }

# Files are staged so that their mtime can be fixed (gen_init_cpio takes a file's own
# mtime; -t covers only directories, nodes and links).
stage_file() {   # stage_file SRC DEST MODE
    local s=$STAGE$2
    mkdir -p "$(dirname "$s")"
    cp "$1" "$s"
    touch -h -d "@$EPOCH" "$s"
    entry "file $2 $s $3 0 0"
}

FIRMWARE_DIR=${FIRMWARE_DIR:-$HERE/library/firmware}
DATADIR=/usr/share/cxrescue   # CXFLASH_DATADIR in burner/library/library.h

for d in /bin /sbin /dev /etc /mnt /proc /root /run /sys /tmp /usr /usr/bin /usr/sbin \
         /usr/lib /usr/lib/cxrescue /usr/share /usr/share/misc $DATADIR $DATADIR/firmware \
         /usr/share/man /usr/share/man/man1 /usr/share/man/cat1; do
    entry "dir $d 0755 0 0"
done
entry "nod /dev/console 0600 0 0 c 5 1"   # the kernel opens it before /init runs
entry "nod /dev/null 0666 0 0 c 1 3"

# The overlay: executables keep 0755, the rest 0644.
(cd "$HERE/rootfs/overlay" && find . -type f | LC_ALL=C sort) | while read -r f; do
    src=$HERE/rootfs/overlay/${f#./}
    mode=0644; [ -x "$src" ] && mode=0755
    stage_file "$src" "${f#.}" "$mode"
done

stage_file "$BUSYBOX" /bin/busybox 0755
"$BUSYBOX" --list | LC_ALL=C sort | while read -r applet; do
    [ "$applet" = busybox ] || entry "slink /bin/$applet busybox 0777 0 0"
done
stage_file "$CXFLASH" /usr/bin/cxflash 0755
stage_file "$LSPCI" /usr/bin/lspci 0755

# The manual. 78 columns: the serial console's 80 less a margin; -P-cbou: plain ASCII, no
# overstrikes or escape sequences for bold and underline (grotty(1)), so any pager shows it.
stage_file "$MANPAGE" /usr/share/man/man1/cxflash.1 0644
groff -man -Tascii -P-cbou -rLL=78n -rLT=78n "$MANPAGE" 2>"$STAGE/man.err" | cat -s >"$STAGE/cxflash.cat" &&
    [ ! -s "$STAGE/man.err" ] || { cat "$STAGE/man.err" >&2; die "groff could not render $MANPAGE (above)"; }
stage_file "$STAGE/cxflash.cat" /usr/share/man/cat1/cxflash.1 0644

# pci.ids: the Mellanox vendor block, a name line for each subsystem vendor it mentions,
# and the class list — enough for lspci to name our cards (300 KB less than the whole).
awk '/^15b3 / { m = 1; print; next } /^[0-9a-f][0-9a-f][0-9a-f][0-9a-f] / { m = 0 } /^C / { exit } m' "$IDS" >"$STAGE/ids.mlx"
awk 'NR == FNR { if ($0 ~ /^\t\t/) { split($0, w, /[ \t]+/); want[w[2]] = 1 } next }
     /^C / { exit }
     /^[0-9a-f][0-9a-f][0-9a-f][0-9a-f] / && $1 != "15b3" && ($1 in want)' "$STAGE/ids.mlx" "$IDS" >"$STAGE/ids.vendors"
sed -n '/^C /,$p' "$IDS" >"$STAGE/ids.classes"
cat "$STAGE/ids.mlx" "$STAGE/ids.vendors" "$STAGE/ids.classes" >"$STAGE/pci.ids"
stage_file "$STAGE/pci.ids" /usr/share/misc/pci.ids 0644

# NIC firmware (scripts/nic-firmware.sh: the files rootfs/nic-firmware.txt lists, from
# Debian's packages): the kernel's firmware loader reads /lib/firmware/NAME (docs/nics.md).
NICFW=$B/nic-firmware/lib/firmware
[ -f "$B/nic-firmware/.stamp" ] || die "$NICFW missing (scripts/nic-firmware.sh $B)"
entry "dir /lib 0755 0 0"
entry "dir /lib/firmware 0755 0 0"
(cd "$NICFW" && find . -mindepth 1 -type d | LC_ALL=C sort) | while read -r d; do
    entry "dir /lib/firmware/${d#./} 0755 0 0"
done
(cd "$NICFW" && find . -type f | LC_ALL=C sort) | while read -r f; do
    stage_file "$NICFW/${f#./}" "/lib/firmware/${f#./}" 0644
done
# Their licences ask that the copyright notice go with the files.
entry "dir /usr/share/doc 0755 0 0"
entry "dir /usr/share/doc/nic-firmware 0755 0 0"
stage_file "$B/nic-firmware/copyright" /usr/share/doc/nic-firmware/copyright 0644
log "NIC firmware: $(find "$NICFW" -type f | wc -l) files, $(find "$NICFW" -type f -exec cat {} + | wc -c) bytes"

# The firmware library. The manifest is made by the cxflash that goes on the image, run
# here on the staged copies so that its paths are the image's.
stage_file "$HERE/library/boards.txt" $DATADIR/boards.txt 0644
nfw=0
if [ -d "$FIRMWARE_DIR" ]; then
    for f in "$FIRMWARE_DIR"/*.bin "$FIRMWARE_DIR"/*.BIN; do
        [ -f "$f" ] || continue
        stage_file "$f" "$DATADIR/firmware/$(basename "$f")" 0644
        nfw=$((nfw + 1))
    done
fi
mkdir -p "$STAGE$DATADIR/firmware"
(cd "$STAGE$DATADIR" && "$CXFLASH" --boards boards.txt library check firmware) >"$STAGE/library-check.txt" 2>&1 ||
    { cat "$STAGE/library-check.txt" >&2; die "the firmware library in $FIRMWARE_DIR has a file it refuses (above): remove or replace it"; }
(cd "$STAGE$DATADIR" && "$CXFLASH" --json --boards boards.txt library list firmware) >"$STAGE/manifest.json"
stage_file "$STAGE/manifest.json" $DATADIR/manifest.json 0644
log "library: $(tail -n 1 "$STAGE/library-check.txt") ($nfw from $FIRMWARE_DIR)"

mv "$LIST.tmp" "$LIST"
"$GEN" -t "$EPOCH" "$LIST" | gzip -n -9 >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
log "$OUT: $(stat -c %s "$OUT") bytes ($(grep -c . "$LIST") entries)"
