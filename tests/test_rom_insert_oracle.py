# SPDX-License-Identifier: GPL-2.0-or-later
"""The expansion-ROM rule of a burn, with Debian's mstflint 4.21 as the oracle
(burner/image/rom_insert.h, fs2-format.md §4.5).

A simulated card (cxsim, W25Q80) holds an image WITH a ROM; unmodified mstflint burns an
image WITHOUT one into it (`-y burn`, through the FUSE tree). The card's flash is then read
back (`cxflash --striped_image extract` on the card file) and compared byte for byte with
what rom_insert() makes from the same two files. The new image is generated with the
card's GUIDs/MACs, VSD and PSID, so flint's identity patches change nothing and any
difference is the ROM splice. Two more burns pin the other two branches of the rule:
-use_image_rom burns the image as it is, and an image with its own ROM keeps it (-y).

rom_insert() is reached through a small helper (tests/helpers/rom_insert_tool.c) compiled
here from the image-layer sources. Cost: four burns over FUSE, about 5 s each on an idle
2-core machine (27 s each at a load of 9)."""
import os
import pathlib
import subprocess

import pytest

from conftest import CXFLASH, ROOT, cx, fix_full_crc, mstflint, run
from cxsim_helpers import bdf, cxsim  # noqa: F401 (fixture)

SMALL = "--ddr 2 --ddr-size 0x1000"
PART = "W25Q80"                                  # 1 MiB, the smallest flash in the table
GUID, MAC = "0002c90300c0ffe0", "0002c9c0ffe0"
IMAGE_SOURCES = ["image/rom_insert.c", "image/fs2.c", "image/crc16.c", "image/info.c",
                 "image/guids.c", "image/rom.c", "util/status.c", "util/fileio.c", "util/sha256.c"]


@pytest.fixture(scope="module")
def rom_insert_tool(tmp_path_factory):
    out = tmp_path_factory.mktemp("tool") / "rom-insert"
    argv = [os.environ.get("HOSTCC", "gcc"), "-std=c11", "-Wall", "-Wextra", "-Werror", "-D_DEFAULT_SOURCE", "-O1",
            f"-I{ROOT / 'burner'}", "-o", out, ROOT / "tests" / "helpers" / "rom_insert_tool.c",
            *[ROOT / "burner" / s for s in IMAGE_SOURCES]]
    r = run(argv)
    assert r.returncode == 0, f"building the rom-insert helper: {r.stderr}"
    return out


def rom_insert(tool, image, card_image, out):
    r = run([tool, image, card_image, out])
    assert r.returncode == 0, r.stderr
    return pathlib.Path(out).read_bytes()


def burn_and_read_back(cxsim, card_img, new_img, tmp_path, *flags, chip="cx3"):
    """mstflint burns new_img over a card holding card_img; returns the card's image after
    and mstflint's output.
    (No `mstflint -d v` afterwards: it costs a third of a burn through FUSE, and the image
    read back is compared with a file mstflint verifies.)"""
    stem = cxsim.create("card", "--chip", chip, "--flash", PART, "--image", card_img,
                        "--guid", GUID, "--mac", MAC)
    s = cxsim.serve(stem)
    burn = s.mstflint("-d", bdf(0), "-i", new_img, "-y", *flags, "burn")
    assert burn.returncode == 0, burn.stdout + burn.stderr
    assert s.stop() == 0
    out = tmp_path / "burned.bin"
    r = run([CXFLASH, "-i", stem.with_suffix(".flash"), "--striped_image", "extract", out])
    assert r.returncode == 0, r.stderr
    return out.read_bytes(), burn.stdout


def card_image(images, extra="", chip="cx3"):
    return images.make(f"--chip {chip} {SMALL} --fw 2.40.7000 --rom-ver 3.4.999 --guid {GUID} "
                       f"--mac {MAC} {extra}")


def new_image(images, extra="", chip="cx3"):
    return images.make(f"--chip {chip} {SMALL} --ddr 3 --fw 2.42.5000 --seed 4 --guid {GUID} "
                       f"--mac {MAC} {extra}")


def oddities(path):
    """The new image with what flint changes on the way: 0x20 bits 23:16 set (flint
    clears them) and 0x100 bytes after the last section (flint drops them). The full CRC
    covers the image proper, so mstflint still verifies it."""
    buf = bytearray(path.read_bytes())
    end = len(buf)
    buf[0x21] = 0x5A
    fix_full_crc(buf, end)
    buf += bytes(range(256))
    odd = path.with_name("odd-" + path.name)
    odd.write_bytes(bytes(buf))
    return odd


