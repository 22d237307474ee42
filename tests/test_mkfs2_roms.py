# SPDX-License-Identifier: GPL-2.0-or-later
"""mkfs2's ROM section (issue 19): several PCI option ROMs as HP's 544+ carries
(CLP 8025, UEFI 14.11.49, PXE 3.4.754), none, and the ROM alone (--rom-only).
Debian's mstflint 4.21 is the oracle for what the ROMs say; the PCI structure and
checksums are checked here byte by byte (fs2-format.md §4.5, §9)."""
import struct

import pytest

from conftest import MKFS2, mstflint, run

HP = "--chip cx3pro --psid HP_1380110017 --fw 2.42.5700 --roms hp544"
HP_ROM_LINES = ["version_id=8025 type=CLP", "type=UEFI version=14.11.49 cpu=AMD64",
                "type=PXE version=3.4.754"]
PCIR_LAST = 0x80


def rom_info(text, label="Rom Info:"):
    """The ROM lines of mstflint q (the first after label, the rest indented)."""
    lines = text.splitlines()
    for i, l in enumerate(lines):
        if l.startswith(label):
            out = [l[len(label):].strip()]
            for m in lines[i + 1:]:
                if not m.startswith(" "):
                    break
                out.append(m.strip())
            return out
    return []


def pci_roms(data):
    """Walk the PCI option ROM chain: (offset, blocks, code type, indicator, devid)."""
    out, off = [], 0
    while True:
        assert data[off:off + 2] == b"\x55\xaa", hex(off)
        pcir = off + struct.unpack_from("<H", data, off + 0x18)[0]
        assert data[pcir:pcir + 4] == b"PCIR"
        vendor, dev = struct.unpack_from("<HH", data, pcir + 4)
        assert vendor == 0x15B3
        blocks = struct.unpack_from("<H", data, pcir + 16)[0]
        assert blocks == data[off + 2]
        out.append((off, blocks, data[pcir + 20], data[pcir + 21], dev))
        off += blocks * 512
        if data[pcir + 21] & PCIR_LAST:
            return out, off


def test_hp544_multi_rom(images, tmp_path):
    img, m = images.make(HP, with_map=True)
    q = mstflint("-i", img, "q")
    assert q.returncode == 0, q.stdout + q.stderr
    assert rom_info(q.stdout) == HP_ROM_LINES, q.stdout
    assert "PSID:                  HP_1380110017" in q.stdout
    v = mstflint("-i", img, "v")
    assert v.returncode == 0 and "Image is bootable" in v.stdout, v.stdout
    data = img.read_bytes()
    off, size = m["sect_ROM"]
    rom = data[off + 16:off + size - 4]
    roms, end = pci_roms(rom)
    assert end == len(rom)
    # CLP and PXE are x86 code, UEFI an EFI image; only the last is flagged last.
    assert [(r[2], r[3]) for r in roms] == [(0, 0), (3, 0), (0, PCIR_LAST)]
    assert all(r[4] == 4103 for r in roms)
    for i, (o, blocks, *_rest) in enumerate(roms):
        assert m[f"rom_{i}"] == (off + 16 + o, blocks * 512)
        assert sum(rom[o:o + blocks * 512]) % 256 == 0, f"ROM {i} checksum"
        assert rom.count(b"mlxsign:", o, o + blocks * 512) == 1
    assert struct.unpack_from("<I", rom, roms[1][0] + 4)[0] == 0x0EF1  # EFI signature

    # --rom-only writes exactly the section's data; mstflint qrom reads it.
    romfile = tmp_path / "hp.rom"
    r = run([MKFS2, "--rom-only", romfile] + HP.split())
    assert r.returncode == 0, r.stderr
    assert romfile.read_bytes() == rom
    qr = mstflint("-i", romfile, "qrom")
    assert qr.returncode == 0 and rom_info(qr.stdout) == HP_ROM_LINES, qr.stdout


def test_rom_list_and_fields(images):
    img = images.make("--chip cx3 --roms pxe:3.4.752,uefi:14.11.45:dev=4103:kib=4")
    q = mstflint("-i", img, "q")
    lines = rom_info(q.stdout)
    assert lines[0] == "type=PXE version=3.4.752 proto=VPI cpu=AMD64"
    assert lines[1].startswith("type=UEFI version=14.11.45 cpu=AMD64")
    assert "device IDs of the ROMs mismatched" in lines[1]


def test_bad_checksum_marks_one_rom(images, tmp_path):
    # mstflint sums only the first ROM's rom[2]*512 bytes, and only with no UEFI ROM.
    img, m = images.make("--chip cx3 --roms pxe:3.4.752:badsum,clp:99", with_map=True)
    q = mstflint("-i", img, "q")
    assert "Bad ROM Checksum (0x01)" in q.stdout, q.stdout
    data = img.read_bytes()
    sums = [sum(data[o:o + s]) % 256 for o, s in (m["rom_0"], m["rom_1"])]
    assert sums == [1, 0]


def test_no_rom(images):
    img, m = images.make("--chip cx3pro --no-rom", with_map=True)
    assert "sect_ROM" not in m and "rom_0" not in m
    q = mstflint("-i", img, "q")
    assert q.returncode == 0 and "Rom Info" not in q.stdout


def test_legacy_single_rom_unchanged(images):
    img, m = images.make("--chip cx3", with_map=True)
    assert m["rom_0"][1] == 8192 and "rom_1" not in m
    assert rom_info(mstflint("-i", img, "q").stdout) == [
        "type=PXE version=3.4.752 proto=VPI cpu=AMD64"]


@pytest.mark.parametrize("opts", [
    "--roms hp544 --rom-ver 3.4.1",          # two ways to say the ROM
    "--no-rom --roms hp544",
    "--no-rom --rom-only x.rom",
    "--roms pxe",                            # no version
    "--roms pxe:3.4",
    "--roms nvme:1.2.3",
    "--roms clp:80a5",
    "--roms pxe:3.4.752:kib=200",
    "--roms pxe:3.4.752:colour=red",
    "--roms pxe:1.1.1,pxe:1.1.1,pxe:1.1.1,pxe:1.1.1,pxe:1.1.1,pxe:1.1.1",
    "--roms ,",
])
def test_bad_rom_options(tmp_path, opts):
    r = run([MKFS2, "-o", tmp_path / "x.bin"] + opts.split(), cwd=tmp_path)
    assert r.returncode == 2, (opts, r.stderr)
    assert r.stderr.startswith("mkfs2: ")
    assert not (tmp_path / "x.bin").exists() and not (tmp_path / "x.rom").exists()
