# SPDX-License-Identifier: GPL-2.0-or-later
"""cxflash restore on ConnectX-4 (FS3), ConnectX-4 Lx (FS3) and ConnectX-5 (FS4), judged by
unmodified Debian mstflint 4.21 on the flash files, in seconds (docs/testing.md).

cxflash runs whole, from its command line down (cli_main, cmd_restore, restore_card), on a card
`cxsim create` makes, but in process (build/tests/cxflash_sim, burner/tests/cxflash_sim.c): over
cxsim's FUSE sysfs each whole-flash read through the VSEC takes minutes, which is why
test_cxflash_cx4_restore.py waits for CXR_SLOW_FUSE=1. The card's flash is a file after each
command, and mstflint reads that file (`-i FILE v`, `q`, `q full`): mstflint, not cxflash, says
whether the restored flash verifies, which PSID and FW it holds and whose GUIDs and MACs.

  - cross-flash and restore (each chip, the card in recovery mode and with its firmware
    running, cxflash then reaching the flash through MFBA/MFBE): an OEM card is backed up,
    cross-flashed to a stock image of another PSID (mstflint sees the stock PSID), restored
    from its bundle: mstflint verifies it, shows the OEM PSID and FW again and the card's own
    GUID and MAC; `q full` prints what it printed for the card before; the flash is the
    bundle's flash.bin byte for byte, and the device sections (and FS4's DTOC) are those of
    the cross-flashed card (a slot restore leaves them alone); a second restore writes nothing;
  - lost device data (DEV_INFO's GUIDs zeroed, or its sector erased; mstflint then fails
    `v` and `q` on the flash): restore without --device-data is refused (exit 10, one line
    naming the option and the bundle's GUID, the flash unchanged); with it mstflint verifies
    the flash and shows the backed-up GUID and MAC again;
  - --dry-run (restore of the slots, restore with --device-data, FS4's sg): every check made,
    nothing erased or programmed as the model counts it, the flash byte for byte as it was.
Skips, saying why, when mstflint is missing."""
import re
import shutil

import pytest

from conftest import BUILD, run
from test_oracle import fields

MKFS3 = BUILD / "host" / "mkfs3"
CXSIM = BUILD / "host" / "cxsim"
CXFLASH_SIM = BUILD / "tests" / "cxflash_sim"
MSTFLINT = shutil.which("mstflint")

FLASH = 2 << 20                   # W25Q16, as test_cxflash_cx4_restore.py: two 1 MiB slots
GUID, MAC = "0002c90300a0b0c0", "0002c9a0b0c0"
OEM_PSID, STOCK_PSID = "HP_2420110034", "MT_2420110034"
CHIPS = {
    # chip: (format, FW of the OEM image, FW of the stock image)
    "cx4": ("FS3", "12.28.2006", "12.28.2010"),
    "cx4lx": ("FS3", "14.32.1010", "14.32.1020"),
    "cx5": ("FS4", "16.35.4030", "16.35.4040"),
}
DEVICE_SECTIONS = ("MFG_INFO", "DEV_INFO", "DEV_INFO_1", "NV_DATA0", "NV_DATA2", "VPD_R0")
EXIT_DECLINED = 10                # util/status.h, cxflash(1)


@pytest.fixture(scope="module", autouse=True)
def need_mstflint():
    if not MSTFLINT:
        print("mstflint is not installed (Debian package mstflint 4.21): skipping")
        pytest.skip("mstflint is not installed (Debian package mstflint 4.21)")
    for p in (MKFS3, CXSIM, CXFLASH_SIM):
        assert p.exists(), f"{p} is missing: run 'make check', which builds it"


def flint(path, *args):
    return run([MSTFLINT, "-i", path, *args])


def ok(r):
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r


