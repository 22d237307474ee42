#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-mstflint.sh — every verb, Debian's mstflint 4.21 beside cxflash, on one simulated card.
#
#   scripts/bench-mstflint.sh BUILD_DIR [--json FILE] [--part PART] [--verbs LIST]
#   make bench-mstflint [BENCH_JSON=FILE]
#
# Verbs, in this order: q v ri burn drom brom sg backup restore config-q config-set
# (--verbs q,burn,... runs only those). For each one, each tool runs once against its own
# fresh copy of the same simulated ConnectX-3 (cxsim create --chip cx3 --flash PART, default
# W25Q16, holding a 0.96 MiB FS2 image, FW 2.40.7000 with a PXE expansion ROM, in slot 0),
# served by `cxsim serve` over FUSE, so every number starts from the same state. Both tools
# get the same files. mstflint and mstconfig run in scripts/mstflint-ns with cxsim-sleep.so
# preloaded; cxflash is static and takes no preload, so it runs under cxsim-sleep-trace,
# which turns its sleeps into the same writes to the model's clock.
#
# Time is the model's, not hardware's: 1 µs per config access plus the tool's sleeps, the
# flash busy for its part's datasheet typical times (sim/README.md). Accesses are the card's
# config reads + writes (both tools use the 0x58/0x5c window over FUSE); erased, programmed
# and read are the flash's bytes, from the card's stats after the server stops. Printed: one
# line per verb, each tool's numbers side by side and cxflash/mstflint for time and
# accesses, then each command. --json FILE (or $BENCH_JSON) writes the same numbers and the
# commands as JSON. Wall time (FUSE's, ~10-25k accesses a second) is only in the JSON.
#
# mstflint's counterparts: backup is `rb 0 FLASH_SIZE` (flint has no backup verb; rb reads
# the whole flash), restore is `wb DUMP 0` (the whole flash written back: every sector
# erased, not failsafe). cxflash writes with --no-backup (by default every write first
# makes the backup bundle the backup row costs). drom and brom need --allow_rom_change for
# both: the image has a Product Version. restore starts from the card as cxflash's burn left
# it (FW 2.42.5000 in slot 1) and puts back the fresh card's flash: cxflash from the bundle
# its backup row made, mstflint from that flash's raw dump (what its rb row read).
#
# Each run counts only if it did its job: exit status 0, and its result (q and v: what they
# print; ri: the image file; backup: the dump equal to the flash; writes: `cxsim boot-check`
# and the image on the flash as cxflash reads the dump: the new version, ROM, GUIDs, flash or
# settings). Otherwise the bench stops with exit status 1 and the tool's output: a failed
# run never gives a number. It measures and never asserts a speed.
#
# Needs root (FUSE, mount namespaces), /dev/fuse, unshare, Debian's mstflint and mstconfig,
# x86-64 (the sleep tracer), and BUILD_DIR/host/{mkfs2,cxsim,cxsim-sleep.so,cxsim-sleep-trace}
# and burner/cxflash (make's prerequisites). BENCH_KEEP=1 keeps the work folder; BENCH_DDR=N
# makes images of N DDR sections of 16 KiB instead of 60 (a quicker try: 2).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ALL_VERBS=(q v ri burn drom brom sg backup restore config-q config-set)
BDF=0000:01:00.0
OLD_FW=2.40.7000 NEW_FW=2.42.5000 NEW_ROM=3.4.800
SG_GUID=0002c90300c0ffe0 SG_MAC=0002c9c0ffe0
SETTINGS=(SRIOV_EN=1 NUM_OF_VFS=16)
SERVER=

die() { printf 'bench-mstflint: %s\n' "$*" >&2; exit 1; }

usage() {
	echo "usage: $0 BUILD_DIR [--json FILE] [--part PART] [--verbs q,v,...]" >&2
	exit 2
}

