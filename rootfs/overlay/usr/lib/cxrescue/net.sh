# net.sh — a PXE-booted node and its server: the boot NIC, the lease, the server's
# address, and the node's name for its uploads. Sourced by /init and by upload.
#
# The boot NIC is the one pxelinux names with BOOTIF=01-aa-bb-cc-dd-ee-ff (IPAPPEND 2 in
# the boot menu and in every file pxe-serve writes), else the first Ethernet NIC. The
# server is cxrescue.server= (pxe-serve writes it), else the lease's boot server
# (siaddr), else the DHCP server that answered. /run/cxrescue/net keeps the result:
#   CXR_IFACE=eth0  CXR_NODE=aa-bb-cc-dd-ee-ff  CXR_SERVER=10.0.0.1  CXR_BOOTSTAMP=<UTC>
NET_STATE=/run/cxrescue/net
NET_UDHCPC_SCRIPT=/usr/lib/cxrescue/udhcpc.script
NET_ROUNDS=3          # DHCP rounds before net_up gives up (each about 10 s)
NET_TFTP_BLOCK=1468   # TFTP block size: a 1500-byte Ethernet frame less the headers
NET_TFTP_LIMIT=120    # seconds for one transfer (BusyBox tftp gives up sooner on silence)
NET_TFTP_ERR=/run/cxrescue/tftp.err

net_say() { echo "cxrescue: network: $*"; }

# The BOOTIF= of the kernel command line as aa:bb:cc:dd:ee:ff, or nothing.
net_bootif_mac() {
	local word
	for word in $(cat /proc/cmdline); do
		case "$word" in
		BOOTIF=01-*) echo "${word#BOOTIF=01-}" | tr 'A-F-' 'a-f:' ;;
		esac
	done
}

# The interface with that MAC (or the first Ethernet one); the driver may still be
# probing: wait up to 10 s.
net_find_iface() {
	local want="$1" t=0 dev
	while [ $t -lt 100 ]; do
		for dev in /sys/class/net/*; do
			[ -e "$dev/address" ] || continue
			[ "${dev##*/}" = lo ] && continue
			[ "$(cat "$dev/type" 2>/dev/null)" = 1 ] || continue   # ARPHRD_ETHER
			if [ -z "$want" ] || [ "$(cat "$dev/address")" = "$want" ]; then
				echo "${dev##*/}"
				return 0
			fi
		done
		sleep 0.1
		t=$((t + 1))
	done
	return 1
}

# Bring the boot NIC up with a lease and write $NET_STATE; bounded, with a line per
# try. False when no lease came: the caller says what that means for the job. -B asks
# for broadcast answers: dnsmasq pings a new address before offering it, which leaves
# a failed neighbour entry behind, and a unicast offer then never arrived (4 tries in 4
# without a lease, on veth; scripts/pxe-serve keeps the ping, which protects a BMC's
# static address).
net_up() {
	local mac iface round=1 server
	mac=$(net_bootif_mac)
	if ! iface=$(net_find_iface "$mac"); then
		net_say "no network interface${mac:+ with MAC $mac} (the boot NIC's driver is not in this kernel?)"
		return 1
	fi
	[ -n "$mac" ] || mac=$(cat "/sys/class/net/$iface/address")
	ip link set lo up
	ip link set "$iface" up
	while [ $round -le $NET_ROUNDS ]; do
		net_say "DHCP on $iface ($mac), try $round of $NET_ROUNDS"
		if udhcpc -i "$iface" -s "$NET_UDHCPC_SCRIPT" -B -q -n -t 4 -T 2 -A 1 >/dev/null 2>&1 &&
			[ -r /run/cxrescue/lease ]; then
			. /run/cxrescue/lease
			server=${CXR_SERVER_ARG:-${LEASE_SIADDR:-$LEASE_SERVERID}}
			if [ -z "$server" ] || [ "$server" = 0.0.0.0 ]; then
				net_say "the lease names no server, and the command line has no cxrescue.server="
				return 1
			fi
			printf 'CXR_IFACE=%s\nCXR_NODE=%s\nCXR_SERVER=%s\nCXR_BOOTSTAMP=%s\n' "$iface" \
				"$(echo "$mac" | tr ':' '-')" "$server" "$(date -u +%Y%m%dT%H%M%SZ)" >"$NET_STATE.tmp"
			mv "$NET_STATE.tmp" "$NET_STATE"
			net_say "$iface is $LEASE_IP/$LEASE_MASK; the server is $server"
			return 0
		fi
		round=$((round + 1))
	done
	net_say "no DHCP answer on $iface after $NET_ROUNDS tries"
	return 1
}

# net_tftp -g|-p LOCAL REMOTE: one transfer with $CXR_SERVER; tftp's complaint, if any,
# is left in $NET_TFTP_ERR.
net_tftp() {
	timeout $NET_TFTP_LIMIT tftp -b $NET_TFTP_BLOCK "$1" -l "$2" -r "$3" "$CXR_SERVER" 2>"$NET_TFTP_ERR"
}

# $NET_STATE's values, bringing the NIC up first when there is none yet.
net_load() {
	[ -r "$NET_STATE" ] || net_up || return 1
	. "$NET_STATE"
}
