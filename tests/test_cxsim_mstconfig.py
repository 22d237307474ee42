# SPDX-License-Identifier: GPL-2.0-or-later
"""Unmodified mstconfig 4.21 (Debian's mstflint package) against the settings interface of
simulated ConnectX-3 and ConnectX-3 Pro cards (hw-access.md §8, sim/core/tools_hcr.c).

mstconfig talks to the running firmware's tools HCR through the fake sysfs tree of `cxsim
serve` (scripts/mstflint-ns; its sleeps are model time): every setting it supports on
these chips is set, read back by `mstconfig q`, and decoded from the card's saved store by
`cxsim boot-check`; `reset` empties the store; each fault of `cxsim fault --hcr` gives it
an error; a card without the CR mailbox works through MBOX_WRITE/MBOX_READ; a ConnectX-2
and a card in recovery mode are refused. So the model is checked against an independent
implementation of the protocol, value by value.

FUSE serves ~10-15k config accesses/s and one `mstconfig q` makes ~100k (its
QUERY_DEF_PARAMS and MBOX path write the whole 288-byte mailbox, 8 bytes a command), so
a query takes ~8 s (~16 s without the CR mailbox). Each test has its own card, tree and
lock folder, so the module runs under pytest-xdist like the others."""
import json
import re
import shutil

import pytest

from conftest import run
from cxsim_helpers import CXSIM, MSTFLINT_NS, bdf, cxsim  # noqa: F401 (fixture)

MSTCONFIG = shutil.which("mstconfig") or "/usr/bin/mstconfig"
SMALL = "--ddr 2 --ddr-size 0x1000"

# The defaults of the model's stock profile (sim/core/profile.c), as mstconfig shows them.
DEFAULTS = {
    "SRIOV_EN": 0, "NUM_OF_VFS": 8, "WOL_MAGIC_EN_P1": 0, "WOL_MAGIC_EN_P2": 0,
    "LINK_TYPE_P1": 3, "LINK_TYPE_P2": 3, "LOG_BAR_SIZE": 3, "BOOT_PKEY_P1": 0,
    "BOOT_PKEY_P2": 0, "BOOT_OPTION_ROM_EN_P1": 1, "BOOT_VLAN_EN_P1": 0, "BOOT_RETRY_CNT_P1": 0,
    "LEGACY_BOOT_PROTOCOL_P1": 1, "BOOT_VLAN_P1": 1, "BOOT_OPTION_ROM_EN_P2": 1,
    "BOOT_VLAN_EN_P2": 0, "BOOT_RETRY_CNT_P2": 0, "LEGACY_BOOT_PROTOCOL_P2": 1, "BOOT_VLAN_P2": 1,
    "IP_VER_P1": 0, "IP_VER_P2": 0, "PHY_PARAMETER_MODE": 0, "INT_CLOCK_TO_USER": 1,
    "CQ_TIMESTAMP": 1, "STEER_FORCE_VLAN": 0,
}

# Every setting mstconfig 4.21 shows on these cards (its own `q` names), each set away from
# its default: as mstconfig's value names or as numbers, both of which it takes.
SETTINGS = [
    ("SRIOV_EN", "True", 1), ("NUM_OF_VFS", "16", 16),
    ("WOL_MAGIC_EN_P1", "1", 1), ("WOL_MAGIC_EN_P2", "True", 1),
    ("LINK_TYPE_P1", "ETH", 2), ("LINK_TYPE_P2", "1", 1),
    ("LOG_BAR_SIZE", "4", 4),          # (16 + 1) VFs x 2^4 MiB stays under mstconfig's 512
    ("BOOT_PKEY_P1", "32769", 32769), ("BOOT_PKEY_P2", "5", 5),
    ("BOOT_OPTION_ROM_EN_P1", "False", 0), ("BOOT_VLAN_EN_P1", "True", 1),
    ("BOOT_RETRY_CNT_P1", "7", 7), ("LEGACY_BOOT_PROTOCOL_P1", "iSCSI", 2),
    ("BOOT_VLAN_P1", "100", 100),
    ("BOOT_OPTION_ROM_EN_P2", "0", 0), ("BOOT_VLAN_EN_P2", "1", 1),
    ("BOOT_RETRY_CNT_P2", "3", 3), ("LEGACY_BOOT_PROTOCOL_P2", "Both", 3),
    ("BOOT_VLAN_P2", "4094", 4094),
    ("IP_VER_P1", "IPv6", 1), ("IP_VER_P2", "2", 2),
    ("PHY_PARAMETER_MODE", "LEGACY", 1), ("INT_CLOCK_TO_USER", "False", 0),
    ("CQ_TIMESTAMP", "0", 0), ("STEER_FORCE_VLAN", "True", 1),
]

