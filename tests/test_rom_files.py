# SPDX-License-Identifier: GPL-2.0-or-later
"""`cxflash -i IMG drom -o OUT` and `brom ROMFILE -o OUT` against Debian's mstflint 4.21:
on every file they make, `mstflint -i OUT v` and `q full` agree with `cxflash -i OUT v` and
`q full` field by field, every ROM line included (image/rom_edit.h, fs2-format.md §4.5, §9).
flint itself refuses both on a file ("not supported for FS2 image"), so the files are its
oracle only through v and q.

The multi-ROM images and ROM files come from mkfs2 --roms (hp544: CLP 8025 + UEFI 14.11.49
+ PXE 3.4.754, as HP's 544+), and are also built here from the PCI Firmware Specification,
independently of cxflash and mkfs2 (the bad ones: truncated, bad sums, no record). Known differences, normalised
as in test_oracle.py: cxflash adds `devid=` and `checksum=` to each ROM line, `HW IDs`, and
in `q full` the image size, chunk size and failsafe lines.

Bad input: one `cxflash: ...` line, the exit code cxflash(1) EXIT STATUS gives, and no OUT.
"""
import json
import struct

import pytest

from conftest import cx, mstflint

# cxflash(1) EXIT STATUS (burner/util/status.h).
E_USAGE, E_IMAGE, E_ABSENT, E_VALUE, E_UNSUPPORTED, E_MISMATCH, E_CHECKSUM = 2, 4, 5, 6, 8, 17, 20
ALLOW = "--allow_rom_change"
VARIANTS = {
    "cx3": "--chip cx3",
    "cx3pro": "--chip cx3pro --vsd hello",
    "cx3pro-uefi": "--chip cx3pro --rom-product 17 --rom-ver 14.11.45",
    "cx2-old-guids": "--chip cx2 --old-guids",
    "cx3-nomic-noini": "--chip cx3 --no-mic --no-fw-conf",
    "cx3-blank": "--chip cx3 --blank-guids",
    "hp544": "--chip cx3pro --psid HP_1380110017 --fw 2.42.5700 --roms hp544",
    "two-roms": "--chip cx3 --roms uefi:14.11.45,pxe:3.4.752 --no-product-ver",
}
CX_ONLY = ("HW IDs", "Image Size", "Chunk Size", "Failsafe")
BLOCK = 512
DEV_CX3, DEV_CX3PRO = 4099, 4103


def pci_image(blocks, product, ver, devid, last, bad_sum=False, init=None):
    """One PCI option-ROM image: 55 AA, byte 2 = init size (blocks), PCIR at 0x20 with the
    device id, image length and last-image bit, an mlxsign: record at 0x40 (product, ver,
    devid, AMD64), and a byte making the first init*512 bytes sum to 0 (1 when bad)."""
    init = blocks if init is None else init
    b = bytearray((i * 13 + product) & 0xFF for i in range(blocks * BLOCK))
    b[0:3] = bytes([0x55, 0xAA, init])
    b[0x18:0x1A] = struct.pack("<H", 0x20)
    b[0x20:0x28] = b"PCIR" + struct.pack("<HH", 0x15B3, devid)
    b[0x30:0x32] = struct.pack("<H", blocks)
    b[0x34] = 3 if product == 0x11 else 0  # code type: EFI, else x86
    b[0x35] = 0x80 if last else 0
    b[0x40:0x54] = b"mlxsign:" + struct.pack("<III", product << 16 | ver[0], ver[1] << 16 | ver[2],
                                             devid << 16 | 1 << 8 | 0xFF)
    end = init * BLOCK
    b[end - 1] = 0
    b[end - 1] = ((1 if bad_sum else 0) - sum(b[:end])) & 0xFF
    return bytes(b)


def hp_rom(devid=DEV_CX3PRO, bad=None):
    return (pci_image(3, 0x12, (1, 8, 25), devid, False, bad == "CLP")
            + pci_image(4, 0x11, (14, 11, 49), devid, False, bad == "UEFI")
            + pci_image(2, 0x10, (3, 4, 754), devid, True, bad == "PXE"))