parse_args() {
	[ $# -ge 1 ] || usage
	B=$1; shift
	JSON_OUT=${BENCH_JSON:-} PART=W25Q16 VERBS=("${ALL_VERBS[@]}")
	while [ $# -gt 0 ]; do
		case $1 in
		--json) [ $# -ge 2 ] || usage; JSON_OUT=$2; shift 2 ;;
		--part) [ $# -ge 2 ] || usage; PART=$2; shift 2 ;;
		--verbs) [ $# -ge 2 ] || usage; IFS=, read -r -a VERBS <<<"$2"; shift 2 ;;
		*) usage ;;
		esac
	done
	local v
	for v in "${VERBS[@]}"; do
		[[ " ${ALL_VERBS[*]} " == *" $v "* ]] || die "unknown verb $v (verbs: ${ALL_VERBS[*]})"
	done
	[ -z "$JSON_OUT" ] || JSON_OUT=$(realpath -m "$JSON_OUT")
}

check_tools() {
	MKFS2=$B/host/mkfs2 CXSIM=$B/host/cxsim TRACE=$B/host/cxsim-sleep-trace CXFLASH=$ROOT/burner/cxflash
	local f
	for f in "$MKFS2" "$CXSIM" "$TRACE" "$B/host/cxsim-sleep.so" "$CXFLASH" /usr/bin/mstflint; do
		[ -x "$f" ] || [ -f "$f" ] || die "$f is missing (make bench-mstflint builds what it needs)"
	done
	command -v mstconfig >/dev/null || die "no mstconfig (Debian package mstflint)"
	[ "$(id -u)" = 0 ] || die "needs root (FUSE mounts, mount namespaces)"
	[ -e /dev/fuse ] || die "no /dev/fuse"
}

cleanup() {
	[ -z "$SERVER" ] || { kill -TERM "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null || true; }
	fusermount3 -u "$W/sys" 2>/dev/null || true
	if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "work folder kept: $W" >&2; else rm -rf "$W"; fi
}

# The images, the ROM file and the card every run starts from ($W/cards/fresh).
make_inputs() {
	mkdir -p "$W/cards" "$W/logs" "$W/out" "$W/locks"
	# 60 DDR sections of 16 KiB: 0.96 MiB, the largest round size that fits a 1 MiB slot.
	local ddr=(--ddr "${BENCH_DDR:-60}" --ddr-size 0x4000)
	"$MKFS2" -o "$W/old.bin" --chip cx3 "${ddr[@]}" --fw "$OLD_FW" >/dev/null
	"$MKFS2" -o "$W/new.bin" --chip cx3 "${ddr[@]}" --fw "$NEW_FW" --seed 2 >/dev/null
	"$MKFS2" --rom-only "$W/new.rom" --chip cx3 --rom-ver "$NEW_ROM" >/dev/null
	"$CXSIM" create "$W/cards/fresh" --chip cx3 --flash "$PART" --image "$W/old.bin" --slot 0 >/dev/null
	cp "$W/cards/fresh.flash" "$W/dump.bin"
	FLASH_SIZE=$(stat -c %s "$W/dump.bin")
	FRESH_NODE=$(card_facts "$W/cards/fresh" | sed -n 's/^node=//p')
	FRESH_MAC=$(card_facts "$W/cards/fresh" | sed -n 's/^mac=//p')
}

copy_card() {  # FROM TO: a card's files (its settings store too, when it has one)
	local ext
	rm -f "$2".*
	for ext in conf flash nv; do
		[ ! -e "$1.$ext" ] || cp "$1.$ext" "$2.$ext"
	done
}

serve() {  # STEM: serve that card at $W/sys until unserve
	# Emptied here, not by the redirection below: that runs in the child, maybe after the
	# first grep, which would then find the last server's "serving".
	: >"$W/serve.log"
	"$CXSIM" serve "$W/sys" "$1" >>"$W/serve.log" 2>&1 &
	SERVER=$!
	for _ in $(seq 300); do
		grep -q serving "$W/serve.log" && return 0
		kill -0 "$SERVER" 2>/dev/null || break
		sleep 0.1
	done
	cat "$W/serve.log" >&2
	die "cxsim serve did not start"
}

unserve() {  # stop the server: it saves the card and writes STEM.stats
	local pid=$SERVER
	SERVER=
	kill -TERM "$pid"
	wait "$pid" || { cat "$W/serve.log" >&2; die "cxsim serve failed"; }
}

run_tool() {  # TOOL LOG ARGV...: one tool against the served card, its output to LOG
	local tool=$1 log=$2
	shift 2
	case $tool in
	mstflint) CXSIM_SHIM=$B/host/cxsim-sleep.so "$ROOT/scripts/mstflint-ns" "$W/sys" -- "$@" ;;
	cxflash) CXSIM_CLOCK=$W/sys/cxsim/clock CXFLASH_LOCK_DIR=$W/locks \
		"$TRACE" "$CXFLASH" --sysfs "$W/sys" "$@" ;;
	esac >"$log" 2>&1 </dev/null
}

bundle() { find "$W/bundles" -mindepth 1 -maxdepth 1 -type d -name 'cx3-*' 2>/dev/null | head -1; }

