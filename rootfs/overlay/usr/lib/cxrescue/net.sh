# net.sh — a PXE-booted node and its server: the boot NIC, the lease, the server's
# address, and the node's name for its uploads. Sourced by /init and by upload.
#
# The boot NIC is the one pxelinux names with BOOTIF=01-aa-bb-cc-dd-ee-ff (IPAPPEND 2 in
# the boot menu and in every file pxe-serve writes), else the first Ethernet NIC. When it
# cannot come up (no firmware file: bnx2 and bnx2x load theirs when the port goes up), or
# finds no link, or no DHCP answer, the console names it with its PCI ID and driver, and the
# next Ethernet NIC is tried (docs/nics.md). The node keeps the boot NIC's MAC as its name
# (the server's jobs and uploads know it by that). The server is cxrescue.server=
# (pxe-serve writes it), else the lease's boot server (siaddr), else the DHCP server that
# answered. /run/cxrescue/net keeps the result:
#   CXR_IFACE=eth0  CXR_NODE=aa-bb-cc-dd-ee-ff  CXR_SERVER=10.0.0.1  CXR_BOOTSTAMP=<UTC>
NET_STATE=/run/cxrescue/net
NET_UDHCPC_SCRIPT=/usr/lib/cxrescue/udhcpc.script
NET_ROUNDS=3          # DHCP rounds on one NIC before the next is tried (each about 10 s)
NET_LINK_WAIT=150     # tenths of a second a NIC may take to find its link (autonegotiation)
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

# The Ethernet interfaces, the one with MAC $1 (if given) first; the drivers may still
# be probing: wait up to 10 s for that one (or for any, without $1). False when none.
net_ifaces() {
	local want="$1" t=0 dev first='' rest=''
	while [ $t -lt 100 ]; do
		first='' rest=''
		for dev in /sys/class/net/*; do
			[ -e "$dev/address" ] || continue
			[ "${dev##*/}" = lo ] && continue
			[ "$(cat "$dev/type" 2>/dev/null)" = 1 ] || continue   # ARPHRD_ETHER
			if [ -z "$want" ] && [ -z "$first" ] || [ "$(cat "$dev/address")" = "$want" ]; then
				first=${dev##*/}
			else
				rest="$rest ${dev##*/}"
			fi
		done
		if [ -n "$first" ]; then
			echo "$first$rest"
			return 0
		fi
		sleep 0.1
		t=$((t + 1))
	done
	[ -n "$rest" ] && echo "${rest# }"
	[ -n "$rest" ]
}

# "eth0 (PCI 14e4:1639 at 0000:01:00.0, driver bnx2)": what finds the port and its chip.
# virtio-net hangs below its PCI function on a virtio bus: the PCI function is named.
net_nic() {
	local dev drv pci id=''
	dev=$(cd "/sys/class/net/$1/device" 2>/dev/null && pwd -P) || { echo "$1"; return 0; }
	drv=$(readlink "$dev/driver" 2>/dev/null)
	pci=$dev
	while [ -n "$pci" ]; do
		case "${pci##*/}" in [0-9a-f][0-9a-f][0-9a-f][0-9a-f]:[0-9a-f][0-9a-f]:*) break ;; esac
		pci=${pci%/*}
	done
	[ -n "$pci" ] && id="PCI $(sed 's/^0x//' "$pci/vendor"):$(sed 's/^0x//' "$pci/device") at ${pci##*/}, "
	echo "$1 (${id}driver ${drv##*/})"
}

# The kernel's last word on a NIC's firmware file ("Direct firmware load for bnx2/... failed
# with error -2", drivers/base/firmware_loader/main.c), or nothing.
net_fw_said() {
	local pci
	pci=$(cd "/sys/class/net/$1/device" 2>/dev/null && pwd -P) || return 0
	dmesg 2>/dev/null | grep -F "${pci##*/}" | grep -i firmware |
		grep -iE 'fail|unable|error|missing|not found' | tail -n 1 | sed 's/^\[[^]]*\] //'
}

# Bring one NIC up with a lease and write $NET_STATE; $2 is the node's MAC. False, with a
# line naming the NIC, when it does not come up, finds no link or gets no lease. -B asks
# for broadcast answers: dnsmasq pings a new address before offering it, which leaves
# a failed neighbour entry behind, and a unicast offer then never arrived (4 tries in 4
# without a lease, on veth; scripts/pxe-serve keeps the ping, which protects a BMC's
# static address).
net_try() {
	local iface="$1" mac="$2" nic err fw t=0 round=1 server
	nic=$(net_nic "$iface")
	if ! err=$(ip link set "$iface" up 2>&1); then
		fw=$(net_fw_said "$iface")
		net_say "NIC $nic does not come up: ${fw:-$err}"
		[ -n "$fw" ] && net_say "its firmware file is not on this image (docs/nics.md)"
		return 1
	fi
	while [ "$(cat "/sys/class/net/$iface/carrier" 2>/dev/null)" != 1 ]; do
		if [ $t -ge $NET_LINK_WAIT ]; then
			net_say "NIC $nic has no link after $((NET_LINK_WAIT / 10)) s (no cable, or the switch port is down)"
			return 1
		fi
		sleep 0.1
		t=$((t + 1))
	done
	fw=$(net_fw_said "$iface")
	[ -n "$fw" ] && net_say "NIC $nic: $fw"
	while [ $round -le $NET_ROUNDS ]; do
		net_say "DHCP on NIC $nic, MAC $(cat "/sys/class/net/$iface/address"), try $round of $NET_ROUNDS"
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
	net_say "no DHCP answer on NIC $nic after $NET_ROUNDS tries"
	return 1
}

# Bring a NIC up with a lease: the boot NIC first, then each other Ethernet NIC; bounded,
# with a line per try. False when no NIC got a lease: the caller says what that means for
# the job.
net_up() {
	local mac ifaces iface n=0
	mac=$(net_bootif_mac)
	if ! ifaces=$(net_ifaces "$mac"); then
		net_say "no network interface (the NIC's driver is not in this kernel? docs/nics.md)"
		return 1
	fi
	[ -n "$mac" ] && [ "$(cat "/sys/class/net/${ifaces%% *}/address" 2>/dev/null)" != "$mac" ] &&
		net_say "no network interface with MAC $mac (the boot NIC's driver is not in this kernel?)"
	ip link set lo up
	for iface in $ifaces; do
		[ $n -gt 0 ] && net_say "trying the next NIC, $iface"
		net_try "$iface" "${mac:-$(cat "/sys/class/net/$iface/address")}" && return 0
		n=$((n + 1))
	done
	net_say "no NIC got a lease ($n tried: $ifaces)"
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
