# SPDX-License-Identifier: GPL-2.0-or-later
"""sg --guid G --mac M on ConnectX-4 Lx (FS3) and ConnectX-5 (FS4) cards: the GUIDs/MACs put
back from the sticker into a lost DEV_INFO, or changed, with unmodified mstflint 4.21 as the
oracle over cxsim's FUSE sysfs (docs/fs3-format.md §6.7).

The cards come from mkfs3 with guids_override_en set and, on FS3, the two DEV_INFO places
mstflint's sg uses (--dev-info-below-mfg). A lost DEV_INFO is its sector erased in the
card's flash file between two runs of the server. After cxflash's sg, mstflint's q shows the
sticker's GUID and MAC and its v passes, in recovery mode and with the firmware running; on a
card with a whole DEV_INFO sg shows the old values, asks, and a "no" writes nothing. The
refusals write nothing: guids override off, a write-protected part, a bad MAC, a card whose
MFG_INFO is gone. Each run prints its config accesses."""
import pytest

from conftest import BUILD, run
from cxsim_helpers import bdf, cxsim  # noqa: F401 (fixture)
from test_cxflash_cx4 import CHIPS, EXIT_PROTECTED, EXIT_UNSUPPORTED, GUID, MAC, SLOT_LOG, accesses, flint, ok
from test_oracle import fields

MKFS3 = BUILD / "host" / "mkfs3"
CXSIM = BUILD / "host" / "cxsim"
STICKER_GUID, STICKER_MAC = "248a0703005a9c40", "248a075a9c40"
EXIT_IMAGE, EXIT_VALUE, EXIT_DECLINED = 4, 6, 10   # util/status.h, cxflash(1)
DEV_SIG = bytes.fromhex("6d446576496e666f2342cafabacafe00")   # DEV_INFO's signature, §6.2
SECTOR = 0x1000


def dev(s, *args, what="", input=None):
    n = accesses(s)
    r = s.cxflash("-d", bdf(0), *args, input=input)
    print(f"cxflash {what or args[-1]}: exit {r.returncode}, {accesses(s) - n} config accesses")
    return r


def card(cxsim, tmp_path, chip, *extra, override=True, recovery=True, mkfs3=()):
    out = tmp_path / "oem.bin"
    args = ["--chip", chip, "-o", out, "--slot-log", str(SLOT_LOG), "--no-rom", "--fw", CHIPS[chip][1],
            "--psid", "HP_2420110034", "--guid", GUID, "--mac", MAC, *mkfs3]
    if override:
        args.append("--guids-override")
    if CHIPS[chip][0] == "FS3":
        args.append("--dev-info-below-mfg")
    r = run([MKFS3, *args])
    assert r.returncode == 0, r.stderr
    return cxsim.create("card", "--chip", chip, "--image", out, *(["--recovery"] if recovery else []), *extra)


def lose_dev_info(stem):
    """Erase every sector holding a signed DEV_INFO: the card's GUIDs/MACs are gone."""
    p = stem.with_suffix(".flash")
    f = bytearray(p.read_bytes())
    at = f.find(DEV_SIG)
    n = 0
    while at >= 0:
        s = at & ~(SECTOR - 1)
        f[s:s + SECTOR] = b"\xff" * SECTOR
        n += 1
        at = f.find(DEV_SIG)
    assert n >= 1
    p.write_bytes(bytes(f))


def sticker(s, *more, what="sg", input=None):
    return dev(s, "--guid", STICKER_GUID, "--mac", STICKER_MAC, "--no-backup", *more, "sg", what=what, input=input)


def shows_sticker(s):
    f = fields(ok(flint(s, "q")).stdout)
    assert f["Base GUID"].split()[0] == STICKER_GUID and f["Base MAC"].split()[0] == STICKER_MAC, f
    assert "Image is bootable" in ok(flint(s, "v")).stdout


