# SPDX-License-Identifier: GPL-2.0-or-later
"""The consoles of real machines (issue 29): serial ports that are not there, COM2 alone (where
Dell iDRAC and HPE iLO put serial-over-LAN), /init's lines on the screen, and Ctrl-Alt-Del in
the middle of a burn. Three boots: two of the USB stick's default entry, which names the screen
and both serial ports (console=tty0 console=ttyS0 console=ttyS1, rootfs/syslinux/menu.cfg.in),
and one of its "Serial console COM2 only" entry, picked on COM2 alone: the wizard on ttyS1 alone.

- COM1 missing (-serial none), COM2 alone (an isa-serial at 0x2f8, IRQ 3), and ttyS0 made the
  last console= (the kernel's /dev/console): ttyS0 is skipped with a line on ttyS1, and the
  unattended job runs on ttyS1, the console that works;
- COM1 only (QEMU's usual machine): ttyS1 has no UART and is skipped; a burn runs on ttyS0,
  Ctrl-Alt-Del comes through QEMU's keyboard (monitor sendkey) in the middle of it and is
  refused on every console, the screen (/dev/vcs1) included; the card's flash is whole and new
  after; a second Ctrl-Alt-Del, with no write running, reboots, after the data area is released.
"""
import os
import re
import socket
import time

import pytest

import qemu_harness as qh
from qemu_harness import Card, Guest, guests  # noqa: F401 (a fixture)

pytestmark = pytest.mark.skipif(os.environ.get("CXR_NO_QEMU") == "1",
                                reason="CXR_NO_QEMU=1: boot tests switched off")

OEM_PSID, OEM_FW, NEW_FW = "HP_0280210019", "2.40.5030", "2.42.5000"
GUID, MAC = "0002c90300a1b2c0", "0002c9a1b2c0"
WRITE_TIMEOUT = 300
BOTH = "console=tty0 console=ttyS0,115200n8 console=ttyS1,115200n8"
COM2_ALONE = ("-serial", "none", "-chardev", "stdio,id=com2",
              "-device", "isa-serial,iobase=0x2f8,irq=3,chardev=com2")


@pytest.fixture(autouse=True)
def built():
    gone = qh.missing()
    assert gone is None, gone


def card(folder, ddr="0x1000"):
    return Card(folder, "hp544", "--chip", "cx3", "--subsys", "103c:18d6", "--guid", GUID, "--mac", MAC,
                image_opts=f"--chip cx3 --psid {OEM_PSID} --fw {OEM_FW} --ddr 2 --ddr-size {ddr}")


