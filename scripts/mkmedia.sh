#!/usr/bin/env bash
# scripts/mkmedia.sh KERNEL INITRD OUT_DIR — the boot media, from one kernel and initramfs.
#
#   OUT_DIR/cxrescue-usb.img  MBR + one bootable FAT32 partition labelled CXRESCUE:
#                             /syslinux/ (BIOS: syslinux), /EFI/BOOT/BOOTX64.EFI (UEFI: GRUB),
#                             /boot/grub/cxrescue.cfg (its menu), /boot/{vmlinuz,initrd.gz},
#                             /cxrescue/{firmware,backups,logs}/, /cxrescue/stick-id.txt (the
#                             marker that makes the partition the data area: rootfs/stick/,
#                             data-area.sh), /cxrescue/bin/cxflash (the static
#                             burner, for the installed system: README "Using cxflash on your
#                             installed system"; CXFLASH=, default burner/cxflash) and
#                             /cxrescue/bin/cxflash.1, its manual (docs/cxflash.1: man -l)
#   OUT_DIR/cxrescue.iso      isohybrid ISO: BIOS through isolinux, UEFI through an El Torito EFI
#                             image (boot/efiboot.img: a FAT labelled CXR-EFI holding only
#                             BOOTX64.EFI, which reads the menu and kernel from the ISO itself; it
#                             is also partition 2 when the ISO is written to a stick); boots as a
#                             CD and as a USB stick
#   OUT_DIR/pxe/              pxelinux.0, ldlinux.c32, the menu modules, pxelinux.cfg/default,
#                             boot/{vmlinuz,initrd.gz}: a TFTP root; grub/grubx64.efi, the
#                             GRUB network image for UEFI nodes (scripts/pxe-serve writes its
#                             grub/grub.cfg from pxelinux.cfg/default)
#   OUT_DIR/SHA256SUMS, OUT_DIR/sizes.txt
# No loop mounts and no root needed: sfdisk, mkfs.vfat --offset, syslinux --offset and
# mtools (build-notes.md). Timestamps come from SOURCE_DATE_EPOCH (default: a fixed date).
# The firmware library (FIRMWARE_DIR=, default library/firmware/) travels in the initramfs,
# so that the ISO and PXE boots have it too; the stick's cxrescue/firmware/ starts with a
# README.txt and takes the images users drop in later.
# UEFI: GRUB (grub-efi-amd64-bin), made here with grub-mkimage: a few modules and
# rootfs/grub/early.cfg built in. syslinux.efi boots the stick but crashes OVMF when started
# from a CD's El Torito image (docs/rescue-image.md, "UEFI"). The same kernel, initramfs and menu entries
# on both paths. Unsigned: Secure Boot must be off.
set -euo pipefail

log() { printf 'media: %s\n' "$*"; }
die() { printf 'media: error: %s\n' "$*" >&2; exit 1; }