@pytest.mark.parametrize("recovery", [True, False], ids=["recovery", "running"])
@pytest.mark.parametrize("chip", CHIPS)
def test_lost_dev_info_back_from_the_sticker(cxsim, tmp_path, chip, recovery):
    stem = card(cxsim, tmp_path, chip, recovery=recovery)
    lose_dev_info(stem)
    s = cxsim.serve(stem)
    r = flint(s, "v")
    print(f"mstflint v on the lost DEV_INFO: exit {r.returncode}: {(r.stdout + r.stderr).strip()[-200:]}")
    mine = dev(s, "q")
    assert "248a0703005a1b20" not in mine.stdout
    r = ok(sticker(s, "-y"))
    assert "DEV_INFO" in r.stdout and "none/damaged" in r.stdout
    shows_sticker(s)
    assert ok(dev(s, "q")).stdout == ok(flint(s, "q")).stdout
    r = ok(sticker(s, "-y", what="sg (again)"))
    assert "nothing written" in r.stdout
    assert s.stop() == 0
    boot = cxsim.boot_check(stem)
    assert boot["valid_images"] == 1 and boot["format"] == CHIPS[chip][0]


@pytest.mark.parametrize("chip", CHIPS)
def test_change_asks_and_no_writes_nothing(cxsim, tmp_path, chip):
    stem = card(cxsim, tmp_path, chip)
    before = stem.with_suffix(".flash").read_bytes()
    s = cxsim.serve(stem)
    r = sticker(s, input="n\n", what="sg (answered no)")
    assert r.returncode == EXIT_DECLINED, r.stderr
    assert GUID in r.stdout and STICKER_GUID in r.stdout and "(y/n) [n]" in r.stdout
    r = sticker(s, what="sg (no answer)")
    assert r.returncode == EXIT_DECLINED
    assert s.stop() == 0
    assert stem.with_suffix(".flash").read_bytes() == before

    s = cxsim.serve(stem)
    ok(sticker(s, input="y\n", what="sg (yes)"))
    shows_sticker(s)
    assert s.stop() == 0


@pytest.mark.parametrize("chip", CHIPS)
def test_refusals_write_nothing(cxsim, tmp_path, chip):
    stem = card(cxsim, tmp_path, chip, override=False)
    lose_dev_info(stem)
    before = stem.with_suffix(".flash").read_bytes()
    s = cxsim.serve(stem)
    cases = [
        (["--guid", STICKER_GUID, "--mac", STICKER_MAC], EXIT_UNSUPPORTED, "guids override is not set"),
        (["--guid", STICKER_GUID, "--mac", STICKER_MAC, "--restore-mfg-ids"], EXIT_VALUE, "factory GUID"),
        (["--guid", STICKER_GUID, "--mac", "258a075a9c40"], EXIT_VALUE, "multicast"),
        (["--guids", "1", "5", "6", "7"], 2, "one base GUID"),
    ]
    for args, code, says in cases:
        r = dev(s, *args, "-y", "--no-backup", "sg", what=f"sg {' '.join(args[-2:])}")
        assert r.returncode == code and says in r.stderr, (args, r.returncode, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    # the factory's own values, with the flag: put back
    ok(dev(s, "--guid", GUID, "--mac", MAC, "--restore-mfg-ids", "-y", "--no-backup", "sg",
           what="sg --restore-mfg-ids"))
    f = fields(ok(flint(s, "q")).stdout)
    assert f["Base GUID"].split()[0] == GUID
    assert "Image is bootable" in ok(flint(s, "v")).stdout
    assert s.stop() == 0
    assert stem.with_suffix(".flash").read_bytes() != before

    stem = card(cxsim, tmp_path, chip)
    ok(run([CXSIM, "fault", stem, "--write-protect", "on"]))
    before = stem.with_suffix(".flash").read_bytes()
    s = cxsim.serve(stem)
    r = sticker(s, "-y", what="sg (protected)")
    assert r.returncode == EXIT_PROTECTED and "write-protected" in r.stderr
    assert s.stop() == 0
    assert stem.with_suffix(".flash").read_bytes() == before


@pytest.mark.parametrize("chip", CHIPS)
def test_no_mfg_info_refused(cxsim, tmp_path, chip):
    stem = card(cxsim, tmp_path, chip, mkfs3=["--dev-sections", "dev,nv,vpd"])
    before = stem.with_suffix(".flash").read_bytes()
    s = cxsim.serve(stem)
    r = sticker(s, "-y", what="sg (no MFG_INFO)")
    assert r.returncode == EXIT_IMAGE and "MFG_INFO" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert s.stop() == 0
    assert stem.with_suffix(".flash").read_bytes() == before
