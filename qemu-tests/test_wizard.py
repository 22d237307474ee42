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
from qemu_harness import Card, Guest, guests  # noqa: F401 (a fixture)

pytestmark = pytest.mark.skipif(os.environ.get("CXR_NO_QEMU") == "1",
                                reason="CXR_NO_QEMU=1: boot tests switched off")

OEM_PSID, OEM_FW = "HP_0280210019", "2.40.5030"
STOCK_PSID, STOCK_FW = "MT_1090120019", "2.42.5000"
SMALL = "--ddr 2 --ddr-size 0x1000"
GUID, MAC = "0002c90300a1b2c0", "0002c9a1b2c0"
WRITE_TIMEOUT = 240          # a backup and a burn through the guest take seconds on TCG; bounded on failure


@pytest.fixture(autouse=True)
def built():
    gone = qh.missing()
    assert gone is None, gone


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
    g.expect(r"the card's flash equals backup \S+, made at \S+: not written again", timeout=WRITE_TIMEOUT)
    g.expect(r"card \S+: OK: FW 2\.40\.5030 -> 2\.42\.5000", timeout=WRITE_TIMEOUT)
    g.expect(r"== Port type and SR-IOV: card ")
    g.answer(r"Choose 1-5 \[1\]: ", "")
    g.expect(r"settings kept, nothing written")
    g.expect(r"Power off for a cold restart")
    g.answer(r"Choose 1-2 \[1\]: ", "")
    assert g.wait_power_off() == 0
    b = card.boot_check()
    assert b["booted"] is True and b["psid"] == STOCK_PSID and b["fw_version"] == STOCK_FW, b
    assert b["guids"]["node"] == GUID and b["macs"]["port1"] == MAC, b
    assert b["next_boot_settings"] == {"tlvs": 0, "values": {}}, b
    qh.mtools_copy_out(g.stick, "/cxrescue/backups", tmp_path / "host")
    bundles = sorted((tmp_path / "host").rglob("flash.bin"))
    # The "back up all" one only: the burn found the flash equal to it and took it as its backup.
    assert len(bundles) == 1, bundles
    for f in bundles:
        assert hashlib.sha256(f.read_bytes()).digest() == hashlib.sha256(original).digest(), f
    h = history(g)
    assert [x["action"] for x in h] == ["backup", "crossflash"], h
    assert h[-1]["backup"]["path"].endswith(bundles[0].parent.name), h[-1]
    assert h[-1]["result"] == "ok" and h[-1]["to"]["psid"] == STOCK_PSID, h[-1]
    assert h[-1]["card"]["node_guid"] == GUID, h[-1]


