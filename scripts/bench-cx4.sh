#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-cx4.sh — q, v and a cross-flash burn on a ConnectX-4 Lx (FS3) and a ConnectX-5 (FS4), in
# recovery mode (-rec: the flash gateway) and with their firmware running (-run: ICMD access
# registers): Debian's mstflint 4.21 beside cxflash, on the same simulated card.
#
#   scripts/bench-cx4.sh BUILD_DIR        (make bench runs it)
#
# Each tool runs once per verb against its own fresh copy of one card: cxsim create --chip
# cx4lx|cx5 [--recovery], a 16 MiB W25Q128JV holding an mkfs3 OEM image (PSID HP_2420110034,
# 1 MiB slots, no ROM) in slot 0, served over FUSE. The burn is the stock image of another
# PSID: `mstflint -allow_psid_change -y burn` and `cxflash --allow_psid_change -y --no-backup
# burn` (the failsafe burn both do; cxflash's backup of a 16 MiB flash would
# be a row of its own). Printed: per chip and verb, each tool's config accesses, model time
# (1 µs per access plus its sleeps and the flash's busy times, sim/README.md), bytes read
# and programmed, and the ratio cxflash/mstflint. A run counts only if it exits 0 and, for the
# burn, `cxsim boot-check` then boots the new image; otherwise the bench stops with status 1.
# It measures and never asserts a speed. Needs root, /dev/fuse, unshare, Debian's mstflint,
# BUILD_DIR/host/{mkfs3,cxsim,cxsim-sleep.so,cxsim-sleep-trace} and burner/cxflash.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${1:?usage: $0 BUILD_DIR}
MKFS3=$B/host/mkfs3 CXSIM=$B/host/cxsim TRACE=$B/host/cxsim-sleep-trace CXFLASH=$ROOT/burner/cxflash
BDF=0000:01:00.0
W=$(mktemp -d /tmp/bench-cx4.XXXXXX)
SERVER=
trap '[ -z "$SERVER" ] || kill -TERM "$SERVER" 2>/dev/null; rm -rf "$W"' EXIT

die() { printf 'bench-cx4: %s\n' "$*" >&2; exit 1; }

serve() {
	: >"$W/serve.log"
	"$CXSIM" serve "$W/sys" "$1" >>"$W/serve.log" 2>&1 &
	SERVER=$!
	for _ in $(seq 300); do
		grep -q serving "$W/serve.log" && return 0
		sleep 0.1
	done
	die "cxsim serve did not start: $(cat "$W/serve.log")"
}

unserve() {
	kill -TERM "$SERVER"
	wait "$SERVER" || die "cxsim serve failed: $(cat "$W/serve.log")"
	SERVER=
}

# STEM TOOL ARGV...: run on a fresh copy of the card; prints "accesses ms read programmed"
measure() {
	local stem=$1 tool=$2 log=$W/$2.log
	shift 2
	cp "$W/card.conf" "$stem.conf"
	cp "$W/card.flash" "$stem.flash"
	serve "$stem"
	case $tool in
	mstflint) CXSIM_SHIM=$B/host/cxsim-sleep.so "$ROOT/scripts/mstflint-ns" "$W/sys" -- mstflint -d "$BDF" "$@" ;;
	cxflash) CXSIM_CLOCK=$W/sys/cxsim/clock CXFLASH_LOCK_DIR=$W/locks "$TRACE" "$CXFLASH" --sysfs "$W/sys" -d "$BDF" "$@" ;;
	esac >"$log" 2>&1 </dev/null || { unserve; die "$tool $*: $(tail -3 "$log")"; }
	unserve
	python3 -c '
import json, sys
k = json.load(open(sys.argv[1]))["cards"][0]["counters"]
print(k["cfg_reads"] + k["cfg_writes"], k["time_ns"] / 1e6, k["bytes_read"], k["bytes_programmed"])' "$stem.stats"
}

printf '%-12s %-5s %28s %28s %12s\n' card verb "mstflint: accesses ms KiB-r" "cxflash: accesses ms KiB-r" "ratio t/acc"
for card in cx4lx-rec cx5-rec cx4lx-run cx5-run; do
	chip=${card%-*}
	case $card in *-rec) strap=--recovery ;; *) strap= ;; esac
	case $chip in cx4lx) old=14.32.1010 new=14.32.1020 ;; cx5) old=16.35.4030 new=16.35.4040 ;; esac
	"$MKFS3" --chip "$chip" -o "$W/oem.bin" --slot-log 20 --no-rom --fw "$old" --psid HP_2420110034 >/dev/null
	"$MKFS3" --chip "$chip" -o "$W/new.bin" --slot-log 20 --no-rom --fw "$new" --psid MT_2420110034 >/dev/null
	# shellcheck disable=SC2086
	"$CXSIM" create "$W/card" --chip "$chip" --image "$W/oem.bin" $strap >/dev/null
	for verb in q v burn; do
		case $verb in
		burn) m=(-i "$W/new.bin" -allow_psid_change -y burn) c=(-i "$W/new.bin" --allow_psid_change -y --no-backup burn) ;;
		*) m=("$verb") c=("$verb") ;;
		esac
		read -r ma mt mr _ < <(measure "$W/m" mstflint "${m[@]}")
		[ "$verb" != burn ] || "$CXSIM" boot-check "$W/m" | grep -q "FW version: *$new" || die "mstflint's burn: $new does not boot"
		read -r ca ct cr _ < <(measure "$W/c" cxflash "${c[@]}")
		[ "$verb" != burn ] || "$CXSIM" boot-check "$W/c" | grep -q "FW version: *$new" || die "cxflash's burn: $new does not boot"
		printf '%-12s %-5s %12s %8.1f %6d %12s %8.1f %6d %5.2f %5.2f\n' $card $verb "$ma" "$mt" $((mr / 1024)) \
			"$ca" "$ct" $((cr / 1024)) "$(awk -v a="$ct" -v b="$mt" 'BEGIN{print a / b}')" \
			"$(awk -v a="$ca" -v b="$ma" 'BEGIN{print a / b}')"
	done
done
