# SPDX-License-Identifier: GPL-2.0-or-later
"""cxflash's card commands on every chip and every flash part the simulator offers, end to
end over the FUSE tree of `cxsim serve`, as a user runs them.

Chips: ConnectX-2 (B0), ConnectX-3 A0 and A1, ConnectX-3 Pro. Parts: M25P80/16/32,
W25Q80/16/32, SST25VF080B/016B/032B (sim/core/spi_parts.c). Not the whole cross product:
every chip at least twice, every part once, burns from slot 0 to 1 and from 1 to 0 on every
chip. Each card answers `list`, `q`, `q full`, `v`, `dc`, `rrom`, `ri`, then takes a `burn`,
and is read again.

What each result is checked against, none of it cxflash's own reading of the card:
* the image bytes: mkfs2 writes the image with the card's identity, and `cxsim create`
  patches the same identity in, so `ri` must give mkfs2's file byte for byte; after a burn
  of an image carrying mkfs2's default identity, `ri` must give mkfs2's image of the new
  firmware made with the card's identity (so the burn kept GUIDs, MACs and VSD) and, where
  the card's ROM is carried into the ROM-less image (flint's rule), the card's ROM section
  spliced in by this file;
* what the card boots: `cxsim boot-check` (the model's own FS2 reader) after a power-on;
* `dc` and `rrom` from flash against the same commands on the image file;
* unmodified mstflint (4.21, no ConnectX-2) on the same card, both ways: mstflint `v` and
  `q` on what cxflash burned, and cxflash `q`/`ri` on what mstflint burned.

COST: FUSE serves ~20k config accesses a second (far fewer on a busy machine) and a 16-byte
flash read costs ~14, so the images are as small as mkfs2 makes them: ~10.5 KiB with a ROM
and a .ini on the card (each read command costs ~9.8k accesses). The images burned have no
ROM (~2.7 KiB); on the SST parts, which program byte by byte (~26 accesses a byte), they are
burned so (--use_image_rom), on the others the card's ROM is carried in. After a burn only
`list`, `q`, `v` and `ri` run again. `backup` (which reads the whole flash twice, ~1.8M
accesses for the smallest, 1 MiB part) runs once, as the first step of the ConnectX-2 burn on
the SST25VF080B; test_cxflash_backup.py checks a bundle in detail on a ConnectX-3."""
import hashlib
import json

import pytest

from conftest import CXFLASH, cx, fix_full_crc, fix_section_crc, read_map, run
from cxsim_helpers import bdf, cxsim  # noqa: F401 (fixture)
from test_oracle import fields

SMALL = "--ddr 1 --ddr-size 0x100"
GUID, MAC, VSD = "0002c90300c0ffe0", "0002c9c0ffe0", "matrix_card_identity"
CHUNK = 0x80000                          # mkfs2's default chunk: slot 1 starts here
BACKUP_TIMEOUT = 600                     # one 1 MiB backup over FUSE: ~130 s

# chip, silicon revision (None: the chip's only one), what cxflash calls it, PCI device ID,
# default FW versions of mkfs2 and the version burned.
CHIPS = {
    "cx2": ("cx2", None, "ConnectX-2 B0", 0x673C, "2.9.1000", "2.9.1200"),
    "cx3a0": ("cx3", 0, "ConnectX-3 A0", 0x1003, "2.42.5000", "2.42.5100"),
    "cx3a1": ("cx3", 1, "ConnectX-3 A1", 0x1003, "2.42.5000", "2.42.5100"),
    "cx3pro": ("cx3pro", None, "ConnectX-3 Pro A0", 0x1007, "2.42.5000", "2.42.5100"),
}
# The part's family as cxflash names it, and its size.
PARTS = {
    "M25P80": ("M25Pxx", 1 << 20), "M25P16": ("M25Pxx", 2 << 20), "M25P32": ("M25Pxx", 4 << 20),
    "W25Q80": ("W25QxxBV", 1 << 20), "W25Q16": ("W25QxxBV", 2 << 20), "W25Q32": ("W25QxxBV", 4 << 20),
    "SST25VF080B": ("SST25VFxx", 1 << 20), "SST25VF016B": ("SST25VFxx", 2 << 20),
    "SST25VF032B": ("SST25VFxx", 4 << 20),
}
# (chip, part, slot the card boots from); the burn goes to the other slot.
CASES = [
    ("cx2", "SST25VF080B", 1), ("cx2", "W25Q32", 0),
    ("cx3a0", "M25P16", 0), ("cx3a0", "SST25VF032B", 1),
    ("cx3a1", "W25Q80", 1), ("cx3a1", "M25P32", 0),
    ("cx3pro", "SST25VF016B", 0), ("cx3pro", "M25P80", 1), ("cx3pro", "W25Q16", 0),
]
BACKUP_CASE = ("cx2", "SST25VF080B", 1)
assert {c[1] for c in CASES} == set(PARTS) and {c[0] for c in CASES} == set(CHIPS)
assert {c[0] for c in CASES if c[2] == 0} == {c[0] for c in CASES if c[2] == 1} == set(CHIPS)