[ $# -eq 3 ] || { echo "usage: $0 KERNEL INITRD OUT_DIR" >&2; exit 2; }
KERNEL=$1 INITRD=$2 OUT=$3
HERE=$(cd "$(dirname "$0")/.." && pwd)
EPOCH=${SOURCE_DATE_EPOCH:-1767225600}      # 2026-01-01 00:00:00 UTC
USB_MB=${USB_MB:-128}                        # the whole stick image; the partition starts at 1 MiB
FIRMWARE_README=$HERE/rootfs/stick/firmware-README.txt
# The data area's marker. Its id= is "new" in every image, so that two builds give the same
# stick (SHA256SUMS); the stick's first boot writes its own random ID there (data-area.sh):
# the image is written to many sticks by dd or an image writer, where no code of ours runs.
STICK_MARKER=$HERE/rootfs/stick/stick-id.txt
CXFLASH=${CXFLASH:-$HERE/burner/cxflash}
MANPAGE=$HERE/docs/cxflash.1
MENU=$HERE/rootfs/syslinux/menu.cfg.in
BIOS_MODULES=/usr/lib/syslinux/modules/bios    # syslinux-common: every .c32 of one build
MENU_MODULES="ldlinux.c32 menu.c32 libutil.c32 libcom32.c32"
MBR_BIN=/usr/lib/syslinux/mbr/mbr.bin          # syslinux-common
ISOLINUX_BIN=/usr/lib/ISOLINUX/isolinux.bin    # isolinux (same syslinux build)
ISOHDPFX=/usr/lib/ISOLINUX/isohdpfx.bin
PXELINUX_0=/usr/lib/PXELINUX/pxelinux.0        # pxelinux (same syslinux build)
GRUB_MENU=$HERE/rootfs/grub/cxrescue.cfg.in
GRUB_EARLY=$HERE/rootfs/grub/early.cfg
GRUB_EFI_MODULES=/usr/lib/grub/x86_64-efi      # grub-efi-amd64-bin
# What early.cfg and the menu use: partitions and file systems of the stick and the ISO,
# finding the menu, and booting Linux (with the firmware's framebuffer for the kernel).
GRUB_MODULES="part_msdos part_gpt fat iso9660 regexp test search configfile normal echo sleep
              linux efi_gop efi_uga"
# The PXE loader for UEFI nodes: the firmware's network stack (efinet) and TFTP, its menu
# read from the boot server as (tftp)/grub/grub.cfg (the server the PXE answer named).
GRUB_NET_MODULES="net efinet tftp test configfile normal echo sleep linux efi_gop efi_uga"
GRUB_NET_PREFIX="(tftp)/grub"
EFI_BOOT_DIR=/EFI/BOOT                 # the removable-media path UEFI firmware looks in
EFI_BOOT_NAME=BOOTX64.EFI              # ... and the name it loads on x86_64
EFI_IMG_LABEL=CXR-EFI                  # the ISO's EFI image; /init never keeps data there
export SOURCE_DATE_EPOCH=$EPOCH MTOOLS_SKIP_CHECK=1

for f in "$KERNEL" "$INITRD" "$MENU" "$STICK_MARKER" "$MBR_BIN" "$ISOLINUX_BIN" "$ISOHDPFX" "$PXELINUX_0" \
         "$GRUB_MENU" "$GRUB_EARLY" "$GRUB_EFI_MODULES/linux.mod"; do
    [ -f "$f" ] || die "$f missing (kernel/initramfs: make; the rest: make deps)"
done
for m in $MENU_MODULES; do [ -f "$BIOS_MODULES/$m" ] || die "$BIOS_MODULES/$m missing — run make deps"; done
for t in sfdisk mkfs.vfat syslinux mcopy mmd xorriso grub-mkimage; do
    command -v "$t" >/dev/null || die "$t not found — run make deps"
done
mkdir -p "$OUT"
TMP=$(mktemp -d "$OUT/.media.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# menu MEDIA BOOTDIR IPAPPEND > file
menu() {
    sed -e "s|@MEDIA@|$1|g" -e "s|@BOOT@|$2|g" -e "s|@IPAPPEND@|$3|g" "$MENU"
}
stamp() { touch -h -d "@$EPOCH" "$@"; }

# syslinux_tree ROOT LOADER LOADER_DIR MENU_FILE MEDIA IPAPPEND: a BIOS boot tree (the ISO's,
# the PXE root's): the loader and the menu modules in LOADER_DIR, the menu in MENU_FILE, the
# kernel and the initramfs in ROOT/boot.
syslinux_tree() {
    local root=$1 loader=$2 dir=$3 cfg=$4 media=$5 ipappend=$6 m
    mkdir -p "$dir" "${cfg%/*}" "$root/boot"
    cp "$loader" "$dir/"
    for m in $MENU_MODULES; do cp "$BIOS_MODULES/$m" "$dir/"; done
    menu "$media" /boot "$ipappend" >"$cfg"
    cp "$KERNEL" "$root/boot/vmlinuz"
    cp "$INITRD" "$root/boot/initrd.gz"
}

# grub_menu MEDIA > file
grub_menu() { sed -e "s|@MEDIA@|$1|g" "$GRUB_MENU"; }

# The UEFI loader, once for every medium: it finds its menu at run time (early.cfg).
efi_loader=$TMP/$EFI_BOOT_NAME
# shellcheck disable=SC2086 # GRUB_MODULES is a list
grub-mkimage -O x86_64-efi -d "$GRUB_EFI_MODULES" -p /boot/grub -c "$GRUB_EARLY" \
    -o "$efi_loader" $GRUB_MODULES || die "grub-mkimage failed"
stamp "$efi_loader"

# --- USB stick ---------------------------------------------------------------------------
usb=$TMP/cxrescue-usb.img
part_start=2048                                   # sectors: 1 MiB
part_sectors=$(( USB_MB * 2048 - part_start ))
truncate -s "${USB_MB}M" "$usb"
printf 'label: dos\nlabel-id: 0x43585253\nstart=%d, size=%d, type=c, bootable\n' \
    "$part_start" "$part_sectors" | sfdisk --quiet "$usb"
dd if="$MBR_BIN" of="$usb" bs=440 count=1 conv=notrunc status=none
# The volume ID is fixed too (--invariant), so two builds give the same stick.
mkfs.vfat -F 32 -n CXRESCUE --invariant --offset="$part_start" "$usb" $(( part_sectors / 2 )) >/dev/null
fat="$usb@@$(( part_start * 512 ))"
mmd -i "$fat" ::/syslinux
syslinux --install --offset $(( part_start * 512 )) --directory /syslinux "$usb"
menu usb /boot "" >"$TMP/syslinux.cfg"
mkdir -p "$TMP/fat/boot" "$TMP/fat/syslinux"
cp "$KERNEL" "$TMP/fat/boot/vmlinuz"
cp "$INITRD" "$TMP/fat/boot/initrd.gz"
cp "$TMP/syslinux.cfg" "$TMP/fat/syslinux/syslinux.cfg"
for m in $MENU_MODULES; do
    [ "$m" = ldlinux.c32 ] || cp "$BIOS_MODULES/$m" "$TMP/fat/syslinux/"
done
stamp "$TMP"/fat/boot/* "$TMP"/fat/syslinux/*
mcopy -o -m -i "$fat" "$TMP"/fat/syslinux/* ::/syslinux/
mmd -i "$fat" ::/boot ::/cxrescue ::/cxrescue/firmware ::/cxrescue/backups ::/cxrescue/logs
mcopy -m -i "$fat" "$TMP"/fat/boot/* ::/boot/
mmd -i "$fat" ::/EFI "::$EFI_BOOT_DIR" ::/boot/grub
mcopy -m -i "$fat" "$efi_loader" "::$EFI_BOOT_DIR/"
grub_menu usb >"$TMP/grub-usb.cfg"
stamp "$TMP/grub-usb.cfg"
mcopy -m -i "$fat" "$TMP/grub-usb.cfg" ::/boot/grub/cxrescue.cfg
cp "$FIRMWARE_README" "$TMP/README.txt"
stamp "$TMP/README.txt"
mcopy -m -i "$fat" "$TMP/README.txt" ::/cxrescue/firmware/README.txt
cp "$STICK_MARKER" "$TMP/stick-id.txt"
stamp "$TMP/stick-id.txt"
mcopy -m -i "$fat" "$TMP/stick-id.txt" ::/cxrescue/stick-id.txt
# The same static cxflash the image runs, for the installed system (the card's settings
# need a firmware the host driver started; README "Using cxflash on your installed system").
[ -x "$CXFLASH" ] || die "no cxflash at $CXFLASH (make burner)"
mkdir -p "$TMP/fat/bin" && cp "$CXFLASH" "$TMP/fat/bin/cxflash" && stamp "$TMP/fat/bin/cxflash"
cp "$MANPAGE" "$TMP/fat/bin/cxflash.1" && stamp "$TMP/fat/bin/cxflash.1"
mmd -i "$fat" ::/cxrescue/bin
mcopy -m -i "$fat" "$TMP/fat/bin/cxflash" "$TMP/fat/bin/cxflash.1" ::/cxrescue/bin/
log "USB image: ${USB_MB} MiB, FAT32 CXRESCUE at 1 MiB"

# --- ISO -----------------------------------------------------------------------------------
iso_root=$TMP/iso
syslinux_tree "$iso_root" "$ISOLINUX_BIN" "$iso_root/isolinux" "$iso_root/isolinux/isolinux.cfg" iso ""
# UEFI reads the El Torito EFI image as a small FAT volume: only the loader goes there; GRUB
# reads its menu, the kernel and the initramfs from the ISO's own file system.
mkdir -p "$iso_root/boot/grub"
grub_menu iso >"$iso_root/boot/grub/cxrescue.cfg"
efi_kib=$(( $(stat -c %s "$efi_loader") / 1024 + 128 ))    # + the FAT's own sectors and slack
mkfs.vfat -C -n "$EFI_IMG_LABEL" --invariant "$iso_root/boot/efiboot.img" "$efi_kib" >/dev/null
mmd -i "$iso_root/boot/efiboot.img" ::/EFI "::$EFI_BOOT_DIR"
mcopy -m -i "$iso_root/boot/efiboot.img" "$efi_loader" "::$EFI_BOOT_DIR/"
find "$iso_root" -exec touch -h -d "@$EPOCH" {} +
# -isohybrid-gpt-basdat: the EFI image is also an EFI system partition on a stick made from the ISO.
xorriso -as mkisofs -quiet -o "$TMP/cxrescue.iso" -V CXRESCUE -J -r \
    -isohybrid-mbr "$ISOHDPFX" -b isolinux/isolinux.bin -c isolinux/boot.cat \
    -no-emul-boot -boot-load-size 4 -boot-info-table \
    -eltorito-alt-boot -e boot/efiboot.img -no-emul-boot -isohybrid-gpt-basdat \
    "$iso_root" 2>"$TMP/xorriso.log" \
    || { cat "$TMP/xorriso.log" >&2; die "xorriso failed"; }
log "ISO: $(stat -c %s "$TMP/cxrescue.iso") bytes"

# --- PXE -------------------------------------------------------------------------------------
pxe=$TMP/pxe
# IPAPPEND 2 adds BOOTIF=<mac of the boot NIC> to the command line.
syslinux_tree "$pxe" "$PXELINUX_0" "$pxe" "$pxe/pxelinux.cfg/default" pxe "IPAPPEND 2"
mkdir -p "$pxe/grub"
# shellcheck disable=SC2086 # GRUB_NET_MODULES is a list
grub-mkimage -O x86_64-efi -d "$GRUB_EFI_MODULES" -p "$GRUB_NET_PREFIX" -o "$pxe/grub/grubx64.efi" \
    $GRUB_NET_MODULES || die "grub-mkimage (the PXE loader) failed"
find "$pxe" -exec touch -h -d "@$EPOCH" {} +

# --- install, sums, sizes --------------------------------------------------------------------
rm -rf "$OUT/pxe"
mv "$pxe" "$OUT/pxe"
mv "$usb" "$OUT/cxrescue-usb.img"
mv "$TMP/cxrescue.iso" "$OUT/cxrescue.iso"
(cd "$OUT" && find cxrescue-usb.img cxrescue.iso pxe -type f | LC_ALL=C sort | xargs sha256sum) \
    >"$OUT/SHA256SUMS"
{
    printf '%-28s %10s\n' file bytes
    for f in cxrescue.iso cxrescue-usb.img pxe/boot/vmlinuz pxe/boot/initrd.gz; do
        printf '%-28s %10s\n' "$f" "$(stat -c %s "$OUT/$f")"
    done
    printf '%-28s %10s\n' "cxrescue-usb.img (allocated)" "$(( $(stat -c %b "$OUT/cxrescue-usb.img") * 512 ))"
} >"$OUT/sizes.txt"
cat "$OUT/sizes.txt"
