# SPDX-License-Identifier: GPL-2.0-or-later
"""Unmodified mstflint and mstconfig 4.21 against simulated ConnectX-4 Lx and 5 cards whose
firmware runs (hw-access.md §3.14).

A card whose flash holds a valid FS3/FS4 image shows its normal PCI ID (0x1015, 0x1017) and
a network class, and its firmware answers ICMD over the VSEC: the cache-replacement guard
reads non-zero, so mstflint asks the firmware for the flash (MFPA, MFBA, MFBE) instead of
driving the gateway, and MCAM offers no MCC, so it burns the legacy way. mstconfig reads
and writes the settings with NVQC, NVDA, NVDI and NVIA. What these tests establish about
mstflint 4.21 on such a card:
  - `q` shows the image's FW version and PSID; after a burn, until a power cycle, also
    "FW Version(Running)" (MGIR) and "Orig PSID";
  - `-allow_psid_change -y burn` of another PSID's image writes it to the other slot
    through MFBA and leaves the device data (MFG_INFO, DEV_INFO) as they were; it warns
    "Failed to update FW boot address" (the firmware would load it at the next power-on);
  - `ri` reads the image back through MFBA;
  - mstconfig `q`, `set`, `reset` work on the settings store, which survives a restart;
  - the ICMD faults, a gateway lock held by another agent and a write-protected flash stop
    it with its own message, and nothing is written.
Each run prints its config accesses and model time; the tests assert no timing."""
import json
import pathlib
import re

import pytest

from conftest import BUILD, run
from cxsim_helpers import MSTFLINT_NS, bdf, cxsim  # noqa: F401 (fixture)
from test_oracle import fields

MKFS3 = BUILD / "host" / "mkfs3"
CXSIM = BUILD / "host" / "cxsim"
CHIPS = {
    # chip: (format, PCI ID, FW versions old and new)
    "cx4lx": ("FS3", "0x1015", "14.32.1010", "14.32.1020"),
    "cx5": ("FS4", "0x1017", "16.35.4030", "16.35.4040"),
}
SLOT_LOG = 20
SLOT1 = 1 << SLOT_LOG


def image(tmp_path, chip, fw, psid, name):
    """An FS3 file; for FS4 a whole 16 MiB flash (mstflint 4.21 refuses an FS4 file whose
    DTOC lists device sections below 0xf00000; see test_cxsim_mstflint_cx4.py)."""
    assert MKFS3.exists(), f"{MKFS3} is missing: run 'make build/host/mkfs3'"
    out = tmp_path / name
    dump = ["--dump", "--dump-slot", "0"] if chip == "cx5" else []
    r = run([MKFS3, "--chip", chip, "-o", out, "--slot-log", str(SLOT_LOG), "--no-rom",
             "--fw", fw, "--psid", psid] + dump)
    assert r.returncode == 0, r.stderr
    return out


def ok(r):
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r


def failed(r, message):
    out = r.stdout + r.stderr
    assert r.returncode != 0 and message in out, f"exit {r.returncode}, wanted {message!r}:\n{out}"


class Meter:
    """Config accesses and model time of each tool run on card 0 of a server."""

    def __init__(self, server, what):
        self.s, self.what = server, what
        self.last = self.now()

    def now(self):
        k = self.s.card_stats()["counters"]
        return k["cfg_reads"] + k["cfg_writes"], k["time_ns"]

    def report(self, what, r):
        n, t = self.now()
        print(f"{self.what} {what}: exit {r.returncode}, {n - self.last[0]} config accesses, "
              f"{(t - self.last[1]) / 1e6:.1f} ms model time")
        self.last = (n, t)
        return r

    def flint(self, what, *args):
        return self.report(what, self.s.mstflint("-d", bdf(0), *args))

    def config(self, what, *args):
        return self.report(what, run([MSTFLINT_NS, self.s.dir, "--", "mstconfig", "-d", bdf(0),
                                      *args]))