def test_cross_flash_then_both_ports_to_ethernet(tmp_path, guests):
    """Issue 20: after the cross-flash of the simulated HP card, the wizard's port type and
    SR-IOV screen sets LINK_TYPE_P1=ETH and LINK_TYPE_P2=ETH through the running firmware's
    settings interface (the QEMU device's model). After power-off, `cxsim boot-check` shows
    them in the card's settings store, the two ports' records only; the history has them
    before and after."""
    card = oem_card(tmp_path)
    stock = image(tmp_path, "mcx354a-stock.bin", f"--chip cx3 --psid {STOCK_PSID} --fw {STOCK_FW} {SMALL}")
    g = Guest(tmp_path, "usb-xhci", cards=[card], stick_files=[(stock, "/cxrescue/firmware/mcx354a-stock.bin")])
    guests.append(g)
    g.front_end()
    g.choose("update")
    g.answer(r"Type FLASH to write the card, anything else cancels: ", "FLASH")
    g.expect(r"card \S+: OK: FW 2\.40\.5030 -> 2\.42\.5000", timeout=WRITE_TIMEOUT)
    g.expect(r"== Port type and SR-IOV: card \S+ ==")
    g.expect(r"1\. keep these settings\s+2\. LINK_TYPE_P1: VPI\(3\)\s+3\. LINK_TYPE_P2: VPI\(3\)\s+"
             r"4\. SRIOV_EN: False\(0\)\s+5\. NUM_OF_VFS: 8\s")
    g.answer(r"Choose 1-5 \[1\]: ", "2")
    g.answer(r"LINK_TYPE_P1:.*?Choose 1-3 \[3\]: ", "2")
    g.answer(r"Choose 1-5 \[1\]: ", "3")
    g.answer(r"LINK_TYPE_P2:.*?Choose 1-3 \[3\]: ", "2")
    g.expect(r"1\. write these changes\s+2\. LINK_TYPE_P1: VPI\(3\) -> ETH\(2\)\s+"
             r"3\. LINK_TYPE_P2: VPI\(3\) -> ETH\(2\)\s")
    g.answer(r"Choose 1-5 \[1\]: ", "1")
    g.answer(r"Type FLASH to write the settings, anything else cancels: ", "FLASH")
    g.expect(re.escape("OK: LINK_TYPE_P1 VPI(3) -> ETH(2), LINK_TYPE_P2 VPI(3) -> ETH(2). The new values take "
                       "effect at the next cold boot"), timeout=WRITE_TIMEOUT)
    g.expect(r"Power off for a cold restart")
    g.answer(r"Choose 1-2 \[1\]: ", "")
    assert g.wait_power_off() == 0
    b = card.boot_check()
    assert b["booted"] is True and b["psid"] == STOCK_PSID and b["fw_version"] == STOCK_FW, b
    s = b["next_boot_settings"]
    assert s["tlvs"] == 2 and s["values"]["LINK_TYPE_P1"] == 2 and s["values"]["LINK_TYPE_P2"] == 2, s
    h = history(g)
    assert [x["action"] for x in h] == ["backup", "crossflash", "settings"], h
    assert h[-1]["result"] == "ok" and h[-1]["card"]["node_guid"] == GUID, h[-1]
    assert h[-1]["message"] == "LINK_TYPE_P1 VPI(3) -> ETH(2), LINK_TYPE_P2 VPI(3) -> ETH(2)", h[-1]


def untouched(card, before_bytes, before_mtime):
    """Nothing was erased or programmed: the QEMU device writes every change of the
    model's flash through to the file as it happens (sim/qemu/cxsim-pci.c), so a card that
    got no erase and no program has a file with its old bytes and its old mtime."""
    st = card.flash.stat()
    return card.flash.read_bytes() == before_bytes and st.st_mtime_ns == before_mtime


def bricked(folder, name="hp544", guid=GUID, mac=MAC):
    """The same card, its flash now damaged: it powers on in recovery mode."""
    c = Card(folder, name, "--chip", "cx3", "--subsys", "103c:18d6", "--guid", guid, "--mac", mac,
             "--corrupt", image_opts=f"--chip cx3 --psid {OEM_PSID} --fw {OEM_FW} {SMALL}")
    assert c.boot_check()["booted"] is False
    return c