def fields(text):
    """'Label:   value' lines of q -> {label: value}; continuation lines (the further ROMs)
    are joined to their label's value with ' | '."""
    out, last = {}, None
    for line in text.splitlines():
        if len(line) >= 23 and line[:23].rstrip().endswith(":") and not line.startswith(" "):
            last = line[:23].strip().rstrip(":")
            out[last] = line[23:].rstrip()
        elif last == "Rom Info" and line.startswith(" " * 23) and line.strip():
            out[last] += " | " + line[23:].rstrip()
        else:
            last = None
    return out


def ours_as_flint(rom_info):
    """Drop cxflash's devid= and checksum= from each ROM line."""
    return " | ".join(r.split(" devid=")[0].split(" checksum=")[0].rstrip()
                      for r in rom_info.split(" | "))


def section_lines(text):
    return [l for l in text.splitlines() if l.startswith("     /0x")]


def agree(path, blank=False):
    """mstflint and cxflash read path alike: v's section lines and verdict, q full's fields."""
    a, b = cx("-i", path, "v"), mstflint("-i", path, "v")
    assert section_lines(a.stdout) == section_lines(b.stdout), a.stdout + b.stdout
    assert a.returncode == (7 if blank else 0), a.stderr
    assert blank or "verification succeeded" in b.stdout, b.stdout
    a, b = cx("-i", path, "q", "full"), mstflint("-i", path, "q", "full")
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stdout
    fa, fb = fields(a.stdout), fields(b.stdout)
    for key in CX_ONLY:
        fa.pop(key, None)
    if "Rom Info" in fa:
        fa["Rom Info"] = ours_as_flint(fa["Rom Info"])
    fb["Rom Info"] = " | ".join(r.rstrip() for r in fb.get("Rom Info", "").split(" | ")) or None
    fa.setdefault("Rom Info", None)
    if "GUIDs" in fb and "Expecting 6 entries" in fb["GUIDs"]:  # 4-GUID images, test_oracle.py
        fa.pop("GUIDs"), fb.pop("GUIDs"), fa.pop("MACs", None)
    assert fa == fb
    return fa


def make_without_rom(images, tmp_path, opts):
    img = images.make(opts)
    out = tmp_path / "norom.bin"
    r = cx("-i", img, "drom", "-o", out, ALLOW, asan=True)
    assert r.returncode == 0, r.stderr
    return img, out


@pytest.mark.parametrize("name", list(VARIANTS))
def test_drom_file_agrees_and_brom_gives_it_back(images, tmp_path, name):
    img, out = make_without_rom(images, tmp_path, VARIANTS[name])
    q = agree(out, blank="blank" in name)
    assert q["Rom Info"] is None
    rom = tmp_path / "card.rom"
    assert cx("-i", img, "rrom", rom).returncode == 0
    assert out.stat().st_size == img.stat().st_size - (16 + rom.stat().st_size + 4)
    back = tmp_path / "back.bin"
    r = cx("-i", out, "brom", rom, "-o", back, ALLOW, asan=True)
    assert r.returncode == 0, r.stderr
    assert back.read_bytes() == img.read_bytes()


@pytest.mark.parametrize("base", ["--chip cx3pro", "--chip cx3pro --no-rom",
                                  "--chip cx3pro --rom-product 17 --no-product-ver"])
def test_brom_hp_rom_set_agrees(images, tmp_path, base):
    """The three ROMs of HP's 544+ replace the image's PXE (or go where there was none)."""
    img = images.make(base)
    rom = tmp_path / "hp.rom"
    rom.write_bytes(hp_rom())
    out = tmp_path / "hp.bin"
    r = cx("-i", img, "brom", rom, "-o", out, ALLOW, asan=True)
    assert r.returncode == 0, r.stderr
    q = agree(out)
    assert q["Rom Info"] == ("type=CLP version=1.8.25 cpu=AMD64 | type=UEFI version=14.11.49 cpu=AMD64"
                             " | type=PXE version=3.4.754 cpu=AMD64")
    lines = [l for l in cx("-i", out, "q").stdout.splitlines() if "type=" in l]
    assert [l.split("devid=")[1] for l in lines] == ["4103 checksum=good", "4103", "4103 checksum=good"]
    j = json.loads(cx("-i", out, "q", "--json").stdout)
    assert [(x["type"], x["version"], x["devid"], x["cpu"], x["checksum"]) for x in j["roms"]] == [
        ("CLP", "1.8.25", DEV_CX3PRO, "AMD64", "good"), ("UEFI", "14.11.49", DEV_CX3PRO, "AMD64", None),
        ("PXE", "3.4.754", DEV_CX3PRO, "AMD64", "good")]


