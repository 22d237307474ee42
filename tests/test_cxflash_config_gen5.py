# SPDX-License-Identifier: GPL-2.0-or-later
"""cxflash config on ConnectX-4 / 4 Lx / 5 cards whose firmware runs, against Debian's
mstconfig 4.21 on the same cxsim card (issue 32 item 4; hw-access.md §3.14).

cxsim's NV store and its NVDA/NVQC/NVIA answers (sim/core/nv_regs_cx4.c, nv_tlvs_cx4.c)
are written apart from cxflash's (burner/dev/nv_icmd.c, ops/nv_settings5.c); mstconfig
runs unmodified through scripts/mstflint-ns, and its values are the oracle. Checked, for
the seven settings cxflash offers on these chips (LINK_TYPE_P1/P2, SRIOV_EN, NUM_OF_VFS,
EXP_ROM_PXE_ENABLE, EXP_ROM_UEFI_x86_ENABLE, LEGACY_BOOT_PROTOCOL):

  * both tools show the same defaults, text for text;
  * cxflash sets every one away from its default, `mstconfig q` reads the same values and
    `cxsim boot-check` decodes them from the saved store;
  * mstconfig sets every one to a second value, `cxflash config q` (and --json) reads them;
  * `reset` by either tool empties the store (STEM.nv byte for byte the same after each)
    and both then show the same default table;
  * `--dry-run` and a bad value write nothing (the model's nv_write_cmds).
cxflash runs in model time (Server.cxflash); each mstconfig run costs ~10-25 s of FUSE.
A backup's settings.json and `restore --settings` on these cards are checked in process
(burner/tests/test_config_gen5.c): a backup of a running card reads its 16 MiB through
MFBA, which over FUSE took more than 300 s here."""
import json
import re
import shutil

import pytest

from conftest import run
from cxsim_helpers import MSTFLINT_NS, bdf, cxsim  # noqa: F401 (fixture)
from test_cxsim_icmd_cx4 import image

MSTCONFIG = shutil.which("mstconfig") or "/usr/bin/mstconfig"
EXIT_VALUE = 6                          # util/status.h CX_EVALUE, cxflash(1)
# name: (cxflash's value, as mstconfig shows it), (mstconfig's value, as shown)
SETTINGS = {
    "LINK_TYPE_P1": (("ETH", "ETH(2)"), ("IB", "IB(1)")),
    "LINK_TYPE_P2": (("2", "ETH(2)"), ("ETH", "ETH(2)")),
    "SRIOV_EN": (("True", "True(1)"), ("1", "True(1)")),
    "NUM_OF_VFS": (("8", "8"), ("31", "31")),
    "EXP_ROM_PXE_ENABLE": (("False", "False(0)"), ("0", "False(0)")),
    "EXP_ROM_UEFI_x86_ENABLE": (("0", "False(0)"), ("False", "False(0)")),
    "LEGACY_BOOT_PROTOCOL": (("ISCSI", "ISCSI(2)"), ("NONE", "NONE(0)")),
}
CHIPS = {"cx4lx": "14.32.1010", "cx5": "16.35.4030"}


def need_mstconfig():
    if not shutil.which(MSTCONFIG):
        pytest.skip(f"no {MSTCONFIG} (Debian package mstflint 4.21)")


def mstconfig(s, *args):
    r = run([MSTFLINT_NS, s.dir, "--", MSTCONFIG, "-d", bdf(0), *args], timeout=300)
    assert r.returncode == 0, f"mstconfig {args}: exit {r.returncode}\n{r.stdout}{r.stderr}"
    return r.stdout


def cxf(s, *args, code=0):
    r = s.cxflash("-d", bdf(0), *args)
    assert r.returncode == code, f"cxflash {args}: exit {r.returncode}\n{r.stdout}{r.stderr}"
    return r.stdout


def table(text):
    """NAME -> value text of the 'Next Boot' column, for our seven names (mstconfig shows
    more of these chips' settings; cxflash marks a value that is not the default with '*')."""
    rows = dict(re.findall(r"^\*?\s+([A-Z][A-Za-z0-9_]+)\s+(\S+)\s*$", text.split("Configurations:", 1)[-1], re.M))
    return {n: rows.get(n) for n in SETTINGS}


def nv_writes(s):
    return s.card_stats()["counters"]["nv_write_cmds"]


@pytest.mark.parametrize("chip", CHIPS)
def test_both_ways_and_reset(cxsim, tmp_path, chip):
    need_mstconfig()
    stem = cxsim.create("card", "--chip", chip, "--image",
                        image(tmp_path, chip, CHIPS[chip], f"SIM_{chip.upper()}", "fw.bin"))
    s = cxsim.serve(stem)
    defaults = table(mstconfig(s, "q"))
    assert None not in defaults.values(), defaults
    assert table(cxf(s, "config", "q")) == defaults

    # --dry-run and a bad value: the plan shown, nothing written
    out = cxf(s, "--dry-run", "config", "set", "LINK_TYPE_P1=ETH", "SRIOV_EN=1")
    assert "nothing was sent" in out
    r = s.cxflash("-d", bdf(0), "-y", "config", "set", "LINK_TYPE_P1=VPI")
    assert r.returncode == EXIT_VALUE and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert nv_writes(s) == 0

    # cxflash sets, mstconfig reads
    out = cxf(s, "-y", "config", "set", *[f"{n}={a[0]}" for n, (a, _) in SETTINGS.items()])
    assert "Applying... Done!" in out
    want = {n: a[1] for n, (a, _) in SETTINGS.items()}
    assert table(mstconfig(s, "q")) == want
    assert table(cxf(s, "config", "q")) == want
    assert s.stop() == 0
    values = cxsim.boot_check(stem)["next_boot_settings"]["values"]
    assert {n: values.get(n) for n in ("SRIOV_EN", "NUM_OF_VFS", "EXP_ROM_PXE_ENABLE", "LEGACY_BOOT_PROTOCOL")} == \
        {"SRIOV_EN": 1, "NUM_OF_VFS": 8, "EXP_ROM_PXE_ENABLE": 0, "LEGACY_BOOT_PROTOCOL": 2}, values

    # mstconfig resets: empty store, both tools show the defaults
    s = cxsim.serve(stem)
    mstconfig(s, "-y", "reset")
    assert table(cxf(s, "config", "q")) == defaults
    assert s.stop() == 0
    empty_by_mstconfig = stem.with_suffix(".nv").read_bytes()

    # mstconfig sets, cxflash reads (table and --json)
    s = cxsim.serve(stem)
    mstconfig(s, "-y", "set", *[f"{n}={b[0]}" for n, (_, b) in SETTINGS.items()])
    want = {n: b[1] for n, (_, b) in SETTINGS.items()}
    assert table(cxf(s, "config", "q")) == want
    js = json.loads(cxf(s, "--json", "config", "q"))["settings"]
    assert {n: (f"{v['text']}({v['value']})" if v["text"] else str(v["value"])) for n, v in js.items()} == want

    # cxflash resets: the same empty store as mstconfig's reset, the same default table
    out = cxf(s, "-y", "config", "reset")
    assert "Applying... Done!" in out
    assert table(mstconfig(s, "q")) == defaults
    assert table(cxf(s, "config", "q")) == defaults
    assert s.stop() == 0
    assert stem.with_suffix(".nv").read_bytes() == empty_by_mstconfig