@pytest.mark.parametrize("chip,case", [("cx3", "plain"), ("cx3pro", "odd")])
def test_card_rom_carried_like_mstflint(cxsim, images, rom_insert_tool, tmp_path, chip, case):
    """No ROM in the image, one on the card: the card's ROM is spliced in, byte-identical
    to mstflint's burn. Both images carry a Product Version (mkfs2's default), which the
    docs' reading of dealWithExpRom says would stop the splice; it does not (Fs2Burn's
    BRO_DEFAULT branch splices whenever the image has no ROM)."""
    card = card_image(images, chip=chip)
    new = new_image(images, "--no-rom", chip)
    if case == "odd":
        new = oddities(new)
    assert mstflint("-i", new, "v").returncode == 0
    ours = rom_insert(rom_insert_tool, new, card, tmp_path / "ours.bin")
    assert mstflint("-i", tmp_path / "ours.bin", "v").returncode == 0
    q = mstflint("-i", tmp_path / "ours.bin", "q").stdout
    assert "version=3.4.999" in q, q
    burned, _ = burn_and_read_back(cxsim, card, new, tmp_path, chip=chip)
    assert len(burned) == len(ours)
    diff = [hex(i) for i in range(len(ours)) if burned[i] != ours[i]]
    assert not diff, f"mstflint's burn differs from rom_insert() at {diff[:16]}"


def test_use_image_rom_burns_the_image_as_is(cxsim, images, tmp_path):
    card = card_image(images)
    new = new_image(images, "--no-rom")
    burned, _ = burn_and_read_back(cxsim, card, new, tmp_path, "-use_image_rom")
    assert burned == new.read_bytes()


def test_image_with_its_own_rom_keeps_it(cxsim, images, rom_insert_tool, tmp_path):
    """Both have a ROM, neither a Product Version: dealWithExpRom's question "Use the ROM
    from the image file" (default: the card's) is never asked on FS2 in 4.21, because
    Fs2Operations::FwQuery reports the chip as CT_CONNECTX3, which IS_HCA() does not list;
    the image's ROM is burned. rom_insert() refuses such an image."""
    card = card_image(images, "--no-product-ver")
    new = new_image(images, "--no-product-ver --rom-ver 3.4.800")
    r = run([rom_insert_tool, new, card, tmp_path / "x.bin"])
    assert r.returncode == 8 and "already has a ROM" in r.stderr, r.stderr
    burned, out = burn_and_read_back(cxsim, card, new, tmp_path)
    assert "Use the ROM from the image file" not in out, out
    assert burned == new.read_bytes()


def cxflash_burn(cxsim, name, card_img, new_img, tmp_path, *args):
    """cxflash burns new_img over a fresh card (name) holding card_img; the card's image after."""
    stem = cxsim.create(name, "--chip", "cx3", "--flash", PART, "--image", card_img,
                        "--guid", GUID, "--mac", MAC)
    s = cxsim.serve(stem)
    r = cx("--sysfs", s.dir, "-d", bdf(0), "-i", new_img, "-y", "--no-backup", *args, "burn")
    assert r.returncode == 0, r.stdout + r.stderr
    assert s.stop() == 0
    out = tmp_path / f"{name}-burned.bin"
    x = run([CXFLASH, "-i", stem.with_suffix(".flash"), "--striped_image", "extract", out])
    assert x.returncode == 0, x.stderr
    return out.read_bytes(), r.stdout


def rom_of(tmp_path, img_bytes, name):
    path = tmp_path / f"{name}.bin"
    path.write_bytes(img_bytes)
    r = run([CXFLASH, "-i", path, "rrom", tmp_path / f"{name}.rom"])
    assert r.returncode == 0, r.stderr
    return (tmp_path / f"{name}.rom").read_bytes()


def test_rom_keep_departs_from_flint_when_the_image_has_a_rom(cxsim, images, tmp_path):
    """Where cxflash departs from flint on purpose (issue 19, ops/burn_rom.h): both images
    have a ROM. mstflint 4.21 burns the image's (test_image_with_its_own_rom_keeps_it);
    cxflash's `--rom image` writes the same bytes as mstflint, while its default, `--rom
    keep`, puts the card's ROM section in place of the image's: mstflint verifies that
    image and reads the card's ROM version in it."""
    card = card_image(images)
    new = new_image(images, "--rom-ver 3.4.800")
    flint, _ = burn_and_read_back(cxsim, card, new, tmp_path)
    assert flint == new.read_bytes()
    ours_image, _ = cxflash_burn(cxsim, "as-image", card, new, tmp_path, "--rom", "image")
    assert ours_image == flint
    kept, out = cxflash_burn(cxsim, "kept", card, new, tmp_path)
    assert "the card's expansion ROM (PXE 3.4.999) takes the place of the image's (PXE 3.4.800)" in out, out
    assert rom_of(tmp_path, kept, "kept") == rom_of(tmp_path, card.read_bytes(), "card")
    (tmp_path / "kept.bin").write_bytes(kept)
    assert mstflint("-i", tmp_path / "kept.bin", "v").returncode == 0
    q = mstflint("-i", tmp_path / "kept.bin", "q").stdout
    assert "version=3.4.999" in q and "3.4.800" not in q, q


def test_helper_refuses_a_card_without_rom(images, rom_insert_tool, tmp_path):
    card = card_image(images, "--no-rom")
    new = new_image(images, "--no-rom")
    r = run([rom_insert_tool, new, card, tmp_path / "x.bin"])
    assert r.returncode == 5 and "no expansion ROM" in r.stderr, r.stderr
    assert not (tmp_path / "x.bin").exists()
    r = subprocess.run([str(rom_insert_tool)], capture_output=True, text=True)
    assert r.returncode == 2