# ARGV: the command line of VERB for TOOL (mstflint's argv[0] is mstflint or mstconfig).
argv_for() {
	local verb=$1 tool=$2
	if [ "$tool" = mstflint ]; then
		case $verb in
		q | v) ARGV=(mstflint -d "$BDF" "$verb") ;;
		ri) ARGV=(mstflint -d "$BDF" ri "$W/out/ri-mstflint.bin") ;;
		burn) ARGV=(mstflint -d "$BDF" -i "$W/new.bin" -y burn) ;;
		drom) ARGV=(mstflint -d "$BDF" -y --allow_rom_change drom) ;;
		brom) ARGV=(mstflint -d "$BDF" -y --allow_rom_change brom "$W/new.rom") ;;
		sg) ARGV=(mstflint -d "$BDF" -guid "$SG_GUID" -mac "$SG_MAC" -y sg) ;;
		backup) ARGV=(mstflint -d "$BDF" rb 0 "$(printf '0x%x' "$FLASH_SIZE")" "$W/out/rb.bin") ;;
		restore) ARGV=(mstflint -d "$BDF" -y wb "$W/dump.bin" 0) ;;
		config-q) ARGV=(mstconfig -d "$BDF" q) ;;
		config-set) ARGV=(mstconfig -d "$BDF" -y set "${SETTINGS[@]}") ;;
		esac
	else
		case $verb in
		q | v) ARGV=(-d "$BDF" "$verb") ;;
		ri) ARGV=(-d "$BDF" ri "$W/out/ri-cxflash.bin") ;;
		burn) ARGV=(-d "$BDF" -i "$W/new.bin" -y --no-backup burn) ;;
		drom) ARGV=(-d "$BDF" -y --no-backup --allow_rom_change drom) ;;
		brom) ARGV=(-d "$BDF" -y --no-backup --allow_rom_change brom "$W/new.rom") ;;
		sg) ARGV=(-d "$BDF" -y --no-backup sg --guid "$SG_GUID" --mac "$SG_MAC") ;;
		backup) ARGV=(-d "$BDF" backup "$W/bundles") ;;
		restore) ARGV=(-d "$BDF" -y --no-backup restore "$(bundle)") ;;
		config-q) ARGV=(-d "$BDF" config q) ;;
		config-set) ARGV=(-d "$BDF" -y config set "${SETTINGS[@]}") ;;
		esac
	fi
}

# What the card holds after a run, one key=value a line: the boot ROM model's view
# (cxsim boot-check) and the image on its flash as cxflash reads the dump.
card_facts() {
	local stem=$1
	python3 - "$("$CXSIM" boot-check "$stem" --json)" \
		"$("$CXFLASH" --json --striped_image -i "$stem.flash" q 2>/dev/null || echo '{}')" <<'PY'
import json, sys
b, q = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"booted={b.get('booted')}")
print(f"slot={b.get('slot')}")
print(f"fw={b.get('fw_version')}")
print(f"node={(b.get('guids') or {}).get('node')}")
print(f"mac={(b.get('macs') or {}).get('port1')}")
print("roms=" + ",".join(f"{r['type']} {r['version']}" for r in q.get("roms") or []))
for k, v in sorted(((b.get("next_boot_settings") or {}).get("values") or {}).items()):
    print(f"setting {k}={v}")
PY
}

expect_facts() {  # STEM FACT...: each FACT is a line of card_facts
	local facts f
	facts=$(card_facts "$1")
	shift
	for f in "$@"; do
		grep -qxF "$f" <<<"$facts" || { printf '%s\n' "$facts" >&2; echo "expected: $f" >&2; return 1; }
	done
}

