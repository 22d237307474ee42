# SPDX-License-Identifier: GPL-2.0-or-later
"""`cxflash -d BDF -i IMG burn -y` (and `backup`) on faulty cards, end to end over the FUSE
tree that `cxsim serve` shows: a gateway BUSY bit that never clears, a flash semaphore held
by another agent, a write-protected flash, and a flash byte whose bits never change (so a
write there fails its read-back: `cxsim fault --stuck-bits`).

Each refusal must be one `cxflash: ...` line on stderr with its exit code from the man
page's EXIT STATUS (docs/cxflash.1, burner/util/status.h), nothing on stdout, and a card that, once the fault is gone and
the card powered on again (`cxsim boot-check`), boots the image it had with its identity.
Where nothing may be written, the card file is compared byte for byte and the model's
counters must show no erase and no programmed byte.

Burns that are meant to fail after the backup step use --no-backup: a backup over FUSE reads
the whole flash twice (~130 s for 1 MiB, see test_cxflash_backup.py), and what is tested here
is what happens at the flash. The stuck-BUSY and held-semaphore burns run without it: they
fail before the backup, and must leave no backup folder behind."""
import pytest

from conftest import CXFLASH, run
from cxsim_helpers import CXSIM, bdf, cxsim  # noqa: F401 (fixture)
from test_oracle import fields

SMALL = "--ddr 1 --ddr-size 0x100 --no-rom"  # ~2.7 KiB images: FUSE burns take seconds
GUID, MAC, VSD = "0002c90300c0ffe0", "0002c9c0ffe0", "card_before_the_fault"
OLD_FW, NEW_FW = "2.42.5000", "2.42.5100"
SLOT1 = 0x80000                         # slot 1's start with mkfs2's 512 KiB chunks

# Exit codes, cxflash(1) EXIT STATUS (docs/cxflash.1, burner/util/status.h).
CX_EBUSY, CX_EFLASH, CX_EPROTECTED = 13, 14, 15


class Card:
    """A card with OLD_FW in slot 0 and the identity above, and the images to burn."""

    def __init__(self, rig, images, name, part="W25Q16", chip="cx3"):
        self.rig, self.images, self.chip = rig, images, chip
        ident = f"--guid {GUID} --mac {MAC} --vsd {VSD}"
        self.old = images.make(f"--chip {chip} {SMALL} --fw {OLD_FW} {ident}")
        self.stem = rig.create(name, "--chip", chip, "--flash", part, "--image", self.old,
                               "--guid", GUID, "--mac", MAC, "--vsd", VSD)
        self.flash = self.stem.with_suffix(".flash")

    def image(self, fw=NEW_FW, seed=5, identity=False):
        """(file, map): an image to burn (mkfs2's default identity), or with identity=True
        the bytes the card should hold after a burn that keeps the card's identity."""
        ident = f" --guid {GUID} --mac {MAC} --vsd {VSD}" if identity else ""
        return self.images.make(f"--chip {self.chip} {SMALL} --fw {fw} --seed {seed}{ident}",
                                with_map=True)

    def fault(self, *args):
        r = run([CXSIM, "fault", self.stem, *args])
        assert r.returncode == 0, r.stderr
        return r.stdout

    def assert_boots(self, fw=OLD_FW, slot=0):
        """After a power-on: the card boots fw from slot, one valid image, its identity."""
        b = self.rig.boot_check(self.stem)
        assert b["booted"], b
        assert (b["fw_version"], b["slot"], b["valid_images"]) == (fw, slot, 1), b
        assert b["guids"]["node"] == GUID and b["guids"]["sys_image"] == "0002c90300c0ffe3", b
        assert b["macs"] == {"port1": MAC, "port2": "0002c9c0ffe1"}, b
        assert b["vsd"] == VSD and b["pci_device"] == "0x1003", b


def cxflash(s, cwd, *args):
    """The shipped binary on the served tree, run in cwd (where the default backup folder
    would appear)."""
    return run([CXFLASH, "--sysfs", s.dir, "-d", bdf(0), *args], cwd=cwd)


def burn(s, cwd, img, *extra):
    return cxflash(s, cwd, "-i", img, *extra, "burn", "-y")


