# data-area.sh — where backups, logs and dropped-in firmware live. Sourced by /init (say()).
#
# The data area is only a partition cxrescue made (docs/rescue-image.md, "The data area"):
# a FAT file system labelled CXRESCUE that holds cxrescue/stick-id.txt, the marker
# scripts/mkmedia.sh writes. Nothing else is ever written, not even a folder:
# - a FAT with another label (an EFI System Partition, an ESXi SD card) is never mounted;
# - a FAT labelled CXRESCUE is mounted read-only to read its marker, and unmounted when
#   it has none (a stick someone labelled so, or one made before the marker);
# - the ISO's own volume is ISO 9660 (a CD, virtual media, or the ISO written to a stick,
#   whose EFI image CXR-EFI is FAT but never labelled CXRESCUE): never a candidate, so an
#   ISO left attached beside the stick cannot win over it.
# The marker's id= starts as "new" on every image (the images stay reproducible,
# images/SHA256SUMS); the first boot that takes the stick writes a random ID there, so
# each stick has its own from then on (the same image is written to many sticks by
# dd or an image writer, which runs no code of ours).
# USB boot (or unknown): waits up to cxrescue.wait s for such a stick. ISO boot: looks once,
# then for 2 s in the background (the prompt does not wait). PXE, or none found: a folder
# in RAM, with a warning; it is lost at power-off (on PXE from scripts/pxe-serve, pxe.sh
# sends what matters to the server before). A stick found write-protected is named: its
# firmware/ and boards.txt are copied into RAM, and the data stays in RAM.
#
# /run/cxrescue/data (read by cxrescue-front, /etc/profile, upload) says where data goes:
#   CXR_DATA       the folder holding firmware/, backups/, logs/
#   CXR_DATA_KIND  stick, ram, or searching (an ISO boot still looking)
#   CXR_DATA_DEV   the stick's partition (/dev/sdb1), or empty
#   CXR_DATA_ID    the stick's ID (its marker), or empty
#   CXR_DATA_WP    the write-protected cxrescue stick that could not take the data, or empty
#   CXR_DATA_SEEN  /run/cxrescue/data-seen: every device looked at, and why it was or was
#                  not taken, one line each (the wizard shows it when the data is in RAM)
DATA_MNT=/mnt/data
DATA_LABEL=CXRESCUE
DATA_MARKER=cxrescue/stick-id.txt       # scripts/mkmedia.sh writes it
DATA_MAGIC="cxrescue data area 1"       # its first line
EFI_IMG_LABEL=CXR-EFI                   # the ISO's own UEFI boot image (scripts/mkmedia.sh)
DATA_SEEN=/run/cxrescue/data-seen
RAM_DATA=/run/data/cxrescue
DATA_JUDGED=                            # "DEV=verdict;" of the devices already judged
DATA_WP=''                              # a cxrescue stick found write-protected

# blkid_field LINE NAME: the value of NAME="..." in one line of blkid.
blkid_field() {
	echo "$1" | sed -n "s/.* $2=\"\([^\"]*\)\".*/\1/p"
}

# marker_id DIR: the ID in DIR's marker ("new" before the stick's first boot); fails
# without a marker of ours. A marker edited on Windows may have CR LF line ends.
marker_id() {
	local f="$1/$DATA_MARKER" id
	[ -f "$f" ] || return 1
	[ "$(head -n 1 "$f" | tr -d '\r')" = "$DATA_MAGIC" ] || return 1
	id=$(tr -d '\r' <"$f" | sed -n 's/^id=\([0-9a-z]\{1,32\}\)$/\1/p' | head -n 1)
	[ -n "$id" ] && echo "$id"
}

