# SPDX-License-Identifier: GPL-2.0-or-later
"""Unmodified mstflint 4.21 against simulated ConnectX-4, 4 Lx and 5 cards in flash-recovery
("livefish") mode.

The cards are created with --recovery (strapped for flash recovery, so no firmware runs
whatever the flash holds; test_cxsim_icmd_cx4.py has them with firmware): the card always shows its recovery PCI
ID (the HW ID itself, 0x209/0x20b/0x20d) and a memory-controller class, and mstflint reaches
the flash through the VSEC and the 5th-generation gateway (lock bit 31 of 0xf0400, cache
replacement at 0xf0420). Images come from sim/mkfs3 with a 1 MiB slot (--slot-log 20) and no
ROM, so that a burn over FUSE takes seconds; the ConnectX-5's is an FS4 file, which is as large
as the flash with its device data and DTOC at the top (sim/mkfs3/README.md). What these tests
establish about mstflint 4.21:
  - `q` on an erased flash fails: "No valid FS3 image found" (FS4 on a ConnectX-5);
  - `-y burn` alone fails the same way; `-nofs -y burn` fails with "Cannot extract device
    data sections"; `-nofs --ignore_dev_data -y burn` burns the file's device data too,
    puts the image in slot 1 (at 1 << slot size) and points the boot address there;
  - a second, failsafe `-y burn` puts the newer image in the other slot and zeroes the old
    magic, but warns "Failed to update FW boot address" (no firmware to activate it);
  - a write-protected flash is refused ("Flash is write protected") and left as it was;
  - an FS4 file with its device data right after the image (mkfs3 --dev-after-image) is
    refused ("First DTOC address (0x...) is less than device area start address (0xf00000)":
    the flash's size minus the image's slot size, fs4_ops.cpp CheckFs4ImgSize), and a
    whole-flash dump burns as the file does.
Each test prints the config accesses and model time of every mstflint run."""
import json
import pathlib
import re

import pytest

from conftest import BUILD, run
from cxsim_helpers import bdf, cxsim  # noqa: F401 (fixture)
from test_oracle import fields

MKFS3 = BUILD / "host" / "mkfs3"
CHIPS = {
    # chip: (format, recovery PCI ID, FW versions old and new)
    "cx4": ("FS3", "0x0209", "12.28.2006", "12.28.2010"),
    "cx4lx": ("FS3", "0x020b", "14.32.1010", "14.32.1020"),
    "cx5": ("FS4", "0x020d", "16.35.4030", "16.35.4040"),
}
SLOT_LOG = 20
# The failsafe second burn (~20 s of FUSE each) on one chip per format: cx4 takes the same
# FS3 path as cx4lx (only its IDs differ), which keeps the file near 2 minutes on 2 cores.
FAILSAFE = {"cx4lx", "cx5"}


def image(tmp_path, chip, fw, name, *extra):
    """An mkfs3 file: FS3, or FS4 (16 MiB, device data and DTOC at the top); extra options
    such as --dump or --dev-after-image."""
    assert MKFS3.exists(), f"{MKFS3} is missing: run 'make build/host/mkfs3'"
    out = tmp_path / name
    r = run([MKFS3, "--chip", chip, "-o", out, "--slot-log", str(SLOT_LOG), "--no-rom",
             "--fw", fw, "--psid", f"SIM_{chip.upper()}", *extra])
    assert r.returncode == 0, r.stderr
    return out


def ok(r):
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r


class Meter:
    """Config accesses and model time of each mstflint run on card 0 of a server."""

    def __init__(self, server, chip):
        self.s, self.chip = server, chip
        self.last = self.now()

    def now(self):
        k = self.s.card_stats()["counters"]
        return k["cfg_reads"] + k["cfg_writes"], k["time_ns"]

    def run(self, what, *args):
        r = self.s.mstflint("-d", bdf(0), *args)
        n, t = self.now()
        print(f"{self.chip} {what}: exit {r.returncode}, {n - self.last[0]} config accesses, "
              f"{(t - self.last[1]) / 1e6:.1f} ms model time")
        self.last = (n, t)
        return r


