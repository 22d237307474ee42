# SPDX-License-Identifier: GPL-2.0-or-later
"""cxflash config against Debian's mstconfig 4.21, both on the same cxsim card (issue 20).

The card's settings interface is cxsim's model (sim/core/tools_*.c, reg_access.c), written
apart from cxflash's (burner/dev/tools_hcr.c, nv_reg.c); mstconfig runs unmodified through
scripts/mstflint-ns. Checked, on a ConnectX-3 and a ConnectX-3 Pro that offer every setting
mstconfig 4.21 has for them (31: the profile's support bits all on, the VPI force mode too):

  * cxflash sets each one away from its default (in two commands, so that every record
    with two fields or more is read-modify-written over what cxflash stored before), and
    `mstconfig q` and `cxsim boot-check` (the model's saved store) show every value;
  * mstconfig sets each one to a second value, and `cxflash config q` (the table, text
    for text) and `--json` show every value;
  * `mstconfig reset` and `cxflash config reset` leave the same store (STEM.nv, byte for
    byte: empty) and both tools then show the same default table;
  * `restore --settings` puts a bundle's settings back, as mstconfig reads them (in
    test_cxflash_backup.py, on the bundle of its one slow backup: restore_settings below);
  * each fault of `cxsim fault --hcr` gives both tools an error, ours one line naming the
    cause with its exit code, and nothing is written (a store the firmware finds corrupt
    still takes a reset from both); without the CR mailbox both work;
  * bad input is refused in one line with its exit code, and the model counts no command
    that writes (most of it no tools command at all).

COST: one `mstconfig q` or `set` makes ~100k config accesses through FUSE (~10-25 s on a
loaded 2-core machine); cxflash's whole read takes ~1 s. So mstconfig runs as few times as
the comparison allows (every setting at once), and the bad input shares one served rig.
The cards are served on the wall clock: cxflash sleeps for real between its polls (it is
static, the sleep shim cannot reach it), and the model's MNVA SET takes 5 ms. This test
first caught cxflash sending each settings dword byte-reversed (dev/nv_reg.h)."""
import json
import re
import shutil

import pytest

from conftest import CXFLASH, MKFS2, SANITIZER_MARKS, run
from cxsim_helpers import (CXSIM, MSTFLINT_NS, Rig, bdf, cxsim, device_test_blocker,  # noqa: F401
                           missing_binaries)

MSTCONFIG = shutil.which("mstconfig") or "/usr/bin/mstconfig"
SUPP_ALL = "tools_supp=0x3ff"      # STEM.conf key: every QUERY_DEF_PARAMS support bit (sim/core/cxsim.h)

