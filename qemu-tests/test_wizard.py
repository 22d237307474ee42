# SPDX-License-Identifier: GPL-2.0-or-later
"""The rescue wizard (`cxflash rescue`, issue 7) driven over the real image's serial console.

Each scenario boots the USB image in QEMU with simulated cards, answers the wizard's
questions as a user would, and checks the result on the host afterwards: the card's
backing file with `cxsim boot-check`, the stick's FAT with mtools (backups, history, logs,
reports). Nothing is checked from the guest's own word alone."""
import hashlib
import json
import os
import re
import subprocess

import pytest

import qemu_harness as qh
from qemu_harness import Card, Guest

pytestmark = pytest.mark.skipif(os.environ.get("CXR_NO_QEMU") == "1",
                                reason="CXR_NO_QEMU=1: boot tests switched off")

OEM_PSID, OEM_FW = "HP_0280210019", "2.40.5030"
STOCK_PSID, STOCK_FW = "MT_1090120019", "2.42.5000"
SMALL = "--ddr 2 --ddr-size 0x1000"
GUID, MAC = "0002c90300a1b2c0", "0002c9a1b2c0"
WRITE_TIMEOUT = 900          # a backup and a burn through the guest, on TCG


@pytest.fixture(autouse=True)
def built():
    gone = qh.missing()
    assert gone is None, gone


@pytest.fixture
def guests():
    started = []
    yield started
    for g in started:
        g.close()


def oem_card(folder, name="hp544", guid=GUID, mac=MAC):
    return Card(folder, name, "--chip", "cx3", "--subsys", "103c:18d6", "--guid", guid, "--mac", mac,
                image_opts=f"--chip cx3 --psid {OEM_PSID} --fw {OEM_FW} {SMALL}")


def image(folder, name, opts):
    path = folder / name
    r = subprocess.run([str(qh.MKFS2), "-o", str(path)] + opts.split(), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return path


def stick_text(g, path):
    data = qh.mtools_read(g.stick, path)
    return data.decode(errors="replace") if data is not None else None


def history(g):
    text = stick_text(g, "/cxrescue/history.jsonl") or ""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_cross_flash_an_hp_card_to_stock(tmp_path, guests):
    """Scenario 1: back up, update (a cross-flash), type the word, power off; on the host the
    card boots the stock image with its own GUIDs/MACs, and the backup on the stick is the
    original flash byte for byte."""
    card = oem_card(tmp_path)
    original = card.flash.read_bytes()
    stock = image(tmp_path, "mcx354a-stock.bin", f"--chip cx3 --psid {STOCK_PSID} --fw {STOCK_FW} {SMALL}")
    g = Guest(tmp_path, "usb-xhci", cards=[card], stick_files=[(stock, "/cxrescue/firmware/mcx354a-stock.bin")])
    guests.append(g)
    screen = g.front_end()
    assert "backup on the stick: NONE YET" in screen, screen
    assert re.search(r"library: RISKY mcx354a-stock\.bin: ", screen), screen
    g.choose("backup")
    g.expect(r"Backups: 1 written, 0 failed\.", timeout=WRITE_TIMEOUT)
    screen = g.front_end()
    g.choose("update")
    g.expect(r"== crossflash: card ")
    g.answer(r"Type FLASH to write the card, anything else cancels: ", "FLASH")
    g.expect(r"card \S+: OK: FW 2\.40\.5030 -> 2\.42\.5000", timeout=WRITE_TIMEOUT)
    g.expect(r"Power off for a cold restart")
    g.answer(r"Choose 1-2 \[1\]: ", "")
    assert g.wait_power_off() == 0
    b = card.boot_check()
    assert b["booted"] is True and b["psid"] == STOCK_PSID and b["fw_version"] == STOCK_FW, b
    assert b["guids"]["node"] == GUID and b["macs"]["port1"] == MAC, b
    qh.mtools_copy_out(g.stick, "/cxrescue/backups", tmp_path / "host")
    bundles = sorted((tmp_path / "host").rglob("flash.bin"))
    assert len(bundles) == 2, bundles   # the "back up all" one and the one before the burn
    for f in bundles:
        assert hashlib.sha256(f.read_bytes()).digest() == hashlib.sha256(original).digest(), f
    h = history(g)
    assert [x["action"] for x in h] == ["backup", "backup", "crossflash"], h
    assert h[-1]["result"] == "ok" and h[-1]["to"]["psid"] == STOCK_PSID, h[-1]
    assert h[-1]["card"]["node_guid"] == GUID, h[-1]