# Did the run of VERB do its job? Output in LOG, the card at STEM.
check_run() {
	local verb=$1 tool=$2 stem=$3 log=$4 node=$FRESH_NODE mac=$FRESH_MAC
	case $verb in
	q) grep -Eq "^FW Version: +$OLD_FW" "$log" && grep -q 'PXE.*version=3.4.752' "$log" ;;
	v) grep -q 'FW image verification succeeded' "$log" ;;
	ri) cmp -s "$W/out/ri-$tool.bin" "$W/old.bin" ;;
	burn) expect_facts "$stem" booted=True "fw=$NEW_FW" "node=$node" "mac=$mac" "roms=PXE 3.4.752" ;;
	drom) expect_facts "$stem" booted=True "fw=$OLD_FW" "node=$node" roms= ;;
	brom) expect_facts "$stem" booted=True "fw=$OLD_FW" "node=$node" "roms=PXE $NEW_ROM" ;;
	sg) expect_facts "$stem" booted=True "fw=$OLD_FW" "node=$SG_GUID" "mac=$SG_MAC" "roms=PXE 3.4.752" ;;
	backup) if [ "$tool" = mstflint ]; then cmp -s "$W/out/rb.bin" "$W/dump.bin"
		else [ -n "$(bundle)" ] && cmp -s "$(bundle)/flash.bin" "$W/dump.bin"; fi ;;
	restore) cmp -s "$stem.flash" "$W/dump.bin" && expect_facts "$stem" booted=True slot=0 "fw=$OLD_FW" ;;
	config-q) grep -Eq '^ +SRIOV_EN +False\(0\)' "$log" && grep -Eq '^ +NUM_OF_VFS +8' "$log" ;;
	config-set) expect_facts "$stem" "setting SRIOV_EN=1" "setting NUM_OF_VFS=16" ;;
	esac
}

# restore starts from the card as cxflash's burn left it and needs the bundle of cxflash's
# backup: when those rows have not run (--verbs), cxflash makes them here, unmeasured.
prepare_restore() {
	[ -e "$W/cards/burned.flash" ] || prepare burn
	[ -n "$(bundle)" ] || prepare backup
}

prepare() {  # VERB: cxflash's run of it on a fresh card, checked, not measured
	local stem=$W/cards/prep-$1 log=$W/logs/prep-$1.log
	echo "  (for restore: cxflash $1, not measured)"
	copy_card "$W/cards/fresh" "$stem"
	argv_for "$1" cxflash
	serve "$stem"
	run_tool cxflash "$log" "${ARGV[@]}" || { unserve; failed "$1" cxflash "$log"; }
	unserve
	check_run "$1" cxflash "$stem" "$log" || failed "$1" cxflash "$log" "its result is not what it should be"
	[ "$1" != burn ] || copy_card "$stem" "$W/cards/burned"
}

failed() {  # VERB TOOL LOG [WHY]
	echo "=== output of $2 $1 ===" >&2
	cat "$3" >&2
	echo >&2
	die "$2 $1 failed${4:+: $4}; no numbers are reported for it"
}

# One measured run: a fresh copy of the start card, served alone, the command, its check,
# then the card's counters appended to $W/results.jsonl.
measure() {
	local verb=$1 tool=$2 stem=$W/cards/$1-$2 log=$W/logs/$1-$2.log rc=0 t0 t1
	if [ "$verb" = restore ]; then
		prepare_restore
		copy_card "$W/cards/burned" "$stem"
	else
		copy_card "$W/cards/fresh" "$stem"
	fi
	argv_for "$verb" "$tool"
	serve "$stem"
	t0=$(date +%s.%N)
	run_tool "$tool" "$log" "${ARGV[@]}" || rc=$?
	t1=$(date +%s.%N)
	unserve
	[ "$rc" = 0 ] || failed "$verb" "$tool" "$log" "exit status $rc"
	check_run "$verb" "$tool" "$stem" "$log" || failed "$verb" "$tool" "$log" "its result is not what it should be"
	[ "$verb/$tool" != burn/cxflash ] || copy_card "$stem" "$W/cards/burned"
	record "$verb" "$tool" "$stem" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b - a}')"
}

record() {  # VERB TOOL STEM WALL
	local shown
	if [ "$2" = cxflash ]; then shown="cxflash ${ARGV[*]}"; else shown="${ARGV[*]}"; fi
	python3 - "$1" "$2" "$3.stats" "$4" "${shown//"$W"\//}" >>"$W/results.jsonl" <<'PY'
import json, sys
verb, tool, stats, wall, cmd = sys.argv[1:]
c = json.load(open(stats))["cards"][0]["counters"]
print(json.dumps({"verb": verb, "tool": tool, "command": cmd,
                  "time_s": c["time_ns"] / 1e9, "accesses": c["cfg_reads"] + c["cfg_writes"],
                  "cfg_reads": c["cfg_reads"], "cfg_writes": c["cfg_writes"],
                  "bytes_erased": c["bytes_erased"], "bytes_programmed": c["bytes_programmed"],
                  "bytes_read": c["bytes_read"], "erases": c["erases"], "gw_cmds": c["gw_cmds"],
                  "tools_cmds": c["tools_cmds"], "wall_s": round(float(wall), 1)}))
PY
}

