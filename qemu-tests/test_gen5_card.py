# SPDX-License-Identifier: GPL-2.0-or-later
"""A simulated ConnectX-4 Lx in the booted rescue image (sim/qemu/cxsim-pci.c, model cx4lx).

The card holds a valid FS3 image from sim/mkfs3 (an HPE 640SFP28's PSID) and is strapped into
recovery mode (cxsim --recovery), so it shows its recovery ID 15b3:020b, class memory controller, and the VSEC
(capability ID 9, hw-access.md §2.4) that QEMU's config space carries for it. The guest must
list the card (the wizard, cxflash list, pciutils' lspci with its capability) and reach the
model's VSEC registers through its own sysfs config file: a space select that reads back with
the "supported" status, and the HW ID read through the VSEC's address/data pair. The wizard
lists it in recovery mode with the FS3 image its flash holds, and cross-flashes it to the stock
image (MCX4121A-ACAT, MT_2420110034) from the menu: the backup first, the typed word, its device
data (GUIDs, MACs) kept, the power-off; checked on the host from the card's file (cxsim
boot-check, cxflash -i on the flash) and the stick (mtools). `make run CARD=cx4lx`
(scripts/run-qemu.sh) boots the same scenario. The same card not strapped runs its firmware,
and the wizard cross-flashes it through that firmware (test_cross_flash_a_running_hpe_640sfp28)."""
import hashlib
import json
import os
import re
import subprocess
import time

import pexpect
import pytest

import qemu_harness as qh
from qemu_harness import Card, Guest, guests  # noqa: F401 (a fixture)

pytestmark = pytest.mark.skipif(os.environ.get("CXR_NO_QEMU") == "1",
                                reason="CXR_NO_QEMU=1: boot tests switched off")

MKFS3 = qh.BUILD / "host" / "mkfs3"
CXFLASH = qh.ROOT / "burner" / "cxflash"
OEM_PSID, OEM_FW = "HP_2420110034", "14.26.1040"
STOCK_PSID, STOCK_FW = "MT_2420110034", "14.27.1016"   # library/boards.txt: HPE 640SFP28 -> MCX4121A-ACAT
GUID, MAC = "0002c90300a1b2d0", "0002c9a1b2d0"         # the card's DEV_INFO (mkfs3 --guid, --mac)
# The cross-flash's card has a 2 MiB flash (W25Q16) and 1 MiB slots (the smallest cxflash
# looks for on a card, ops/devimage_fs3.c): the backup reads the
# whole flash twice through the VSEC gateway, one config cycle at a time, and on TCG one pass
# over the model's default 16 MiB took more than 10 minutes (2026-12-05).
SMALL_PART, SMALL_SLOT_LOG = "W25Q16", "20"
WRITE_TIMEOUT = 600
VSEC = 0xC0                     # where the model puts it (sim/core/pcicfg.c CAP_VSEC)
VSEC_CTRL, VSEC_ADDR, VSEC_DATA = VSEC + 0x4, VSEC + 0x10, VSEC + 0x14
VSEC_COUNTER, VSEC_SEM = VSEC + 0x8, VSEC + 0xC   # a ticket; writing it takes a free semaphore
SPACE_CR = 2                    # CR_SPACE, §2.4
STATUS_OK = 1 << 29             # CTRL 31:29: the space is supported
HW_ID = 0xF0014                 # crspace: the chip's HW ID in 15:0, §1.1
CARD_LINE = re.compile(r"0000:00:0[0-9a-f]\.0\s+ConnectX-4 Lx A0\s+15b3:020b")   # the chip and its revision


@pytest.fixture(autouse=True)
def built():
    gone = qh.missing()
    assert gone is None, gone
    assert MKFS3.exists(), f"{MKFS3} is missing: run 'make build/host/mkfs3'"