def test_brom_json_and_no_allow_needed_without_product_version(images, tmp_path):
    img = images.make("--chip cx3pro --no-product-ver")
    rom = tmp_path / "hp.rom"
    rom.write_bytes(hp_rom())
    out = tmp_path / "hp.bin"
    r = cx("-i", img, "brom", rom, "-o", out, "--json", asan=True)
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["wrote"] == "image" and j["file"] == str(out) and j["size"] == out.stat().st_size
    assert [x["type"] for x in j["roms"]] == ["CLP", "UEFI", "PXE"] and j["warning"] is None
    agree(out)


def test_bad_checksum_shown_as_mstflint_warns(images):
    img = images.make("--chip cx3 --rom-bad-checksum")
    assert "Bad ROM Checksum" in mstflint("-i", img, "q").stdout
    assert "checksum=bad" in fields(cx("-i", img, "q").stdout)["Rom Info"]


def test_mstflint_refuses_rom_changes_on_a_file(images, tmp_path):
    """Why the file verbs exist: flint does drom/brom on a card only."""
    img = images.make("--chip cx3")
    r = mstflint("-i", img, "-y", "drom")
    assert r.returncode != 0 and "not supported for FS2 image" in r.stdout + r.stderr


def test_devid_mismatch_is_a_warning(images, tmp_path):
    img = images.make("--chip cx3pro")
    rom = tmp_path / "cx3.rom"
    rom.write_bytes(hp_rom(devid=DEV_CX3))
    out = tmp_path / "out.bin"
    r = cx("-i", img, "brom", rom, "-o", out, ALLOW, asan=True)
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines() == [
        "-W- the ROM is for another device: the FW is for device 4103, the CLP ROM for device 4099"]
    agree(out)


def big_rom():
    """One PCI image of 1 MiB (the checksum over its 255-block init size): the image with it
    exceeds half of the 2 MiB flash mkfs2's .ini names, less the config area."""
    return pci_image(2048, 0x10, (3, 4, 754), DEV_CX3, True, init=255)


