# SPDX-License-Identifier: GPL-2.0-or-later
"""cxflash on ConnectX-4 Lx (FS3) and ConnectX-5 (FS4) cards in flash-recovery mode, with
unmodified mstflint 4.21 as the oracle, over cxsim's FUSE sysfs.

An OEM card (an HPE-style PSID, its own GUIDs and MACs in DEV_INFO) is queried by both
tools, line for line; cxflash cross-flashes it to a stock image of another PSID; mstflint
then finds the new firmware and PSID, the card's GUIDs and MACs, and verifies the flash;
the flash file shows that only the other slot and the old image's first dword changed
(the device data, outside both slots, is byte for byte the same). Then the refusals: a
write-protected flash, a ConnectX-6 Dx, an FS4 file for an FS3 card, options that would
change a signed image; each one line, its exit code, the flash unchanged.
Each run prints its config accesses."""
import pathlib

import pytest

from conftest import BUILD, CXFLASH, cx, run
from cxsim_helpers import bdf, cxsim  # noqa: F401 (fixture)
from test_oracle import fields

MKFS3 = BUILD / "host" / "mkfs3"
SLOT_LOG = 20                    # 1 MiB slots: a burn over FUSE in seconds
GUID, MAC = "248a0703005a1b20", "248a075a1b20"
CHIPS = {
    # chip: (format, FW of the OEM image, FW of the stock image)
    "cx4lx": ("FS3", "14.32.1010", "14.32.1020"),
    "cx5": ("FS4", "16.35.4030", "16.35.4040"),
}
EXIT_UNSUPPORTED, EXIT_PROTECTED, EXIT_MISMATCH = 8, 15, 17   # util/status.h, cxflash(1)


def image(tmp_path, chip, fw, psid, name, *extra):
    out = tmp_path / name
    r = run([MKFS3, "--chip", chip, "-o", out, "--slot-log", str(SLOT_LOG), "--no-rom", "--fw", fw,
             "--psid", psid, "--guid", GUID, "--mac", MAC, *extra])
    assert r.returncode == 0, r.stderr
    return out


def card(cxsim, tmp_path, chip, *extra):
    """An OEM card holding its image in slot 0, strapped into recovery mode."""
    oem = image(tmp_path, chip, CHIPS[chip][1], "HP_2420110034", "oem.bin")
    return cxsim.create("card", "--chip", chip, "--image", oem, "--recovery", *extra)


def accesses(s):
    k = s.card_stats()["counters"]
    return k["cfg_reads"] + k["cfg_writes"]


def dev(s, *args, what=""):
    n = accesses(s)
    r = s.cxflash("-d", bdf(0), *args)     # in model time: no wall-clock sleeps
    print(f"cxflash {what or args[-1]}: exit {r.returncode}, {accesses(s) - n} config accesses")
    return r


def flint(s, *args):
    n = accesses(s)
    r = s.mstflint("-d", bdf(0), *args)
    print(f"mstflint {args[-1]}: exit {r.returncode}, {accesses(s) - n} config accesses")
    return r


def ok(r):
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r