class Card:
    """A simulated card of one chip and part, its image installed in one slot with the
    card's identity, and mkfs2's images around it."""

    def __init__(self, rig, images, chip, part, slot, rom=True):
        self.rig, self.images, self.key, self.part, self.slot = rig, images, chip, part, slot
        self.chip, self.rev, self.label, self.pci, self.old_fw, self.new_fw = CHIPS[chip]
        self.cx2 = self.chip == "cx2"
        self.old, _ = self.image(self.old_fw, seed=1, identity=True, rom=rom, with_map=True)
        mac = () if self.cx2 else ("--mac", MAC)
        rev = () if self.rev is None else ("--rev", str(self.rev))
        self.stem = rig.create(f"{chip}-{part}", "--chip", self.chip, *rev, "--flash", part,
                               "--image", self.old, "--slot", str(slot), "--guid", GUID, *mac,
                               "--vsd", VSD)

    def image(self, fw, seed, identity, rom=True, with_map=False):
        """mkfs2's image of this chip: with the card's identity, or with mkfs2's defaults
        (what a firmware file carries). ConnectX-2 images have 4 GUIDs and no MACs.
        with_map: (file, mkfs2's section map)."""
        opts = f"--chip {self.chip} {SMALL} --fw {fw} --seed {seed}" + ("" if rom else " --no-rom")
        if self.rev is not None:
            opts += f" --rev {self.rev}"
        if self.cx2:
            opts += " --old-guids"
        if identity:
            opts += f" --guid {GUID} --vsd {VSD}" + ("" if self.cx2 else f" --mac {MAC}")
        return self.images.make(opts, with_map=with_map)


def with_card_rom(card, out, made):
    """The image a burn should leave when it carries the card's ROM into a ROM-less image,
    built here from fs2-format.md (§1.2, §1.4, §4.5), not from cxflash's code: the card's ROM
    section (GPH, data, CRC) goes before the second section after BOOT2; every later GPH's
    next pointer moves by its size and its section CRC is recomputed; the boot record's
    image-info pointer (with its checksum byte), image size and GUID pointer move too; then
    the full-image CRC. made: mkfs2's ROM-less image of the new firmware and its map."""
    img, m = made
    old_map = read_map(card.old.with_suffix(".map"))
    roff, rsize = old_map["sect_ROM"]
    at = sum(m["sect_CNF_0"])                 # end of the first section after BOOT2
    assert at == roff, (at, roff)             # where mkfs2 put the ROM in the card's image
    new = img.read_bytes()
    buf = bytearray(new[:at] + card.old.read_bytes()[roff:roff + rsize] + new[at:])

    def dword(o):
        return int.from_bytes(buf[o:o + 4], "big")

    def put(o, v):
        buf[o:o + 4] = v.to_bytes(4, "big")

    for name, (off, size) in m.items():
        if name.startswith("sect_") and off >= at:
            o = off + rsize
            if dword(o + 12) not in (0, 0xFF000000):
                put(o + 12, dword(o + 12) + rsize)
            fix_section_crc(buf, o, size)
    info = (dword(0x2C) & 0xFFFFFF) + rsize
    put(0x2C, info | (-sum(info.to_bytes(3, "big")) & 0xFF) << 24)
    put(0x30, dword(0x30) + rsize)
    put(0x34, dword(0x34) + rsize)
    fix_full_crc(buf, len(buf))
    out.write_bytes(bytes(buf))
    return out


def dev(s, *args, cwd=None):
    return run([CXFLASH, "--sysfs", s.dir, "-d", bdf(0), *args], cwd=cwd)


def identity(q):
    """The identity part of `q` fields (cxflash's or mstflint's)."""
    return {k: q.get(k) for k in ("GUIDs", "MACs", "VSD", "PSID")}


