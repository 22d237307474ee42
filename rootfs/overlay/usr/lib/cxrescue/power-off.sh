# power-off.sh — the cold restart at the end of a session, which must never be missed.
# Sourced by /init after consoles.sh and data-area.sh; /init calls power_off_cold last.
#
# These cards load new firmware only at a cold start, so the machine must really lose
# power. What Linux 6.1 does with `poweroff -f` (the reboot(POWER_OFF) system call), read
# in Debian's linux-source-6.1:
#   - with no power-off handler (no ACPI S5 and no EFI reset, e.g. QEMU -no-acpi), the call
#     is made a HALT (kernel/reboot.c, SYSCALL reboot: !kernel_can_power_off()): the CPU
#     stops after "System halted", the machine stays on, and nothing runs any more;
#   - with ACPI, acpi_power_off (drivers/acpi/sleep.c) turns interrupts off and writes
#     S5 to the chipset; if nothing happens, acpi_hw_legacy_sleep (acpica/hwsleep.c) waits
#     10 s, writes again, then loops until a wake status that nobody sets: the machine
#     stays on, and nothing runs any more either;
#   - only if a register access fails does the call return, after every device was shut
#     down and the local APIC stopped (arch/x86/kernel/reboot.c, native_machine_shutdown):
#     no timer fires, so nothing that sleeps wakes; straight-line code still runs.
# So the machine is asked first whether it can power off at all (power_off_way). When it
# cannot, it is not halted: every console says so, the stick's history records it, and
# the message comes again every 30 s. When it can, every console is told beforehand what
# to do if the machine is still on 30 s later, and if the call ever returns, the kernel's
# consoles (/dev/kmsg: written by polling, no interrupt needed) and tty1 say it again.
#
# The consoles: every working console and the screen (CXR_SAY, consoles.sh). A write that
# blocks (a serial port stopped by Ctrl-S) is given up after 3 s.
#
# UNCONFIRMED on real boards: that the ACPI line of dmesg is present on every board with
# a working S5; whether a board whose S5 fails ever returns from the call; whether the
# serial console still prints after the kernel shut the devices down.

# How the kernel can power this machine off: acpi, efi, none or unknown.
# acpi: drivers/acpi/sleep.c acpi_sleep_init prints "ACPI: PM: (supports S0 ... S5)" and
# registers acpi_power_off only when S5 is there. efi: with ACPI but no S5, an EFI boot
# powers off through EFI ResetSystem (drivers/firmware/efi/reboot.c, efi_poweroff_required
# in arch/x86/platform/efi/quirks.c; UNCONFIRMED that EFI runtime services are there).
# none: no ACPI at all (no /sys/firmware/acpi: acpi_init in drivers/acpi/bus.c stops before
# making it), or ACPI that says it has no S5, on a BIOS boot; this kernel has no APM.
# unknown: ACPI is there but its line is gone from the kernel's log; then it is tried.
power_off_way() {
	local pm
	pm=$(dmesg 2>/dev/null | grep -m 1 'ACPI: PM: (supports')
	case "$pm" in
	*" S5)"*) echo acpi; return ;;
	esac
	if [ ! -d /sys/firmware/acpi ]; then
		echo none
	elif [ -d /sys/firmware/efi ]; then
		echo efi
	elif [ -n "$pm" ]; then
		echo none
	else
		echo unknown
	fi
}

# The consoles to tell: every working console and the screen (CXR_SAY, consoles.sh), else
# each console= tty and tty1, once.
power_off_consoles() {
	local out= tty
	for tty in ${CXR_SAY:-$(console_ttys) /dev/tty1}; do
		[ -c "$tty" ] || continue
		case " $out " in *" $tty "*) continue ;; esac
		out="$out $tty"
	done
	echo "$out"
}

# power_off_tell LINE...: the lines on every console.
power_off_tell() {
	local tty
	for tty in $(power_off_consoles); do
		# shellcheck disable=SC2016 # the inner shell expands them
		timeout 3 sh -c 'tty=$1; shift; printf "%s\n" "$@" >"$tty"' sh "$tty" "$@" 2>/dev/null
	done
}