# (mkfs2 options, the ROM file's bytes or None for drom, extra args, exit code, words)
BAD = {
    "drom-no-rom": ("--no-rom", None, [ALLOW], E_ABSENT, "no expansion ROM"),
    "drom-product-version": ("", None, [], E_UNSUPPORTED, "--allow_rom_change"),
    "brom-product-version": ("", hp_rom(DEV_CX3), [], E_UNSUPPORTED, "--allow_rom_change"),
    "drom-no-output": ("", None, [ALLOW, "NO-O"], E_USAGE, "needs -o OUT"),
    "brom-fs2-image": ("", "IMAGE", [ALLOW], E_VALUE, "firmware image, not an expansion ROM"),
    "brom-not-a-rom": ("", b"\x00" * 4096, [ALLOW], E_VALUE, "55 AA"),
    "brom-no-record": ("", pci_image(2, 0x10, (3, 4, 1), DEV_CX3, True).replace(b"mlxsign:", b"mlxsigN:"),
                       [ALLOW], E_VALUE, "mlxsign"),
    "brom-odd-length": ("", hp_rom(DEV_CX3) + b"\xff\xff", [ALLOW], E_VALUE, "whole dwords"),
    "brom-truncated": ("", hp_rom(DEV_CX3)[:-BLOCK], [ALLOW], E_IMAGE, "truncated ROM"),
    "brom-truncated-chain": ("", hp_rom(DEV_CX3)[:7 * BLOCK], [ALLOW], E_IMAGE, "truncated ROM"),
    "brom-bad-checksum": ("", hp_rom(DEV_CX3, bad="PXE"), [ALLOW], E_CHECKSUM, "bad ROM checksum"),
    "brom-too-big": ("", big_rom(), [ALLOW], E_MISMATCH, "2048 KiB flash"),
    "brom-no-such-file": ("", "MISSING", [ALLOW], 3, "cannot open"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input_one_line_exit_code_no_output(images, tmp_path, name):
    opts, rom, extra, code, words = BAD[name]
    img = images.make(opts)
    before = img.read_bytes()
    out = tmp_path / "out.bin"
    args = ["-i", img, "drom" if rom is None else "brom"]
    if rom is not None:
        path = tmp_path / "x.rom"
        if rom == "IMAGE":
            path = img
        elif rom != "MISSING":
            path.write_bytes(rom)
        args.append(path)
    if "NO-O" not in extra:
        args += ["-o", out]
    r = cx(*args, *[e for e in extra if e != "NO-O"], asan=True)
    assert r.returncode == code, (r.stdout, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("cxflash: ") and words in lines[0], r.stderr
    assert not out.exists() and not list(tmp_path.glob("*.cxflash-new"))
    assert img.read_bytes() == before
    j = cx(*args, *[e for e in extra if e != "NO-O"], "--json")
    assert j.returncode == code and json.loads(j.stdout)["exit_code"] == code


def test_drom_on_a_striped_dump_writes_the_contiguous_image(images, tmp_path):
    """A raw flash dump (--striped_image, image in slot 1): OUT is the contiguous image
    without its ROM, the same bytes as from the contiguous file mkfs2 makes alike."""
    dump, flat = images.make("--chip cx3 --dump 1"), images.make("--chip cx3")
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    assert cx("-i", dump, "--striped_image", "drom", "-o", a, ALLOW, asan=True).returncode == 0
    assert cx("-i", flat, "drom", "-o", b, ALLOW, asan=True).returncode == 0
    assert a.read_bytes() == b.read_bytes()
    agree(a)


def test_hp544_rom_into_a_stock_image(images, tmp_path):
    """The cross-flash of issue 19 on files: HP's three ROMs (mkfs2 --rom-only, as flint rrom
    writes them) into the stock image; mstflint reads what cxflash reads, and the ROM
    section holds the file's bytes."""
    rom = tmp_path / "hp544.rom"
    hp = images.make(f"--chip cx3pro --psid HP_1380110017 --fw 2.42.5700 --roms hp544 --rom-only {rom}")
    stock = images.make("--chip cx3pro")
    out = tmp_path / "stock-hp-rom.bin"
    r = cx("-i", stock, "brom", rom, "-o", out, ALLOW, asan=True)
    assert r.returncode == 0, r.stderr
    q = agree(out)
    assert q["Rom Info"] == agree(hp)["Rom Info"] == (
        "version_id=8025 type=CLP | type=UEFI version=14.11.49 cpu=AMD64 | type=PXE version=3.4.754")
    back = tmp_path / "hp.rom"
    assert cx("-i", out, "rrom", back).returncode == 0
    assert back.read_bytes() == rom.read_bytes()


def test_bad_pxe_sum_beside_uefi_refused_though_mstflint_is_silent(images, tmp_path):
    """mstflint sums only the first ROM, and none beside a UEFI ROM: it says nothing of this
    PXE's bad sum. cxflash judges each ROM: q shows checksum=bad, brom refuses it (20)."""
    rom = tmp_path / "bad.rom"
    img = images.make(f"--chip cx3pro --roms clp:8025,uefi:14.11.49,pxe:3.4.754:badsum --rom-only {rom}")
    assert "Bad ROM Checksum" not in mstflint("-i", img, "q").stdout
    assert fields(cx("-i", img, "q").stdout)["Rom Info"].endswith("checksum=bad")
    out = tmp_path / "out.bin"
    r = cx("-i", images.make("--chip cx3pro"), "brom", rom, "-o", out, ALLOW, asan=True)
    assert r.returncode == E_CHECKSUM and "PXE ROM" in r.stderr and not out.exists()


def test_output_only_for_rom_edits_on_files(images, tmp_path):
    img = images.make("--chip cx3")
    for args in (["-i", img, "q"], ["-d", "0000:01:00.0", "drom"]):
        r = cx(*args, "-o", tmp_path / "x.bin", asan=True)
        assert r.returncode == E_USAGE and r.stderr.strip().endswith("-o OUT is for drom and brom on a file (-i FILE)")
    assert not (tmp_path / "x.bin").exists()