# The stick's first boot: a random ID in place of "new" (8 bytes of the kernel's RNG).
stamp_id() {
	local f="$DATA_MNT/$DATA_MARKER" id
	id=$(hexdump -n 8 -e '8/1 "%02x"' /dev/urandom) && [ ${#id} -eq 16 ] || return 1
	sed "s/^id=new/id=$id/" "$f" >"$f.tmp" && mv "$f.tmp" "$f" && sync && echo "$id"
}

# read_only DEV: the kernel holds the device (or its disk) read-only: a write-protect
# switch (usb-storage reads it from the SCSI mode page), or a read-only virtual drive.
read_only() {
	local b="${1#/dev/}" d
	[ "$(cat "/sys/class/block/$b/ro" 2>/dev/null)" = 1 ] && return 0
	d=$(readlink -f "/sys/class/block/$b/..")
	[ -f "$d/ro" ] && [ "$(cat "$d/ro")" = 1 ]
}

# candidate TYPE LABEL: true for a FAT labelled CXRESCUE, worth a look; else VERDICT says why not.
candidate() {
	if [ "$1" = iso9660 ]; then
		VERDICT="not taken: ISO 9660 (a CD, virtual media or the cxrescue ISO itself): never holds data"
	elif [ "$1" != vfat ]; then
		VERDICT="not taken: not FAT (${1:-no file system known})"
	elif [ "$2" = "$EFI_IMG_LABEL" ]; then
		VERDICT="not taken: the cxrescue ISO's own EFI boot image"
	elif [ "$2" != "$DATA_LABEL" ]; then
		VERDICT="not taken: FAT, but not labelled $DATA_LABEL (not ours: never mounted)"
	else
		return 0
	fi
	return 1
}

# judge DEV TYPE LABEL: 0 when DEV is now the data area, mounted read-write at DATA_MNT;
# otherwise the verdict is remembered (DATA_JUDGED) and DEV is not mounted.
# Sets VERDICT, and DATA_ID when taken.
judge() {
	local dev="$1" type="$2" label="$3" id
	if ! candidate "$type" "$label"; then
		:
	elif ! mkdir -p "$DATA_MNT" || ! mount -t vfat -o ro "$dev" "$DATA_MNT" 2>/dev/null; then
		VERDICT="not taken: labelled $DATA_LABEL, but it does not mount"
	elif ! id=$(marker_id "$DATA_MNT"); then
		umount "$DATA_MNT"
		VERDICT="not taken: labelled $DATA_LABEL, but without cxrescue's marker ($DATA_MARKER): not made by cxrescue, never written"
	elif read_only "$dev"; then
		cp -r "$DATA_MNT/cxrescue/firmware" "$DATA_MNT/cxrescue/boards.txt" "$RAM_DATA/" 2>/dev/null
		umount "$DATA_MNT"
		DATA_WP=${DATA_WP:-$dev}
		VERDICT="not taken: the cxrescue stick (ID $id) is WRITE-PROTECTED"
	elif ! umount "$DATA_MNT" || ! mount -t vfat -o rw,noatime,flush "$dev" "$DATA_MNT" 2>/dev/null ||
	     ! { : >"$DATA_MNT/cxrescue/.rw-check"; } 2>/dev/null; then
		mountpoint -q "$DATA_MNT" && umount "$DATA_MNT"
		VERDICT="not taken: the cxrescue stick (ID $id) cannot be written"
	else
		rm -f "$DATA_MNT/cxrescue/.rw-check"
		[ "$id" = new ] && id=$(stamp_id)
		DATA_ID=${id:-new}
		VERDICT="taken: the cxrescue stick, ID $DATA_ID"
		return 0
	fi
	DATA_JUDGED="$DATA_JUDGED$dev=$VERDICT;"
	return 1
}

# One pass over what blkid sees; every device's verdict goes to DATA_SEEN. True when a
# stick was taken (the devices after it get only the verdicts that need no mount).
data_scan() {
	local line dev type label taken='' v
	: >"$DATA_SEEN.tmp"
	# A here-document, not a pipe: the loop runs in this shell, and DATA_JUDGED stays.
	while IFS= read -r line; do
		dev=${line%%:*}
		[ -n "$dev" ] || continue
		type=$(blkid_field "$line" TYPE) label=$(blkid_field "$line" LABEL)
		v=$(echo "$DATA_JUDGED" | tr ';' '\n' | sed -n "s|^$dev=||p" | head -n 1)
		if [ -n "$taken" ] && [ -z "$v" ]; then
			v="not looked at: a stick was already taken"
			candidate "$type" "$label" || v=$VERDICT
		elif [ -z "$v" ] && judge "$dev" "$type" "$label"; then
			taken=$dev v=$VERDICT
		fi
		[ -n "$v" ] || v=$VERDICT
		printf '%s %s "%s": %s\n' "$dev" "${type:--}" "$label" "$v" >>"$DATA_SEEN.tmp"
	done <<EOF
$(blkid 2>/dev/null | sort)
EOF
	mv "$DATA_SEEN.tmp" "$DATA_SEEN"
	[ -n "$taken" ] && DATA_DEV=$taken
}

# data_area_publish FOLDER KIND DEV: make the folders, say where data goes, write /run/cxrescue/data.
data_area_publish() {
	local line
	mkdir -p "$1/firmware" "$1/backups" "$1/logs"
	case "$2" in
	ram)       if [ "$CXR_MEDIA" = pxe ] && [ -n "$CXR_SERVER_ARG" ]; then
			say "data folder in RAM ($1): backups, reports and logs go to the PXE server"
		   elif [ -n "$DATA_WP" ]; then
			say "WARNING: the cxrescue stick $DATA_WP is WRITE-PROTECTED: backups and logs stay in RAM and are LOST at power-off"
		   else
			say "WARNING: no cxrescue stick found: backups and logs stay in RAM and are LOST at power-off"
			[ "$CXR_MEDIA" = pxe ] || while IFS= read -r line; do say "  $line"; done <"$DATA_SEEN"
		   fi ;;
	searching) ;;
	*)         say "data area on $3 (cxrescue stick, ID $DATA_ID), $1" ;;
	esac
	# A PXE boot does not look at the disks: no list that would say there are none.
	local seen=$DATA_SEEN
	[ "$CXR_MEDIA" = pxe ] && seen=''
	printf 'CXR_DATA=%s\nCXR_DATA_KIND=%s\nCXR_DATA_DEV=%s\nCXR_DATA_ID=%s\nCXR_DATA_WP=%s\nCXR_DATA_SEEN=%s\n' \
		"$1" "$2" "$3" "${3:+$DATA_ID}" "$DATA_WP" "$seen" >/run/cxrescue/data.tmp
	mv /run/cxrescue/data.tmp /run/cxrescue/data
	CXR_DATA=$1 CXR_DATA_KIND=$2
}