# The 31 settings mstconfig 4.21 shows on a ConnectX-3 / 3 Pro that offers them all, in its
# order, each with two values away from the stock defaults (sim/core/profile.c): the first
# cxflash sets, the second mstconfig sets. Names and numbers in any base, as both take them.
# The SR-IOV rows keep mstconfig's BAR rule: (16 + 1) x 2^4 and (31 + 1) x 2^2 MB <= 512.
SETTINGS = [
    ("SRIOV_EN", ("1", 1), ("True", 1)),
    ("NUM_OF_VFS", ("16", 16), ("31", 31)),
    ("WOL_MAGIC_EN_P1", ("True", 1), ("1", 1)),
    ("WOL_MAGIC_EN_P2", ("1", 1), ("True", 1)),
    ("LINK_TYPE_P1", ("ETH", 2), ("IB", 1)),
    ("PHY_TYPE_P1", ("SGMII", 3), ("XAUI", 1)),
    ("XFI_MODE_P1", ("_40G", 2), ("_20G", 1)),
    ("FORCE_MODE_P1", ("1", 1), ("True", 1)),
    ("LINK_TYPE_P2", ("ib", 1), ("2", 2)),
    ("PHY_TYPE_P2", ("XAUI", 1), ("SGMII", 3)),
    ("XFI_MODE_P2", ("1", 1), ("_40G", 2)),
    ("FORCE_MODE_P2", ("True", 1), ("1", 1)),
    ("LOG_BAR_SIZE", ("4", 4), ("2", 2)),
    ("BOOT_PKEY_P1", ("32769", 32769), ("7", 7)),
    ("BOOT_PKEY_P2", ("0x8001", 32769), ("65535", 65535)),
    ("BOOT_OPTION_ROM_EN_P1", ("False", 0), ("0", 0)),
    ("BOOT_VLAN_EN_P1", ("1", 1), ("True", 1)),
    ("BOOT_RETRY_CNT_P1", ("3", 3), ("7", 7)),
    ("LEGACY_BOOT_PROTOCOL_P1", ("iSCSI", 2), ("None", 0)),
    ("BOOT_VLAN_P1", ("100", 100), ("4095", 4095)),
    ("BOOT_OPTION_ROM_EN_P2", ("0", 0), ("False", 0)),
    ("BOOT_VLAN_EN_P2", ("True", 1), ("1", 1)),
    ("BOOT_RETRY_CNT_P2", ("7", 7), ("1", 1)),
    ("LEGACY_BOOT_PROTOCOL_P2", ("Both", 3), ("iSCSI", 2)),
    ("BOOT_VLAN_P2", ("4094", 4094), ("2", 2)),
    ("IP_VER_P1", ("IPv6", 1), ("IPv4_IPv6", 2)),
    ("IP_VER_P2", ("IPv6_IPv4", 3), ("1", 1)),
    ("PHY_PARAMETER_MODE", ("ADVANCED", 2), ("LEGACY", 1)),
    ("INT_CLOCK_TO_USER", ("False", 0), ("0", 0)),
    ("CQ_TIMESTAMP", ("0", 0), ("False", 0)),
    ("STEER_FORCE_VLAN", ("True", 1), ("1", 1)),
]
NAMES = [n for n, _, _ in SETTINGS]

# What mstconfig (mlxcfg_4th_gen_commander.cpp@4.21 messages) and cxflash say to each fault,
# and cxflash's exit code (cxflash(1), EXIT STATUS).
FAULTS = {
    "not-started": ("Driver might be down", 21, "firmware is not started (tools interface status 4)"),
    "old-fw": ("Unsupported FW", 8, "does not know the settings commands (status 2)"),
    "nv-corrupt": ("Failed to query device current configuration", 22, "settings store is corrupt"),
    "sem-held": ("Semaphore locked", 13, "semaphore 0xf03bc is held"),
    # mstconfig runs first and leaves the go bit set: cxflash finds it so before it sends.
    "go-stuck": ("Unsupported FW", 22, "go bit"),
}


@pytest.fixture(autouse=True)
def need_mstconfig():
    if not shutil.which(MSTCONFIG):
        pytest.skip(f"no {MSTCONFIG} (Debian package mstflint 4.21)")


def mstconfig(s, index, *args, ok=True):
    r = run([MSTFLINT_NS, s.dir, "--", MSTCONFIG, "-d", bdf(index), *args], timeout=300)
    if ok:
        assert r.returncode == 0, f"mstconfig {args}: exit {r.returncode}\n{r.stdout}{r.stderr}"
    return r


def cxf(s, index, *args):
    r = run([CXFLASH, "--sysfs", s.dir, "-d", bdf(index), *args], timeout=300)
    for mark in SANITIZER_MARKS:
        assert mark not in r.stderr, r.stderr
    return r


def table(text):
    """NAME -> value text as the 'Next Boot' column prints it (cxflash marks a value that
    is not the default with '*', mstconfig 4.21 does not)."""
    return dict(re.findall(r"^\*?\s+([A-Z0-9_]+)\s+(\S+)\s*$", text.split("Configurations:", 1)[-1], re.M))


def number(text):
    m = re.search(r"\((\d+)\)$", text)
    return int(m.group(1) if m else text, 0)