def check_boot(card, boot, fw, slot):
    assert boot["booted"] and boot["slot"] == slot and boot["valid_images"] == 1, boot
    assert boot["fw_version"] == fw and boot["pci_device"] == f"0x{card.pci:04x}", boot
    assert boot["guids"] == {"node": GUID, "port1": "0002c90300c0ffe1", "port2": "0002c90300c0ffe2",
                             "sys_image": "0002c90300c0ffe3"}, boot
    # ConnectX-2: MACs derived from the port GUIDs (bytes 0-2 and 5-7), as flint derives them.
    macs = ("0002c9c0ffe1", "0002c9c0ffe2") if card.cx2 else (MAC, "0002c9c0ffe1")
    assert boot["macs"] == {"port1": macs[0], "port2": macs[1]}, boot
    assert boot["vsd"] == VSD, boot


def list_card(card, s):
    family, size = PARTS[card.part]
    r = run([CXFLASH, "--sysfs", s.dir, "--json", "list"])
    assert r.returncode == 0, r.stderr
    (j,) = json.loads(r.stdout)["cards"]
    assert j["bdf"] == bdf(0) and j["chip"] == card.label and j["pci_device"] == f"{card.pci:04x}"
    assert j["flash"].startswith(f"{family}, {size // 1024} KiB"), j["flash"]
    assert j["recovery"] is False and j["error"] is None
    assert j["guids"]["node"] == GUID
    return j


def query(card, s, fw):
    q = dev(s, "q")
    assert q.returncode == 0, q.stderr
    f = fields(q.stdout)
    assert f["FW Version"] == fw and f["Device ID"] == str(card.pci)
    assert f["GUIDs"].split() == [GUID, "0002c90300c0ffe1", "0002c90300c0ffe2", "0002c90300c0ffe3"]
    assert f["VSD"] == VSD
    if card.cx2:
        assert f["MACs"].split()[:2] == ["0002c9c0ffe1", "0002c9c0ffe2"] and "derived" in f["MACs"]
    else:
        assert f["MACs"].split() == [MAC, "0002c9c0ffe1"]
    return f


def verify_and_ri(s, tmp_path, image, slot):
    """v passes from the slot's start; ri is the image byte for byte."""
    v = dev(s, "v")
    assert v.returncode == 0 and "FW image verification succeeded" in v.stdout, v.stdout + v.stderr
    assert f"Start address: {hex(slot * CHUNK)}." in v.stdout
    ri = tmp_path / "ri.bin"
    r = dev(s, "ri", ri)
    assert r.returncode == 0, r.stderr
    assert ri.read_bytes() == image.read_bytes()


def read_commands(card, s, tmp_path, image, fw, slot):
    """list, q, q full, v, dc, rrom, ri against what the card holds (image: mkfs2's file)."""
    j = list_card(card, s)
    assert j["fw_version"] == j["fw_running"] == fw
    f = query(card, s, fw)

    full = dev(s, "q", "full")
    assert full.returncode == 0, full.stderr
    ff = fields(full.stdout)
    assert {k: ff[k] for k in f} == f                       # q full = q plus more
    assert int(ff["Image Size"], 16) == image.stat().st_size and int(ff["Chunk Size"], 16) == CHUNK
    assert ff["Failsafe"] == "yes"

    dc = dev(s, "dc")
    assert dc.returncode == 0 and dc.stdout and dc.stdout == cx("-i", image, "dc").stdout

    rom, rom_ref = tmp_path / "card.rom", tmp_path / "file.rom"
    assert dev(s, "rrom", rom).returncode == 0 and cx("-i", image, "rrom", rom_ref).returncode == 0
    assert rom.read_bytes()[:2] == b"\x55\xaa" and rom.read_bytes() == rom_ref.read_bytes()

    verify_and_ri(s, tmp_path, image, slot)
    return f