# The table, the legend, and the JSON: everything from $W/results.jsonl.
report() {
	python3 - "$W/results.jsonl" "$JSON_OUT" "$PART" "$FLASH_SIZE" "$(stat -c %s "$W/old.bin")" \
		"$(mstflint --version | head -1)" "$("$CXFLASH" --version)" "${VERBS[*]}" <<'PY'
import datetime, json, sys
res, out, part, flash, image, mver, cver, verbs = sys.argv[1:]
runs = {(r["verb"], r["tool"]): r for r in map(json.loads, open(res))}
date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
kib = lambda n: f"{n / 1024:,.0f}"
def ratio(a, b):
    return round(a / b, 2) if b else None
def cells(r):
    if r is None:
        return ["n/a", "", "", "", ""]
    return [f"{r['time_s']:.3f}", f"{r['accesses']:,}", kib(r["bytes_erased"]),
            kib(r["bytes_programmed"]), kib(r["bytes_read"])]
rows = []
for v in verbs.split():
    m, c = runs.get((v, "mstflint")), runs.get((v, "cxflash"))
    rt = ratio(c["time_s"], m["time_s"]) if m and c else None
    ra = ratio(c["accesses"], m["accesses"]) if m and c else None
    rows.append({"verb": v, "mstflint": m, "cxflash": c, "ratio_time": rt, "ratio_accesses": ra})
head = ["time s", "accesses", "erase", "prog", "read"]
wid = [8, 11, 6, 6, 6]
print(f"{cver} beside {mver.split(',')[1].strip()}, {date}: a simulated ConnectX-3, "
      f"{part} ({int(flash) // 1024} KiB), image {int(image):,} bytes with a PXE ROM")
print("Time is the model's (1 us per config access + the tool's sleeps + datasheet flash times),"
      " not hardware's;\naccesses = config reads + writes; erase/prog/read = flash KiB.\n")
print(f"{'':11}| {'mstflint':^{sum(wid) + 4}} | {'cxflash':^{sum(wid) + 4}} | cxflash/mstflint")
print(f"{'verb':11}| " + " ".join(f"{h:>{w}}" for h, w in zip(head, wid)) + " | "
      + " ".join(f"{h:>{w}}" for h, w in zip(head, wid)) + " |  time  accesses")
for r in rows:
    fm = " ".join(f"{x:>{w}}" for x, w in zip(cells(r["mstflint"]), wid))
    fc = " ".join(f"{x:>{w}}" for x, w in zip(cells(r["cxflash"]), wid))
    rt = f"{r['ratio_time']:.2f}" if r["ratio_time"] is not None else "n/a"
    ra = f"{r['ratio_accesses']:.2f}" if r["ratio_accesses"] is not None else "n/a"
    print(f"{r['verb']:11}| {fm} | {fc} | {rt:>5} {ra:>9}")
print("\ncommands (BDF 0000:01:00.0; cxflash also gets --sysfs, mstflint runs in scripts/mstflint-ns):")
for r in rows:
    for t in ("mstflint", "cxflash"):
        print(f"  {r['verb'] if t == 'mstflint' else '':11}{(r[t] or {}).get('command', 'n/a')}")
print("""notes:
  burn drom brom sg restore: cxflash with --no-backup (by default each first writes the bundle
    that the backup row measures); drom brom: --allow_rom_change for both (the image has a
    Product Version).
  backup: flint has no backup verb; rb reads the whole flash once. cxflash reads it twice,
    compares, and writes a checked bundle (the card's settings too).
  restore: both start from the card as cxflash's burn left it (FW 2.42.5000 in slot 1);
    flint's wb erases and writes the whole flash (not failsafe); cxflash restores failsafe,
    erasing and programming only what differs, and verifies the whole flash.
  sleeps: mstflint's through cxsim-sleep.so, cxflash's through cxsim-sleep-trace.""")
if out:
    doc = {"date": date, "mstflint": mver, "cxflash": cver, "card": {"chip": "cx3", "flash": part,
           "flash_bytes": int(flash), "image_bytes": int(image)},
           "time": "model: 1 us per config access + the tool's sleeps + datasheet flash times",
           "rows": rows}
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"\nJSON: {out}")
PY
}

main() {
	parse_args "$@"
	check_tools
	W=$(mktemp -d /tmp/cxr-bench-XXXXXX)
	trap cleanup EXIT
	make_inputs
	local verb tool start=$SECONDS
	for verb in "${VERBS[@]}"; do
		for tool in mstflint cxflash; do
			echo "  $verb: $tool ..."
			measure "$verb" "$tool"
		done
	done
	echo "  ($((SECONDS - start)) s of FUSE)"
	echo
	report
}

main "$@"