def make_card(rig, images_dir, name, chip="cx3", *opts, fw="2.42.5000", supp=True, part=None):
    img = images_dir / f"{name}.bin"
    argv = [MKFS2, "-o", img, "--chip", chip, "--ddr", "2", "--ddr-size", "0x1000"]
    if fw:
        argv += ["--fw", fw]
    assert run(argv).returncode == 0
    stem = rig.create(name, "--chip", chip, "--image", img, *(["--flash", part] if part else []), *opts)
    if supp:
        with open(f"{stem}.conf", "a") as f:
            f.write(SUPP_ALL + "\n")
    return stem


def writes(s, index=0):
    k = s.card_stats(index)["counters"]
    return k["nv_write_cmds"], k["nv_writes"]


@pytest.mark.parametrize("chip", ["cx3", "cx3pro"])
def test_every_setting_both_ways_and_reset(cxsim, tmp_path, chip):
    stem = make_card(cxsim, tmp_path, "card", chip)
    s = cxsim.serve(stem, wall_clock=True)

    # cxflash writes every setting (half, then the other half: read-modify-write over its own
    # records), mstconfig reads them.
    for half in (SETTINGS[0::2], SETTINGS[1::2]):
        r = cxf(s, 0, "-y", "config", "set", *[f"{n}={a[0]}" for n, a, _ in half])
        assert r.returncode == 0 and "Applying... Done!" in r.stdout, r.stdout + r.stderr
    ours = table(cxf(s, 0, "config", "q").stdout)
    theirs = table(mstconfig(s, 0, "q").stdout)
    wrong = {n: theirs.get(n) for n, a, _ in SETTINGS if theirs.get(n) is None or number(theirs[n]) != a[1]}
    assert not wrong and list(theirs) == NAMES, f"mstconfig reads after cxflash set: {wrong}"
    assert ours == theirs
    assert s.stop() == 0
    nb = cxsim.boot_check(stem)["next_boot_settings"]["values"]
    assert {n: nb.get(n) for n in NAMES} == {n: a[1] for n, a, _ in SETTINGS}

    # mstconfig resets (one MNVIA); the store is empty.
    s = cxsim.serve(stem, wall_clock=True)
    mstconfig(s, 0, "-y", "reset")
    assert writes(s) == (1, 1)
    assert s.stop() == 0
    assert cxsim.boot_check(stem)["next_boot_settings"] == {"tlvs": 0, "values": {}}
    empty_by_mstconfig = stem.with_suffix(".nv").read_bytes()

    # mstconfig writes every setting, cxflash reads them (table and --json).
    s = cxsim.serve(stem, wall_clock=True)
    mstconfig(s, 0, "-y", "set", *[f"{n}={b[0]}" for n, _, b in SETTINGS])
    r = cxf(s, 0, "config", "q")
    assert r.returncode == 0, r.stderr
    got = table(r.stdout)
    wrong = {n: got.get(n) for n, _, b in SETTINGS if got.get(n) is None or number(got[n]) != b[1]}
    assert not wrong and list(got) == NAMES, f"cxflash reads after mstconfig set: {wrong}"
    js = json.loads(cxf(s, 0, "--json", "config", "q").stdout)["settings"]
    assert {n: v["value"] for n, v in js.items()} == {n: b[1] for n, _, b in SETTINGS}
    assert all(v["text"] is None or got[n] == f"{v['text']}({v['value']})" for n, v in js.items())

    # cxflash resets: one MNVIA, and both tools show the same default table.
    before = writes(s)
    r = cxf(s, 0, "-y", "config", "reset")
    assert r.returncode == 0 and "Applying... Done!" in r.stdout, r.stdout + r.stderr
    assert writes(s) == (before[0] + 1, before[1] + 1)
    ours = table(cxf(s, 0, "config", "q").stdout)
    theirs = table(mstconfig(s, 0, "q").stdout)
    assert ours == theirs and list(theirs) == NAMES
    js = json.loads(cxf(s, 0, "--json", "config", "q").stdout)["settings"]
    assert all(v["value"] == v["default"] for v in js.values())
    assert s.stop() == 0
    assert cxsim.boot_check(stem)["next_boot_settings"] == {"tlvs": 0, "values": {}}
    assert stem.with_suffix(".nv").read_bytes() == empty_by_mstconfig


