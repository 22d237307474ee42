# data-area.sh — where backups, logs and dropped-in firmware live. Sourced by /init.
#
# USB stick: the FAT partition labelled CXRESCUE (the stick itself), mounted read-write.
# ISO (CD or virtual media): the first FAT partition that mounts read-write, if any.
# PXE, or nothing found: a folder in RAM, with a warning — it is lost at power-off
# (on PXE from scripts/pxe-serve, pxe.sh sends what matters to the server before).
# Sets CXR_DATA (the folder holding firmware/, backups/, logs/) and CXR_DATA_KIND
# (stick, fat, ram, or searching); /run/cxrescue/data says the same for the front end
# and is the one to trust later: on an ISO boot the search for a second stick goes on
# in the background for 2 s (the prompt does not wait for it), writing into RAM meanwhile.
DATA_MNT=/mnt/data
DATA_LABEL=CXRESCUE

# The block device carrying the label, or nothing (try_mount_rw insists on FAT).
find_by_label() {
	blkid | sed -n "s/^\([^:]*\):.*LABEL=\"$DATA_LABEL\".*/\1/p" | head -n 1
}

# The ISO's own UEFI boot image (scripts/mkmedia.sh): a few KiB free, part of the ISO.
EFI_IMG_LABEL=CXR-EFI

# Every FAT file system but the ISO's boot image, one device per line. An ISO written to a
# stick shows that image as partition 2; backups written there would fill it and alter the ISO.
find_fat() {
	blkid | grep -v "LABEL=\"$EFI_IMG_LABEL\"" | sed -n 's/^\([^:]*\):.*TYPE="vfat".*/\1/p'
}

try_mount_rw() {
	mkdir -p "$DATA_MNT"
	mount -t vfat -o rw,noatime,flush "$1" "$DATA_MNT" 2>/dev/null || return 1
	if mkdir -p "$DATA_MNT/cxrescue" && : >"$DATA_MNT/cxrescue/.rw-check" 2>/dev/null; then
		rm -f "$DATA_MNT/cxrescue/.rw-check"
		return 0
	fi
	umount "$DATA_MNT"
	return 1
}

# data_area_publish FOLDER KIND DEV: make the folders, say where data goes, write /run/cxrescue/data.
data_area_publish() {
	mkdir -p "$1/firmware" "$1/backups" "$1/logs"
	case "$2" in
	ram)       if [ "$CXR_MEDIA" = pxe ] && [ -n "$CXR_SERVER_ARG" ]; then
			say "data folder in RAM ($1): backups, reports and logs go to the PXE server"
		   else
			say "WARNING: no writable stick found: backups and logs stay in RAM and are LOST at power-off"
		   fi ;;
	searching) ;;
	*)         say "data area on $3 ($2), $1" ;;
	esac
	printf 'CXR_DATA=%s\nCXR_DATA_KIND=%s\nCXR_DATA_DEV=%s\n' "$1" "$2" "$3" >/run/cxrescue/data.tmp
	mv /run/cxrescue/data.tmp /run/cxrescue/data
	CXR_DATA=$1 CXR_DATA_KIND=$2
}

# One pass over the FAT file systems; true when one mounted read-write.
iso_scan_once() {
	local dev
	for dev in $(find_fat); do
		try_mount_rw "$dev" && { data_area_publish "$DATA_MNT/cxrescue" fat "$dev"; return 0; }
	done
	return 1
}

# ISO boots, in the background: a stick plugged in beside the CD shows up about a
# second after /init starts; give it 2 s, then settle for RAM.
iso_search() {
	local t=0
	while [ $t -lt 20 ]; do
		sleep 0.1
		iso_scan_once && return 0
		t=$((t + 1))
	done
	data_area_publish "$RAM_DATA" ram ""
}

RAM_DATA=/run/data/cxrescue

data_area_setup() {
	local dev= t=0 ticks=$((CXR_WAIT * 10))
	case "$CXR_MEDIA" in
	usb|unknown)
		# The stick shows up a moment after /init starts (usb-storage); poll for it.
		while [ $t -lt $ticks ]; do
			dev=$(find_by_label)
			[ -n "$dev" ] && break
			sleep 0.1
			t=$((t + 1))
		done
		if [ -n "$dev" ] && try_mount_rw "$dev"; then
			data_area_publish "$DATA_MNT/cxrescue" stick "$dev"
			return
		fi
		[ "$CXR_MEDIA" = usb ] &&
			say "WARNING: the stick's CXRESCUE partition was not found within ${CXR_WAIT} s"
		;;
	iso)
		iso_scan_once && return
		data_area_publish "$RAM_DATA" searching ""
		iso_search &
		return
		;;
	esac
	data_area_publish "$RAM_DATA" ram ""
}

# Before power-off: everything written must be on the stick.
data_area_release() {
	sync
	# Busy (a shell on tty2 sitting in it): read-only at least, so the FAT is clean.
	mountpoint -q "$DATA_MNT" && { umount "$DATA_MNT" 2>/dev/null || umount -r "$DATA_MNT"; }
	sync
}