@pytest.mark.parametrize("chip,part,slot", CASES, ids=[f"{c}-{p}-slot{s}" for c, p, s in CASES])
def test_read_and_burn(cxsim, images, tmp_path, chip, part, slot):
    card = Card(cxsim, images, chip, part, slot)
    check_boot(card, cxsim.boot_check(card.stem), card.old_fw, slot)
    s = cxsim.serve(card.stem)
    before = read_commands(card, s, tmp_path, card.old, card.old_fw, slot)

    # The image burned has no ROM. On M25P/W25Q parts the card's ROM is carried into it
    # (flint's rule, cxflash's default); SST parts program byte by byte, so there the image
    # goes as it is (--use_image_rom) and the burn stays cheap.
    carry = not part.startswith("SST")
    new = card.image(card.new_fw, seed=5, identity=False, rom=False)
    if carry:
        want = with_card_rom(card, tmp_path / "want.bin",
                             card.image(card.new_fw, seed=5, identity=True, rom=False, with_map=True))
    else:
        want = card.image(card.new_fw, seed=5, identity=True, rom=False)
    target = 1 - slot
    backup = (chip, part, slot) == BACKUP_CASE
    args = ["-i", new, "-y"] + ([] if backup else ["--no-backup"])
    args += ([] if carry else ["--use_image_rom"]) + ["burn"]
    r = run([CXFLASH, "--sysfs", s.dir, "-d", bdf(0), *args], cwd=tmp_path,
            timeout=BACKUP_TIMEOUT if backup else 120)
    assert r.returncode == 0, r.stderr
    assert f"burned FW {card.old_fw} -> FW {card.new_fw}" in r.stdout, r.stdout
    assert f"into the slot at {hex(target * CHUNK)}" in r.stdout, r.stdout
    assert ("the image has no expansion ROM: the card's (PXE 3.4.752) is kept" in r.stdout) == carry, r.stdout
    if backup:
        check_backup(card, s, tmp_path, r)

    # The flash holds the new image with the old identity; the card still runs the old one.
    j = list_card(card, s)
    assert j["fw_version"] == card.new_fw and j["fw_running"] == card.old_fw
    assert j["rom"] == ({"type": "PXE", "version": "3.4.752"} if carry else None), j["rom"]
    assert j["roms"] == ([{"type": "PXE", "version": "3.4.752", "devid": card.pci}] if carry else []), j["roms"]
    after = query(card, s, card.new_fw)
    assert identity(after) == identity(before)
    verify_and_ri(s, tmp_path, want, target)
    if not card.cx2:                      # mstflint 4.21 does not know ConnectX-2
        mv = s.mstflint("-d", bdf(0), "v")
        assert mv.returncode == 0 and "Image is bootable" in mv.stdout, mv.stdout
        mq = s.mstflint("-d", bdf(0), "q")
        assert mq.returncode == 0, mq.stdout
        mf = fields(mq.stdout)
        assert mf["FW Version"] == card.new_fw and identity(mf) == identity(after)
    assert s.stop() == 0
    check_boot(card, cxsim.boot_check(card.stem), card.new_fw, target)


def check_backup(card, s, tmp_path, r):
    """The bundle the burn wrote first: the flash as it was, and the card's identity."""
    (bundle,) = list((tmp_path / "cxflash-backups").iterdir())
    assert f"-I- backup written to cxflash-backups/{bundle.name}" in r.stdout, r.stdout
    flash = (bundle / "flash.bin").read_bytes()
    assert len(flash) == PARTS[card.part][1]
    # The image as installed, in its slot (a small image lies inside one chunk).
    assert flash[card.slot * CHUNK:card.slot * CHUNK + card.old.stat().st_size] == card.old.read_bytes()
    ident = json.loads((bundle / "identity.json").read_text())
    assert ident["flash_sha256"] == hashlib.sha256(flash).hexdigest()
    assert ident["family"] == "ConnectX-2" and ident["chip"] == card.label
    assert ident["image_slot"] == card.slot and ident["fw_version"] == card.old_fw
    assert ident["guids"]["node"] == GUID and ident["vsd"] == VSD
    assert ident["macs_derived"] is True and ident["macs"]["port1"] == "0002c9c0ffe1"
    c = run(["sha256sum", "-c", "--strict", "SHA256SUMS"], cwd=bundle)
    assert c.returncode == 0, c.stdout + c.stderr
    assert s.card_stats()["counters"]["bytes_read"] >= 2 * len(flash)


# What mstflint burns, cxflash reads: other chips, parts and slot directions than
# test_cxflash_device.py's test_reads_what_mstflint_burned (cx3 A1, W25Q16, slot 0 -> 1).
# Images without a ROM on both sides: mstflint keeps a card's ROM when the new image has
# none (see test_rom_kept_like_mstflint), which would make its result differ from mkfs2's.
MSTFLINT_CASES = [("cx3a0", "M25P80", 1), ("cx3pro", "SST25VF032B", 0), ("cx3a1", "W25Q32", 1)]