def counters(stem):
    return json.loads(pathlib.Path(stem).with_suffix(".stats").read_text())["cards"][0]["counters"]


def unmodelled(server):
    return set(re.findall(r"unmodelled (?:address|register) (0x[0-9a-f]+)", server.err.read_text()))


def sections(v_out, names):
    """{name: (first, last)} of the sections `mstflint v` lists."""
    out = {}
    for m in re.finditer(r"/0x([0-9a-f]+)-0x([0-9a-f]+) \(0x[0-9a-f]+\)/ \((\w+)\)", v_out):
        if m.group(3) in names:
            out.setdefault(m.group(3), (int(m.group(1), 16), int(m.group(2), 16)))
    return out


def settings(q_out):
    """NAME VALUE lines of `mstconfig q` -> {NAME: VALUE}."""
    return dict(re.findall(r"^\s+([A-Z][A-Z0-9_x]+)\s+(\S+)\s*$", q_out, re.M))


@pytest.mark.parametrize("chip", CHIPS)
def test_running_card_query_verify_burn_read(cxsim, tmp_path, chip):
    fmt, pci, old_fw, new_fw = CHIPS[chip]
    psid, other = f"SIM_{chip.upper()}", f"OTHER_{chip.upper()}"
    old = image(tmp_path, chip, old_fw, psid, "old.bin")
    new = image(tmp_path, chip, new_fw, other, "new.bin")
    stem = cxsim.create("card", "--chip", chip, "--image", old)
    boot = cxsim.boot_check(stem)
    assert boot["fw_running"] and boot["pci_device"] == pci
    s = cxsim.serve(stem)
    assert s.read(0, "device") == pci and s.read(0, "class") == "0x028000"
    m = Meter(s, chip)
    f = fields(ok(m.flint("q", "q")).stdout)
    assert (f["Image type"], f["FW Version"], f["PSID"]) == (fmt, old_fw, psid)
    assert "FW Version(Running)" not in f
    v = ok(m.flint("v", "v")).stdout
    assert "FW image verification succeeded" in v
    dev = sections(v, {"MFG_INFO", "DEV_INFO"})
    assert set(dev) == {"MFG_INFO", "DEV_INFO"}, v
    before = stem.with_suffix(".flash").read_bytes()
    r = ok(m.flint("burn (other PSID)", "-i", new, "-allow_psid_change", "-y", "burn"))
    assert "Failed to update FW boot address" in r.stdout + r.stderr
    f = fields(ok(m.flint("q (after burn)", "q")).stdout)
    assert (f["FW Version"], f["FW Version(Running)"], f["PSID"], f["Orig PSID"]) == \
        (new_fw, old_fw, other, psid)
    ri = tmp_path / "ri.bin"
    ok(m.flint("ri", "ri", ri))
    k = s.card_stats()["counters"]
    assert s.stop() == 0
    print(f"{chip}: {json.dumps(counters(stem))}")
    # the firmware's way only: no gateway transaction, every ICMD command under its semaphore
    assert k["gw_cmds"] == 0 and k["icmd_reg_access"] > 0 and k["icmd_without_sem"] == 0
    assert k["fw_flash_cmds"] > 0 and k["erases"] >= 1
    # CX5: mstflint reads the efuse 0xf0c0c (speed bin) once per open, as in recovery mode
    assert unmodelled(s) == ({"0xf0c0c"} if chip == "cx5" else set())
    f = fields(ok(run(["mstflint", "-i", ri, "q"])).stdout)
    assert (f["FW Version"], f["PSID"]) == (new_fw, other)
    after = stem.with_suffix(".flash").read_bytes()
    for name, (first, last) in dev.items():
        assert after[first:last + 1] == before[first:last + 1], f"{name} changed"
    boot = cxsim.boot_check(stem)
    assert (boot["slot"], boot["start"], boot["fw_version"], boot["psid"]) == \
        (1, hex(SLOT1), new_fw, other)
    # after a power cycle the new firmware runs: MGIR agrees with the flash
    s = cxsim.serve(stem)
    f = fields(ok(Meter(s, chip).flint("q (power-cycled)", "q")).stdout)
    assert (f["FW Version"], f["PSID"]) == (new_fw, other) and "FW Version(Running)" not in f
    assert s.stop() == 0


