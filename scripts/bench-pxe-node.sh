#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-pxe-node.sh PHASE — one simulated rack node of scripts/bench-pxe, run by BusyBox's sh
# in a chroot that holds the image's BusyBox and the image's own node scripts at their own
# paths (/usr/lib/cxrescue/net.sh, pxe.sh, upload), with /run/cxrescue/net as net_up leaves
# it (DHCP is not simulated) and the data folder in RAM as the backup job leaves it.
#
#   boot     what pxelinux fetches on a BIOS node (pxelinux.0, ldlinux.c32, its own
#            pxelinux.cfg/01-<mac>, then the kernel and initramfs that file names), then
#            what /init fetches (firmware/INDEX, pxe.sh); /boot.sums gets the SHA-256 of each
#            fetched file, and the files go (RAM). On a real node the PXE ROM and pxelinux
#            fetch the boot files with their own TFTP client; here BusyBox's tftp, with the
#            node's block size (net.sh), stands in for them.
#   backup DIR   what the wizard runs after the backup: `upload backup DIR` (rescue/step_upload.c)
#   flush    what /init runs after the job: pxe_flush (pxe.sh): `upload flush` (the report, the
#            log, the history), again after 10 s, 20 s, ... until all are on the server (standard
#            input: the console, where Enter would stop it; the bench holds it open and silent)
#
# Exit: 0 done, 1 a transfer failed (its complaint on stdout), 2 usage.
. /usr/lib/cxrescue/net.sh
say() { echo "cxrescue: $*"; }    # /init's
. /usr/lib/cxrescue/pxe.sh
. /run/cxrescue/data
net_load || exit 1

# fetch REMOTE: into /boot-files, as the node's pxe_get does it (3 tries, "not found" is final).
fetch() {
	local local_file="/boot-files/${1##*/}"
	if ! pxe_get "$1" "$local_file"; then
		echo "boot: cannot fetch $1: $(tail -n 1 "$NET_TFTP_ERR")"
		exit 1
	fi
	echo "$(sha256sum "$local_file" | cut -d' ' -f1)  $1" >>/boot.sums
}

case "$1" in
boot)
	mkdir -p /boot-files
	: >/boot.sums
	cfg="pxelinux.cfg/01-$CXR_NODE"
	fetch pxelinux.0
	fetch ldlinux.c32
	fetch "$cfg"
	grep -q "cxrescue.job=" "/boot-files/${cfg##*/}" || { echo "boot: $cfg has no job"; exit 1; }
	kernel=$(awk 'toupper($1) == "LINUX" { print $2; exit }' "/boot-files/${cfg##*/}")
	initrd=$(awk 'toupper($1) == "INITRD" { print $2; exit }' "/boot-files/${cfg##*/}")
	fetch "${kernel#/}"
	fetch "${initrd#/}"
	pxe_fetch_firmware
	rm -rf /boot-files
	;;
backup) [ -d "$2" ] || exit 2; exec /usr/lib/cxrescue/upload backup "$2" ;;
flush) pxe_flush ;;
*) echo "usage: bench-pxe-node.sh boot | backup DIR | flush" >&2; exit 2 ;;
esac