def test_dry_run_and_nothing_to_do_write_nothing(cxsim, tmp_path):
    """--dry-run shows old -> new and sends nothing that writes; a value the card already
    has is not written again."""
    stem = make_card(cxsim, tmp_path, "card")
    s = cxsim.serve(stem, wall_clock=True)
    r = cxf(s, 0, "--dry-run", "config", "set", "LINK_TYPE_P1=ETH", "SRIOV_EN=1")
    assert r.returncode == 0 and "--dry-run: nothing was sent" in r.stdout, r.stdout + r.stderr
    assert re.search(r"LINK_TYPE_P1\s+VPI\(3\)\s+ETH\(2\)", r.stdout), r.stdout
    r = cxf(s, 0, "-y", "--json", "config", "set", "LINK_TYPE_P1=VPI")
    assert r.returncode == 0 and json.loads(r.stdout)["result"] == "nothing-to-do", r.stdout
    # Without -y and without a terminal to ask: declined (exit 10), nothing sent.
    r = cxf(s, 0, "config", "set", "LINK_TYPE_P1=ETH")
    assert r.returncode == 10 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert writes(s) == (0, 0)
    assert s.stop() == 0


def test_without_the_cr_mailbox_both_work(cxsim, tmp_path):
    """The 0xbadb00f probe fails: both tools move each register 8 bytes at a time."""
    stem = make_card(cxsim, tmp_path, "card", "cx3", "--no-cr-mbox")
    s = cxsim.serve(stem, wall_clock=True)
    r = cxf(s, 0, "-y", "config", "set", "LINK_TYPE_P2=ETH", "BOOT_VLAN_P1=42", "SRIOV_EN=1")
    assert r.returncode == 0, r.stdout + r.stderr
    k = s.card_stats()["counters"]
    ops = k["tools_by_opcode"]
    assert k["unmodelled"] >= 2 and ops["MBOX"] >= 36 * ops["ACCESS_REGISTER"] > 0   # a whole mailbox each
    assert writes(s) == (3, 3)
    theirs = table(mstconfig(s, 0, "q").stdout)
    assert (theirs["LINK_TYPE_P2"], theirs["BOOT_VLAN_P1"], theirs["SRIOV_EN"]) == ("ETH(2)", "42", "True(1)")
    assert theirs["LINK_TYPE_P1"] == "VPI(3)" and theirs["BOOT_OPTION_ROM_EN_P1"] == "True(1)"
    mstconfig(s, 0, "-y", "set", "LINK_TYPE_P1=IB")
    ours = table(cxf(s, 0, "config", "q").stdout)
    assert ours == {**theirs, "LINK_TYPE_P1": "IB(1)"}, ours
    assert s.stop() == 0


def test_each_fault_gives_both_tools_an_error(cxsim, tmp_path):
    """One server, one card per fault (cxsim fault --hcr)."""
    stems = []
    for f in FAULTS:
        stems.append(make_card(cxsim, tmp_path, f, supp=False))
        assert run([CXSIM, "fault", stems[-1], "--hcr", f]).returncode == 0
    s = cxsim.serve(*stems, wall_clock=True)
    for i, (f, (theirs, code, cause)) in enumerate(FAULTS.items()):
        r = mstconfig(s, i, "q", ok=False)
        assert r.returncode != 0 and theirs in r.stdout + r.stderr, (f, r.stdout, r.stderr)
        # go-stuck waits the whole bound (2000 polls, ~16 s) each time: once is enough.
        tries = [("config", "q"), ("-y", "config", "set", "LINK_TYPE_P1=ETH")]
        for args in tries[:1] if f == "go-stuck" else tries:
            r = cxf(s, i, *args)
            lines = r.stderr.strip().splitlines()
            assert r.returncode == code and len(lines) == 1 and cause in lines[0], (f, args, r.stderr)
            assert "Applying" not in r.stdout, (f, r.stdout)
        assert writes(s, i) == (0, 0), f
    # A store the firmware finds corrupt still takes a reset from both (the model keeps the
    # fault, as real cards did: mstflint issue 590); cxflash then says it still reads corrupt.
    i = list(FAULTS).index("nv-corrupt")
    mstconfig(s, i, "-y", "reset")
    assert writes(s, i) == (1, 1)
    r = cxf(s, i, "-y", "config", "reset")
    assert "Applying... Done!" in r.stdout and r.returncode == 22, r.stdout + r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "corrupt" in r.stderr, r.stderr
    assert "after 1 settings write(s): its next boot may have changed" in r.stderr, r.stderr
    assert writes(s, i) == (2, 2)
    assert s.stop() == 0


