# consoles.sh — which terminals get a front end, and the spare shell. Sourced by /init.

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
