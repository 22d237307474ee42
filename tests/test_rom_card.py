# SPDX-License-Identifier: GPL-2.0-or-later
"""`cxflash -d BDF drom` and `brom ROMFILE` on a simulated card, with Debian's mstflint 4.21
as the oracle (burner/ops/rom_card.h, fs2-format.md §4.5, §9).

Two cards start from the same flash (cxsim create, the same image made by mkfs2, with a
ROM and a Product Version, and the same identity). Unmodified mstflint changes the ROM of
one (`-y --allow_rom_change drom`, `brom FILE`), cxflash the other's; then `mstflint q`,
`mstflint v` and `cxflash q` read the two alike, and the two flashes are compared byte for
byte. Both tools rebuild the image the same way (UpdateRomInImage, image/rom_insert.h),
burn it failsafe into the slot the card does not run from and clear the old signature, so
the whole flash is expected equal; where it may legitimately differ is the old slot's
bytes after its first dword (left as they were by both) and flint's padding of the last
sector, and the test would name the first differing address if it ever does.

Bad input on a card: one `cxflash: ...` line, the exit code of cxflash(1) EXIT STATUS, and
the model counts no erase and no program. The power-cut campaigns for drom and brom are in
burner/tests/test_powercut.c; burn --rom keep|image|none|FILE in burner/tests/test_burn_rom.c.

Cost: four ROM changes over FUSE (mstflint's and ours, ~5-30 s each with the load of a
make check) and a dozen refusals that read the card's 10 KiB image."""
import json

import pytest

from conftest import CXFLASH, cx, run
from cxsim_helpers import bdf, cxsim  # noqa: F401 (fixture)
from test_rom_files import DEV_CX3, fields, hp_rom, ours_as_flint, pci_image

# cxflash(1) EXIT STATUS (burner/util/status.h).
E_IMAGE, E_ABSENT, E_VALUE, E_UNSUPPORTED, E_DECLINED, E_MISMATCH, E_CHECKSUM = 4, 5, 6, 8, 10, 17, 20
PART = "W25Q80"                       # 1 MiB: half of it, 512 KiB, for an image
GUID, MAC = "0002c90300c0ffe0", "0002c9c0ffe0"
SMALL = "--chip cx3 --ddr 2 --ddr-size 0x1000 --fw 2.40.7000"
ALLOW = "--allow_rom_change"
CX_ONLY = ("HW IDs",)                 # q fields cxflash adds (test_oracle.py)


def two_cards(cxsim, images, opts=SMALL):
    img = images.make(opts)
    stems = [cxsim.create(n, "--chip", "cx3", "--flash", PART, "--image", img, "--guid", GUID, "--mac", MAC)
             for n in ("flint", "ours")]
    return stems, cxsim.serve(*stems)


def on_card(s, i, *args, stdin=None):
    return cx("--sysfs", s.dir, "-d", bdf(i), *args)


def counters(s, i):
    c = s.card_stats(i)["counters"]
    return c["erases"], c["bytes_programmed"]


def q_agree(s):
    """mstflint q and v, and cxflash q, read both cards alike; returns cxflash's q fields."""
    got = []
    for i in (0, 1):
        v = s.mstflint("-d", bdf(i), "v")
        assert v.returncode == 0 and "verification succeeded" in v.stdout, v.stdout + v.stderr
        theirs = s.mstflint("-d", bdf(i), "q")
        ours = on_card(s, i, "q")
        assert theirs.returncode == 0 and ours.returncode == 0, theirs.stderr + ours.stderr
        fa, fb = fields(ours.stdout), fields(theirs.stdout)
        for key in CX_ONLY:
            fa.pop(key, None)
        if "Rom Info" in fa:
            fa["Rom Info"] = ours_as_flint(fa["Rom Info"])
        if "Rom Info" in fb:
            fb["Rom Info"] = " | ".join(r.rstrip() for r in fb["Rom Info"].split(" | "))
        assert fa == fb, f"card {i}: cxflash {fa}\nmstflint {fb}"
        got.append(fa)
    assert got[0] == got[1]
    return got[0]


def flashes_equal(stems):
    a, b = (stem.with_suffix(".flash").read_bytes() for stem in stems)
    diff = next((i for i in range(len(a)) if a[i] != b[i]), None)
    assert diff is None, f"the flashes differ first at 0x{diff:x}"


def test_drom_as_mstflint(cxsim, images):
    stems, s = two_cards(cxsim, images)
    r = s.mstflint("-d", bdf(0), "-y", ALLOW, "drom")
    assert r.returncode == 0, r.stdout + r.stderr
    r = on_card(s, 1, "-y", "--no-backup", ALLOW, "--json", "drom")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["rom_before"] == ["PXE 3.4.752"] and j["rom_after"] == [] and j["card_state"] == "new-image-boots"
    q = q_agree(s)
    assert "Rom Info" not in q and q["FW Version"] == "2.40.7000" and q["GUIDs"].startswith(GUID)
    assert s.stop() == 0
    flashes_equal(stems)
    for stem in stems:
        b = cxsim.boot_check(stem)
        assert b["slot"] == 1 and b["valid_images"] == 1 and b["guids"]["node"] == GUID, b
        assert b["macs"]["port1"] == MAC and b["fw_version"] == "2.40.7000", b


