#!/usr/bin/env bash
# scripts/run-qemu.sh BUILD_DIR IMAGES_DIR — `make run`: boot the USB image in QEMU with one
# simulated OEM card, on the serial console in this terminal.
#
# CXR_CARD (make run CARD=...) picks the card:
#   cx3 (default)  an HP 544QSFP ConnectX-3 (PSID HP_0280210019, subsystem 103c:18d6;
#                  field-notes.md §3 row 1) holding a generated FS2 image (firmware 2.40.5030),
#                  in BUILD_DIR/run/card.{conf,flash};
#   cx4lx          an HPE 640SFP28 ConnectX-4 Lx (PSID HP_2420110034, firmware 14.26.1040 as
#                  library/boards.txt's thread reports it) holding a generated FS3 image (sim/mkfs3),
#                  in BUILD_DIR/run/card-cx4lx.{conf,flash}, strapped into recovery mode (cxsim
#                  --recovery: what cxflash burns), so it shows its recovery ID 15b3:020b with the
#                  VSEC in config space (sim/qemu); the wizard lists it, cxflash burns it from the
#                  shell. No subsystem ID: none is recorded for the board.
# The card is made fresh unless it is there already — so a burn done in one session is still on
# the card in the next. `rm -rf BUILD_DIR/run` starts over. The stick is a copy
# (BUILD_DIR/run/stick.img, see below), so images/ stays as built; backups written in the guest
# can be read with
#   mdir -i BUILD_DIR/run/stick.img@@1M ::/cxrescue/backups
# QEMU: TCG, or KVM when the CPU has vmx/svm (build-notes.md: KVM hangs here otherwise).
# CXR_FIRMWARE=uefi (make run FIRMWARE=uefi) boots through OVMF (package ovmf) instead of
# SeaBIOS, with its variables in BUILD_DIR/run/ovmf-vars.fd (a copy of the empty vars file:
# no Secure Boot keys).
# Leave QEMU with Ctrl-A X, or power off from the menu.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 BUILD_DIR IMAGES_DIR" >&2; exit 2; }
B=$1 IMAGES=$2
QEMU=${CXR_QEMU:-$B/qemu/qemu-system-x86_64}
CXSIM=$B/host/cxsim
MKFS2=$B/host/mkfs2
MKFS3=$B/host/mkfs3
RUN=$B/run
CARD=${CXR_CARD:-cx3}
case $CARD in
cx3)   MKFS=$MKFS2 STEM=$RUN/card DEMO=mcx354a-stock-demo.bin ;;
cx4lx) MKFS=$MKFS3 STEM=$RUN/card-cx4lx DEMO=mcx4121a-stock-demo.bin ;;
*)     echo "run: CARD=$CARD — cx3 or cx4lx" >&2; exit 2 ;;
esac
for f in "$QEMU" "$CXSIM" "$MKFS" "$IMAGES/cxrescue-usb.img"; do
    [ -e "$f" ] || { echo "run: $f missing — run make" >&2; exit 1; }
done
mkdir -p "$RUN"

if [ ! -f "$STEM.flash" ]; then
    case $CARD in
    cx3)
        "$MKFS2" -o "$RUN/oem-image.bin" --chip cx3 --psid HP_0280210019 --fw 2.40.5030 >/dev/null
        "$CXSIM" create "$STEM" --chip cx3 --subsys 103c:18d6 --image "$RUN/oem-image.bin" \
            --guid 0002c90300a1b2c0 --mac 0002c9a1b2c0 >/dev/null
        echo "run: made a simulated HP 544QSFP (ConnectX-3) in $STEM.{conf,flash}" ;;
    cx4lx)
        "$MKFS3" -o "$RUN/oem-image-cx4lx.bin" --chip cx4lx --psid HP_2420110034 --fw 14.26.1040 \
            --guid 0002c90300a1b2d0 --mac 0002c9a1b2d0 >/dev/null
        "$CXSIM" create "$STEM" --chip cx4lx --image "$RUN/oem-image-cx4lx.bin" --recovery >/dev/null
        echo "run: made a simulated HPE 640SFP28 (ConnectX-4 Lx) in $STEM.{conf,flash}" ;;
    esac