@pytest.mark.parametrize("chip", CHIPS)
def test_query_verify_and_crossflash_as_mstflint_sees_them(cxsim, tmp_path, chip):
    fmt, old_fw, new_fw = CHIPS[chip]
    stock = image(tmp_path, chip, new_fw, "MT_2420110034", "stock.bin")
    stem = card(cxsim, tmp_path, chip)
    before = stem.with_suffix(".flash").read_bytes()
    s = cxsim.serve(stem)
    # q: the same lines as mstflint's
    mine, theirs = ok(dev(s, "q")).stdout, ok(flint(s, "q")).stdout
    assert mine == theirs
    f = fields(mine)
    assert (f["Image type"], f["FW Version"], f["PSID"]) == (fmt, old_fw, "HP_2420110034")
    assert ok(dev(s, "v")).stdout.rstrip().endswith("Image is bootable.")
    # a PSID change is refused without --allow_psid_change, and the flash is untouched
    r = dev(s, "-i", stock, "-y", "--no-backup", "burn", what="burn (no --allow_psid_change)")
    assert r.returncode == EXIT_MISMATCH and "PSID mismatch" in r.stderr
    assert s.stop() == 0
    assert stem.with_suffix(".flash").read_bytes() == before

    s = cxsim.serve(stem)
    ok(dev(s, "-i", stock, "--allow_psid_change", "-y", "--no-backup", "burn", what="burn"))
    k = s.card_stats()["counters"]
    assert k["gw_without_sem"] == 0 and k["gw_cache_rep_on"] == 0
    f = fields(ok(flint(s, "q")).stdout)
    assert (f["FW Version"], f["PSID"]) == (new_fw, "MT_2420110034")
    assert f["Base GUID"].split()[0] == GUID and f["Base MAC"].split()[0] == MAC
    assert "Image is bootable" in ok(flint(s, "v")).stdout
    assert ok(dev(s, "q")).stdout == ok(flint(s, "q")).stdout
    # burning it again writes nothing
    r = ok(dev(s, "-i", stock, "--allow_psid_change", "-y", "--no-backup", "burn", what="burn (again)"))
    assert "already" in r.stdout.lower() or "nothing" in r.stdout.lower()
    assert s.stop() == 0

    after = stem.with_suffix(".flash").read_bytes()
    slot = 1 << SLOT_LOG
    # only slot 1 and the first dword of slot 0 changed; the device data above is the same
    assert after[2 * slot:] == before[2 * slot:]
    assert after[4:slot] == before[4:slot] and after[:4] == b"\0\0\0\0"
    boot = cxsim.boot_check(stem)
    assert (boot["format"], boot["slot"], boot["valid_images"]) == (fmt, 1, 1)
    assert (boot["fw_version"], boot["psid"]) == (new_fw, "MT_2420110034")


@pytest.mark.parametrize("chip", CHIPS)
def test_write_protected_flash_refused_unchanged(cxsim, tmp_path, chip):
    stock = image(tmp_path, chip, CHIPS[chip][2], "MT_2420110034", "stock.bin")
    stem = card(cxsim, tmp_path, chip)
    ok(run([BUILD / "host" / "cxsim", "fault", stem, "--write-protect", "on"]))
    before = stem.with_suffix(".flash").read_bytes()
    s = cxsim.serve(stem)
    r = dev(s, "-i", stock, "--allow_psid_change", "-y", "--no-backup", "burn", what="burn (protected)")
    assert r.returncode == EXIT_PROTECTED and "write-protected" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert s.stop() == 0
    assert stem.with_suffix(".flash").read_bytes() == before


def test_connectx6dx_refused_untouched(cxsim, tmp_path):
    stem = cxsim.create("card", "--chip", "cx5", "--hw-id", "0x212", "--pci-device", "0x212")
    s = cxsim.serve(stem)
    for args in (["q"], ["backup", str(tmp_path / "b")]):
        r = dev(s, *args)
        assert r.returncode == EXIT_UNSUPPORTED and "is a ConnectX-6 Dx" in r.stderr
        assert "nothing was written" in r.stderr
    k = s.card_stats()["counters"]
    assert k["cr_writes"] == 0 and k["gw_cmds"] == 0
    assert s.stop() == 0


@pytest.mark.parametrize("args,says", [
    (["--guid", "0x1234"], "device data"),
    (["--vsd", "X"], "device data"),
    (["--nofs"], "--nofs"),
])
def test_options_that_would_change_signed_image_or_device_data(cxsim, tmp_path, args, says):
    stock = image(tmp_path, "cx4lx", CHIPS["cx4lx"][2], "MT_2420110034", "stock.bin")
    stem = card(cxsim, tmp_path, "cx4lx")
    before = stem.with_suffix(".flash").read_bytes()
    s = cxsim.serve(stem)
    r = dev(s, "-i", stock, "--allow_psid_change", "-y", "--no-backup", *args, "burn")
    assert r.returncode == EXIT_UNSUPPORTED and says in r.stderr, r.stderr
    assert s.stop() == 0
    assert stem.with_suffix(".flash").read_bytes() == before