def test_mstconfig_query_set_reset(cxsim, tmp_path):
    chip = "cx5"
    stem = cxsim.create("card", "--chip", chip, "--image",
                        image(tmp_path, chip, CHIPS[chip][2], "SIM_CX5", "fw.bin"))
    s = cxsim.serve(stem)
    m = Meter(s, "cx5 mstconfig")
    q = settings(ok(m.config("q", "q")).stdout)
    defaults = {"LINK_TYPE_P1": "IB(1)", "LINK_TYPE_P2": "IB(1)", "SRIOV_EN": "False(0)",
                "NUM_OF_VFS": "0", "EXP_ROM_PXE_ENABLE": "True(1)",
                "EXP_ROM_UEFI_x86_ENABLE": "True(1)", "LEGACY_BOOT_PROTOCOL": "PXE(1)"}
    assert {n: q.get(n) for n in defaults} == defaults, q
    ok(m.config("set", "-y", "set", "LINK_TYPE_P1=ETH", "SRIOV_EN=1", "NUM_OF_VFS=8"))
    assert s.stop() == 0
    k = counters(stem)
    assert k["nv_writes"] >= 1 and k["gw_cmds"] == 0
    assert stem.with_suffix(".nv").exists()
    # the store, decoded by boot-check with mstconfig's names
    vals = cxsim.boot_check(stem)["next_boot_settings"]["values"]
    assert (vals["LINK_TYPE_P1"], vals["SRIOV_EN"], vals["NUM_OF_VFS"]) == (2, 1, 8), vals
    s = cxsim.serve(stem)   # the store was saved and is read again
    m = Meter(s, "cx5 mstconfig")
    q = settings(ok(m.config("q (after set)", "q")).stdout)
    assert (q["LINK_TYPE_P1"], q["LINK_TYPE_P2"], q["SRIOV_EN"], q["NUM_OF_VFS"]) == \
        ("ETH(2)", "IB(1)", "True(1)", "8")
    ok(m.config("reset", "-y", "reset"))
    q = settings(ok(m.config("q (after reset)", "q")).stdout)
    assert {n: q.get(n) for n in defaults} == defaults, q
    assert s.stop() == 0


FAULTS = {
    # fault: what mstflint 4.21 says
    "busy": "Cannot open Device",
    "not-started": "MFE_CMDIF_NOT_READY",
    "sem-held": "Can not obtain Flash semaphore",
    "secure-fw": "MFE_REG_ACCESS_METHOD_NOT_SUPP",
    "write-protect": "MFE_VERIFY_ERROR",
    "gw-lock-held": "MFE_REG_ACCESS_DEV_BUSY",
}
FAULT_OPTS = {"write-protect": ["--write-protect", "on"], "gw-lock-held": ["--gw-lock-held", "on"]}


@pytest.mark.parametrize("fault", FAULTS)
def test_fault_stops_the_burn_and_nothing_is_written(cxsim, tmp_path, fault):
    chip = "cx4lx"
    _, _, old_fw, new_fw = CHIPS[chip]
    old = image(tmp_path, chip, old_fw, "SIM_CX4LX", "old.bin")
    new = image(tmp_path, chip, new_fw, "OTHER_CX4LX", "new.bin")
    stem = cxsim.create("card", "--chip", chip, "--image", old)
    opt = FAULT_OPTS.get(fault, ["--icmd", fault])
    ok(run([CXSIM, "fault", stem, *opt]))
    before = stem.with_suffix(".flash").read_bytes()
    s = cxsim.serve(stem)
    r = Meter(s, f"{chip} {fault}").flint("burn", "-i", new, "-allow_psid_change", "-y", "burn")
    failed(r, FAULTS[fault])
    if fault == "sem-held":
        # 4.21's -clear_semaphore opens ICMD first, which takes the same semaphore: it fails
        failed(Meter(s, f"{chip} {fault}").flint("-clear_semaphore", "-clear_semaphore"),
               "MFE_CR_ERROR")
    assert s.stop() == 0
    k = counters(stem)
    assert k["bytes_programmed"] == 0 and k["gw_cmds"] == 0
    assert stem.with_suffix(".flash").read_bytes() == before
    boot = cxsim.boot_check(stem)
    assert (boot["slot"], boot["fw_version"]) == (0, old_fw)