def assert_refused(r, code, *words):
    """Exit code, exactly one error line (a --no-backup warning may precede it), the words
    in it, and no success on stdout."""
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.splitlines()
    errors = [line for line in lines if line.startswith("cxflash: ")]
    assert len(errors) == 1, r.stderr
    assert all(line.startswith("-W- ") for line in lines if line not in errors), r.stderr
    for w in words:
        assert w in errors[0], (w, errors[0])
    assert r.stdout == "", r.stdout
    return errors[0]


def nothing_written(s):
    k = s.card_stats()["counters"]
    assert k["erases"] == 0 and k["bytes_erased"] == 0 and k["bytes_programmed"] == 0, k
    return k


def test_stuck_busy_fails_before_anything_is_written(cxsim, images, tmp_path):
    card = Card(cxsim, images, "busy")
    before = card.flash.read_bytes()
    card.fault("--stuck-busy", "on")
    new, _ = card.image()
    s = cxsim.serve(card.stem)
    assert_refused(burn(s, tmp_path, new), CX_EFLASH, bdf(0), "stuck busy")
    assert_refused(cxflash(s, tmp_path, "backup", tmp_path / "bk"), CX_EFLASH, "stuck busy")
    k = nothing_written(s)
    assert k["gw_cmds"] == 0, k          # with BUSY stuck no transaction ever reaches the flash
    assert s.stop() == 0
    assert not (tmp_path / "cxflash-backups").exists() and not (tmp_path / "bk").exists()
    assert card.flash.read_bytes() == before
    assert "stuck_busy=off" in card.fault("--stuck-busy", "off")
    card.assert_boots()


@pytest.mark.parametrize("chip,held,sem", [("cx3", "gpio", "0xf03fc"),
                                           ("cx3", "flashprog", "0xf03a0")])
def test_held_semaphore_refuses_and_clear_semaphore_gets_past(cxsim, images, tmp_path, chip,
                                                              held, sem):
    """flashprog: cxflash waits as mstflint does (40 x 500 ms) before giving up: ~20 s."""
    card = Card(cxsim, images, f"sem-{held}", chip=chip)
    before = card.flash.read_bytes()
    card.fault("--sem-held", held)
    new, _ = card.image()
    want, _ = card.image(identity=True)
    s = cxsim.serve(card.stem)
    assert_refused(burn(s, tmp_path, new), CX_EBUSY, sem, "--clear-semaphore")
    if held == "gpio":                   # the flashprog wait is the same code and costs 20 s
        assert_refused(cxflash(s, tmp_path, "backup", tmp_path / "bk"), CX_EBUSY, sem)
    k = nothing_written(s)
    assert k["gw_without_sem"] == 0, k
    assert s.stop() == 0
    assert not (tmp_path / "cxflash-backups").exists() and not (tmp_path / "bk").exists()
    assert card.flash.read_bytes() == before
    card.assert_boots()                  # the fault is still set: it only holds a semaphore

    # The same card, the semaphore still held by the "other agent": --clear-semaphore.
    s = cxsim.serve(card.stem)
    r = burn(s, tmp_path, new, "--clear-semaphore", "--no-backup")
    assert r.returncode == 0, r.stderr
    assert f"burned FW {OLD_FW} -> FW {NEW_FW}" in r.stdout and "slot at 0x80000" in r.stdout
    assert s.card_stats()["counters"]["gw_without_sem"] == 0
    assert s.stop() == 0
    assert "sem_held_gpio=off sem_held_flashprog=off" in card.fault("--sem-held", "none")
    card.assert_boots(NEW_FW, slot=1)
    assert card.flash.read_bytes()[SLOT1:SLOT1 + want.stat().st_size] == want.read_bytes()


