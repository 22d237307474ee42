# cad.sh — Ctrl-Alt-Del, taken by /init instead of the kernel. Sourced by /init.
#
# Left to the kernel, Ctrl-Alt-Del (a key on every BMC's remote console) reboots at once with
# nothing synced, in the middle of a burn too. With /proc/sys/kernel/ctrl-alt-del at 0 the
# kernel sends SIGINT to PID 1 instead (kernel/reboot.c, ctrl_alt_del), and /init decides:
# - while a card may be written, it refuses, with a line on every console. A write is known
#   by the wizards' session lock (burner/rescue/session.h: taken for every action that
#   writes, from the backup before it to its report), and by a cxflash command other than
#   the wizard running (from a shell, which takes no lock);
# - else it takes that lock itself (no wizard can start a write after the check), syncs,
#   releases the data area and reboots, saying so on every console.
# Needs say and say_apart (consoles.sh), data_area_release (data-area.sh) and FRONT_PIDS (/init).
CXR_LOCK=/run/cxrescue/wizard.lock

cad_setup() {
	trap cad_pressed INT
	echo 0 >/proc/sys/kernel/ctrl-alt-del
}

# The cxflash commands running besides the wizards ("pid 12: cxflash -d 01:00.0 burn x.bin"),
# one per line.
cad_other_cxflash() {
	local d cmd
	for d in /proc/[0-9]*; do
		cmd=$(tr '\0' ' ' <"$d/cmdline" 2>/dev/null)
		case "$cmd" in
		cxflash\ rescue* | */cxflash\ rescue*) ;;
		cxflash\ * | */cxflash\ *) echo "pid ${d#/proc/}: ${cmd% }" ;;
		esac
	done
}

cad_refuse() {
	say_apart "Ctrl-Alt-Del refused: $1; nothing is rebooted. Press it again once that has ended."
}

# End the front ends' loops and the wizards, whose logs are open on the stick: a wizard defers
# SIGTERM while it has a card open (burner/util/signals.h), so it gets 5 s, then SIGKILL (no write
# runs: /init holds the session lock). A log still open would keep the stick from unmounting.
cad_end_wizards() {
	local n=0
	# shellcheck disable=SC2086 # a list of pids
	kill $FRONT_PIDS 2>/dev/null
	killall cxflash 2>/dev/null
	while pidof cxflash >/dev/null && [ $n -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	killall -KILL cxflash 2>/dev/null && sleep 0.2
}

cad_pressed() {
	local holder other
	# exec is a special built-in: a redirection it cannot make would end PID 1. Check first.
	if ! touch "$CXR_LOCK" 2>/dev/null || [ ! -w "$CXR_LOCK" ]; then
		cad_refuse "the session lock $CXR_LOCK cannot be opened"
		return
	fi
	exec 9<>"$CXR_LOCK"
	if ! flock -n -x 9; then
		holder=$(cat "$CXR_LOCK" 2>/dev/null)
		exec 9<&-
		cad_refuse "a card write runs (the wizard on ${holder:-another console} is in an action that writes)"
		return
	fi
	other=$(cad_other_cxflash | head -n 1)
	if [ -n "$other" ]; then
		flock -u 9
		exec 9<&-
		cad_refuse "cxflash runs from a shell ($other)"
		return
	fi
	# The label a wizard shows when it cannot take the lock (session.c, holder).
	echo "Ctrl-Alt-Del: the machine reboots" >"$CXR_LOCK"
	trap '' INT
	say_apart "Ctrl-Alt-Del: no card write runs: syncing, releasing the data area, rebooting."
	say "(A reboot does not load new card firmware: that takes a power-off.)"
	cad_end_wizards
	data_area_release
	say "rebooting"
	reboot -f
}