def test_unbrick_from_the_backup_on_the_stick(tmp_path, guests):
    """Scenario 2: a card backed up by the wizard later comes up in recovery mode; the
    wizard restores its backup; after power-off the next boot shows it in normal mode with
    its old identity, and the wizard checks that it runs the firmware written."""
    card = oem_card(tmp_path)
    g = Guest(tmp_path, "usb-xhci", cards=[card])
    guests.append(g)
    g.front_end()
    g.choose("backup")
    g.expect(r"Backups: 1 written, 0 failed\.", timeout=WRITE_TIMEOUT)
    g.front_end()
    assert g.power_off() == 0
    card = bricked(tmp_path)

    g = Guest(tmp_path, "usb-xhci", cards=[card], stick=g.stick)
    guests.append(g)
    screen = g.front_end()
    assert "RECOVERY MODE" in screen, screen
    g.choose("unbrick")
    # --corrupt breaks BOOT2 only: the GUID section is whole, so keeping it comes first (1).
    g.answer(r"How\?\s+1\. Burn a library image, keeping the GUIDs/MACs its flash still holds \(node GUID "
             + GUID + r"\).*?Choose 1-5 \[1\]: ", "2")
    g.answer(r"Which backup\?.*?Choose 1-2 \[1\]: ", "1")
    g.answer(r"Type FLASH to write the card, anything else cancels: ", "FLASH")
    g.expect(r"OK: the backup is on the flash, read back and verified", timeout=WRITE_TIMEOUT)
    g.expect(r"REMOVE IT now")      # the jumper, on the cold-restart screen of an unbrick
    g.answer(r"Choose 1-2 \[1\]: ", "")
    assert g.wait_power_off() == 0
    b = card.boot_check()
    assert b["booted"] is True and b["psid"] == OEM_PSID, b
    assert b["guids"]["node"] == GUID and b["macs"]["port1"] == MAC, b

    g = Guest(tmp_path, "usb-xhci", cards=[card], stick=g.stick)
    guests.append(g)
    screen = g.front_end()
    assert "RECOVERY MODE" not in screen and f"PSID {OEM_PSID}  FW {OEM_FW}" in screen, screen
    assert f"node GUID {GUID}  MACs {MAC}" in screen, screen
    assert re.search(r"after the cold restart card \S+ runs FW 2\.40\.5030, as written \(unbrick\)", screen), screen
    assert g.power_off() == 0
    h = history(g)
    assert [x["action"] for x in h] == ["backup", "backup", "unbrick", "boot-check"], h
    assert h[2]["result"] == "ok" and h[3]["result"] == "ok", h


def test_unbrick_with_the_identity_from_the_sticker(tmp_path, guests):
    """Scenario 3: a card in recovery mode, no backup: the user picks the library image and
    types the GUID and MAC from the sticker (each twice); the card boots with exactly those."""
    card = bricked(tmp_path, guid="0002c90300000000", mac="0002c9000000")
    stock = image(tmp_path, "mcx354a-stock.bin", f"--chip cx3 --psid {STOCK_PSID} --fw {STOCK_FW} {SMALL}")
    g = Guest(tmp_path, "usb-xhci", cards=[card], stick_files=[(stock, "/cxrescue/firmware/mcx354a-stock.bin")])
    guests.append(g)
    g.front_end()
    g.choose("unbrick")
    g.answer(r"How\?.*?Choose 1-5 \[1\]: ", "4")   # the sticker, not the GUIDs its flash still holds
    g.answer(r"Burn which image\?.*?Choose 1-2 \[1\]: ", "1")
    g.answer(r"node GUID \(16 hex digits[^:]*: ", "0002C903-00C0FFEE")
    g.answer(r"Type the node GUID again to confirm: ", "0002c90300c0ffee")
    g.answer(r"port 1 MAC \(12 hex digits[^:]*: ", "00:02:c9:c0:ff:ee")
    g.answer(r"Type the port 1 MAC again to confirm: ", "0002c9c0ffee")
    g.expect(r"identity: node GUID 0002c90300c0ffee")
    g.answer(r"Type FLASH to write the card, anything else cancels: ", "FLASH")
    g.expect(r"card \S+: OK: recovery mode, no readable image -> FW 2\.42\.5000", timeout=WRITE_TIMEOUT)
    g.answer(r"Choose 1-2 \[1\]: ", "")
    assert g.wait_power_off() == 0
    b = card.boot_check()
    assert b["booted"] is True and b["psid"] == STOCK_PSID, b
    assert b["guids"]["node"] == "0002c90300c0ffee" and b["guids"]["port1"] == "0002c90300c0ffef", b
    assert b["macs"]["port1"] == "0002c9c0ffee" and b["macs"]["port2"] == "0002c9c0ffef", b