@pytest.mark.parametrize("part", ["W25Q16", "M25P16"])
def test_write_protected_flash_refuses(cxsim, images, tmp_path, part):
    """Block-protect bits set on a part cxflash (like mstflint) does not unprotect. (SST parts
    power on protected and are unprotected by the burn's first status write, as mstflint does:
    every SST burn in test_cxflash_matrix.py goes through that.)"""
    card = Card(cxsim, images, f"wp-{part}", part=part)
    before = card.flash.read_bytes()
    card.fault("--write-protect", "on")
    new, _ = card.image()
    s = cxsim.serve(card.stem)
    assert_refused(burn(s, tmp_path, new, "--no-backup"), CX_EPROTECTED, "write-protected",
                   "Nothing was erased or written")
    nothing_written(s)
    assert s.stop() == 0
    assert card.flash.read_bytes() == before
    card.assert_boots()

    # Unprotected, the same burn goes through: the refusal left nothing in the way.
    card.fault("--write-protect", "off")
    s = cxsim.serve(card.stem)
    r = burn(s, tmp_path, new, "--no-backup")
    assert r.returncode == 0 and f"-> FW {NEW_FW}" in r.stdout, r.stderr
    assert s.stop() == 0
    card.assert_boots(NEW_FW, slot=1)


def test_write_protect_message_is_whole(cxsim, images, tmp_path):
    card = Card(cxsim, images, "wp-msg")
    card.fault("--write-protect", "on")
    new, _ = card.image()
    s = cxsim.serve(card.stem)
    line = assert_refused(burn(s, tmp_path, new, "--no-backup"), CX_EPROTECTED)
    assert s.stop() == 0
    # cx_status.msg holds at most 319 characters: a message of exactly that length was cut.
    assert len(line) - len("cxflash: ") < 319, line
    assert line.endswith("retry"), line


def test_dry_run_sees_write_protection(cxsim, images, tmp_path):
    """cxflash(1), burn: "--dry-run does every check and writes nothing"."""
    card = Card(cxsim, images, "wp-dry")
    card.fault("--write-protect", "on")
    new, _ = card.image()
    s = cxsim.serve(card.stem)
    r = burn(s, tmp_path, new, "--dry-run", "--no-backup")
    nothing_written(s)
    assert s.stop() == 0
    assert_refused(r, CX_EPROTECTED, "write-protected")


def test_stuck_bits_option(tmp_path):
    """`cxsim fault --stuck-bits ADDR[:MASK]|none` (no FUSE): saved in STEM.conf, shown,
    checked against the flash size; a bad value changes nothing and exits 2."""
    stem = tmp_path / "card"
    assert run([CXSIM, "create", stem, "--empty", "--flash", "W25Q80"]).returncode == 0
    conf = stem.with_suffix(".conf")

    def fault(*args):
        return run([CXSIM, "fault", stem, *args])

    def keys():
        kv = dict(line.split("=", 1) for line in conf.read_text().splitlines() if "=" in line)
        return int(kv["stuck_addr"], 0), int(kv["stuck_mask"], 0)

    assert keys() == (0, 0)
    r = fault("--stuck-bits", "0x80123")
    assert r.returncode == 0 and "stuck_bits=0x080123:0xff" in r.stdout, r.stderr
    assert keys() == (0x80123, 0xFF)
    r = fault("--stuck-bits", "1048575:0x81")                  # the last byte of 1 MiB
    assert r.returncode == 0 and "stuck_bits=0x0fffff:0x81" in r.stdout, r.stderr
    assert keys() == (0xFFFFF, 0x81)
    for bad in ("0x100000", "0x10:0", "0x10:0x100", "0x10:", ":1", "-1", "zz", ""):
        r = fault("--stuck-bits", bad)
        assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, (bad, r.stderr)
        assert r.stderr.startswith("cxsim fault: --stuck-bits"), r.stderr
        assert keys() == (0xFFFFF, 0x81), bad
    r = fault("--stuck-bits", "none")
    assert r.returncode == 0 and "stuck_bits=none" in r.stdout and keys() == (0, 0)
    assert "--stuck-bits" in run([CXSIM, "--help"]).stdout


def first_programmed(img, mapping, section="sect_DDR_0"):
    """Offset of the first byte of a section's data that a burn has to program (not 0xFF)."""
    data = img.read_bytes()
    off, size = mapping[section]
    return next(o for o in range(off + 8, off + size) if data[o] != 0xFF)


