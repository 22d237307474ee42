# SPDX-License-Identifier: GPL-2.0-or-later
"""cxflash on ConnectX-4 Lx (FS3) and ConnectX-5 (FS4) cards whose firmware runs, with
unmodified mstflint 4.21 as the oracle, over cxsim's FUSE sysfs (hw-access.md §3.14).

The firmware fetches code from the flash, so both tools ask it for the flash (ICMD access
registers MFPA/MFBA/MFBE) and never touch the flash gateway. cxflash queries such a card
line for line as mstflint does, verifies it, and cross-flashes it to another PSID's image
(--allow_psid_change, the legacy burn mstflint 4.21 takes for it); mstflint then finds the
new firmware with the card's GUIDs and MACs, and only the other slot and the old image's
first dword changed. Refusals: secure firmware, an ICMD that never answers, a card without
the VSEC's ICMD space (a direct write is then offered only behind --risk-fw-hang);
each one line, its exit code, the flash unchanged. Each run prints its config accesses."""
import pytest

from conftest import BUILD, run
from cxsim_helpers import bdf, cxsim  # noqa: F401 (fixture)
from test_cxflash_cx4 import CHIPS, EXIT_UNSUPPORTED, SLOT_LOG, GUID, MAC, accesses, flint, image, ok
from test_oracle import fields

CXSIM = BUILD / "host" / "cxsim"
EXIT_BUSY, EXIT_TOOLS = 13, 22      # util/status.h, cxflash(1)


def dev(s, *args, what=""):
    """cxflash on the served card, in model time (Server.cxflash): the firmware's flash
    writes keep ICMD busy for the flash's own time, which cxflash waits out with mstflint's
    1..8 ms polls."""
    n = accesses(s)
    r = s.cxflash("-d", bdf(0), *args)
    print(f"cxflash {what or args[-1]}: exit {r.returncode}, {accesses(s) - n} config accesses")
    return r


def running(cxsim, tmp_path, chip, *extra):
    """An OEM card holding its image in slot 0, its firmware running."""
    oem = image(tmp_path, chip, CHIPS[chip][1], "HP_2420110034", "oem.bin")
    return cxsim.create("card", "--chip", chip, "--image", oem, *extra)


@pytest.mark.parametrize("chip", CHIPS)
def test_query_verify_crossflash_through_the_firmware(cxsim, tmp_path, chip):
    fmt, old_fw, new_fw = CHIPS[chip]
    stock = image(tmp_path, chip, new_fw, "MT_2420110034", "stock.bin")
    stem = running(cxsim, tmp_path, chip)
    before = stem.with_suffix(".flash").read_bytes()
    s = cxsim.serve(stem)
    mine, theirs = ok(dev(s, "q")).stdout, ok(flint(s, "q")).stdout
    assert mine == theirs
    f = fields(mine)
    assert (f["Image type"], f["FW Version"], f["PSID"]) == (fmt, old_fw, "HP_2420110034")
    assert ok(dev(s, "v")).stdout.rstrip().endswith("Image is bootable.")
    k = s.card_stats()["counters"]
    assert k["gw_cmds"] == 0 and k["icmd_cmds"] > 0 and k["icmd_without_sem"] == 0

    ok(dev(s, "-i", stock, "--allow_psid_change", "-y", "--no-backup", "burn", what="burn"))
    k = s.card_stats()["counters"]
    assert k["gw_cmds"] == 0 and k["icmd_without_sem"] == 0
    f = fields(ok(flint(s, "q")).stdout)
    assert (f["FW Version"], f["PSID"]) == (new_fw, "MT_2420110034")
    assert f["Base GUID"].split()[0] == GUID and f["Base MAC"].split()[0] == MAC
    assert "Image is bootable" in ok(flint(s, "v")).stdout
    # until a cold restart the old firmware runs: both tools say so, in the same lines
    mine = ok(dev(s, "q", what="q (after the burn)")).stdout
    assert mine == ok(flint(s, "q")).stdout
    assert fields(mine)["FW Version(Running)"] == old_fw
    assert s.stop() == 0
    after = stem.with_suffix(".flash").read_bytes()
    slot = 1 << SLOT_LOG
    assert after[2 * slot:] == before[2 * slot:]
    assert after[4:slot] == before[4:slot] and after[:4] == b"\0\0\0\0"
    boot = cxsim.boot_check(stem)
    assert (boot["format"], boot["slot"], boot["valid_images"]) == (fmt, 1, 1)
    assert (boot["fw_version"], boot["psid"]) == (new_fw, "MT_2420110034")


@pytest.mark.parametrize("fault,code,says", [
    ("secure-fw", EXIT_UNSUPPORTED, "secure firmware"),
    ("not-started", 21, "not ready"),
    ("sem-held", EXIT_BUSY, "semaphore"),
])
def test_refusals_through_the_firmware(cxsim, tmp_path, fault, code, says):
    chip = "cx4lx"
    stock = image(tmp_path, chip, CHIPS[chip][2], "MT_2420110034", "stock.bin")
    stem = running(cxsim, tmp_path, chip)
    ok(run([CXSIM, "fault", stem, "--icmd", fault]))
    before = stem.with_suffix(".flash").read_bytes()
    s = cxsim.serve(stem)
    r = dev(s, "-i", stock, "--allow_psid_change", "-y", "--no-backup", "burn", what=f"burn ({fault})")
    assert r.returncode == code and says in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert s.card_stats()["counters"]["gw_cmds"] == 0
    assert s.stop() == 0
    assert stem.with_suffix(".flash").read_bytes() == before


def test_no_icmd_space_refuses_a_direct_write_without_the_flag(cxsim, tmp_path):
    chip = "cx4lx"
    stock = image(tmp_path, chip, CHIPS[chip][2], "MT_2420110034", "stock.bin")
    stem = running(cxsim, tmp_path, chip, "--vsec", "full")
    before = stem.with_suffix(".flash").read_bytes()
    s = cxsim.serve(stem)
    r = dev(s, "-i", stock, "--allow_psid_change", "-y", "--no-backup", "burn", what="burn (no ICMD)")
    assert r.returncode == EXIT_UNSUPPORTED and "--risk-fw-hang" in r.stderr, r.stderr
    assert "nothing was written" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    k = s.card_stats()["counters"]
    assert k["cr_writes"] == 0 and k["gw_cmds"] == 0
    # asked for, the direct way reads the card as in recovery mode
    r = ok(dev(s, "--risk-fw-hang", "q", what="q --risk-fw-hang"))
    assert fields(r.stdout)["PSID"] == "HP_2420110034"
    assert s.stop() == 0
    assert stem.with_suffix(".flash").read_bytes() == before