def unmodelled(server):
    """The crspace addresses the card logged as unmodelled."""
    return set(re.findall(r"unmodelled (?:address|register) (0x[0-9a-f]+)", server.err.read_text()))


def counters(stem):
    return json.loads(pathlib.Path(stem).with_suffix(".stats").read_text())["cards"][0]["counters"]


@pytest.mark.parametrize("chip", CHIPS)
def test_livefish_card_burn_query_verify_failsafe(cxsim, tmp_path, chip):
    fmt, rec_id, old_fw, new_fw = CHIPS[chip]
    psid = f"SIM_{chip.upper()}"
    old, new = image(tmp_path, chip, old_fw, "old.bin"), image(tmp_path, chip, new_fw, "new.bin")
    stem = cxsim.create("card", "--chip", chip, "--recovery")
    s = cxsim.serve(stem)
    assert s.read(0, "device") == rec_id and s.read(0, "class") == "0x050000"
    m = Meter(s, chip)
    q = m.run("q (erased)", "q")
    assert q.returncode != 0 and f"No valid {fmt} image found" in q.stdout + q.stderr
    ok(m.run("burn -nofs --ignore_dev_data", "-i", old, "-nofs", "--ignore_dev_data", "-y",
             "burn"))
    assert s.stop() == 0
    k = counters(stem)
    print(f"{chip} after q and burn: {json.dumps(k)}")
    # CX5: mstflint reads the efuse 0xf0c0c (speed bin) once per open; nothing else is unmodelled
    assert unmodelled(s) == ({"0xf0c0c"} if chip == "cx5" else set())
    assert k["gw_without_sem"] == 0 and k["gw_cache_rep_on"] == 0 and k["erases"] >= 1
    boot = cxsim.boot_check(stem)
    assert boot["format"] == fmt and boot["would_boot"] and not boot["fw_running"]
    assert (boot["slot"], boot["fw_version"], boot["psid"]) == (1, old_fw, psid)
    assert boot["pci_device"] == rec_id

    s = cxsim.serve(stem)
    m = Meter(s, chip)
    f = fields(ok(m.run("q", "q")).stdout)
    assert (f["Image type"], f["FW Version"], f["PSID"]) == (fmt, old_fw, psid)
    v = ok(m.run("v", "v")).stdout
    assert "FW image verification succeeded" in v
    if chip not in FAILSAFE:
        assert s.stop() == 0
        return
    r = ok(m.run("burn (failsafe)", "-i", new, "-y", "burn"))
    assert "Failed to update FW boot address" in r.stdout + r.stderr
    assert s.stop() == 0
    print(f"{chip} after q, v and failsafe burn: {json.dumps(counters(stem))}")
    boot = cxsim.boot_check(stem)
    assert (boot["slot"], boot["valid_images"], boot["fw_version"]) == (0, 1, new_fw)


@pytest.mark.parametrize("chip", CHIPS)
def test_write_protected_flash_is_refused_and_unchanged(cxsim, tmp_path, chip):
    fmt, _, old_fw, _ = CHIPS[chip]
    img = image(tmp_path, chip, old_fw, "old.bin")
    stem = cxsim.create("card", "--chip", chip, "--recovery")
    ok(run([BUILD / "host" / "cxsim", "fault", stem, "--write-protect", "on"]))
    before = stem.with_suffix(".flash").read_bytes()
    s = cxsim.serve(stem)
    r = Meter(s, chip).run("burn (write-protected)", "-i", img, "-nofs", "--ignore_dev_data",
                           "-y", "burn")
    assert r.returncode != 0 and "Flash is write protected" in r.stdout + r.stderr
    assert s.stop() == 0
    assert stem.with_suffix(".flash").read_bytes() == before
    k = counters(stem)
    assert k["bytes_programmed"] == 0 and k["erases"] == 0
    assert not cxsim.boot_check(stem)["would_boot"]