@pytest.mark.parametrize("part", ["W25Q16", "M25P16", "SST25VF016B"])
def test_stuck_byte_fails_the_program_verify(cxsim, images, tmp_path, part):
    """A byte of the target slot that stays 0xFF: the page (SST: byte) program reads back
    wrong; the burn stops before the new image's signature is written, and the card boots
    its old image. With the fault gone, the same burn completes over the half-written slot."""
    card = Card(cxsim, images, f"stuck-{part}", part=part)
    new, m = card.image()
    want, _ = card.image(identity=True)
    addr = SLOT1 + first_programmed(new, m)
    out = card.fault("--stuck-bits", hex(addr))
    assert f"stuck_bits=0x{addr:06x}:0xff" in out
    slot0 = card.flash.read_bytes()[:SLOT1]
    s = cxsim.serve(card.stem)
    assert s.stats()["cards"][0]["params"]["stuck_bits"] == {"addr": f"0x{addr:06x}", "mask": "0xff"}
    r = burn(s, tmp_path, new, "--no-backup")
    assert_refused(r, CX_EFLASH, f"verify failed at 0x{addr:06x}", "the flash reads 0xff",
                   "running image is intact")
    k = s.card_stats()["counters"]
    assert k["erases"] == 0 and 0 < k["bytes_programmed"] < want.stat().st_size, k
    assert s.stop() == 0
    assert card.flash.read_bytes()[:SLOT1] == slot0
    assert card.flash.read_bytes()[addr] == 0xFF
    card.assert_boots()
    assert "stuck_bits=none" in card.fault("--stuck-bits", "none")
    s = cxsim.serve(card.stem)
    r = burn(s, tmp_path, new, "--no-backup")
    assert r.returncode == 0, r.stderr
    assert s.stop() == 0
    card.assert_boots(NEW_FW, slot=1)
    assert card.flash.read_bytes()[SLOT1:SLOT1 + want.stat().st_size] == want.read_bytes()


def test_stuck_bits_survive_the_erase(cxsim, images, tmp_path):
    """Bits stuck at 0 in the slot being rewritten: the erase cannot clear them, so the
    read-back after the program fails. The card keeps running the image it booted (slot 1),
    and a burn after the fault is cleared erases and writes slot 0 properly.
    Erases over FUSE: --wall-clock, so cxflash's real sleeps count as model time."""
    card = Card(cxsim, images, "stuck-erase")
    mid, _ = card.image(fw="2.42.5050", seed=6)
    new, m = card.image(seed=7)
    want, _ = card.image(seed=7, identity=True)
    s = cxsim.serve(card.stem, wall_clock=True)
    assert burn(s, tmp_path, mid, "--no-backup").returncode == 0      # slot 0 -> 1
    assert s.stop() == 0
    have, need = card.flash.read_bytes(), want.read_bytes()
    off, size = m["sect_DDR_0"]
    # A byte where the old image in slot 0 has a 0 bit the new image needs as 1.
    addr = next(a for a in range(off, off + size) if ~have[a] & need[a] & 0xFF)
    mask = ~have[addr] & need[addr] & 0xFF
    card.fault("--stuck-bits", f"{addr:#x}:{mask:#x}")
    slot1 = card.flash.read_bytes()[SLOT1:]
    s = cxsim.serve(card.stem, wall_clock=True)
    r = burn(s, tmp_path, new, "--no-backup")
    assert_refused(r, CX_EFLASH, f"verify failed at 0x{addr:06x}", "running image is intact")
    assert s.card_stats()["counters"]["erases"] > 0
    assert s.stop() == 0
    assert card.flash.read_bytes()[SLOT1:] == slot1
    assert card.flash.read_bytes()[addr] & mask == 0
    card.assert_boots("2.42.5050", slot=1)
    card.fault("--stuck-bits", "none")
    s = cxsim.serve(card.stem, wall_clock=True)
    r = burn(s, tmp_path, new, "--no-backup")
    assert r.returncode == 0, r.stderr
    q = fields(cxflash(s, tmp_path, "q").stdout)
    assert q["FW Version"] == NEW_FW and q["GUIDs"].split()[0] == GUID
    assert s.stop() == 0
    card.assert_boots(NEW_FW, slot=0)
    assert card.flash.read_bytes()[:len(need)] == need