def bad_input_cases():
    """(card index, args, exit code, words of the one line). Cards of the rig below."""
    s = ("-y", "config", "set")
    return [
        (0, (*s, "FOO=1"), 23, "unknown setting FOO"),
        (0, ("config", "q", "ROCE_NEXT_PROTOCOL"), 23, "unknown setting"),
        (0, (*s, "LINK_TYPE_P1=FOO"), 6, "not a value of LINK_TYPE_P1"),
        (0, (*s, "LINK_TYPE_P1=4"), 6, "out of range"),
        (0, (*s, "BOOT_RETRY_CNT_P1=8"), 6, "out of range"),
        (0, (*s, "BOOT_VLAN_P1=4096"), 6, "out of range"),
        (0, (*s, "SRIOV_EN=-1"), 6, "not a value"),
        (0, (*s, "LINK_TYPE_P1=ETH", "LINK_TYPE_P1=IB"), 6, "two different values"),
        (0, (*s, "SRIOV_EN=1", "NUM_OF_VFS=128"), 6, "at most 127 VFs"),
        (0, (*s, "LOG_BAR_SIZE=6"), 6, "out of range"),
        (0, (*s, "SRIOV_EN=1", "NUM_OF_VFS=64"), 6, "over 512 MB"),
        (0, (*s, "SRIOV_EN=1", "NUM_OF_VFS=16", "LOG_BAR_SIZE=5"), 6, "over 512 MB"),
        (0, (*s, "LINK_TYPE_P1"), 2, "NAME=VALUE"),
        (0, ("-y", "config", "wipe"), 2, "the verbs are"),
        (1, (*s, "LINK_TYPE_P2=ETH"), 23, "one port"),
        (1, (*s, "BOOT_VLAN_P2=5"), 23, "one port"),
        (2, (*s, "LINK_TYPE_P1=ETH"), 8, "ConnectX-2 has no settings store"),
        (2, ("config", "q"), 8, "ConnectX-2 has no settings store"),
        (3, (*s, "LINK_TYPE_P1=ETH"), 8, "older than 2.31.5000"),
        (4, (*s, "LINK_TYPE_P1=ETH"), 8, "flash-recovery mode"),
        (5, (*s, "SRIOV_EN=1", "NUM_OF_VFS=9"), 6, "at most 8 VFs"),
        (5, (*s, "PHY_TYPE_P1=XFI"), 23, "does not offer it"),
    ]


@pytest.fixture(scope="module")
def bad_input_rig(tmp_path_factory):
    """One server for every bad-input case: a two-port cx3, a one-port cx3, a ConnectX-2,
    a cx3 with firmware 2.31.4999, a cx3 in recovery mode, a cx3 with 8 VFs at most and
    the stock support bits (no VPI force mode)."""
    missing = missing_binaries()
    if missing:
        pytest.fail(f"{', '.join(missing)} missing: build with 'make cxsim'")
    reason = device_test_blocker()
    if reason:
        pytest.skip(f"cxsim device tests: {reason}")
    folder = tmp_path_factory.mktemp("bad-input")
    rig = Rig(folder)
    stems = [make_card(rig, folder, "two"), make_card(rig, folder, "one", "cx3", "--ports", "1"),
             make_card(rig, folder, "cx2", "cx2", fw=None, supp=False),
             make_card(rig, folder, "old", "cx3", fw="2.31.4999"),
             rig.create("blank", "--chip", "cx3", "--empty"),
             make_card(rig, folder, "few", "cx3", "--max-vfs", "8", supp=False)]
    s = rig.serve(*stems, wall_clock=True)
    yield s
    rig.close()