def test_brom_as_mstflint(cxsim, images, tmp_path):
    """HP's three ROMs (CLP, UEFI, PXE; test_rom_files.hp_rom, built from the PCI spec) in
    place of the card's PXE ROM; their devid is the card's, so neither tool asks."""
    rom = tmp_path / "hp.rom"
    rom.write_bytes(hp_rom(devid=DEV_CX3))
    stems, s = two_cards(cxsim, images)
    r = s.mstflint("-d", bdf(0), "-y", ALLOW, "brom", rom)
    assert r.returncode == 0, r.stdout + r.stderr
    dry = on_card(s, 1, "--dry-run", ALLOW, "brom", rom)
    assert dry.returncode == 0, dry.stderr
    assert "ROM: PXE 3.4.752 -> CLP 1.8.25, UEFI 14.11.49, PXE 3.4.754; nothing written" in dry.stdout, dry.stdout
    assert counters(s, 1) == (0, 0)
    r = on_card(s, 1, "-y", "--no-backup", ALLOW, "brom", rom)
    assert r.returncode == 0, r.stderr
    assert "-I- ROM: PXE 3.4.752 -> CLP 1.8.25, UEFI 14.11.49, PXE 3.4.754" in r.stdout, r.stdout
    q = q_agree(s)
    assert q["Rom Info"].count("type=") == 3 and "type=UEFI version=14.11.49" in q["Rom Info"], q
    again = on_card(s, 1, "-y", "--no-backup", ALLOW, "brom", rom)   # the card holds it now
    assert again.returncode == 0 and "already holds this image" in again.stdout, again.stdout
    assert s.stop() == 0
    flashes_equal(stems)


def one_line(r, code, *words):
    assert r.returncode == code, f"exit {r.returncode}, not {code}: {r.stdout}{r.stderr}"
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cxflash: "), r.stderr
    for w in words:
        assert w in lines[0], lines[0]


def test_bad_input_writes_nothing(cxsim, images, tmp_path):
    """Each refusal: one line, its exit code, no erase or program in the model."""
    img, nrom = images.make(SMALL), images.make(f"{SMALL} --no-rom")
    stems = [cxsim.create(n, "--chip", "cx3", "--flash", PART, "--image", f, "--guid", GUID, "--mac", MAC)
             for n, f in (("card", img), ("norom", nrom))]
    s = cxsim.serve(*stems)
    good = hp_rom(devid=DEV_CX3)
    files = {
        "fs2": img.read_bytes(),
        "truncated": good[:-512],
        "badsum": hp_rom(devid=DEV_CX3, bad="CLP"),
        "otherdev": hp_rom(),                                        # ConnectX-3 Pro's devid
        # five 127.5 KiB ROMs: the image would be 650 KiB, half the flash is 512 KiB
        "toobig": b"".join(pci_image(255, 0x11, (14, 11, 49), DEV_CX3, k == 4) for k in range(5)),
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    cases = [
        (0, ["brom", tmp_path / "fs2"], E_VALUE, "firmware image"),
        (0, ["brom", tmp_path / "truncated"], E_IMAGE, ""),
        (0, ["brom", tmp_path / "badsum"], E_CHECKSUM, "checksum"),
        (0, ["brom", tmp_path / "toobig"], E_MISMATCH, "fit"),
        (1, ["drom"], E_ABSENT, "no expansion ROM"),
    ]
    for card, args, code, word in cases:
        r = on_card(s, card, "-y", "--no-backup", ALLOW, *args)
        one_line(r, code, word)
        assert counters(s, card) == (0, 0), args
    # Without --allow_rom_change, as flint: the image has a Product Version.
    for args in (["drom"], ["brom", tmp_path / "fs2"]):
        one_line(on_card(s, 0, "-y", "--no-backup", *args), E_UNSUPPORTED, ALLOW)
    # Another device's ROM: flint warns and asks; no answer (stdin closed) is no.
    r = on_card(s, 0, "--no-backup", ALLOW, "brom", tmp_path / "otherdev")
    assert r.returncode == E_DECLINED and "4103" in r.stdout + r.stderr, r.stdout + r.stderr
    assert counters(s, 0) == (0, 0)
    # -o is for files.
    r = on_card(s, 0, "-y", ALLOW, "drom", "-o", tmp_path / "x.bin")
    assert r.returncode == 2 and not (tmp_path / "x.bin").exists()
    assert s.stop() == 0


def test_burn_rom_option_is_checked_first(tmp_path):
    """--rom FILE that cannot be read, and --rom with --use_image_rom: refused before any card."""
    img = tmp_path / "x.bin"
    img.write_bytes(b"")
    r = run([CXFLASH, "-d", "0000:09:00.0", "-i", img, "--rom", tmp_path / "missing.rom", "burn"])
    assert r.returncode == 3, r.stderr
    r = run([CXFLASH, "-d", "0000:09:00.0", "-i", img, "--rom", "none", "--use_image_rom", "burn"])
    assert r.returncode == 2 and "--use_image_rom is --rom image" in r.stderr, r.stderr


@pytest.mark.parametrize("pick,after", [("none", []), ("image", ["PXE 3.4.800"]), ("keep", ["PXE 3.4.752"])])
def test_burn_rom_json(cxsim, images, pick, after):
    """burn --rom: the ROM before and after in --json (a dry run: the choice is made and shown
    before anything is written). keep is the card's ROM even over an image with its own
    (flint would burn the image's: --rom image)."""
    stems, s = two_cards(cxsim, images)
    new = images.make("--chip cx3 --ddr 2 --ddr-size 0x1000 --fw 2.42.5000 --rom-ver 3.4.800")
    r = on_card(s, 0, "-i", new, "-y", "--dry-run", "--json", "--rom", pick, "burn")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["rom_before"] == ["PXE 3.4.752"] and j["rom_after"] == after, j
    assert j["rom_image"] == ["PXE 3.4.800"] and j["rom_from_card"] == (pick == "keep"), j
    assert counters(s, 0) == (0, 0)