class Card:
    """A card of `cxsim create` (STEM.conf, STEM.flash), cxflash run on it in process."""

    def __init__(self, tmp_path, chip, running):
        self.tmp, self.chip = tmp_path, chip
        fmt, old_fw, new_fw = CHIPS[chip]
        self.oem, self.map = self.image(old_fw, OEM_PSID, "oem.bin")
        self.stock, _ = self.image(new_fw, STOCK_PSID, "stock.bin")
        self.stem = tmp_path / "card"
        r = run([CXSIM, "create", self.stem, "--chip", chip, "--image", self.oem, "--flash", "W25Q16",
                 *([] if running else ["--recovery"])])
        assert r.returncode == 0, r.stderr
        self.flash = self.stem.with_suffix(".flash")
        self.running = running

    def image(self, fw, psid, name):
        out, mapfile = self.tmp / name, self.tmp / (name + ".map")
        r = run([MKFS3, "--chip", self.chip, "-o", out, "--slot-log", "20", "--no-rom", "--fw", fw, "--psid", psid,
                 "--guid", GUID, "--mac", MAC, "--flash-size", str(FLASH), "--map", mapfile])
        assert r.returncode == 0, r.stderr
        m = {}
        for line in mapfile.read_text().splitlines():
            name_, off, size = line.split()
            m[name_] = (int(off, 16), int(size, 16))
        return out, m

    def cxflash(self, *args):
        """cxflash -d BDF ARGS on the card; stderr without cxflash_sim's own line (.note)."""
        r = run([CXFLASH_SIM, self.stem, "-d", "0000:01:00.0", *args])
        lines = r.stderr.splitlines()
        notes = [ln for ln in lines if ln.startswith("cxflash_sim:")]
        assert len(notes) == 1, r.stderr
        r.note = notes[0]
        r.stderr = "".join(ln + "\n" for ln in lines if not ln.startswith("cxflash_sim:"))
        print(f"cxflash {' '.join(map(str, args))}: exit {r.returncode}; {r.note}")
        assert ("firmware running" if self.running else "recovery mode") in r.note, r.note
        return r

    def device_area(self, data):
        """The device sections (and FS4's DTOC, the flash's last 4 KiB) of a flash."""
        parts = [data[off:off + size] for name, (off, size) in sorted(self.map.items())
                 if name.removeprefix("sect_") in DEVICE_SECTIONS]
        assert len(parts) >= 5, self.map
        return parts + ([data[-0x1000:]] if CHIPS[self.chip][0] == "FS4" else [])

    def bundle(self):
        (b,) = [p for p in (self.tmp / "bk").iterdir() if (p / "flash.bin").exists()]
        return b


def counts(note):
    """cxflash_sim's line: 'N config accesses, N flash gateway transactions, ...' -> {what: N}."""
    return {m.group(2): int(m.group(1)) for m in re.finditer(r"(\d+) ([A-Za-z/ ]+?)(?=[,;])", note)}


def q_of(path):
    return fields(ok(flint(path, "q")).stdout)


def assert_oem(path, chip):
    """mstflint: the flash verifies and holds the OEM image with the card's own identity."""
    fmt, old_fw, _ = CHIPS[chip]
    v = ok(flint(path, "v"))
    assert "Image is bootable" in v.stdout and "DEV_INFO) - OK" in v.stdout, v.stdout
    f = q_of(path)
    assert (f["Image type"], f["FW Version"], f["PSID"]) == (fmt, old_fw, OEM_PSID), f
    assert f["Base GUID"].split()[0] == GUID and f["Base MAC"].split()[0] == MAC, f
    assert "Orig PSID" not in f, f   # MFG_INFO's PSID is the image's again
    return f


@pytest.mark.parametrize("mode", ["recovery", "running"])
@pytest.mark.parametrize("chip", CHIPS)
def test_restore_after_crossflash(tmp_path, chip, mode):
    c = Card(tmp_path, chip, mode == "running")
    original = c.flash.read_bytes()
    assert_oem(c.flash, chip)
    full_before = ok(flint(c.flash, "q", "full")).stdout

    ok(c.cxflash("backup", tmp_path / "bk"))
    b = c.bundle()
    assert (b / "flash.bin").read_bytes() == original
    assert_oem(b / "flash.bin", chip)   # mstflint reads the bundle's flash as the card's
    ok(c.cxflash("-i", c.stock, "--allow_psid_change", "-y", "--no-backup", "burn"))
    crossed = c.flash.read_bytes()
    f = q_of(c.flash)
    assert (f["PSID"], f["FW Version"], f.get("Orig PSID")) == (STOCK_PSID, CHIPS[chip][2], OEM_PSID), f
    assert crossed != original

    r = ok(c.cxflash("-y", "--no-backup", "restore", b))
    assert "restored" in r.stdout and "device data too" not in r.stdout, r.stdout
    n = counts(r.note)
    if c.running:   # through the firmware's flash registers, never the gateway
        assert n["flash gateway transactions"] == 0 and n["MFBA/MFBE by the firmware"] > 0, r.note
    else:
        assert n["flash gateway transactions"] > 0 and n["MFBA/MFBE by the firmware"] == 0, r.note
    assert f"PSID {OEM_PSID}" in r.note, r.note   # the model boots it too
    restored = c.flash.read_bytes()
    assert_oem(c.flash, chip)
    full = ok(flint(c.flash, "q", "full")).stdout
    assert full == full_before and GUID in full and MAC in full
    assert restored == (b / "flash.bin").read_bytes() == original
    assert c.device_area(restored) == c.device_area(crossed), "a slot restore changed the device data"

    r = ok(c.cxflash("-y", "--no-backup", "restore", b))
    assert "already equals" in r.stdout, r.stdout
    assert c.flash.read_bytes() == restored


