# data-area.sh — where backups, logs and dropped-in firmware live. Sourced by /init.
#
# USB stick: the FAT partition labelled CXRESCUE (the stick itself), mounted read-write.
# ISO (CD or virtual media): the first FAT partition that mounts read-write, if any.
# PXE, or nothing found: a folder in RAM, with a warning — it is lost at power-off.
# Sets CXR_DATA (the folder holding firmware/, backups/, logs/) and CXR_DATA_KIND
# (stick, fat or ram); /run/cxrescue/data says the same for the front end.
DATA_MNT=/mnt/data
DATA_LABEL=CXRESCUE

# The block device carrying the label, or nothing (try_mount_rw insists on FAT).
find_by_label() {
	blkid | sed -n "s/^\([^:]*\):.*LABEL=\"$DATA_LABEL\".*/\1/p" | head -n 1
}

# Every FAT file system, one device per line.
find_fat() {
	blkid | sed -n 's/^\([^:]*\):.*TYPE="vfat".*/\1/p'
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

data_area_setup() {
	local dev= t=0 ticks=$((CXR_WAIT * 10))
	CXR_DATA_KIND=ram
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
			CXR_DATA_KIND=stick
		elif [ "$CXR_MEDIA" = usb ]; then
			echo "cxrescue: WARNING: the stick's CXRESCUE partition was not found within ${CXR_WAIT} s" >/dev/console
		fi
		;;
	iso)
		# Give a stick or disk the same time to appear as the CD had.
		while [ $t -lt $ticks ]; do
			for dev in $(find_fat); do
				try_mount_rw "$dev" && { CXR_DATA_KIND=fat; break 2; }
			done
			[ $t -ge 20 ] && break   # no FAT at all after 2 s: a CD-only machine
			sleep 0.1
			t=$((t + 1))
		done
		;;
	esac
	if [ "$CXR_DATA_KIND" = ram ]; then
		mkdir -p /run/data
		CXR_DATA=/run/data/cxrescue
		echo "cxrescue: WARNING: no writable stick found: backups and logs stay in RAM and are LOST at power-off" >/dev/console
	else
		CXR_DATA=$DATA_MNT/cxrescue
		echo "cxrescue: data area on $dev ($CXR_DATA_KIND), $CXR_DATA" >/dev/console
	fi
	mkdir -p "$CXR_DATA/firmware" "$CXR_DATA/backups" "$CXR_DATA/logs"
	printf 'CXR_DATA=%s\nCXR_DATA_KIND=%s\nCXR_DATA_DEV=%s\n' "$CXR_DATA" "$CXR_DATA_KIND" "$dev" \
		>/run/cxrescue/data
}

# Before power-off: everything written must be on the stick.
data_area_release() {
	sync
	mountpoint -q "$DATA_MNT" && umount "$DATA_MNT"
	sync
}