def test_fs4_file_on_fs3_card_refused(cxsim, tmp_path):
    fs4 = image(tmp_path, "cx5", CHIPS["cx5"][2], "MT_0000000008", "cx5.bin")
    stem = card(cxsim, tmp_path, "cx4lx")
    before = stem.with_suffix(".flash").read_bytes()
    s = cxsim.serve(stem)
    r = dev(s, "-i", fs4, "--allow_psid_change", "-y", "--no-backup", "burn")
    assert r.returncode != 0 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert s.stop() == 0
    assert stem.with_suffix(".flash").read_bytes() == before


@pytest.mark.parametrize("put_back", [False, True])
def test_unprotect_asks_and_puts_back_only_on_yes(cxsim, tmp_path, put_back):
    """--unprotect: a question before the protection is cleared, and after the burn a second
    one whose default (an empty answer) leaves the flash unprotected; -y answers both yes."""
    stock = image(tmp_path, "cx4lx", CHIPS["cx4lx"][2], "MT_2420110034", "stock.bin")
    stem = card(cxsim, tmp_path, "cx4lx")
    ok(run([BUILD / "host" / "cxsim", "fault", stem, "--write-protect", "on"]))
    s = cxsim.serve(stem)
    args = ["-d", bdf(0), "-i", stock, "--allow_psid_change", "--no-backup"]
    if put_back:
        r = s.cxflash(*args, "-y", "--unprotect", "burn")
    else:   # unprotect: y, PSID change: y, put it back: the default
        r = s.cxflash(*args, "--unprotect", "burn", input="y\ny\n\n")
    ok(r)
    if not put_back:    # the questions were asked
        assert "is write-protected" in r.stdout and "Put the flash's write protection back" in r.stdout
    # the card holds the image now: a second burn has nothing to do, unless it is protected again
    again = s.cxflash(*args, "-y", "burn")
    assert again.returncode == (EXIT_PROTECTED if put_back else 0), again.stderr
    assert s.stop() == 0
    assert cxsim.boot_check(stem)["psid"] == "MT_2420110034"


def test_record_and_replay(cxsim, tmp_path):
    """--record of q and of a burn --dry-run on a ConnectX-4 Lx, then --replay of each without
    the card: the same output, and the replay knows the card's family from the recording."""
    stock = image(tmp_path, "cx4lx", CHIPS["cx4lx"][2], "MT_2420110034", "stock.bin")
    stem = card(cxsim, tmp_path, "cx4lx")
    s = cxsim.serve(stem)
    runs = {"q": ["q"], "dry": ["-i", str(stock), "--allow_psid_change", "-y", "--dry-run", "--no-backup", "burn"]}
    out = {}
    for name, args in runs.items():
        r = ok(dev(s, "--record", str(tmp_path / f"{name}.trace"), *args, what=f"{name} --record"))
        out[name] = r.stdout
    assert s.stop() == 0
    for name, args in runs.items():
        r = ok(cx("--replay", str(tmp_path / f"{name}.trace"), "-d", bdf(0), *args))
        assert r.stdout == out[name]
    assert "HP_2420110034" in out["q"] and "dry" in out["dry"].lower()


def test_list_names_the_image_of_a_recovery_mode_card(cxsim, tmp_path):
    stem = card(cxsim, tmp_path, "cx4lx")
    s = cxsim.serve(stem)
    r = ok(cx("--sysfs", s.dir, "list"))
    assert "RECOVERY MODE (livefish): no firmware runs" in r.stdout
    assert f"FS3 image on the flash: PSID HP_2420110034  FW {CHIPS['cx4lx'][1]}" in r.stdout
    j = ok(cx("--sysfs", s.dir, "--json", "list")).stdout
    assert '"psid":"HP_2420110034"' in j and '"recovery":true' in j
    assert s.stop() == 0
