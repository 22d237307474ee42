# SPDX-License-Identifier: GPL-2.0-or-later
"""UEFI boot tests (issue 9): the same images/cxrescue-usb.img and images/cxrescue.iso that
the BIOS tests (test_boot.py) boot through SeaBIOS, booted through OVMF (Debian's ovmf:
its code and a fresh copy of its empty vars file, so Secure Boot is off).

Each boot must reach the front end's prompt with the simulated card listed, run on the
firmware's framebuffer (the screen a UEFI-only machine has), keep backups where the BIOS
boot keeps them, and end QEMU by powering off. The menu test picks an entry by its hotkey
on both firmwares: the same choices on both paths.
"""
import os
import re

import pytest

import qemu_harness as qh
from qemu_harness import Card, Guest, guests  # noqa: F401 (a fixture)

pytestmark = pytest.mark.skipif(os.environ.get("CXR_NO_QEMU") == "1",
                                reason="CXR_NO_QEMU=1: boot tests switched off")

PSID, FW = "HP_0280210019", "2.40.5030"
SMALL = "--ddr 2 --ddr-size 0x1000"


@pytest.fixture
def card(tmp_path):
    return Card(tmp_path, "hp544", "--chip", "cx3", "--subsys", "103c:18d6",
                image_opts=f"--chip cx3 --psid {PSID} --fw {FW} {SMALL}")


def boot(tmp_path, guests, media, firmware, cards):
    gone = qh.missing(firmware)
    assert gone is None, gone
    g = Guest(tmp_path, media, cards=cards, firmware=firmware)
    guests.append(g)
    return g


def data_kind(g):
    data, rc = g.run("while grep -q KIND=searching /run/cxrescue/data; do sleep 0.2; done; "
                     "cat /run/cxrescue/data")
    assert rc == 0, data
    return re.search(r"CXR_DATA_KIND=(\w+)", data).group(1)


@pytest.mark.parametrize("media", ["usb-xhci", "cd", "iso-usb"])
def test_uefi_boot_lists_the_card_and_powers_off(tmp_path, guests, card, media):
    g = boot(tmp_path, guests, media, "uefi", [card])
    screen = g.front_end()
    assert "1 card found" in screen and PSID in screen and f"FW {FW}" in screen, screen
    g.shell()
    out, rc = g.run("cat /run/cxrescue/prompt-uptime")
    with open(qh.BUILD / "qemu-tests" / "boot-times.txt", "a") as f:
        f.write(f"{media}/uefi prompt_uptime_s={out.split()[0]}\n")
    # Booted through UEFI, and the screen works: the EFI stub handed the firmware's
    # framebuffer to the kernel, and the virtual terminals draw on it.
    out, rc = g.run("test -d /sys/firmware/efi && cat /proc/fb /sys/class/vtconsole/vtcon*/name")
    assert rc == 0, f"not a UEFI boot, or no framebuffer: {out}"
    assert "EFI VGA" in out and "frame buffer device" in out, out
    assert data_kind(g) == ("stick" if media == "usb-xhci" else "ram")
    if media == "iso-usb":
        # The ISO's EFI image is partition 2 of the stick: seen, and never used for data.
        out, rc = g.run("blkid; grep /dev/sd /proc/mounts")
        assert 'LABEL="CXR-EFI"' in out, out
        assert "/mnt/data" not in out, out
    g.leave_shell()
    assert g.power_off() == 0


# What each firmware's menu shows once it waits for a key: syslinux counts down, GRUB
# says the highlighted entry will start.
MENU_SHOWN = {"bios": r"Automatic boot in", "uefi": r"highlighted entry will be executed"}


@pytest.mark.parametrize("firmware", ["bios", "uefi"])
def test_menu_shell_entry_on_both_firmwares(tmp_path, guests, firmware):
    """The "Shell only" entry, picked with its hotkey h, boots the same kernel with
    cxrescue.shell=1: a shell without the front end; exit powers off."""
    g = boot(tmp_path, guests, "usb-xhci", firmware, [])
    g.expect(MENU_SHOWN[firmware], timeout=qh.BOOT_TIMEOUT)
    g.send("h")
    g.expect(r"# ")
    g.p.sendline(f"PS1='{qh.SHELL_MARK}'")
    g.expect(re.escape(qh.SHELL_MARK))
    g.expect(re.escape(qh.SHELL_MARK))
    out, rc = g.run("cat /proc/cmdline; test -d /sys/firmware/efi && echo EFI=yes || echo EFI=no")
    assert "cxrescue.shell=1" in out and "cxrescue.media=usb" in out, out
    assert ("EFI=yes" in out) == (firmware == "uefi"), out
    assert not qh.MENU.search(g.log_path.read_text(errors="replace")), "the wizard ran"
    g.p.sendline("exit")
    g.expect("cxrescue: powering off", timeout=60)
    g.p.expect(qh.pexpect.EOF, timeout=60)


@pytest.mark.parametrize("firmware", ["bios", "uefi"])
def test_menu_serial_entry_on_both_firmwares(tmp_path, guests, card, firmware):
    """The "Serial console only" entry (hotkey s): the front end on ttyS0 alone."""
    g = boot(tmp_path, guests, "usb-xhci", firmware, [card])
    g.expect(MENU_SHOWN[firmware], timeout=qh.BOOT_TIMEOUT)
    g.send("s")
    screen = g.front_end()
    assert "1 card found" in screen, screen
    g.shell()
    out, rc = g.run("cat /proc/cmdline")
    assert "console=ttyS0,115200n8" in out and "console=tty0" not in out, out
    g.leave_shell()
    assert g.power_off() == 0


def test_secure_boot_refuses_the_unsigned_stick(tmp_path, guests):
    """What the README and the menus tell users, checked: with Secure Boot on and the usual
    keys (OVMF's Secure Boot build, Microsoft's keys enrolled), the firmware refuses our
    unsigned loader and Linux never starts. If this ever fails, the docs are wrong."""
    g = boot(tmp_path, guests, "usb-xhci", "uefi-sb", [])
    g.expect(r"failed to load Boot\d+ \"UEFI QEMU QEMU USB HARDDRIVE[^\n]*Access Denied")
    i = g.p.expect(["cxrescue: started", "Linux version", qh.pexpect.TIMEOUT, qh.pexpect.EOF],
                   timeout=20)
    assert i >= 2, f"the kernel started under Secure Boot; console log: {g.log_path}"
