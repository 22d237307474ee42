# SPDX-License-Identifier: GPL-2.0-or-later
"""PXE through every NIC model QEMU 7.2 emulates and the rescue kernel drives (docs/nics.md):
e1000, e1000e, vmxnet3 and virtio-net. Each boot goes from the NIC's own boot ROM (iPXE, from
Debian's ipxe-qemu) through scripts/pxe-serve (dnsmasq + tftpd-hpa, in the rack's network
namespace) to the node's kernel, whose driver for that model brings the NIC up again: the
node must get its DHCP lease and fetch the server's firmware library over TFTP. That is as
far as a boot goes here (TCG is slow); test_rack.py runs whole jobs on e1000.

A NIC without link is named with its PCI ID and driver, and the next NIC is tried: a node
with two e1000s, the first one's link cut before the kernel starts (QMP set_link), gets its
lease through the second.

The other families of docs/nics.md are not emulated: tests/test_nics.py checks them on the
build."""
import json
import os
import re
import socket
import time

import pytest

import qemu_harness as qh
from qemu_harness import Guest, guests  # noqa: F401 (a fixture)
from test_rack import NODES, SERVER, Server, rack, stock_firmware  # noqa: F401 (rack: a fixture)

pytestmark = pytest.mark.skipif(os.environ.get("CXR_NO_QEMU") == "1",
                                reason="CXR_NO_QEMU=1: boot tests switched off")

# QEMU device -> (the kernel driver that must bring it up, its PCI vendor:device in QEMU 7.2).
MODELS = {
    "e1000": ("e1000", "8086:100e"),
    "e1000e": ("e1000e", "8086:10d3"),
    "vmxnet3": ("vmxnet3", "15ad:07b0"),
    "virtio-net-pci": ("virtio_net", "1af4:1000"),
}
LEASE_TIMEOUT = 300     # firmware, iPXE, pxelinux, the kernel and /init, under TCG


@pytest.mark.parametrize("model", sorted(MODELS))
def test_pxe_boot_through_each_emulated_nic(tmp_path, rack, guests, model):
    driver, pci_id = MODELS[model]
    tap, mac, *_ = NODES["A"]
    jobs = tmp_path / "jobs"
    jobs.write_text(f"{mac} menu\n")
    srv = Server(rack, tmp_path / "srv", jobs, stock_firmware(tmp_path), tmp_path / "serve.log")
    g = Guest(tmp_path, "pxe-tap", netns=rack, tap=tap, mac=mac, name=f"nic-{model}", nic=model)
    guests.append(g)
    # DMI (kernel-config/README.md): the machine is named, QEMU's i440FX PC here.
    g.expect(r"cxrescue: machine: QEMU Standard PC \(i440FX \+ PIIX, 1996\)", timeout=LEASE_TIMEOUT)
    m = g.expect(r"cxrescue: network: DHCP on NIC (eth\d+) \(PCI ([0-9a-f:]+) at [0-9a-f:.]+, "
                 r"driver (\S+)\), MAC ([0-9a-f:]+), try 1 of", timeout=LEASE_TIMEOUT)
    iface, seen_id, seen_driver, seen_mac = m.groups()
    assert (seen_id, seen_driver, seen_mac) == (pci_id, driver, mac), m.group(0)
    g.expect(rf"cxrescue: network: {iface} is 10\.199\.77\.\d+/24; the server is {re.escape(SERVER)}\b",
             timeout=120)
    g.expect(r"cxrescue: 1 firmware file\(s\) from the server", timeout=120)
    g.close()
    srv.stop()


def qmp(path, *commands):
    """Run QMP commands on QEMU's socket at path (it may still be starting); their answers."""
    deadline = time.monotonic() + 30
    while True:
        try:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(str(path))
            break
        except OSError:
            sock.close()
            assert time.monotonic() < deadline, f"no QMP socket at {path}"
            time.sleep(0.2)
    f = sock.makefile("rw")
    json.loads(f.readline())                     # the greeting
    answers = []
    for cmd in ({"execute": "qmp_capabilities"},) + commands:
        f.write(json.dumps(cmd) + "\n")
        f.flush()
        while True:
            msg = json.loads(f.readline())
            if "return" in msg or "error" in msg:
                break                            # events ("event": ...) are skipped
        assert "error" not in msg, f"QMP {cmd}: {msg}"
        answers.append(msg["return"])
    sock.close()
    return answers


def test_a_nic_without_link_is_named_and_the_next_one_tried(tmp_path, rack, guests):
    """The kernel is started directly (-kernel, no BOOTIF=): the first Ethernet NIC is tried
    first, and its link is down from the start."""
    tap_a, mac_a, *_ = NODES["A"]
    tap_b, mac_b, *_ = NODES["B"]
    jobs = tmp_path / "jobs"
    jobs.write_text(f"{mac_b} menu\n")
    srv = Server(rack, tmp_path / "srv", jobs, stock_firmware(tmp_path), tmp_path / "serve.log")
    sock = tmp_path / "qmp.sock"
    extra = ["-kernel", str(qh.BUILD / "kernel" / "bzImage"), "-initrd", str(qh.BUILD / "initrd.gz"),
             "-append", f"console=ttyS0,115200n8 quiet cxrescue.media=pxe cxrescue.server={SERVER}",
             "-netdev", f"tap,id=n1,ifname={tap_b},script=no,downscript=no",
             "-device", f"e1000,netdev=n1,mac={mac_b}",
             "-qmp", f"unix:{sock},server=on,wait=off", "-S"]
    g = Guest(tmp_path, "pxe-tap", netns=rack, tap=tap_a, mac=mac_a, name="nic-no-link", extra_args=extra)
    guests.append(g)
    qmp(sock, {"execute": "set_link", "arguments": {"name": "n0", "up": False}}, {"execute": "cont"})
    m = g.expect(r"cxrescue: network: NIC (eth\d+) \(PCI 8086:100e at [0-9a-f:.]+, driver e1000\) has no link "
                 r"after \d+ s", timeout=LEASE_TIMEOUT)
    first = m.group(1)
    m = g.expect(r"cxrescue: network: trying the next NIC, (eth\d+)", timeout=60)
    second = m.group(1)
    assert second != first
    g.expect(rf"cxrescue: network: DHCP on NIC {second} \(PCI 8086:100e at [0-9a-f:.]+, driver e1000\), "
             rf"MAC {re.escape(mac_b)}, try 1 of", timeout=60)
    g.expect(rf"cxrescue: network: {second} is 10\.199\.77\.\d+/24; the server is {re.escape(SERVER)}\b",
             timeout=120)
    g.expect(r"cxrescue: 1 firmware file\(s\) from the server", timeout=120)
    g.close()
    srv.stop()