def test_refusals_write_nothing_and_the_wizard_stays_up(tmp_path, guests):
    """Scenario 4: a CX3 Pro image for a CX3 card is listed REFUSED and cannot be picked; a
    RISKY target in unattended mode is refused; a wrong word at the confirmation cancels.
    The card's file is never written, and the wizard stays up each time."""
    card = oem_card(tmp_path)
    pro = image(tmp_path, "cx3pro.bin", f"--chip cx3pro {SMALL}")
    stock = image(tmp_path, "mcx354a-stock.bin", f"--chip cx3 --psid {STOCK_PSID} --fw {STOCK_FW} {SMALL}")
    before, mtime = card.flash.read_bytes(), card.flash.stat().st_mtime_ns
    g = Guest(tmp_path, "usb-xhci", cards=[card], append="cxrescue.job=crossflash cxrescue.yes=1",
              stick_files=[(pro, "/cxrescue/firmware/cx3pro.bin"), (stock, "/cxrescue/firmware/mcx354a-stock.bin")])
    guests.append(g)
    # Unattended: the recommendation is RISKY (an inferred board-table mapping): refused.
    g.expect(r"card \S+: refused: mcx354a-stock\.bin is RISKY")
    g.expect(r"The job did not complete")
    g.front_end()
    # The Pro image: listed REFUSED, not offered.
    g.choose("burn")
    g.expect(r"REFUSED cx3pro\.bin: ")
    g.answer(r"Burn which file\?\s+1\. \S+mcx354a-stock\.bin \(RISKY\)\s+2\. back to the menu\s+Choose 1-2: ", "2")
    g.front_end()
    # The wrong word.
    g.choose("update")
    g.answer(r"Type FLASH to write the card, anything else cancels: ", "flash")
    g.expect(r"cancelled: nothing written")
    g.front_end()
    assert g.power_off() == 0
    assert untouched(card, before, mtime), "the card's flash was written"
    reports = [p for p in (stick_text(g, "/cxrescue/reports/" + n) for n in report_names(g)) if p]
    assert len(reports) == 1, reports
    r = json.loads(reports[0])
    assert r["job"] == "crossflash" and r["result"] == "failed", r
    assert r["cards"][0]["result"] == "refused" and r["cards"][0]["backup"] is None, r


def report_names(g):
    r = subprocess.run(["mdir", "-b", "-i", f"{g.stick}@@1M", "::/cxrescue/reports"], capture_output=True, text=True)
    return [line.rsplit("/", 1)[-1] for line in r.stdout.split() if line.endswith(".json")]


def test_unattended_update_of_two_cards(tmp_path, guests):
    """Scenario 5: cxrescue.job=update cxrescue.yes=1 with two cards: both updated to the
    library's newer image of their own PSID, each backed up first, a report written, and
    QEMU powers off without a key pressed."""
    a = oem_card(tmp_path, "a", guid="0002c90300aaaa00", mac="0002c9aaaa00")
    b = oem_card(tmp_path, "b", guid="0002c90300bbbb00", mac="0002c9bbbb00")
    newer = image(tmp_path, "hp-2.42.bin", f"--chip cx3 --psid {OEM_PSID} --fw 2.42.5000 {SMALL}")
    g = Guest(tmp_path, "usb-xhci", cards=[a, b], append="cxrescue.job=update cxrescue.yes=1",
              stick_files=[(newer, "/cxrescue/firmware/hp-2.42.bin")])
    guests.append(g)
    g.expect(r"The job is done: powering off\.", timeout=WRITE_TIMEOUT)
    assert g.wait_power_off() == 0
    for card, guid, mac in ((a, "0002c90300aaaa00", "0002c9aaaa00"), (b, "0002c90300bbbb00", "0002c9bbbb00")):
        bc = card.boot_check()
        assert bc["booted"] and bc["psid"] == OEM_PSID and bc["fw_version"] == "2.42.5000", bc
        assert bc["guids"]["node"] == guid and bc["macs"]["port1"] == mac, bc
    names = report_names(g)
    assert len(names) == 1, names
    r = json.loads(stick_text(g, "/cxrescue/reports/" + names[0]))
    assert r["job"] == "update" and r["result"] == "ok", r
    assert [c["result"] for c in r["cards"]] == ["ok", "ok"], r
    assert all(c["backup"] and c["to"]["fw"] == "2.42.5000" and c["fw"] == OEM_FW for c in r["cards"]), r
    h = history(g)
    assert [x["action"] for x in h] == ["backup", "update", "backup", "update"], h