# power_off_history MESSAGE: a history.jsonl line (burner/rescue/journal.h's keys, in its
# order; no card: the power-off is for all of them) saying the power-off did not happen,
# on a line of its own, written through to the disk. The message has no quotes.
power_off_history() {
	local data="$CXR_DATA" file
	[ -r /run/cxrescue/data ] && data=$(sed -n 's/^CXR_DATA=//p' /run/cxrescue/data)
	[ -n "$data" ] && [ -d "$data" ] || return 1
	file=$data/history.jsonl
	# A broken last line (a power cut during a write) must not swallow this one.
	[ -s "$file" ] && [ "$(tail -c 1 "$file" | wc -l)" = 0 ] && echo >>"$file"
	printf '{"time":"%s","action":"power-off","card":{"bdf":null,"chip":null,"psid":null,"node_guid":null,"macs":null},"from":null,"to":null,"backup":null,"result":"failed","message":"%s","log":null}\n' \
		"$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$1" >>"$file" && sync
}

POWER_OFF_HOW="switch it off at its power switch, or pull its power cord(s), NOW: the new firmware runs only after that cold start."

# This board cannot power itself off: say so, record it, keep saying so; never returns.
power_off_by_hand() {
	local why="this board has no power-off the kernel can use (no ACPI power-off)"
	if power_off_history "$why: it was left on, to be switched off by hand"; then
		say "the power-off that did not happen is in the history (history.jsonl)"
	else
		say "the power-off that did not happen could not be written to the history"
	fi
	data_area_release
	while :; do
		power_off_tell "" "cxrescue: THIS BOARD DID NOT POWER OFF: $why." \
			"cxrescue: $POWER_OFF_HOW" "cxrescue: Nothing is being written any more."
		sleep 30
	done
}

# The call returned: the devices are shut down and no timer fires, so no sleep and no
# timeout here. The kernel's consoles print /dev/kmsg by polling; tty1 draws at once.
power_off_returned() {
	local line
	for line in "THIS BOARD DID NOT POWER OFF: the kernel's power-off returned." "$POWER_OFF_HOW"; do
		echo "<2>cxrescue: $line" >/dev/kmsg 2>/dev/null
		echo "cxrescue: $line" >/dev/tty1 2>/dev/null
	done
	# The stick's controller is shut down too, most likely: try, in the background.
	(mountpoint -q "$DATA_MNT" || mount -t vfat -o rw,flush "$CXR_DATA_DEV" "$DATA_MNT") 2>/dev/null &&
		power_off_history "the kernel's power-off returned: the board did not power off" &
}

# power_off_cold PIDS: end the other consoles' wizards (PIDS), put the stick away and
# power off, or say plainly that the user must. Never returns.
power_off_cold() {
	local way
	# The other consoles' wizards hold their logs open on the stick: end them (the one that
	# asked has ended; a write cannot be running, it holds the session lock power-off takes).
	# shellcheck disable=SC2086 # one word per process
	kill $1 2>/dev/null
	killall cxflash 2>/dev/null
	sleep 0.3
	way=$(power_off_way)
	[ "$way" = none ] && power_off_by_hand
	say "powering off (power-off through ${way})"
	data_area_release
	power_off_tell "" "cxrescue: powering off now, for a cold start. Nothing is being written any more." \
		"cxrescue: IF THIS MACHINE IS STILL ON 30 SECONDS FROM NOW (fans, lights, this text), IT DID NOT POWER OFF:" \
		"cxrescue: $POWER_OFF_HOW"
	CXR_DATA_DEV=$(sed -n 's/^CXR_DATA_DEV=//p' /run/cxrescue/data 2>/dev/null)
	poweroff -f
	power_off_returned
	# PID 1 must not exit.
	while :; do sleep 3600; done
}