@pytest.mark.parametrize("index,args,code,words", bad_input_cases(),
                         ids=[" ".join(c[1][-2:]) + f"@{c[0]}" for c in bad_input_cases()])
def test_bad_input_one_line_and_nothing_written(bad_input_rig, index, args, code, words):
    s = bad_input_rig
    before = s.card_stats(index)["counters"]
    r = cxf(s, index, *args)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == code and len(lines) == 1 and words in lines[0], (r.returncode, r.stderr)
    assert r.stdout == "", r.stdout
    after = s.card_stats(index)["counters"]
    assert (after["nv_write_cmds"], after["nv_writes"]) == (before["nv_write_cmds"], before["nv_writes"])
    if index in (2, 3, 4):      # refused from what the card is, before any tools command
        assert after["tools_cmds"] == before["tools_cmds"]



def restore_settings(cxsim, s, stem, bundle, saved):
    """The settings of a `cxflash backup` bundle back: s serves stem on the wall clock,
    bundle was taken with `saved` (cxflash's table) stored in LINK_TYPE_P1's, SRIOV's and
    BOOT_VLAN_P1's records. The settings change (a record the bundle did not hold, WOL of
    port 2, too: forgotten first with MNVIA), `restore --settings` puts them back, and
    mstconfig reads exactly the saved table. Stops s."""
    assert cxf(s, 0, "-y", "config", "set", "LINK_TYPE_P1=IB", "SRIOV_EN=0", "WOL_MAGIC_EN_P2=1",
               "IP_VER_P1=IPv6").returncode == 0
    before = writes(s)
    r = cxf(s, 0, "--dry-run", "restore", "--settings", bundle)
    assert r.returncode == 0 and writes(s) == before, r.stdout + r.stderr
    for name, old, new in (("LINK_TYPE_P1", "IB(1)", "ETH(2)"), ("WOL_MAGIC_EN_P2", "True(1)", "False(0)")):
        assert re.search(rf"{name}\s+{re.escape(old)}\s+{re.escape(new)}", r.stdout), r.stdout
    r = cxf(s, 0, "-y", "restore", "--settings", bundle)
    assert r.returncode == 0 and "Applying... Done!" in r.stdout, r.stdout + r.stderr
    assert writes(s) == (before[0] + 4, before[1] + 4)       # one MNVIA, the bundle's three records
    assert table(mstconfig(s, 0, "q").stdout) == saved
    assert s.stop() == 0
    nb = cxsim.boot_check(stem)["next_boot_settings"]
    assert nb["tlvs"] == 3 and nb["values"]["LINK_TYPE_P1"] == 2 and nb["values"]["NUM_OF_VFS"] == 4


def test_one_port_card_shows_mstconfigs_table(bad_input_rig):
    """A one-port card: the port-1 rows, as mstconfig shows them. mstconfig adds one row
    cxflash leaves out on purpose: IP_VER_P2 as N/A (its gate is a global bit, while the
    port's defaults failed), a setting the card cannot take: mstconfig's set of it fails
    at the firmware, cxflash refuses it before sending (test_bad_input above)."""
    s = bad_input_rig
    theirs = table(mstconfig(s, 1, "q").stdout)
    assert theirs.pop("IP_VER_P2") == "N/A"
    ours = table(cxf(s, 1, "config", "q").stdout)
    assert ours == theirs and not any(n.endswith("_P2") for n in ours), (ours, theirs)
    assert list(ours) == [n for n in NAMES if not n.endswith("_P2")]