def lose_device_data(c, how):
    """DEV_INFO's GUID entries zeroed (its CRC no longer holds), or its sector erased."""
    data = bytearray(c.flash.read_bytes())
    off, _ = c.map["sect_DEV_INFO"]
    if how == "zeroed-guids":
        data[off + 0x20:off + 0x40] = bytes(0x20)
    else:
        start = off & ~0xfff
        data[start:start + 0x1000] = b"\xff" * 0x1000
    c.flash.write_bytes(bytes(data))
    return bytes(data)


@pytest.mark.parametrize("how", ["zeroed-guids", "erased-dev-info"])
@pytest.mark.parametrize("chip,mode", [("cx4lx", "recovery"), ("cx4lx", "running"), ("cx5", "recovery"),
                                       ("cx4", "running")])
def test_device_data_restore(tmp_path, chip, mode, how):
    c = Card(tmp_path, chip, mode == "running")
    ok(c.cxflash("backup", tmp_path / "bk"))
    b = c.bundle()
    lost = lose_device_data(c, how)
    v = flint(c.flash, "v")
    assert v.returncode != 0 and "CAN NOT BOOT" in v.stdout + v.stderr, v.stdout
    assert flint(c.flash, "q").returncode != 0

    r = c.cxflash("-y", "--no-backup", "restore", b)
    assert r.returncode == EXIT_DECLINED and "--device-data" in r.stderr and GUID in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert c.flash.read_bytes() == lost

    r = ok(c.cxflash("-y", "--no-backup", "--device-data", "restore", b))
    assert "device data too" in r.stdout, r.stdout
    assert_oem(c.flash, chip)
    assert c.flash.read_bytes() == (b / "flash.bin").read_bytes()



@pytest.mark.parametrize("chip,mode", [("cx4lx", "recovery"), ("cx5", "running")])
def test_dry_run_writes_nothing(tmp_path, chip, mode):
    """--dry-run on restore (slot and device data) and on sg: every check made, the card's flash
    byte for byte as it was, no flash command sent (cxflash_sim's counts), mstflint still
    seeing what the card held."""
    c = Card(tmp_path, chip, mode == "running")
    ok(c.cxflash("backup", tmp_path / "bk"))
    b = c.bundle()
    r = ok(c.cxflash("-i", c.stock, "--allow_psid_change", "-y", "--no-backup", "burn"))
    n = counts(r.note)
    assert n["bytes programmed"] > 0, r.note   # the model counts writes (the stock slot was blank: no erase)
    crossed = c.flash.read_bytes()

    def nothing_written(r):
        n = counts(r.note)
        assert n["bytes erased"] == 0 and n["bytes programmed"] == 0, r.note

    r = ok(c.cxflash("-y", "--dry-run", "restore", b))
    assert "dry run: the bundle (" + OEM_PSID in r.stdout and "nothing written" in r.stdout, r.stdout
    nothing_written(r)
    assert c.flash.read_bytes() == crossed
    assert q_of(c.flash)["PSID"] == STOCK_PSID

    lose_device_data(c, "zeroed-guids")
    lost = c.flash.read_bytes()
    r = ok(c.cxflash("-y", "--dry-run", "--device-data", "restore", b))
    assert "dry run" in r.stdout and "nothing written" in r.stdout, r.stdout
    nothing_written(r)
    assert c.flash.read_bytes() == lost

    if CHIPS[chip][0] == "FS4":   # FS3's sg wants mstflint's DEV_INFO places (test_cxflash_cx4_sg.py)
        # mkfs3's MFG_INFO has guids_override_en clear: only its own values may go back
        r = ok(c.cxflash("--guid", GUID, "--mac", MAC, "--restore-mfg-ids", "-y", "--dry-run", "sg"))
        assert "dry run: a new DEV_INFO would be written" in r.stdout, r.stdout
        nothing_written(r)
        assert c.flash.read_bytes() == lost