def test_recovery_strap_keeps_the_card_in_livefish(cxsim, tmp_path):
    """--recovery: the valid image does not run; the recovery ID and the direct gateway."""
    img = image(tmp_path, "cx4lx", CHIPS["cx4lx"][2], "SIM_CX4LX", "fw.bin")
    stem = cxsim.create("card", "--chip", "cx4lx", "--image", img, "--recovery")
    boot = cxsim.boot_check(stem)
    assert boot["would_boot"] and not boot["fw_running"] and boot["pci_device"] == "0x020b"
    s = cxsim.serve(stem)
    f = fields(ok(Meter(s, "cx4lx --recovery").flint("q", "q")).stdout)
    assert f["FW Version"] == CHIPS["cx4lx"][2]
    k = s.card_stats()["counters"]
    assert s.stop() == 0
    assert k["gw_cmds"] > 0 and k["icmd_cmds"] == 0


def test_gateway_lock_held_in_recovery_mode(cxsim, tmp_path):
    """The same held lock on a card in recovery mode: mstflint spins on 0xf0400 bit 31 itself."""
    img = image(tmp_path, "cx4lx", CHIPS["cx4lx"][2], "SIM_CX4LX", "fw.bin")
    stem = cxsim.create("card", "--chip", "cx4lx", "--image", img, "--recovery")
    ok(run([CXSIM, "fault", stem, "--gw-lock-held", "on"]))
    s = cxsim.serve(stem)
    failed(Meter(s, "cx4lx --recovery, lock held").flint("q", "q"), "Can not obtain Flash semaphore")
    k = s.card_stats()["counters"]
    assert s.stop() == 0
    assert k["gw_cmds"] == 0


def test_connectx4_running_query(cxsim, tmp_path):
    """A plain ConnectX-4 (0x1013) takes the FS3 path of the 4 Lx: q through MFBA."""
    img = image(tmp_path, "cx4", "12.28.2006", "SIM_CX4", "fw.bin")
    stem = cxsim.create("card", "--chip", "cx4", "--image", img)
    s = cxsim.serve(stem)
    assert s.read(0, "device") == "0x1013"
    f = fields(ok(Meter(s, "cx4").flint("q", "q")).stdout)
    assert (f["FW Version"], f["PSID"]) == ("12.28.2006", "SIM_CX4")
    k = s.card_stats()["counters"]
    assert s.stop() == 0
    assert k["gw_cmds"] == 0 and k["icmd_reg_access"] > 0


def test_running_card_without_vsec_is_not_reached(cxsim, tmp_path):
    """Debian's mstflint 4.21 reaches ICMD only through the VSEC: without one it sends the
    register accesses in-band, and that fails before anything touches the card's flash."""
    img = image(tmp_path, "cx4lx", CHIPS["cx4lx"][2], "SIM_CX4LX", "fw.bin")
    stem = cxsim.create("card", "--chip", "cx4lx", "--image", img, "--vsec", "none")
    s = cxsim.serve(stem)
    failed(Meter(s, "cx4lx --vsec none").flint("q", "q"), "MFE_MAD_SEND_ERR")
    k = s.card_stats()["counters"]
    assert s.stop() == 0
    assert k["gw_cmds"] == 0 and k["icmd_cmds"] == 0