# What mstconfig says to each fault (mlxcfg_4th_gen_commander.cpp@4.25's messages).
FAULTS = {
    "not-started": "Cannot perform operation, Driver might be down.",
    "old-fw": "Unsupported FW (version 2.31.5000 or above required for CX3/PRO)",
    "go-stuck": "Unsupported FW (version 2.31.5000 or above required for CX3/PRO)",
    "sem-held": "Semaphore locked",
    "nv-corrupt": "Failed to query device current configuration",
}


@pytest.fixture(autouse=True)
def need_mstconfig():
    if not shutil.which(MSTCONFIG):
        pytest.skip(f"no {MSTCONFIG} (Debian package mstflint 4.21)")


def mstconfig(server, *args):
    return run([MSTFLINT_NS, server.dir, "--", MSTCONFIG, "-d", bdf(0), *args], timeout=300)


def ok(r):
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r


def query(server):
    """mstconfig q as {NAME: value} ("True(1)" -> 1, "8" -> 8, "N/A" -> None)."""
    r = ok(mstconfig(server, "q"))
    assert "Configurations:" in r.stdout and "Next Boot" in r.stdout, r.stdout
    values = {}
    body = r.stdout.split("Configurations:", 1)[1].splitlines()[1:]
    for line in body:
        m = re.match(r"\s+([A-Z0-9_]+)\s+(\S+)\s*$", line)
        if m:
            v = m.group(2)
            num = re.search(r"\((\d+)\)$", v)
            values[m.group(1)] = int(num.group(1)) if num else (None if v == "N/A" else int(v, 0))
    return values, r.stdout


def card(cxsim, images, chip="cx3", *opts, fw=None):
    img = images.make(f"--chip {chip} {SMALL}" + (f" --fw {fw}" if fw else ""))
    return cxsim.create(f"card-{chip}", "--chip", chip, "--image", img, *opts)


def stats(stem):
    return json.loads(stem.with_suffix(".stats").read_text())["cards"][0]


def next_boot(cxsim, stem):
    return cxsim.boot_check(stem)["next_boot_settings"]


@pytest.mark.parametrize("chip", ["cx3", "cx3pro"])
def test_every_setting_set_shown_decoded_and_reset(cxsim, images, chip):
    stem = card(cxsim, images, chip)
    s = cxsim.serve(stem)
    before, text = query(s)
    print(f"mstconfig q on a fresh {chip}:\n{text}")
    assert before == DEFAULTS
    r = ok(mstconfig(s, "-y", "set", *[f"{n}={v}" for n, v, _ in SETTINGS]))
    assert "Applying... Done!" in r.stdout, r.stdout
    after, _ = query(s)
    assert after == {n: want for n, _, want in SETTINGS}
    assert s.stop() == 0
    k = stats(stem)["counters"]
    assert k["tools_without_sem"] == 0
    assert k["nv_write_cmds"] == k["nv_writes"] == 13   # one MNVA SET per TLV mstconfig writes
    # A power-on later (boot-check loads the card): the store kept every value.
    nb = next_boot(cxsim, stem)
    assert nb["tlvs"] == 13
    for name, _, want in SETTINGS:
        assert nb["values"][name] == want, name
    s = cxsim.serve(stem)
    r = ok(mstconfig(s, "-y", "reset"))
    assert s.card_stats()["counters"]["nv_write_cmds"] == 1, r.stdout   # one MNVIA
    assert query(s)[0] == DEFAULTS
    assert s.stop() == 0
    assert next_boot(cxsim, stem) == {"tlvs": 0, "values": {}}


def test_query_writes_nothing_and_a_set_keeps_the_other_fields(cxsim, images):
    """mstconfig's read-modify-write: one field of a TLV changes, the others stay."""
    stem = card(cxsim, images)
    s = cxsim.serve(stem)
    ok(mstconfig(s, "-y", "set", "BOOT_VLAN_P1=42"))
    k = s.card_stats()["counters"]
    assert k["nv_write_cmds"] == 1 and k["tools_cmds"] > 0
    assert s.stop() == 0
    nb = next_boot(cxsim, stem)["values"]
    assert nb["BOOT_VLAN_P1"] == 42
    for f in ("BOOT_OPTION_ROM_EN_P1", "BOOT_VLAN_EN_P1", "BOOT_RETRY_CNT_P1",
              "LEGACY_BOOT_PROTOCOL_P1"):
        assert nb[f] == DEFAULTS[f], f


