# SPDX-License-Identifier: GPL-2.0-or-later
"""The data area among look-alike disks (issue 29, point 5; docs/rescue-image.md, "The data area").

Backups go only to a partition cxrescue made: FAT, labelled CXRESCUE, holding the marker
cxrescue/stick-id.txt. Four boots, each with the disks a real machine may show beside us:

- the ISO as a CD, with an AHCI disk holding an installed system's EFI System Partition and an
  old stick's look-alike (FAT labelled CXRESCUE, no marker): nothing is ours, the data stays in
  RAM, the wizard names every device and why it was not taken, and the disk is untouched
  afterwards (its SHA-256, and the ESP's files);
- the stick, with the ISO attached beside it as a CD (a BMC's virtual media left in): the stick
  wins, and its first boot gives it its own ID, shown on the first screen;
- the ISO booted as a CD with a cxrescue stick plugged in: the session's data goes to the stick;
- a write-protected stick: named as such on the console and the first screen, its firmware
  still in the library, and a card write asks for the word RAM of its own; without it, nothing
  is written.
"""
import hashlib
import os
import re
import shutil
import subprocess

import pytest

import qemu_harness as qh
from qemu_harness import Card, Guest, guests  # noqa: F401 (a fixture)

pytestmark = pytest.mark.skipif(os.environ.get("CXR_NO_QEMU") == "1",
                                reason="CXR_NO_QEMU=1: boot tests switched off")

PSID, FW = "HP_0280210019", "2.40.5030"
STOCK_PSID, STOCK_FW = "MT_1090120019", "2.42.5000"
SMALL = "--ddr 2 --ddr-size 0x1000"
ESP_GUID = "C12A7328-F81F-11D2-BA4B-00A0C93EC93B"       # the EFI System Partition's type (UEFI spec)
BASIC_DATA = "EBD0A0A2-B9E5-4433-87C0-68B6B72699C7"


@pytest.fixture(autouse=True)
def built():
    gone = qh.missing()
    assert gone is None, gone


def sh(*argv):
    r = subprocess.run([str(a) for a in argv], capture_output=True, text=True)
    assert r.returncode == 0, f"{argv}: {r.stderr}"
    return r.stdout


