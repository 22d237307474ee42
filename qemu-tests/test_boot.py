# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot tests of the real rescue media (images/) in QEMU with a simulated card (issue 5).

Each boot must reach the front end's prompt, list the card through the guest's real
/sys/bus/pci (cxflash list, lspci), and end QEMU by powering off. Console markers, not
QEMU's exit status, decide (a panic exits 0 too). Boot times are recorded in
BUILD/qemu-tests/boot-times.txt for the notes; they are not asserted.
"""
import hashlib
import json
import os
import re

import pexpect
import pytest

import qemu_harness as qh
from qemu_harness import Card, Guest, guests  # noqa: F401 (a fixture)

pytestmark = pytest.mark.skipif(os.environ.get("CXR_NO_QEMU") == "1",
                                reason="CXR_NO_QEMU=1: boot tests switched off")

OEM_PSID = "HP_0280210019"
OEM_FW = "2.40.5030"
SMALL = "--ddr 2 --ddr-size 0x1000"
GUID, MAC = "0002c90300a1b2c0", "0002c9a1b2c0"


@pytest.fixture(autouse=True)
def built():
    gone = qh.missing()
    assert gone is None, gone


@pytest.fixture
def oem_card(tmp_path):
    return Card(tmp_path, "hp544", "--chip", "cx3", "--subsys", "103c:18d6", "--guid", GUID,
                "--mac", MAC, image_opts=f"--chip cx3 --psid {OEM_PSID} --fw {OEM_FW} {SMALL}")


def record_time(media, seconds):
    out = qh.BUILD / "qemu-tests"
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "boot-times.txt", "a") as f:
        f.write(f"{media} prompt_uptime_s={seconds}\n")


def prompt_uptime(g):
    out, rc = g.run("cat /run/cxrescue/prompt-uptime")
    assert rc == 0, out
    return float(out.split()[0])


# The title syslinux's menu draws (rootfs/syslinux/menu.cfg.in, MENU TITLE), and an entry.
BOOT_MENU_TITLE = "cxrescue: ConnectX-2/3 rescue (Enter boots; Tab edits)"
BOOT_MENU_ENTRY = "xrescue (screen, COM1 and COM2)"   # after its hotkey's colour change


def test_make_run_shows_the_boot_menu_once(tmp_path):
    """make run's own QEMU (scripts/run-qemu.sh, with a run/ folder of its own here) shows the
    boot menu once on its terminal, then the wizard's menu. Under -nographic SeaBIOS copied
    the screen to the serial port as well (sercon) while syslinux wrote the menu there
    itself: every character came twice ("ssccrreeeenn")."""
    build = tmp_path / "build"
    build.mkdir()
    (build / "host").symlink_to(qh.CXSIM.parent)    # cxsim and mkfs2; run/ stays in tmp_path
    log_path = tmp_path / "console-make-run.log"
    env = dict(os.environ, CXR_QEMU=str(qh.QEMU), CXR_FIRMWARE="bios")
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
    # The title once in each drawing of the menu: menu.c32 draws it again when its countdown
    # ends, so the countdown stands between two titles, never nothing (a second copy).
    between = console.split(BOOT_MENU_TITLE)
    assert len(between) >= 2, "no boot menu title"
    assert all("Automatic boot in" in text for text in between[1:-1]), \
        f"the boot menu's title twice in one drawing ({len(between) - 1} titles)"
    assert BOOT_MENU_ENTRY in console, "the boot menu's first entry is not there as written"
    doubled = "".join(c * 2 for c in BOOT_MENU_ENTRY)
    assert doubled not in console, "the boot menu's text came twice, character by character"


@pytest.mark.parametrize("media", ["usb-xhci", "usb-ehci", "cd", "iso-usb", "pxe"])
def test_media_boot_lists_the_card_and_powers_off(tmp_path, guests, oem_card, media):
    g = Guest(tmp_path, media, cards=[oem_card])
    guests.append(g)
    screen = g.front_end()
    assert "1 card found" in screen, g.tail()
    assert OEM_PSID in screen and f"FW {OEM_FW}" in screen, screen
    assert "ConnectX-3" in screen
    g.shell()
    up = prompt_uptime(g)
    record_time(media, up)
    # An ISO boot looks for a second stick in the background for 2 s: wait for its verdict.
    data, rc = g.run("while grep -q KIND=searching /run/cxrescue/data; do sleep 0.2; done; "
                     "cat /run/cxrescue/data")
    kind = re.search(r"CXR_DATA_KIND=(\w+)", data).group(1)
    # The stick is where backups go; a CD or PXE boot has no writable FAT here: RAM, warned.
    assert kind == {"usb-xhci": "stick", "usb-ehci": "stick"}.get(media, "ram"), data
    if kind == "ram":
        assert "LOST at power-off" in g.tail(200)
    g.leave_shell()
    assert g.power_off() == 0
    assert "Kernel panic" not in g.log_path.read_text(errors="replace")


def test_lspci_names_the_card_and_cxflash_uses_real_sysfs(tmp_path, guests, oem_card):
    g = Guest(tmp_path, "usb-xhci", cards=[oem_card])
    guests.append(g)
    g.front_end()
    g.shell()
    out, rc = g.run("lspci -d 15b3:")
    assert rc == 0 and re.search(r"Mellanox Technologies MT27500 Family \[ConnectX-3\]", out), out
    out, rc = g.run("lspci -d 15b3: -v | grep -i subsystem")
    assert "Hewlett-Packard" in out, out
    out, rc = g.run("cxflash --json list")
    assert rc == 0, out
    cards = json.loads(out)["cards"]
    assert len(cards) == 1 and cards[0]["psid"] == OEM_PSID
    bdf = cards[0]["bdf"]
    out, rc = g.run(f"ls /sys/bus/pci/devices/{bdf}/resource0 && cxflash -d {bdf} q")
    assert rc == 0 and OEM_PSID in out and GUID in out.lower(), out
    # The BAR0 fast path works on the guest's real resource0 (an error if it is not usable),
    # and says the same as config cycles.
    bar, rc = g.run(f"CXFLASH_ACCESS=bar0 cxflash -d {bdf} q")
    assert rc == 0, bar
    cfg, rc = g.run(f"CXFLASH_ACCESS=config cxflash -d {bdf} q")
    assert rc == 0 and cfg == bar, (cfg, bar)
    g.leave_shell()
    assert g.power_off() == 0


def test_backup_on_the_stick_is_readable_on_the_host(tmp_path, guests, oem_card):
    g = Guest(tmp_path, "usb-xhci", cards=[oem_card])
    guests.append(g)
    g.front_end()
    g.shell()
    out, rc = g.run("cxflash -y --json list")
    bdf = json.loads(out)["cards"][0]["bdf"]
    out, rc = g.run(f"cxflash -d {bdf} backup $CXR_DATA/backups/hp544", timeout=600)
    assert rc == 0, out
    g.leave_shell()
    assert g.power_off() == 0
    qh.mtools_copy_out(g.stick, "/cxrescue/backups", tmp_path / "host")
    bundles = list((tmp_path / "host").rglob("flash.bin"))
    assert len(bundles) == 1, f"expected one bundle on the stick, found {bundles}"
    flash = bundles[0].read_bytes()
    assert hashlib.sha256(flash).hexdigest() == hashlib.sha256(oem_card.flash.read_bytes()).hexdigest()
    sums = (bundles[0].parent / "SHA256SUMS").read_text()
    assert hashlib.sha256(flash).hexdigest() in sums
    assert OEM_PSID in bundles[0].parent.name and GUID in bundles[0].parent.name


def test_corrupt_flash_boots_into_recovery_and_is_listed(tmp_path, guests):
    bad = Card(tmp_path, "bricked", "--chip", "cx3", "--corrupt", image_opts=f"--chip cx3 {SMALL}")
    assert bad.boot_check()["booted"] is False
    g = Guest(tmp_path, "usb-xhci", cards=[bad])
    guests.append(g)
    screen = g.front_end()
    assert "1 card found" in screen and "RECOVERY MODE" in screen, screen
    g.shell()
    out, rc = g.run("lspci -d 15b3: -n")
    assert "15b3:01f6" in out, out   # the CX3 recovery ID = HW ID 0x1f5 + 1
    g.leave_shell()
    assert g.power_off() == 0


def test_no_card_is_said_plainly(tmp_path, guests):
    g = Guest(tmp_path, "usb-xhci")
    guests.append(g)
    screen = g.front_end()
    assert "0 cards found" in screen
    assert "No Mellanox ConnectX card was found in this machine" in screen
    assert g.power_off() == 0


def test_a_write_in_the_guest_reaches_the_card_file(tmp_path, guests, oem_card):
    """The guest's cxflash writes the card (sv: a failsafe re-burn with a new VSD) through the
    QEMU device; after power-off the host's cxsim boot-check sees the new VSD and the card's
    own identity, from the backing file alone."""
    g = Guest(tmp_path, "usb-xhci", cards=[oem_card])
    guests.append(g)
    g.front_end()
    g.shell()
    out, rc = g.run("cxflash --json list")
    bdf = json.loads(out)["cards"][0]["bdf"]
    out, rc = g.run(f"cxflash -y -d {bdf} --backup-dir $CXR_DATA/backups --vsd RESCUED_BY_CXRESCUE sv",
                    timeout=600)
    assert rc == 0, out
    g.leave_shell()
    assert g.power_off() == 0
    b = oem_card.boot_check()
    assert b["booted"] is True and b["psid"] == OEM_PSID
    assert b["vsd"] == "RESCUED_BY_CXRESCUE", b
    assert b["guids"]["node"] == GUID and b["macs"]["port1"] == MAC, b


def test_firmware_dropped_on_the_stick_is_matched_at_boot(tmp_path, guests, oem_card):
    """A stock image copied into the stick's cxrescue/firmware/ joins the library the image
    carries; the inventory shows the library and the recommendation for the HP card (RISKY:
    library/boards.txt maps HP 649281-B21 to MCX354A-FCB by inference), and `match` in the
    guest gives the full report, reading the card without writing it."""
    stock = tmp_path / "mcx354a-stock.bin"
    r = qh.subprocess.run([str(qh.MKFS2), "-o", str(stock), "--chip", "cx3", "--fw", "2.42.5000",
                           *SMALL.split()], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    g = Guest(tmp_path, "usb-xhci", cards=[oem_card],
              stick_files=[(stock, "/cxrescue/firmware/mcx354a-stock.bin")])
    guests.append(g)
    screen = g.front_end()
    assert "Firmware library: 1 image: 1 usable" in screen, screen
    assert re.search(r"library: RISKY mcx354a-stock\.bin: ", screen), screen
    g.shell()
    out, rc = g.run("cxflash --json list")
    bdf = json.loads(out)["cards"][0]["bdf"]
    out, rc = g.run(f"cxflash -d {bdf} --json match")
    assert rc == 0, out
    j = json.loads(out)
    assert j["boards"] == "/usr/share/cxrescue/boards.txt"
    c = j["candidates"][0]
    assert c["path"].endswith("/cxrescue/firmware/mcx354a-stock.bin")
    assert c["verdict"] == "RISKY" and c["relation"] == "cross-flash"
    assert any("inference" in x["text"] for x in c["reasons"]), c
    assert c["ini"]["risky"] == 0
    g.leave_shell()
    assert g.power_off() == 0
    assert oem_card.boot_check()["psid"] == OEM_PSID