@pytest.mark.parametrize("how", ["dump", "dev-after-image"])
def test_cx5_dump_burns_file_with_low_device_data_is_refused(cxsim, tmp_path, how):
    """The two other FS4 layouts: a whole-flash dump (image in slot 0) burns and boots as the
    file does; a file with its device data right after the image is refused before any
    write, as CheckFs4ImgSize wants every DTOC entry in the flash's top slot-sized area."""
    _, _, old_fw, _ = CHIPS["cx5"]
    img = image(tmp_path, "cx5", old_fw, f"{how}.bin",
                *(["--dump", "--dump-slot", "0"] if how == "dump" else ["--dev-after-image"]))
    stem = cxsim.create("card", "--chip", "cx5")
    s = cxsim.serve(stem)
    r = Meter(s, f"cx5 {how}").run("burn -nofs --ignore_dev_data", "-i", img, "-nofs",
                                   "--ignore_dev_data", "-y", "burn")
    assert s.stop() == 0
    boot = cxsim.boot_check(stem)
    if how == "dump":
        ok(r)
        assert boot["would_boot"] and (boot["slot"], boot["fw_version"]) == (1, old_fw)
        return
    assert r.returncode != 0
    assert re.search(r"First DTOC address \(0x[0-9a-f]+\) is less than device area start "
                     r"address \(0xf00000\)", r.stdout + r.stderr), r.stdout + r.stderr
    assert counters(stem)["bytes_programmed"] == 0 and not boot["would_boot"]


PARTS = {
    # part: what mstflint 4.21 makes of it (mflash.c g_flash_info_arr)
    "W25Q128JV": None, "MX25L12845E": None, "W25Q256JV-IM": None, "MX25L25645G": None,
    "W25Q256JV": "SPI flash #0 (vendor: 0xef, memory type: 0x40, es: 0) is not supported",
}


@pytest.mark.parametrize("part", PARTS)
def test_flash_parts_as_mstflint_sees_them(cxsim, tmp_path, part):
    """The 16 and 32 MiB parts: mstflint reads the image on all but the W25Q256JV-IQ/JQ
    (JEDEC 0xef4019), for which 4.21 has no table entry. On a ConnectX-4 Lx it uses
    3-byte instructions on the 32 MiB parts too (is_four_byte_address_needed: 0)."""
    img = image(tmp_path, "cx4lx", CHIPS["cx4lx"][2], "old.bin")
    stem = cxsim.create("card", "--chip", "cx4lx", "--flash", part, "--image", img,
                         "--recovery")
    s = cxsim.serve(stem)
    r = Meter(s, part).run("q", "q")
    k = s.card_stats()["counters"]
    assert s.stop() == 0
    if PARTS[part]:
        assert r.returncode != 0 and PARTS[part] in r.stdout + r.stderr
        return
    f = fields(ok(r).stdout)
    assert (f["FW Version"], f["PSID"]) == (CHIPS["cx4lx"][2], "SIM_CX4LX")
    assert set(k["gw_by_opcode"]) <= {"0x03", "0x05", "0x9f"}   # no 4-byte opcodes


def test_cx5_with_32mib_part_sees_its_image_twice(cxsim, tmp_path):
    """mstflint 4.21 reaches a ConnectX-5's flash with 3-byte addresses only, so on a 32 MiB
    part its search for an image start at 0x1000000 reads address 0 again and finds the
    same FS4 image twice: q refuses the card. (What the real gateway sends as the fourth
    address byte without ADDR_SIZE is UNCONFIRMED: the model sends none, as mstflint asks.)"""
    dump = tmp_path / "cx5.dump"
    r = run([MKFS3, "--chip", "cx5", "--dump", "-o", dump, "--slot-log", str(SLOT_LOG),
             "--no-rom", "--flash-size", str(32 << 20)])
    assert r.returncode == 0, r.stderr
    stem = cxsim.create("card", "--chip", "cx5", "--flash", "W25Q256JV-IM", "--image", dump,
                         "--recovery")
    assert cxsim.boot_check(stem)["would_boot"]
    s = cxsim.serve(stem)
    r = Meter(s, "cx5 W25Q256JV-IM").run("q", "q")
    assert r.returncode != 0 and "More than one FS4 image found" in r.stdout + r.stderr
    assert s.stop() == 0