# ISO boots, in the background: a stick plugged in beside the CD shows up about a
# second after /init starts; give it 2 s, then settle for RAM.
# By the clock, not by passes: a pass (blkid, a few seds) takes a tenth of a second or more under
# emulation, and the wizard waits for this verdict (cxrescue-front).
iso_search() {
	local until=$(($(uptime_cs) + 200))
	while [ "$(uptime_cs)" -lt $until ]; do
		sleep 0.1
		data_scan && { data_area_publish "$DATA_MNT/cxrescue" stick "$DATA_DEV"; return 0; }
	done
	data_area_publish "$RAM_DATA" ram ""
}

# The uptime in hundredths of a second (/proc/uptime: "12.34 ...").
uptime_cs() {
	awk '{ printf "%d\n", $1 * 100 }' /proc/uptime
}

data_area_setup() {
	local until=$(($(uptime_cs) + CXR_WAIT * 100))
	mkdir -p "$RAM_DATA"
	: >"$DATA_SEEN"
	case "$CXR_MEDIA" in
	usb|unknown)
		# The stick shows up a moment after /init starts (usb-storage); poll for it. A
		# write-protected stick of ours ends the wait too: it is the one we booted from.
		while :; do
			data_scan && { data_area_publish "$DATA_MNT/cxrescue" stick "$DATA_DEV"; return; }
			[ -n "$DATA_WP" ] || [ "$(uptime_cs)" -ge $until ] && break
			sleep 0.1
		done
		[ "$CXR_MEDIA" = usb ] && [ -z "$DATA_WP" ] &&
			say "WARNING: no cxrescue stick (FAT labelled $DATA_LABEL with $DATA_MARKER) within ${CXR_WAIT} s"
		;;
	iso)
		data_scan && { data_area_publish "$DATA_MNT/cxrescue" stick "$DATA_DEV"; return; }
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
