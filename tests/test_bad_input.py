# SPDX-License-Identifier: GPL-2.0-or-later
"""Bad input never crashes and never writes: each malformed image gets one clear line
on stderr, its documented exit code, no sanitizer report, and the file stays unchanged
(even when the command would write: `sg`, `sv`). Runs the ASan/UBSan build."""
import zlib

import pytest

from conftest import cx, fix_full_crc, fix_section_crc, sha256

E_USAGE, E_IO, E_IMAGE, E_ABSENT, E_VALUE, E_BLANK, E_UNSUPPORTED = 2, 3, 4, 5, 6, 7, 8
SG = ["-y", "sg", "--guid", "0002c903000abcd0"]
COMMANDS = [["v"], ["q"], ["dc"], SG, ["sv", "--vsd", "x"]]


def check_refused(path, code, words=(), commands=COMMANDS, extra=()):
    digest = sha256(path)
    for cmd in commands:
        r = cx(*extra, "-i", path, *cmd, asan=True)
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        assert r.returncode == code, f"{cmd}: rc {r.returncode}, want {code}: {r.stderr}"
        assert len(lines) == 1 and lines[0].startswith("cxflash: "), f"{cmd}: {r.stderr!r}"
        for w in words:
            assert w.lower() in lines[0].lower(), f"{cmd}: {w!r} not in {lines[0]!r}"
        assert sha256(path) == digest, f"{cmd} changed the file"


@pytest.fixture
def base(images):
    path, layout = images.make("--chip cx3 --ddr 2 --ddr-size 256", with_map=True)
    return path, layout


def mutate(path, fn):
    b = bytearray(path.read_bytes())
    fn(b)
    path.write_bytes(bytes(b))


def test_empty_file(tmp_path):
    p = tmp_path / "empty.bin"
    p.write_bytes(b"")
    check_refused(p, E_IMAGE, ["empty"])


def test_missing_file(tmp_path):
    r = cx("-i", tmp_path / "nope.bin", "v", asan=True)
    assert r.returncode == E_IO and r.stderr.count("\n") == 1 and "cannot open" in r.stderr


def test_directory_is_not_an_image(tmp_path):
    r = cx("-i", tmp_path, "q", asan=True)
    assert r.returncode == E_IO and "not a regular file" in r.stderr


