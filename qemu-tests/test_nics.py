# SPDX-License-Identifier: GPL-2.0-or-later
"""PXE through every NIC model QEMU 7.2 emulates and the rescue kernel drives (docs/nics.md):
e1000, e1000e, vmxnet3 and virtio-net. Each boot goes from the NIC's own boot ROM (iPXE, from
Debian's ipxe-qemu) through scripts/pxe-serve (dnsmasq + tftpd-hpa, in the rack's network
namespace) to the node's kernel, whose driver for that model brings the NIC up again: the
node must get its DHCP lease and fetch the server's firmware library over TFTP. That is as
far as a boot goes here (TCG is slow); test_rack.py runs whole jobs on e1000.

The other families of docs/nics.md are not emulated: tests/test_nics.py checks them on the
build."""
import os
import re

import pytest

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