def test_power_cut_during_a_burn_is_finished_at_the_next_boot(tmp_path, guests):
    """Scenario 6: QEMU is killed in the middle of the wizard's burn. At the next boot the
    card is in normal mode (old or new firmware: the burn is failsafe) and the wizard offers
    to finish the job; it does, and the card boots the new image."""
    big = "--ddr 2 --ddr-size 0x60000"          # ~0.4 MiB: a burn long enough to cut
    card = Card(tmp_path, "hp544", "--chip", "cx3", "--subsys", "103c:18d6", "--guid", GUID, "--mac", MAC,
                image_opts=f"--chip cx3 --psid {OEM_PSID} --fw {OEM_FW} {big}")
    newer = image(tmp_path, "hp-2.42.bin", f"--chip cx3 --psid {OEM_PSID} --fw 2.42.5000 {big}")
    g = Guest(tmp_path, "usb-xhci", cards=[card], stick_files=[(newer, "/cxrescue/firmware/hp-2.42.bin")])
    guests.append(g)
    g.front_end()
    g.choose("update")
    g.answer(r"Type FLASH to write the card, anything else cancels: ", "FLASH")
    g.expect(r"Writing hp-2\.42\.bin onto", timeout=WRITE_TIMEOUT)
    g.expect(r"write\s+[1-9]\d%", timeout=WRITE_TIMEOUT)
    g.power_cut()
    b = card.boot_check()
    assert b["booted"] is True and b["fw_version"] in (OEM_FW, "2.42.5000"), b

    g = Guest(tmp_path, "usb-xhci", cards=[card], stick=g.stick)
    guests.append(g)
    g.expect(r"The update of card \S+ \(started [^)]*\) was INTERRUPTED")
    g.expect(r"The card holds a whole image now: PSID HP_0280210019, FW 2\.4")
    g.answer(r"Finish the job now \(the same update, after the same checks\)\? \[Y/n\]: ", "")
    g.answer(r"Type FLASH to write the card, anything else cancels: ", "FLASH")
    g.expect(r"card \S+: (OK: FW 2\.40\.5030 -> 2\.42\.5000|it already holds this image)", timeout=WRITE_TIMEOUT)
    b = card.boot_check()
    assert b["booted"] is True and b["fw_version"] == "2.42.5000", b
    assert b["guids"]["node"] == GUID and b["macs"]["port1"] == MAC, b
    g.close()


HP_ROMS = "--roms clp:8025,uefi:14.11.49,pxe:3.4.754"   # HP's 544+ boot ROMs (sim/mkfs2/README.md)
HP_ROM_TEXT = "CLP 8025, UEFI 14.11.49, PXE 3.4.754"


