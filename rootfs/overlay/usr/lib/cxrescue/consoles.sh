# consoles.sh — which terminals get a front end, where /init's lines go, and the spare
# shell. Sourced by /init.
#
# The boot menus name the screen and both serial ports (console=tty0 console=ttyS0
# console=ttyS1): ttyS1 (COM2) is where Dell iDRAC and HPE iLO put serial-over-LAN. The
# device nodes ttyS0-3 exist whether or not a UART is behind them, and a port with none
# fails every read and write with EIO (serial_core.c, uart_port_startup: PORT_UNKNOWN), so
# each console= port is checked, and one without a UART gets no front end.

# The console= devices of the command line, as /dev paths, in order; tty0 means the
# active virtual console, tty1 at boot. Without any, /dev/console.
console_ttys() {
	local word dev out=
	for word in $(cat /proc/cmdline); do
		case "$word" in
		console=*)
			dev=${word#console=}
			dev=${dev%%,*}
			[ "$dev" = tty0 ] && dev=tty1
			[ -c "/dev/$dev" ] || continue
			case " $out " in *" /dev/$dev "*) continue ;; esac
			out="$out /dev/$dev"
			;;
		esac
	done
	echo "${out:-/dev/console}"
}

# console_works TTY: false for a serial port with no UART behind it. serial_core gives each
# port's UART type in sysfs (DEVICE_ATTR_RO(type), drivers/tty/serial/serial_core.c): 0 is
# PORT_UNKNOWN (include/uapi/linux/serial.h), what the 8250 driver leaves when nothing
# answers at the port's address. A terminal without that file (a virtual console) works.
console_works() {
	local type f="${CXR_SYSFS:-/sys}/class/tty/${1#/dev/}/type"   # CXR_SYSFS: tests' own tree
	[ -r "$f" ] || return 0
	read -r type <"$f" || return 0
	[ "$type" != 0 ]
}

# consoles_setup: CXR_TTYS, the consoles that work (the front ends' terminals), and
# CXR_DEAD, the console= ports without a UART; CXR_SAY, where /init's lines go: every
# working console and the screen (tty1), which /dev/console alone is not (it is only the
# last console=). When no console= works, the screen, or /dev/console without one.
consoles_setup() {
	local tty
	CXR_TTYS='' CXR_DEAD=''
	for tty in $(console_ttys); do
		if console_works "$tty"; then
			CXR_TTYS="$CXR_TTYS $tty"
		else
			CXR_DEAD="$CXR_DEAD ${tty#/dev/}"
		fi
	done
	if [ -z "$CXR_TTYS" ]; then
		CXR_TTYS=/dev/console
		[ -c /dev/tty1 ] && CXR_TTYS=/dev/tty1
	fi
	CXR_SAY=$CXR_TTYS
	case " $CXR_SAY " in *" /dev/tty1 "*) ;; *) [ -c /dev/tty1 ] && CXR_SAY="$CXR_SAY /dev/tty1" ;; esac
}

# say TEXT: one line of /init's on every console of CXR_SAY (/dev/console before
# consoles_setup). A console that fails is left alone: the others still get the line.
say() {
	local tty
	for tty in ${CXR_SAY:-/dev/console}; do
		echo "cxrescue: $*" >"$tty" 2>/dev/null
	done
}

# say_apart TEXT: say, on a line of its own: for what comes in the middle of another
# program's output (Ctrl-Alt-Del during a progress bar, cad.sh).
say_apart() {
	local tty
	for tty in ${CXR_SAY:-/dev/console}; do
		printf '\ncxrescue: %s\n' "$*" >"$tty" 2>/dev/null
	done
}

# consoles_report: a line for each console= port skipped, on the consoles that work.
consoles_report() {
	local tty
	for tty in $CXR_DEAD; do
		say "$tty: no UART behind this port (/sys/class/tty/$tty/type is 0): no front end there"
	done
}

# The job's console: the last working one (the kernel's own console, /dev/console, when it
# works; it is the last console=).
job_tty() {
	local tty last=
	for tty in $CXR_TTYS; do last=$tty; done
	echo "$last"
}

# A front end that ends soon after its start FRONT_TRIES times in a row is not started again
# on that console: each start opens a new log on the stick (burner/rescue/journal.c), and a
# console that fails at once would write one every few seconds for as long as the machine runs.
FRONT_QUICK=30   # seconds: an end sooner than this counts
FRONT_TRIES=5

uptime_s() { cut -d. -f1 /proc/uptime; }

# front_again TTY RC STARTED: after a front end on TTY ended with status RC (not 0), STARTED
# being uptime_s at its start. Counts the quick ends in FRONT_FAILS (one count per console:
# each front end's loop runs in a subshell of its own); false, with a line on every console,
# when it must not start again.
front_again() {
	if [ $(($(uptime_s) - $3)) -lt "$FRONT_QUICK" ]; then
		FRONT_FAILS=$((${FRONT_FAILS:-0} + 1))
	else
		FRONT_FAILS=0
	fi
	[ "$FRONT_FAILS" -lt "$FRONT_TRIES" ] && return 0
	say "${1#/dev/}: the front end ended $FRONT_FAILS times in a row within ${FRONT_QUICK} s (status $2):" \
		"not started there again; the other consoles and the shell (Alt-F2) stay"
	return 1
}

# A shell on the second virtual console (Alt-F2), when there is one.
shell_on_tty2() {
	[ -c /dev/tty2 ] || return 0
	(
		while :; do
			setsid -c sh -l <>/dev/tty2 >&0 2>&1
			sleep 1
		done
	) &
}
