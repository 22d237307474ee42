# pxe.sh — a node booted over PXE from scripts/pxe-serve (cxrescue.media=pxe and
# cxrescue.server=). Sourced by /init, after net.sh.
#
# The data folder is RAM, so the server keeps what matters: /init brings the boot NIC
# up (net_up; a NIC that fails is named, and the next one tried: net.sh), fetches the server's firmware library (firmware/INDEX, written by
# pxe-serve: what a stick's cxrescue/firmware/ is to a USB boot) and the bundle of a
# restore job, and sets $CXR_UPLOAD, so the wizard
# hands every backup to the server before it writes a card (rescue/step_upload.c). After the
# job, pxe_flush sends the reports, logs and history; the node powers off only when the
# job succeeded and everything is on the server. Until then nothing is lost: the files
# stay in RAM and go again, with a pause that grows, until they are sent or the operator
# presses Enter (then the wizard starts, with a shell among its choices).
PXE_UPLOAD=/usr/lib/cxrescue/upload
PXE_BUNDLE_ARG=

pxe_setup() {
	# Only a server that names itself takes uploads (scripts/pxe-serve writes cxrescue.server=
	# into every boot entry); images/pxe/ served by a plain TFTP server is a RAM boot as before.
	if [ -z "$CXR_SERVER_ARG" ]; then
		say "PXE boot without cxrescue.server=: nothing goes to a server (scripts/pxe-serve names itself)"
		return 0
	fi
	export CXR_SERVER_ARG
	export CXR_UPLOAD=$PXE_UPLOAD
	if net_up; then
		pxe_fetch_firmware
	else
		say "no network yet: backups cannot reach the server, so no card will be written (it is tried again before each upload)"
	fi
	[ "$CXR_JOB" = restore ] && pxe_fetch_bundle
}

# get REMOTE LOCAL: one file from the server, 3 tries.
pxe_get() {
	local try=1
	while [ $try -le 3 ]; do
		net_tftp -g "$2" "$1" && return 0
		rm -f "$2"
		# "File not found" is an answer, not a network failure: no point in asking again.
		grep -q "not found" "$NET_TFTP_ERR" && return 1
		try=$((try + 1))
		sleep 2
	done
	return 1
}

# firmware/INDEX lists "SHA-256  NAME" per image; each goes to the data folder's
# firmware/ (RAM) and is kept only when its SHA-256 is the listed one.
pxe_fetch_firmware() {
	local sum name n=0 bad=0
	net_load || return 1
	if ! pxe_get firmware/INDEX /run/cxrescue/firmware.index; then
		say "the server offers no firmware (firmware/INDEX: $(tail -n 1 "$NET_TFTP_ERR")): the image's own library only"
		return 0
	fi
	while read -r sum name; do
		case "$name" in '' | .* | *[!A-Za-z0-9._-]*) continue ;; esac
		if pxe_get "firmware/$name" "$CXR_DATA/firmware/$name" &&
			[ "$(sha256sum "$CXR_DATA/firmware/$name" | cut -d' ' -f1)" = "$sum" ]; then
			n=$((n + 1))
		else
			rm -f "$CXR_DATA/firmware/$name"
			say "firmware/$name: not fetched, or not the SHA-256 the server lists: left out"
			bad=$((bad + 1))
		fi
	done </run/cxrescue/firmware.index
	if [ $bad -eq 0 ]; then say "$n firmware file(s) from the server"; else say "$n firmware file(s) from the server, $bad left out"; fi
}

# cxrescue.bundle=kept/<file>.tar, from the server into backups/ in RAM, only when its
# SHA-256 is cxrescue.bundle_sha256= (what the server recorded when the node's upload was
# whole: a bundle swapped on the server since is never written). A failure leaves
# PXE_BUNDLE_ARG naming a folder that is not there: the job then refuses, and its report
# says why.
pxe_fetch_bundle() {
	local tar=/run/cxrescue/bundle.tar name
	PXE_BUNDLE_ARG="bundle=$CXR_DATA/backups/missing-${CXR_BUNDLE_REMOTE##*/}"
	[ -n "$CXR_BUNDLE_REMOTE" ] || { say "job=restore without cxrescue.bundle="; return 1; }
	net_load || return 1
	if [ ${#CXR_BUNDLE_SHA256} -ne 64 ]; then
		say "job=restore without cxrescue.bundle_sha256= (the SHA-256 the server recorded): $CXR_BUNDLE_REMOTE is not fetched"
		return 1
	fi
	if ! pxe_get "$CXR_BUNDLE_REMOTE" "$tar"; then
		say "cannot fetch $CXR_BUNDLE_REMOTE from $CXR_SERVER: $(tail -n 1 "$NET_TFTP_ERR")"
		return 1
	fi
	if [ "$(sha256sum "$tar" | cut -d' ' -f1)" != "$CXR_BUNDLE_SHA256" ]; then
		say "$CXR_BUNDLE_REMOTE from $CXR_SERVER is not the bundle the server recorded (SHA-256 differs): refused, nothing is written"
		rm -f "$tar"
		return 1
	fi
	name=$(tar -t -f "$tar" | head -n 1 | cut -d/ -f1)
	case "$name" in
	'' | . | .. | *[!A-Za-z0-9._-]*) say "$CXR_BUNDLE_REMOTE is not a backup bundle"; rm -f "$tar"; return 1 ;;
	esac
	if ! tar -x -f "$tar" -C "$CXR_DATA/backups"; then
		say "cannot unpack $CXR_BUNDLE_REMOTE"
		rm -f "$tar"
		return 1
	fi
	rm -f "$tar"
	# The server has it already: the flush does not send it back under this node's name.
	mkdir -p /run/cxrescue/uploaded
	echo fetched >"/run/cxrescue/uploaded/${CXR_NODE}_$name.tar"
	PXE_BUNDLE_ARG="bundle=$CXR_DATA/backups/$name"
	say "restore job: the bundle $name came from the server"
}

# Send everything not yet on the server; on this console. 0: all sent. 1: the operator
# pressed Enter first (the files stay in RAM).
pxe_flush() {
	local pause=10
	while :; do
		"$PXE_UPLOAD" flush && return 0
		echo "cxrescue: not everything is on the server; trying again in $pause s (Enter: stop trying, the files stay in RAM)"
		if read -r -t $pause _; then
			echo "cxrescue: stopped trying; what was not sent is still in $CXR_DATA"
			return 1
		fi
		[ $pause -lt 60 ] && pause=$((pause * 2))
	done
}