def test_without_the_cr_mailbox(cxsim, images):
    """The 0xbadb00f probe fails, so mstconfig moves every register 8 bytes at a time."""
    stem = card(cxsim, images, "cx3", "--no-cr-mbox")
    s = cxsim.serve(stem)
    ok(mstconfig(s, "-y", "set", "SRIOV_EN=1", "LINK_TYPE_P2=ETH"))
    after, _ = query(s)
    assert after["SRIOV_EN"] == 1 and after["LINK_TYPE_P2"] == 2
    assert after["LINK_TYPE_P1"] == DEFAULTS["LINK_TYPE_P1"]
    k = s.card_stats()["counters"]
    assert k["unmodelled"] >= 2                            # the probe's write and read
    reg = k["tools_by_opcode"]["ACCESS_REGISTER"]
    assert reg > 0 and k["tools_by_opcode"]["MBOX"] >= reg * 36   # a whole mailbox each
    assert s.stop() == 0
    nb = next_boot(cxsim, stem)["values"]
    assert nb["SRIOV_EN"] == 1 and nb["LINK_TYPE_P2"] == 2


def test_one_port_card_shows_port_one(cxsim, images):
    """Port 2's capability bits are off and its QUERY_DEF_PARAMS fails (status 3), so
    mstconfig hides port 2's settings; IP_VER_P2 hangs on the global boot_ip_ver bit and
    shows N/A (mstconfig's doing: its port-2 defaults failed)."""
    stem = card(cxsim, images, "cx3", "--ports", "1")
    s = cxsim.serve(stem)
    values, text = query(s)
    print(text)
    assert values["LINK_TYPE_P1"] == 3 and values["BOOT_VLAN_P1"] == 1
    assert not any(n.endswith("_P2") for n in values if n != "IP_VER_P2"), values
    assert values.get("IP_VER_P2", None) is None
    r = mstconfig(s, "-y", "set", "LINK_TYPE_P2=ETH")
    assert r.returncode != 0
    assert s.stop() == 0
    assert stats(stem)["counters"]["nv_write_cmds"] == 0


@pytest.mark.parametrize("fault", FAULTS)
def test_fault_gives_mstconfig_an_error(cxsim, images, fault):
    stem = card(cxsim, images)
    assert run([CXSIM, "fault", stem, "--hcr", fault]).returncode == 0
    s = cxsim.serve(stem)
    r = mstconfig(s, "q")
    print(f"{fault}: exit {r.returncode}: {r.stdout.strip()} {r.stderr.strip()}")
    assert r.returncode != 0
    assert FAULTS[fault] in r.stdout + r.stderr
    k = s.card_stats()["counters"]
    assert k["nv_write_cmds"] == 0
    if fault == "nv-corrupt":
        # The firmware still takes a reset, which does not cure it (mstflint issue 590).
        ok(mstconfig(s, "-y", "reset"))
        assert s.card_stats()["counters"]["nv_writes"] == 1
        assert mstconfig(s, "q").returncode != 0
    assert s.stop() == 0


def test_old_firmware_image(cxsim, images):
    """An image older than 2.31.5000 runs no tools HCR mstconfig can use (BAD_OP)."""
    stem = card(cxsim, images, "cx3", fw="2.31.4999")
    s = cxsim.serve(stem)
    r = mstconfig(s, "q")
    assert r.returncode != 0 and FAULTS["old-fw"] in r.stdout + r.stderr
    assert s.stop() == 0


def test_connectx2_and_recovery_mode_are_refused(cxsim, images):
    cx2 = card(cxsim, images, "cx2")
    blank = cxsim.create("blank-cx3", "--chip", "cx3", "--empty")
    for stem, why in ((cx2, "Failed to open the device"),
                      (blank, "Device in Livefish mode is not supported")):
        s = cxsim.serve(stem)
        r = mstconfig(s, "q")
        print(f"{stem.name}: exit {r.returncode}: {r.stdout.strip()} {r.stderr.strip()}")
        assert r.returncode != 0 and why in r.stdout + r.stderr
        assert s.card_stats()["counters"]["tools_cmds"] == 0
        assert s.stop() == 0