def set_consoles(stick, consoles, words=""):
    """The stick's default entry with these console= words instead of the menu's, and words added."""
    cfg = qh.mtools_read(stick, "/syslinux/syslinux.cfg").decode()
    assert cfg.count(BOTH) >= 1, cfg
    tmp = stick.with_suffix(".cfg")
    tmp.write_text(cfg.replace(BOTH, consoles, 1))
    r = qh.subprocess.run(["mcopy", "-o", "-i", f"{stick}@@1M", str(tmp), "::/syslinux/syslinux.cfg"],
                          capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    if words:
        qh.set_append(stick, words)


def test_com2_alone_gets_the_wizard_and_the_job(tmp_path, guests):
    """No UART at COM1, one at COM2; ttyS0 is the last console= (/dev/console). The old /init
    ran the job on the last console= and started a wizard on ttyS0 again and again."""
    c = card(tmp_path)
    stick = tmp_path / "stick-com2.img"
    qh.shutil.copyfile(qh.IMAGES / "cxrescue-usb.img", stick)
    set_consoles(stick, "console=tty0 console=ttyS1,115200n8 console=ttyS0,115200n8", "cxrescue.job=inventory")
    g = Guest(tmp_path, "usb-xhci", cards=[c], serial=COM2_ALONE, stick=stick, name="com2-alone")
    guests.append(g)
    g.expect(r"cxrescue: ttyS0: no UART behind this port \(/sys/class/tty/ttyS0/type is 0\): no front end there")
    g.expect(r"cxrescue: unattended job: job=inventory .* \(on /dev/ttyS1\)")
    g.expect(r"1 card found")
    g.expect(r"The job is done: powering off\.", timeout=WRITE_TIMEOUT)
    assert g.wait_power_off() == 0
    log = g.log_path.read_text(errors="replace")
    assert "starting it again" not in log, log[-3000:]
    reports = qh.subprocess.run(["mdir", "-b", "-i", f"{stick}@@1M", "::/cxrescue/reports"],
                                capture_output=True, text=True).stdout
    assert "inventory" in reports, reports


def test_the_com2_entry_puts_the_wizard_on_ttys1_alone(tmp_path, guests):
    """The menu's "Serial console COM2 only" entry (hotkey 2), picked on COM2: the BIOS menu is
    there too (syslinux's SERIAL 0 is the first port the BIOS found), and the wizard runs on
    ttyS1 alone."""
    g = Guest(tmp_path, "usb-xhci", cards=[card(tmp_path)], serial=COM2_ALONE, name="com2-entry")
    guests.append(g)
    g.expect(r"Automatic boot in")
    g.send("2")
    screen = g.front_end()
    assert "1 card found" in screen, screen
    g.shell()
    out, rc = g.run("cat /proc/cmdline; readlink /proc/$$/fd/0; cat /sys/class/tty/ttyS1/type")
    words = out.split()
    assert [w for w in words if w.startswith("console=")] == ["console=ttyS1,115200n8"], out
    assert "/dev/ttyS1" in words and words[-1] != "0", out
    g.leave_shell()
    assert g.power_off() == 0


class Monitor:
    """QEMU's human monitor on a unix socket: sendkey, as a BMC's remote keyboard does."""

    def __init__(self, path):
        self.path = path

    def sendkey(self, keys):
        deadline = time.monotonic() + 30
        while True:
            try:
                s = socket.socket(socket.AF_UNIX)
                s.connect(str(self.path))
                break
            except OSError:
                assert time.monotonic() < deadline, f"no QEMU monitor at {self.path}"
                time.sleep(0.2)
        with s:
            s.settimeout(10)
            got = b""
            while b"(qemu)" not in got:
                got += s.recv(4096)
            s.sendall(f"sendkey {keys}\n".encode())
            got = b""
            while got.count(b"(qemu)") < 1:
                got += s.recv(4096)


def test_ctrl_alt_del_is_refused_during_a_burn(tmp_path, guests):
    big = "0x60000"             # ~0.4 MiB: a burn of some seconds on TCG
    c = card(tmp_path, big)
    newer = tmp_path / "hp-2.42.bin"
    r = qh.subprocess.run([str(qh.MKFS2), "-o", str(newer), "--chip", "cx3", "--psid", OEM_PSID, "--fw", NEW_FW,
                           "--ddr", "2", "--ddr-size", big], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    sock = tmp_path / "monitor.sock"
    g = Guest(tmp_path, "usb-xhci", cards=[c], stick_files=[(newer, "/cxrescue/firmware/hp-2.42.bin")],
              extra_args=("-monitor", f"unix:{sock},server=on,wait=off"), name="cad")
    guests.append(g)
    mon = Monitor(sock)
    screen = g.front_end()
    assert "cxrescue: ttyS1: no UART behind this port" in g.log_path.read_text(errors="replace"), screen
    # The screen's wizard reads the card at its start too: the burn waits for its menu.
    g.shell()
    out, rc = g.run("until grep -q 'what next?' /dev/vcs1; do sleep 0.5; done", timeout=qh.BOOT_TIMEOUT)
    assert rc == 0, out
    g.leave_shell()
    g.choose("update")
    g.answer(r"Type FLASH to write the card, anything else cancels: ", "FLASH")
    g.expect(r"Writing hp-2\.42\.bin onto", timeout=WRITE_TIMEOUT)
    g.expect(r"write\s+[1-9]\d%", timeout=WRITE_TIMEOUT)
    mon.sendkey("ctrl-alt-delete")
    g.expect(r"cxrescue: Ctrl-Alt-Del refused: a card write runs \(the wizard on ttyS0 pid \d+ since [\d:]+ UTC")
    g.expect(rf"card \S+: OK: FW {re.escape(OEM_FW)} -> {re.escape(NEW_FW)}", timeout=WRITE_TIMEOUT)
    log = g.log_path.read_text(errors="replace")
    assert log.index("Ctrl-Alt-Del refused") < log.rindex("OK: FW"), "the refusal came after the write"
    g.expect(r"Power off for a cold restart")
    g.answer(r"Choose 1-2 \[1\]: ", "2")
    g.expect(qh.MENU)
    # The screen (tty1) got /init's line too: /dev/vcs1 is its text, 80 columns a row.
    g.shell()
    out, rc = g.run("tr -s ' ' </dev/vcs1")
    assert rc == 0 and "cxrescue: Ctrl-Alt-Del refused: a card write runs" in out, out
    g.leave_shell()
    b = c.boot_check()
    assert b["booted"] is True and b["fw_version"] == NEW_FW, b
    assert b["guids"]["node"] == GUID and b["macs"]["port1"] == MAC, b
    # No write now: Ctrl-Alt-Del reboots (QEMU's -no-reboot ends it), the stick released first.
    mon.sendkey("ctrl-alt-delete")
    g.expect(r"cxrescue: Ctrl-Alt-Del: no card write runs: syncing, releasing the data area, rebooting\.")
    g.expect(r"cxrescue: rebooting")
    g.p.expect(qh.pexpect.EOF, timeout=60)
    history = qh.mtools_read(g.stick, "/cxrescue/history.jsonl").decode().replace(" ", "")
    assert '"action":"update"' in history and '"result":"ok"' in history, history
    # Linux marks a FAT32 mounted read-write dirty in its boot sector (the state byte at 0x41,
    # FAT_STATE_DIRTY; fs/fat/inode.c, fat_set_state) and clean again at its unmount.
    with open(g.stick, "rb") as f:
        f.seek((1 << 20) + 0x41)
        assert f.read(1)[0] & 0x01 == 0, "the stick's FAT was not released before the reboot"