fi
# The stick is kept from one run to the next (backups, logs, the wizard's history and its
# check after the cold restart), and made again when the image was rebuilt. The card's
# generated stock image goes into its cxrescue/firmware/ once, so the wizard has a
# cross-flash to offer the HP card: for cx3 MCX354A-FCB's PSID, FW 2.42.5000 (mkfs2); for
# cx4lx MCX4121A-ACAT's PSID MT_2420110034, FW 14.27.1016, the stock image of the thread in
# library/boards.txt (mkfs3). Synthetic test data, not NVIDIA firmware: it runs on the
# simulated card only.
if [ ! -f "$RUN/stick.img" ] || [ "$IMAGES/cxrescue-usb.img" -nt "$RUN/stick.img" ]; then
    cp "$IMAGES/cxrescue-usb.img" "$RUN/stick.img"
    echo "run: a fresh stick in $RUN/stick.img"
fi
if ! mdir -b -i "$RUN/stick.img@@1M" "::/cxrescue/firmware/$DEMO" >/dev/null 2>&1; then
    case $CARD in
    cx3)   "$MKFS2" -o "$RUN/$DEMO" --chip cx3 --psid MT_1090120019 --fw 2.42.5000 >/dev/null ;;
    cx4lx) "$MKFS3" -o "$RUN/$DEMO" --chip cx4lx --psid MT_2420110034 --fw 14.27.1016 >/dev/null ;;
    esac
    mcopy -o -i "$RUN/stick.img@@1M" "$RUN/$DEMO" ::/cxrescue/firmware/
    echo "run: a generated stock image to cross-flash to on the stick: cxrescue/firmware/$DEMO"
fi

firmware=()
case ${CXR_FIRMWARE:-bios} in
bios) ;;
uefi)
    OVMF_CODE=/usr/share/OVMF/OVMF_CODE_4M.fd OVMF_VARS=/usr/share/OVMF/OVMF_VARS_4M.fd
    for f in "$OVMF_CODE" "$OVMF_VARS"; do
        [ -f "$f" ] || { echo "run: $f missing — run make deps (package ovmf)" >&2; exit 1; }
    done
    cp "$OVMF_VARS" "$RUN/ovmf-vars.fd"
    firmware=(-drive "if=pflash,format=raw,unit=0,readonly=on,file=$OVMF_CODE"
              -drive "if=pflash,format=raw,unit=1,file=$RUN/ovmf-vars.fd") ;;
*)  echo "run: FIRMWARE=${CXR_FIRMWARE} — bios or uefi" >&2; exit 2 ;;
esac

accel=tcg
grep -qwE 'vmx|svm' /proc/cpuinfo && accel=kvm
# The serial port on this terminal (Ctrl-A X, Ctrl-A C for the monitor), as -nographic has
# it, but not -nographic itself: it tells the firmware there is no screen (fw_cfg
# NOGRAPHIC), and SeaBIOS then copies the screen's text to the serial port (its sercon,
# SeaBIOS src/fw/paravirt.c), while syslinux writes the menu there itself (SERIAL in
# rootfs/syslinux/menu.cfg.in): every character of the menu came twice. The qemu-tests
# harness boots the same way (-display none -serial stdio).
echo "run: booting $RUN/stick.img over USB (xHCI), ${CXR_FIRMWARE:-bios}, accel=$accel, card $CARD; Ctrl-A X quits"
exec "$QEMU" -L /usr/share/qemu -L /usr/share/seabios -L /usr/lib/ipxe/qemu \
    -machine pc -accel "$accel" -m 512 -display none -serial mon:stdio -parallel null \
    -no-reboot "${firmware[@]}" \
    -device qemu-xhci,id=xhci \
    -drive if=none,id=stick,format=raw,file="$RUN/stick.img" \
    -device usb-storage,bus=xhci.0,drive=stick,bootindex=1 \
    -device cxsim-pci,flash="$STEM.flash"