@pytest.mark.parametrize("chip,part,slot", MSTFLINT_CASES,
                         ids=[f"{c}-{p}-slot{s}" for c, p, s in MSTFLINT_CASES])
def test_reads_what_mstflint_burned(cxsim, images, tmp_path, chip, part, slot):
    card = Card(cxsim, images, chip, part, slot, rom=False)
    s = cxsim.serve(card.stem)
    new = card.image(card.new_fw, seed=8, identity=False, rom=False)
    want = card.image(card.new_fw, seed=8, identity=True, rom=False)
    r = s.mstflint("-d", bdf(0), "-i", new, "-y", "burn")
    assert r.returncode == 0, r.stdout + r.stderr
    target = 1 - slot
    q, mq = dev(s, "q"), s.mstflint("-d", bdf(0), "q")
    assert q.returncode == 0 and mq.returncode == 0, q.stderr + mq.stdout
    f, mf = fields(q.stdout), fields(mq.stdout)
    assert f["FW Version"] == mf["FW Version"] == card.new_fw
    assert identity(f) == identity(mf) and f["GUIDs"].split()[0] == GUID and f["VSD"] == VSD
    v = dev(s, "v")
    assert v.returncode == 0 and f"Start address: {hex(target * CHUNK)}." in v.stdout, v.stdout
    ours, theirs = tmp_path / "ri.bin", tmp_path / "ri-mstflint.bin"
    assert dev(s, "ri", ours).returncode == 0
    assert s.mstflint("-d", bdf(0), "ri", theirs).returncode == 0
    assert ours.read_bytes() == theirs.read_bytes() == want.read_bytes()
    assert s.stop() == 0
    check_boot(card, cxsim.boot_check(card.stem), card.new_fw, target)


def test_rom_kept_like_mstflint(cxsim, images, tmp_path):
    """Two identical cards whose image has a PXE ROM; a new image without one, burned by
    mstflint on one card and by cxflash on the other. mstflint's result carries the card's
    ROM (checked here, against `rrom` of the old image); cxflash's should too."""
    a = Card(cxsim, images, "cx3a1", "W25Q16", 0)
    b = Card(cxsim, images, "cx3a1", "M25P16", 0)
    s = cxsim.serve(a.stem, b.stem)
    new = a.image(a.new_fw, seed=9, identity=False, rom=False)
    r = s.mstflint("-d", bdf(0), "-i", new, "-y", "burn")
    assert r.returncode == 0, r.stdout + r.stderr
    r = run([CXFLASH, "--sysfs", s.dir, "-d", bdf(1), "-i", new, "-y", "--no-backup", "burn"])
    assert r.returncode == 0, r.stderr
    old_rom, theirs, ours = tmp_path / "old.rom", tmp_path / "theirs.rom", tmp_path / "ours.rom"
    assert cx("-i", a.old, "rrom", old_rom).returncode == 0
    assert s.mstflint("-d", bdf(0), "rrom", theirs).returncode == 0
    assert theirs.read_bytes() == old_rom.read_bytes()
    r = run([CXFLASH, "--sysfs", s.dir, "-d", bdf(1), "rrom", ours])
    assert s.stop() == 0
    assert r.returncode == 0, r.stderr
    assert ours.read_bytes() == old_rom.read_bytes()


def test_list_json_keys(cxsim, images):
    """cxflash(1), JSON: every card in `list --json` has the same keys; a missing value is null."""
    keys = {"bdf", "family", "chip", "pci_device", "subsys_vendor", "subsys_device", "oem",
            "recovery", "flash", "psid", "fw_version", "fw_running", "guids", "macs", "rom", "roms",
            "error", "identity", "placeholder"}  # identity/placeholder: a release image's placeholder GUIDs (issue 18)
    plain = Card(cxsim, images, "cx3pro", "W25Q80", 0, rom=False)
    livefish = cxsim.create("livefish", "--chip", "cx3", "--empty")
    s = cxsim.serve(plain.stem, livefish)
    r = run([CXFLASH, "--sysfs", s.dir, "--json", "list"])
    assert s.stop() == 0
    assert r.returncode == 0, r.stderr
    cards = json.loads(r.stdout)["cards"]
    assert [c["recovery"] for c in cards] == [False, True]
    assert cards[1]["psid"] is None and cards[1]["fw_version"] is None
    for c in cards:
        assert set(c) == keys, sorted(set(c) ^ keys)