def boundaries(layout, size):
    cuts = set()
    for name, (off, sz) in layout.items():
        for c in (off, off + 4, off + 16, off + sz // 2 & ~3, off + sz - 4):
            if 0 < c < size:
                cuts.add(c)
    return sorted(cuts)


def test_truncated_at_every_structural_boundary(base, tmp_path):
    path, layout = base
    data = path.read_bytes()
    cuts = boundaries(layout, len(data)) + [1, 16, 0x37]
    assert len(cuts) > 40
    for cut in sorted(set(cuts)):
        p = tmp_path / f"cut-{cut:x}.bin"
        p.write_bytes(data[:cut])
        check_refused(p, E_IMAGE, commands=[["v"], ["q"], SG])


def test_bad_magic(base):
    path, _ = base
    mutate(path, lambda b: b.__setitem__(slice(0, 4), b"MTFX"))
    check_refused(path, E_IMAGE, ["magic"])


def test_magic_elsewhere_suggests_striped(images):
    path = images.make("--chip cx3 --dump 1")
    check_refused(path, E_IMAGE, ["--striped_image"], commands=[["v"], ["q"]])


CRC_ITEMS = ["boot2_0", "boot2_1", "sect_CNF_0", "sect_ROM", "sect_GUID", "sect_IMAGE_INFO",
             "sect_DDR_0", "sect_DDR_1", "sect_CNF_1", "sect_JMP", "sect_FW_CONF"]


@pytest.mark.parametrize("item", CRC_ITEMS)
def test_each_crc_wrong(base, item):
    path, layout = base
    off, size = layout[item]
    # Flip a bit of the stored CRC dword itself: only that check can see it.
    mutate(path, lambda b: b.__setitem__(off + size - 1, b[off + size - 1] ^ 0x01))
    check_refused(path, E_IMAGE, ["wrong CRC", f"0x{off:x}"])


def test_full_image_crc_wrong(base):
    path, _ = base
    mutate(path, lambda b: b.__setitem__(0x23, b[0x23] ^ 0x40))
    check_refused(path, E_IMAGE, ["full image", "wrong CRC"])


def test_fs_info_checksum_wrong(base):
    path, _ = base
    mutate(path, lambda b: b.__setitem__(0x28, b[0x28] ^ 0x10))
    check_refused(path, E_IMAGE, ["FS info"])


def test_info_pointer_checksum_wrong(base):
    path, _ = base
    mutate(path, lambda b: b.__setitem__(0x2C, b[0x2C] ^ 0x01))
    check_refused(path, E_IMAGE, ["image-info pointer"])


def test_section_chain_loops(base):
    path, layout = base
    off, size = layout["sect_DDR_1"]
    back = layout["sect_CNF_0"][0]

    def loop(b):
        b[off + 12:off + 16] = back.to_bytes(4, "big")
        fix_section_crc(b, off, size)
        fix_full_crc(b, len(b))
    mutate(path, loop)
    check_refused(path, E_IMAGE, ["loops"])


def test_section_larger_than_file(base):
    path, layout = base
    off, size = layout["sect_FW_CONF"]
    mutate(path, lambda b: b.__setitem__(slice(off + 4, off + 8), (0x10000).to_bytes(4, "big")))
    check_refused(path, E_IMAGE, ["past the end"])


def test_section_larger_than_limit(base):
    path, layout = base
    off, _ = layout["sect_DDR_0"]
    mutate(path, lambda b: b.__setitem__(slice(off + 4, off + 8), (0x200000).to_bytes(4, "big")))
    check_refused(path, E_IMAGE, ["limit"])


def test_more_than_two_images(base, tmp_path):
    path, _ = base
    img = path.read_bytes()
    dump = bytearray(b"\xff" * 0x40000)
    for start in (0, 0x10000, 0x20000):
        dump[start:start + len(img)] = img
    p = tmp_path / "three.bin"
    p.write_bytes(bytes(dump))
    check_refused(p, E_IMAGE, ["more than two"], extra=["--striped_image"])
    check_refused(p, E_IMAGE, ["more than two"])


def test_info_tag_runs_past_section(base):
    path, layout = base
    toff, _ = layout["info_tag_20"]
    soff, ssize = layout["sect_IMAGE_INFO"]

    def grow(b):
        b[toff + 1:toff + 4] = (0x400).to_bytes(3, "big")
        fix_section_crc(b, soff, ssize)
        fix_full_crc(b, len(b))
    mutate(path, grow)
    check_refused(path, E_IMAGE, ["IMAGE_INFO tag 20", "past"])


def test_info_end_tag_missing(base):
    path, layout = base
    toff, _ = layout["info_tag_255"]
    soff, ssize = layout["sect_IMAGE_INFO"]

    def drop(b):
        b[toff:toff + 4] = (0x14 << 24).to_bytes(4, "big")
        fix_section_crc(b, soff, ssize)
        fix_full_crc(b, len(b))
    mutate(path, drop)
    check_refused(path, E_IMAGE, ["IMAGE_INFO"])


def test_zlib_stream_corrupt(base):
    path, layout = base
    off, size = layout["sect_FW_CONF"]

    def corrupt(b):
        for i in range(off + 16 + 8, off + 16 + 40):
            b[i] ^= 0x5A
        fix_section_crc(b, off, size)
        fix_full_crc(b, len(b))
    mutate(path, corrupt)
    check_refused(path, E_IMAGE, ["zlib"], commands=[["dc"]])
    assert cx("-i", path, "v", asan=True).returncode == 0, "the image itself is sound"


def test_zlib_inflates_past_limit(base):
    """A FW_CONF stream that inflates to 2 MiB (a zip bomb in miniature). FW_CONF is the
    last section, so the test can swap its data and fix the sizes and CRCs itself."""
    path, layout = base
    off, _ = layout["sect_FW_CONF"]
    z = zlib.compress(b"x" * (2 << 20), 9)
    z += b"\0" * (-len(z) % 4)

    def bomb(b):
        gph = bytearray(b[off:off + 16])
        gph[4:8] = (len(z) // 4).to_bytes(4, "big")
        del b[off:]
        b += gph + z + b"\0" * 4
        fix_section_crc(b, off, len(b) - off)
        b[0x30:0x34] = len(b).to_bytes(4, "big")
        fix_full_crc(b, len(b))
    mutate(path, bomb)
    assert cx("-i", path, "v", asan=True).returncode == 0, "the image itself is sound"
    check_refused(path, E_IMAGE, ["more than"], commands=[["dc"]])


def test_fs3_byte_makes_a_malformed_fs3_image(base):
    """Byte 0x24 = 3 makes the file FS3 (fs3-format.md §1.1): an FS2 body has no ITOC."""
    path, _ = base
    mutate(path, lambda b: b.__setitem__(0x24, 3))
    check_refused(path, E_IMAGE, ["ITOC"])


# Bad values on the command line: refused before anything is written.
@pytest.mark.parametrize("args,code,word", [
    (["sg", "--mac", "0102c9000001"], E_VALUE, "multicast"),
    (["sg", "--mac", "1234567890abcd"], E_VALUE, "MAC"),
    (["sg", "--guid", "xyz"], E_VALUE, "GUID"),
    (["sg", "--guid", "12345678901234567"], E_VALUE, "GUID"),
    (["sg", "--guids", "1", "2", "3"], E_USAGE, "4 values"),
    (["sg", "--macs", "1"], E_USAGE, "2 values"),
    (["sg"], E_USAGE, "--guid"),
    (["sv"], E_USAGE, "--vsd"),
    (["sv", "--vsd", "V" * 209], E_VALUE, "at most 208"),
    (["q", "fulll"], E_USAGE, "full"),
    (["frobnicate"], E_USAGE, "unknown command"),
    (["--bogus", "v"], E_USAGE, "unknown option"),
    (["rrom"], E_USAGE, "usage"),
    (["probe"], E_USAGE, "cxflash -d BDF probe"),
    (["probe", "x"], E_USAGE, "usage"),
])
def test_bad_arguments(base, args, code, word):
    path, _ = base
    digest = sha256(path)
    r = cx("-y", "-i", path, *args, asan=True)
    assert r.returncode == code, r.stderr
    assert r.stderr.count("\n") == 1 and word.lower() in r.stderr.lower(), r.stderr
    assert sha256(path) == digest


def test_no_image_given():
    r = cx("v", asan=True)
    assert r.returncode == E_USAGE and "needs an image" in r.stderr


def test_sg_mac_on_four_guid_image_is_refused(images):
    path = images.make("--chip cx2 --old-guids")
    check_refused(path, E_UNSUPPORTED, ["only 4 GUIDs"], commands=[["-y", "sg", "--mac", "0002c9000010"]])


def test_sg_without_answer_changes_nothing(base):
    path, _ = base
    digest = sha256(path)
    r = cx("-i", path, "sg", "--guid", "1234", asan=True)
    assert r.returncode == 10 and "nothing changed" in r.stderr
    assert sha256(path) == digest


def test_sg_answer_no_changes_nothing(base):
    path, _ = base
    digest = sha256(path)
    import subprocess
    r = subprocess.run([str(a) for a in (__import__("conftest").CXFLASH_ASAN, "-i", path, "sg",
                                         "--guid", "1234")], input="n\n", capture_output=True,
                       text=True)
    assert r.returncode == 10 and "aborted" in r.stderr
    assert sha256(path) == digest


def test_blank_guid_image_needs_both_groups(images):
    path = images.make("--chip cx3 --blank-guids")
    check_refused(path, E_VALUE, ["blank"], commands=[SG])
    r = cx("-y", "-i", path, "sg", "--guid", "0002c903000abcd0", "--mac", "0002c90abcd0", asan=True)
    assert r.returncode == 0, r.stderr
    assert cx("-i", path, "v").returncode == 0