def installed_disk(tmp_path):
    """A GPT disk as an installed system has it: an ESP (FAT labelled ESP, with a boot loader),
    and a FAT labelled CXRESCUE without the marker (a stick made before it, or by hand)."""
    disk = tmp_path / "installed.img"
    with open(disk, "wb") as f:
        f.truncate(64 << 20)
    r = subprocess.run(["sfdisk", "--quiet", str(disk)], capture_output=True, text=True,
                       input=f"label: gpt\nstart=2048, size=61440, type={ESP_GUID}\n"
                             f"start=63488, size=63488, type={BASIC_DATA}\n")
    assert r.returncode == 0, r.stderr
    sh("mkfs.vfat", "-n", "ESP", "--offset=2048", disk, 61440 // 2)
    sh("mkfs.vfat", "-n", "CXRESCUE", "--offset=63488", disk, 63488 // 2)
    loader = tmp_path / "grubx64.efi"
    loader.write_bytes(os.urandom(4096))
    esp = f"{disk}@@{2048 * 512}"
    sh("mmd", "-i", esp, "::/EFI", "::/EFI/debian")
    sh("mcopy", "-i", esp, loader, "::/EFI/debian/grubx64.efi")
    old = f"{disk}@@{63488 * 512}"
    sh("mmd", "-i", old, "::/cxrescue", "::/cxrescue/backups")
    return disk


def sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def ahci(disk):
    return ["-device", "ahci,id=ahci", "-drive", f"if=none,id=hdd,format=raw,file={disk}",
            "-device", "ide-hd,drive=hdd,bus=ahci.0"]


def data_file(g):
    out, rc = g.run("while grep -q KIND=searching /run/cxrescue/data; do sleep 0.2; done; "
                    "cat /run/cxrescue/data")
    assert rc == 0, out
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def test_iso_boot_beside_an_installed_system_writes_nothing_there(tmp_path, guests):
    disk = installed_disk(tmp_path)
    before = sha256(disk)
    g = Guest(tmp_path, "cd", extra_args=ahci(disk))
    guests.append(g)
    screen = g.front_end()
    # "yet": the wizard may start while an ISO boot still looks for a stick (2 s).
    assert re.search(r"WARNING: no cxrescue stick was found( yet)?: backups and logs stay in RAM", screen), screen
    seen = screen[screen.index("What this machine has"):]
    assert re.search(r'/dev/sda1 vfat "ESP": not taken: FAT, but not labelled CXRESCUE', seen), seen
    assert re.search(r'/dev/sda2 vfat "CXRESCUE": not taken: labelled CXRESCUE, but without '
                     r"cxrescue's marker", seen), seen
    assert re.search(r'/dev/sr0 iso9660 "CXRESCUE": not taken: ISO 9660', seen), seen
    g.shell()
    d = data_file(g)
    assert d["CXR_DATA_KIND"] == "ram" and d["CXR_DATA_DEV"] == "", d
    out, rc = g.run("grep -c /dev/sda /proc/mounts")
    assert out.strip() == "0", out
    g.leave_shell()
    assert g.power_off() == 0
    # /init said it on the console too, before the wizard started.
    console = g.log_path.read_text(errors="replace")
    assert re.search(r'cxrescue:   /dev/sda1 vfat "ESP": not taken', console), console[-3000:]
    # Not a byte changed: not even the read-only look at the look-alike wrote anything.
    assert sha256(disk) == before
    assert qh.mtools_read(disk, "/EFI/debian/grubx64.efi", offset=str(2048 * 512)) == \
        (tmp_path / "grubx64.efi").read_bytes()


def test_the_stick_wins_over_the_iso_beside_it(tmp_path, guests):
    iso = qh.IMAGES / "cxrescue.iso"
    g = Guest(tmp_path, "usb-xhci",
              extra_args=["-drive", f"if=ide,media=cdrom,readonly=on,format=raw,file={iso}"])
    guests.append(g)
    screen = g.front_end()
    m = re.search(r"Backups and logs go to the cxrescue stick (/dev/sd[a-z]1) \(ID ([0-9a-f]{16})\): "
                  r"/mnt/data/cxrescue", screen)
    assert m, screen
    g.shell()
    d = data_file(g)
    assert d["CXR_DATA_KIND"] == "stick" and d["CXR_DATA_DEV"] == m.group(1), d
    seen, rc = g.run("cat /run/cxrescue/data-seen")
    assert re.search(r'/dev/sr0 iso9660 "CXRESCUE": not taken: ISO 9660', seen), seen
    g.leave_shell()
    assert g.power_off() == 0
    marker = qh.mtools_read(g.stick, "/cxrescue/stick-id.txt").decode()
    assert f"\nid={m.group(2)}\n" in marker, marker
    image_marker = qh.mtools_read(qh.IMAGES / "cxrescue-usb.img", "/cxrescue/stick-id.txt").decode()
    assert "\nid=new\n" in image_marker, "the image itself keeps id=new (reproducible)"


def test_an_iso_boot_takes_the_stick_beside_it(tmp_path, guests):
    """Booted from the ISO (a BMC's virtual media) with a cxrescue stick plugged in: the stick
    shows up after /init's first look, the wizard waits for the search (2 s) and the session's
    backups go to the stick, not to RAM."""
    stick = tmp_path / "beside.img"
    shutil.copyfile(qh.IMAGES / "cxrescue-usb.img", stick)
    g = Guest(tmp_path, "cd", extra_args=["-device", "qemu-xhci,id=hc",
                                     "-drive", f"if=none,id=beside,format=raw,file={stick}",
                                     "-device", "usb-storage,bus=hc.0,drive=beside"])
    guests.append(g)
    screen = g.front_end()
    m = re.search(r"Backups and logs go to the cxrescue stick (/dev/sd[a-z]1) \(ID ([0-9a-f]{16})\): "
                  r"/mnt/data/cxrescue", screen)
    assert m, screen
    assert "LOST at power-off" not in screen, screen
    g.shell()
    out, rc = g.run("ls $CXR_DATA/logs/")
    assert rc == 0 and out.strip(), out
    g.leave_shell()
    assert g.power_off() == 0
    assert f"\nid={m.group(2)}\n" in qh.mtools_read(stick, "/cxrescue/stick-id.txt").decode()
    r = subprocess.run(["mdir", "-b", "-i", f"{stick}@@1M", "::/cxrescue/logs"], capture_output=True, text=True)
    assert "cxrescue-" in r.stdout, r.stdout


def test_a_write_protected_stick_is_named_and_ram_is_confirmed(tmp_path, guests):
    card = Card(tmp_path, "hp544", "--chip", "cx3", "--subsys", "103c:18d6",
                image_opts=f"--chip cx3 --psid {PSID} --fw {FW} {SMALL}")
    original = card.flash.read_bytes()
    stock = tmp_path / "mcx354a-stock.bin"
    sh(qh.MKFS2, "-o", stock, "--chip", "cx3", "--psid", STOCK_PSID, "--fw", STOCK_FW, *SMALL.split())
    g = Guest(tmp_path, "usb-xhci", cards=[card], stick_ro=True,
              stick_files=[(stock, "/cxrescue/firmware/mcx354a-stock.bin")])
    stick_before = sha256(g.stick)
    guests.append(g)
    g.expect(r"cxrescue: WARNING: the cxrescue stick /dev/sd[a-z]1 is WRITE-PROTECTED")
    screen = g.front_end()
    assert re.search(r"WARNING: the cxrescue stick /dev/sd[a-z]1 is WRITE-PROTECTED: backups and logs "
                     r"stay in RAM", screen), screen
    # Its firmware is still offered (copied into RAM).
    assert re.search(r"library: RISKY mcx354a-stock\.bin: ", screen), screen
    g.choose("update")
    g.expect(r"== crossflash: card ")
    g.answer(r"Type FLASH to write the card, anything else cancels: ", "FLASH")
    g.expect(r"WRITE-PROTECTED: the backup made before this write stays in RAM")
    g.answer(r"Type RAM to write with the backup in RAM only, anything else cancels: ", "no")
    g.expect(r"cancelled: nothing written")
    g.front_end()
    assert g.power_off() == 0
    assert card.flash.read_bytes() == original
    assert sha256(g.stick) == stick_before