def mkfs3(path, *args):
    r = subprocess.run([str(MKFS3), "-o", str(path), "--chip", "cx4lx", *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return path


def hp_card(folder, small=False):
    slot = ["--slot-log", SMALL_SLOT_LOG] if small else []
    img = mkfs3(folder / "hp-640sfp28.bin", "--psid", OEM_PSID, "--fw", OEM_FW, "--guid", GUID, "--mac", MAC, *slot)
    return Card(folder, "hp640", "--chip", "cx4lx", "--image", img, "--recovery",
                *(["--flash", SMALL_PART] if small else []))


def flash_query(path):
    """cxflash q of a raw flash dump (the card's backing file): the image's PSID and FW, the
    device data's GUIDs and MACs, MFG_INFO's PSID (orig_psid)."""
    r = subprocess.run([str(CXFLASH), "-i", str(path), "q", "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


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
    assert "RECOVERY MODE (flash recovery): no firmware runs; its flash holds an FS3 image" in screen, screen
    assert f"PSID {OEM_PSID}  FW {OEM_FW}" in screen, screen
    g.shell()
    out, rc = g.run("lspci -nn -vv -d 15b3:")
    assert rc == 0 and "[15b3:020b]" in out and "ConnectX-4 Lx Flash Recovery" in out, out
    assert re.search(r"Capabilities: \[c0\] Vendor Specific Information: Len=18", out), out
    assert "(64-bit, prefetchable) [size=1M]" in out, out
    bdf = re.search(r"^([0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) ", out, re.M).group(1)
    cfg = f"/sys/bus/pci/devices/0000:{bdf}/config"
    # The wizards on the other consoles read the card too (its inventory): take the VSEC's
    # semaphore as mstflint and cxflash do (§2.4), so that no access of theirs comes between.
    deadline = time.monotonic() + 120
    while True:
        ticket = cfg_read32(g, cfg, VSEC_COUNTER)
        cfg_write32(g, cfg, VSEC_SEM, ticket)
        if cfg_read32(g, cfg, VSEC_SEM) == ticket:
            break
        assert time.monotonic() < deadline, "the VSEC semaphore stayed held"
        time.sleep(1)
    cfg_write32(g, cfg, VSEC_CTRL, SPACE_CR)
    assert cfg_read32(g, cfg, VSEC_CTRL) == STATUS_OK | SPACE_CR
    cfg_write32(g, cfg, VSEC_ADDR, HW_ID)                 # bit 31 clear: a read
    assert cfg_read32(g, cfg, VSEC_ADDR) == 1 << 31 | HW_ID
    assert cfg_read32(g, cfg, VSEC_DATA) & 0xFFFF == 0x020B
    cfg_write32(g, cfg, VSEC_SEM, 0)
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


def test_cross_flash_an_hpe_640sfp28_to_stock(tmp_path, guests):
    """Issue 32 item 7: the OEM ConnectX-4 Lx in recovery mode, the stock MCX4121A-ACAT image on
    the stick; menu 2, the word, power off. On the host: the card's file boots the stock image
    from the other slot, its device data is byte for byte as it was (cxflash -i reads the same
    GUIDs, MACs and MFG_INFO PSID), only the new slot and the old magic changed; the stick holds
    one backup, the original flash, made before the write (the history's order, the console's),
    and the machine powered off by itself."""
    card = hp_card(tmp_path, small=True)
    original = card.flash.read_bytes()
    before = flash_query(card.flash)
    stock = mkfs3(tmp_path / "mcx4121a-stock.bin", "--psid", STOCK_PSID, "--fw", STOCK_FW, "--slot-log", SMALL_SLOT_LOG)
    g = Guest(tmp_path, "usb-xhci", cards=[card], stick_files=[(stock, "/cxrescue/firmware/mcx4121a-stock.bin")],
              name="cx4lx-crossflash")
    guests.append(g)
    t0 = time.monotonic()
    screen = g.front_end()
    t_menu = time.monotonic()
    assert f"PSID {OEM_PSID}  FW {OEM_FW}" in screen, screen
    assert f"base GUID {GUID}  base MAC {MAC} (its device data: every burn keeps them)" in screen, screen
    assert "backup on the stick: NONE YET" in screen, screen
    assert re.search(rf"library: OK mcx4121a-stock\.bin: {OEM_PSID} \S+ -> {STOCK_PSID} \S+: cross-flash, upgrade",
                     screen), screen
    g.choose("update")
    g.expect(r"== crossflash: card \S+ \(ConnectX-4 Lx")
    g.expect(re.escape(f"identity: the card keeps its own GUIDs and MACs (base GUID {GUID}, base MAC {MAC})"))
    g.answer(r"Type FLASH to write the card, anything else cancels: ", "FLASH")
    t_word = time.monotonic()
    g.expect(r"backup written: (\S+) ", timeout=WRITE_TIMEOUT)
    bundle = g.p.match.group(1)
    t_backup = time.monotonic()
    g.expect(r"Writing mcx4121a-stock\.bin onto \S+; do not switch the machine off\.")
    g.expect(rf"card \S+: OK: FW {re.escape(OEM_FW)} -> {re.escape(STOCK_FW)}, PSID {OEM_PSID} -> {STOCK_PSID}, "
             r"written and verified", timeout=WRITE_TIMEOUT)
    t_burn = time.monotonic()
    g.expect(r"Port type and SR-IOV: card \S+ is in recovery mode, and its settings are its running firmware's")
    g.expect(r"Power off for a cold restart")
    g.answer(r"Choose 1-2 \[1\]: ", "")
    assert g.wait_power_off() == 0
    t_off = time.monotonic()
    (qh.BUILD / "qemu-tests").mkdir(parents=True, exist_ok=True)
    with open(qh.BUILD / "qemu-tests" / "boot-times.txt", "a") as f:
        f.write(f"usb/bios cx4lx cross-flash: menu {t_menu - t0:.0f} s, backup {t_backup - t_word:.0f} s, "
                f"burn {t_burn - t_backup:.0f} s, powered off {t_off - t0:.0f} s\n")

    b = card.boot_check()
    assert b["format"] == "FS3" and b["booted"] is True and b["slot"] == 1, b
    assert b["psid"] == STOCK_PSID and b["fw_version"] == STOCK_FW, b
    assert b["pci_device"] == "0x020b" and b["fw_running"] is False, b      # still strapped
    after = flash_query(card.flash)
    assert (after["psid"], after["fw_version"]) == (STOCK_PSID, STOCK_FW), after
    assert after["orig_psid"] == OEM_PSID, after                               # MFG_INFO kept
    assert after["guids"] == before["guids"] and after["guids"][0]["base"] == GUID, after
    assert after["macs"] == before["macs"] and after["macs"][0]["base"] == MAC, after
    now = card.flash.read_bytes()
    slot = 1 << b["slot_log"]
    assert len(now) == len(original)
    assert now[16:slot] == original[16:slot], "slot 0 (the old image, the device data) changed beyond its magic"
    assert now[2 * slot:] == original[2 * slot:], "the flash above the two slots changed"
    assert now[:16] != original[:16] and now[slot:2 * slot] != original[slot:2 * slot]

    qh.mtools_copy_out(g.stick, "/cxrescue/backups", tmp_path / "host")
    bundles = sorted((tmp_path / "host").rglob("flash.bin"))
    assert len(bundles) == 1 and bundles[0].parent.name == bundle, bundles
    assert hashlib.sha256(bundles[0].read_bytes()).digest() == hashlib.sha256(original).digest()
    text = (qh.mtools_read(g.stick, "/cxrescue/history.jsonl") or b"").decode()
    h = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert [x["action"] for x in h] == ["backup", "crossflash"], h
    assert h[1]["result"] == "ok" and h[1]["backup"]["path"].endswith(bundle), h[1]
    assert h[1]["from"]["psid"] == OEM_PSID and h[1]["to"]["psid"] == STOCK_PSID, h[1]
    assert h[1]["card"]["node_guid"] == GUID and h[1]["card"]["macs"][0] == MAC, h[1]
    console = g.log_path.read_text(errors="replace")
    assert console.index("backup written: ") < console.index("Writing mcx4121a-stock.bin onto ") \
        < console.index("cxrescue: powering off")


def test_cross_flash_a_running_hpe_640sfp28(tmp_path, guests):
    """Issue 32 item 7, its firmware running: the same OEM ConnectX-4 Lx not strapped, so it
    shows its own ID (15b3:1015) and the wizard reaches its flash through its firmware (ICMD:
    MFBA/MFBE, hw-access.md §3.14). Menu 2, the word: the backup first, the burn, the port type
    and SR-IOV screen (Enter keeps them: its settings are the running firmware's, asked over
    ICMD), the power-off. On the host: after the model's cold boot the card runs the stock image
    from the other slot, its device data as it was; the stick's one backup is the original flash.
    Then the same stick boots again with the card running the stock image, and menu 4 restores
    the backup (issue 32 item 7: restore): the bundle found by the card's base GUID, the word,
    the flash as it is backed up first, the restore through the firmware, the power-off; on the
    host the card's flash is the original byte for byte and the model boots the OEM image again."""
    slot = ["--slot-log", SMALL_SLOT_LOG]
    img = mkfs3(tmp_path / "hp-640sfp28.bin", "--psid", OEM_PSID, "--fw", OEM_FW, "--guid", GUID, "--mac", MAC, *slot)
    card = Card(tmp_path, "hp640run", "--chip", "cx4lx", "--image", img, "--flash", SMALL_PART)
    original = card.flash.read_bytes()
    before = flash_query(card.flash)
    stock = mkfs3(tmp_path / "mcx4121a-stock.bin", "--psid", STOCK_PSID, "--fw", STOCK_FW, *slot)
    g = Guest(tmp_path, "usb-xhci", cards=[card], stick_files=[(stock, "/cxrescue/firmware/mcx4121a-stock.bin")],
              name="cx4lx-running-crossflash")
    guests.append(g)
    screen = g.front_end()
    assert re.search(r"0000:00:0[0-9a-f]\.0\s+ConnectX-4 Lx A0\s+15b3:1015", screen), screen
    assert "its firmware runs (cxflash reaches its flash through it); its flash holds an FS3 image" in screen, screen
    assert f"PSID {OEM_PSID}  FW {OEM_FW}" in screen, screen
    assert "offered: update / cross-flash, burn a file, restore, GUIDs/MACs, settings" in screen, screen
    g.choose("update")
    g.expect(r"\(FS3 image; through its running firmware\)")
    g.answer(r"Type FLASH to write the card, anything else cancels: ", "FLASH")
    g.expect(r"backup written: (\S+) ", timeout=WRITE_TIMEOUT)
    bundle = g.p.match.group(1)
    g.expect(rf"card \S+: OK: FW {re.escape(OEM_FW)} -> {re.escape(STOCK_FW)}, PSID {OEM_PSID} -> {STOCK_PSID}, "
             r"written and verified", timeout=WRITE_TIMEOUT)
    g.expect(r"== Port type and SR-IOV: card ")
    g.answer(r"Choose 1-\d \[1\]: ", "")
    g.expect(r"settings kept, nothing written")
    g.expect(r"Power off for a cold restart")
    g.answer(r"Choose 1-2 \[1\]: ", "")
    assert g.wait_power_off() == 0

    b = card.boot_check()
    assert b["format"] == "FS3" and b["booted"] is True and b["slot"] == 1, b
    assert b["psid"] == STOCK_PSID and b["fw_version"] == STOCK_FW, b
    after = flash_query(card.flash)
    assert after["guids"] == before["guids"] and after["macs"] == before["macs"], after
    now = card.flash.read_bytes()
    slot_size = 1 << b["slot_log"]
    assert now[16:slot_size] == original[16:slot_size], "slot 0 (the old image, the device data) changed"
    qh.mtools_copy_out(g.stick, "/cxrescue/backups", tmp_path / "host")
    bundles = sorted((tmp_path / "host").rglob("flash.bin"))
    assert len(bundles) == 1 and bundles[0].parent.name == bundle, bundles
    assert bundles[0].read_bytes() == original

    g2 = Guest(tmp_path, "usb-xhci", cards=[card], stick=g.stick, name="cx4lx-running-restore")
    guests.append(g2)
    screen = g2.front_end()
    assert f"PSID {STOCK_PSID}  FW {STOCK_FW}" in screen, screen
    g2.choose("restore")
    g2.expect(r"Restore which backup\?")
    g2.answer(r"Choose 1-2 \[1\]: ", "1")                             # its one bundle, or back
    g2.expect(re.escape(f"PSID {OEM_PSID}  FW {OEM_FW}  node GUID {GUID}"))
    g2.expect(r"== restore: card \S+ \(ConnectX-4 Lx")
    g2.answer(r"Type FLASH to write the card, anything else cancels: ", "FLASH")
    g2.expect(r"backup written: (\S+) ", timeout=WRITE_TIMEOUT)     # the stock flash, kept first
    crossed_bundle = g2.p.match.group(1)
    g2.expect(r"card \S+: OK: the backup is on the flash, read back and verified", timeout=WRITE_TIMEOUT)
    g2.expect(r"Power off for a cold restart")
    g2.answer(r"Choose 1-2 \[1\]: ", "")
    assert g2.wait_power_off() == 0

    b = card.boot_check()
    assert b["booted"] is True and b["psid"] == OEM_PSID and b["fw_version"] == OEM_FW, b
    assert card.flash.read_bytes() == original, "the restored flash is not the backup's"
    qh.mtools_copy_out(g2.stick, "/cxrescue/backups", tmp_path / "host2")
    kept = {p.parent.name: p.read_bytes() for p in (tmp_path / "host2").rglob("flash.bin")}
    assert set(kept) == {bundle, crossed_bundle} and kept[crossed_bundle] == now, sorted(kept)
    text = (qh.mtools_read(g2.stick, "/cxrescue/history.jsonl") or b"").decode()
    h = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert h[-1]["action"] == "restore" and h[-1]["result"] == "ok", h[-1]
