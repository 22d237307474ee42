# SPDX-License-Identifier: GPL-2.0-or-later
"""A simulated ConnectX-4 Lx in the booted rescue image (sim/qemu/cxsim-pci.c, model cx4lx).

The card holds a valid FS3 image from sim/mkfs3 (an HPE 640SFP28's PSID) and is strapped into
recovery mode (cxsim --recovery), so it shows its recovery ID 15b3:020b, class memory controller, and the VSEC
(capability ID 9, hw-access.md §2.4) that QEMU's config space carries for it. The guest must
list the card (the wizard, cxflash list, pciutils' lspci with its capability) and reach the
model's VSEC registers through its own sysfs config file: a space select that reads back with
the "supported" status, and the HW ID read through the VSEC's address/data pair. The wizard
does not offer these cards yet (cxflash burns them from the shell): it says so, as expected here.
`make run CARD=cx4lx` (scripts/run-qemu.sh) boots the same scenario."""
import os
import re
import subprocess

import pexpect
import pytest

import qemu_harness as qh
from qemu_harness import Card, Guest, guests  # noqa: F401 (a fixture)

pytestmark = pytest.mark.skipif(os.environ.get("CXR_NO_QEMU") == "1",
                                reason="CXR_NO_QEMU=1: boot tests switched off")

MKFS3 = qh.BUILD / "host" / "mkfs3"
OEM_PSID, OEM_FW = "HP_2420110034", "14.26.1040"
VSEC = 0xC0                     # where the model puts it (sim/core/pcicfg.c CAP_VSEC)
VSEC_CTRL, VSEC_ADDR, VSEC_DATA = VSEC + 0x4, VSEC + 0x10, VSEC + 0x14
SPACE_CR = 2                    # CR_SPACE, §2.4
STATUS_OK = 1 << 29             # CTRL 31:29: the space is supported
HW_ID = 0xF0014                 # crspace: the chip's HW ID in 15:0, §1.1
CARD_LINE = re.compile(r"0000:00:0[0-9a-f]\.0\s+ConnectX-4 Lx\s+15b3:020b")


@pytest.fixture(autouse=True)
def built():
    gone = qh.missing()
    assert gone is None, gone
    assert MKFS3.exists(), f"{MKFS3} is missing: run 'make build/host/mkfs3'"


def hp_card(folder):
    img = folder / "hp-640sfp28.bin"
    r = subprocess.run([str(MKFS3), "-o", str(img), "--chip", "cx4lx", "--psid", OEM_PSID,
                        "--fw", OEM_FW], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return Card(folder, "hp640", "--chip", "cx4lx", "--image", img, "--recovery")


def cfg_write32(g, cfg, off, val):
    """One dword written to the guest's sysfs config file (a 4-byte aligned write is one
    config cycle of 4 bytes, drivers/pci/pci-sysfs.c). BusyBox's dd has no conv=; with
    seek= it does not truncate."""
    octal = "".join(f"\\{b:03o}" for b in val.to_bytes(4, "little"))
    out, rc = g.run(f"printf '{octal}' | dd of={cfg} bs=4 seek={off // 4} count=1 2>&1")
    assert rc == 0, out


def cfg_read32(g, cfg, off):
    """One dword of the guest's sysfs config file, printed as V=<8 hex digits> (bytes in file
    order) so that the console's echo of the command, wrapped or not, cannot be taken for it."""
    out, rc = g.run(f"dd if={cfg} bs=4 skip={off // 4} count=1 2>/dev/null | "
                    f"hexdump -v -e '\"V=\" 4/1 \"%02x\" \"\\n\"'")
    assert rc == 0, out
    return int.from_bytes(bytes.fromhex(re.findall(r"V=([0-9a-f]{8})", out)[-1]), "little")


def test_guest_lists_the_card_and_reaches_its_vsec(tmp_path, guests):
    card = hp_card(tmp_path)
    assert card.boot_check()["would_boot"]
    g = Guest(tmp_path, "usb-xhci", cards=[card])
    guests.append(g)
    screen = g.front_end()
    assert "1 card found" in screen and CARD_LINE.search(screen), screen
    assert "the wizard does not offer these cards yet" in screen, screen      # expected today
    g.shell()
    out, rc = g.run("lspci -nn -vv -d 15b3:")
    assert rc == 0 and "[15b3:020b]" in out and "ConnectX-4 Lx Flash Recovery" in out, out
    assert re.search(r"Capabilities: \[c0\] Vendor Specific Information: Len=18", out), out
    assert "(64-bit, prefetchable) [size=1M]" in out, out
    bdf = re.search(r"^([0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) ", out, re.M).group(1)
    cfg = f"/sys/bus/pci/devices/0000:{bdf}/config"
    cfg_write32(g, cfg, VSEC_CTRL, SPACE_CR)
    assert cfg_read32(g, cfg, VSEC_CTRL) == STATUS_OK | SPACE_CR
    cfg_write32(g, cfg, VSEC_ADDR, HW_ID)                 # bit 31 clear: a read
    assert cfg_read32(g, cfg, VSEC_ADDR) == 1 << 31 | HW_ID
    assert cfg_read32(g, cfg, VSEC_DATA) & 0xFFFF == 0x020B
    g.leave_shell()
    assert g.power_off() == 0


def test_make_run_card_cx4lx(tmp_path):
    """scripts/run-qemu.sh with CXR_CARD=cx4lx (make run CARD=cx4lx), a run/ folder of its
    own: it makes the HPE card and puts the stock demo image on the stick, and the wizard
    lists the card and the image."""
    build = tmp_path / "build"
    build.mkdir()
    (build / "host").symlink_to(qh.CXSIM.parent)    # cxsim and mkfs3; run/ stays in tmp_path
    log_path = tmp_path / "console-make-run-cx4lx.log"
    env = dict(os.environ, CXR_QEMU=str(qh.QEMU), CXR_FIRMWARE="bios", CXR_CARD="cx4lx")
    with open(log_path, "w", encoding="utf-8", errors="replace") as log:
        p = pexpect.spawn("bash", [str(qh.ROOT / "scripts" / "run-qemu.sh"), str(build), str(qh.IMAGES)],
                          env=env, encoding="utf-8", codec_errors="replace", timeout=qh.BOOT_TIMEOUT,
                          dimensions=(50, 200))
        p.logfile_read = log
        try:
            seen = p.expect([qh.MENU, qh.PANIC, pexpect.EOF, pexpect.TIMEOUT])
        finally:
            p.terminate(force=True)
    console = log_path.read_text(errors="replace")
    assert seen == 0, f"no wizard menu (console log: {log_path}):\n{console[-2000:]}"
    assert "made a simulated HPE 640SFP28 (ConnectX-4 Lx)" in console, console[-2000:]
    assert "1 card found" in console and CARD_LINE.search(console), console[-2000:]
    assert re.search(r"Firmware library: 1 image: 1 usable", console), console[-2000:]
    run = build / "run"
    assert (run / "card-cx4lx.flash").exists() and not (run / "card.flash").exists()
    stick = qh.mtools_read(run / "stick.img", "/cxrescue/firmware/mcx4121a-stock-demo.bin")
    assert stick is not None and b"MT_2420110034" in stick