def card_rom(flash, out):
    """The ROM section of a card's flash, read on the host with cxflash (striped: a flash dump)."""
    r = subprocess.run([str(qh.ROOT / "burner" / "cxflash"), "-i", str(flash), "--striped_image", "rrom", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out.read_bytes()


# HP's 544+FLR (ConnectX-3 Pro, 764285-B21, subsystem 103c:22f4: field-notes.md §3 and row 8)
# with its HPE 2.42.5700 image. No source shipped with cxrescue names the stock PSID it
# corresponds to (row 8: a custom image built from MCX354A-FCC_Ax.ini), so the user puts the
# mapping in their own board table on the stick (burner/library/library.h); the stock image
# and its PSID here are generated, never a real one.
PRO_OEM_PSID, PRO_OEM_FW = "HP_1380110017", "2.42.5700"
PRO_STOCK_PSID = "CXR_TEST_FCC"
OWN_BOARDS = (f"HP | 764285-B21 | {PRO_OEM_PSID} | cx3pro | 103c:22f4 | MCX354A-FCC | {PRO_STOCK_PSID} | - | FDR | "
              "stated | https://gist.github.com/lzghzr/d37327c218a09cce3e601cea3ebdbd42 | "
              "my own row: the stock image I chose | -\n")


def test_cross_flash_keeps_the_cards_uefi_rom(tmp_path, guests):
    """Issue 19: a simulated HP 544+ (ConnectX-3 Pro, PSID HP_1380110017, FW 2.42.5700, HP's
    boot ROMs CLP 8025, UEFI 14.11.49, PXE 3.4.754) is cross-flashed to a generated stock image
    that has PXE 3.4.752 only, through the user's own board row on the stick; the wizard asks,
    and Enter keeps the card's ROMs. After power-off, `cxsim boot-check` and `cxflash -i` on the
    card's flash show the stock PSID and FW, the card's own GUIDs/MACs and its ROM section byte
    for byte."""
    card = Card(tmp_path, "hp544p", "--chip", "cx3pro", "--subsys", "103c:22f4", "--guid", GUID, "--mac", MAC,
                image_opts=f"--chip cx3pro --psid {PRO_OEM_PSID} --fw {PRO_OEM_FW} {SMALL} {HP_ROMS}")
    before = card_rom(card.flash, tmp_path / "before.rom")
    stock = image(tmp_path, "mcx354a-fcc-stock.bin", f"--chip cx3pro --psid {PRO_STOCK_PSID} --fw {STOCK_FW} {SMALL}")
    own = tmp_path / "boards.txt"
    own.write_text(OWN_BOARDS)
    g = Guest(tmp_path, "usb-xhci", cards=[card], stick_files=[(stock, "/cxrescue/firmware/mcx354a-fcc-stock.bin"),
                                                                (own, "/cxrescue/boards.txt")])
    guests.append(g)
    screen = g.front_end()
    assert re.search(r"HP_1380110017 2\.42\.5700 -> CXR_TEST_FCC 2\.42\.5000: cross-flash, downgrade; the mapping "
                     r"HP_1380110017 -> CXR_TEST_FCC is your own board table's \(/\S+/boards\.txt:1\), not cxrescue's",
                     screen), screen
    g.choose("update")
    g.expect(r"== crossflash: card ")
    g.expect(r"the card's has UEFI, the image's has not")
    g.answer(r"Boot ROM of the new firmware\?.*?Choose 1-3 \[1\]: ", "")
    g.expect(re.escape(f"boot ROM: {HP_ROM_TEXT} -> {HP_ROM_TEXT} (the card's)"))
    g.answer(r"Type FLASH to write the card, anything else cancels: ", "FLASH")
    g.expect(r"card \S+: OK: FW 2\.42\.5700 -> 2\.42\.5000", timeout=WRITE_TIMEOUT)
    g.answer(r"== Port type and SR-IOV: card .*?Choose 1-5 \[1\]: ", "")
    g.expect(r"Power off for a cold restart")
    g.answer(r"Choose 1-2 \[1\]: ", "")
    assert g.wait_power_off() == 0
    b = card.boot_check()
    assert b["booted"] is True and b["psid"] == PRO_STOCK_PSID and b["fw_version"] == STOCK_FW, b
    assert b["guids"]["node"] == GUID and b["macs"]["port1"] == MAC, b
    q = subprocess.run([str(qh.ROOT / "burner" / "cxflash"), "-i", str(card.flash), "--striped_image", "q"],
                       capture_output=True, text=True)
    assert q.returncode == 0, q.stderr
    assert re.search(rf"^PSID: +{PRO_STOCK_PSID}$", q.stdout, re.M) and re.search(r"^FW Version: +2\.42\.5000$",
                                                                             q.stdout, re.M), q.stdout
    assert "version_id=8025 type=CLP" in q.stdout and "type=UEFI version=14.11.49" in q.stdout, q.stdout
    assert "type=PXE version=3.4.754" in q.stdout and "3.4.752" not in q.stdout, q.stdout
    assert card_rom(card.flash, tmp_path / "after.rom") == before
    h = history(g)
    assert h[-1]["action"] == "crossflash" and h[-1]["result"] == "ok", h
