# SPDX-License-Identifier: GPL-2.0-or-later
"""`cxflash rescue` from the command line: its parameters, and a whole session on a machine
with no card (an empty sysfs tree), answers from standard input. The flows on cards are in
burner/tests/test_wizard.c (in-process cards) and qemu-tests/test_wizard.py (the image)."""
import json
import os
import subprocess

import pytest

from conftest import CXFLASH_ASAN, SANITIZER_MARKS


def rescue(tmp_path, *params, answers=""):
    sysfs = tmp_path / "sys"
    (sysfs / "devices").mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, CXR_DATA=str(tmp_path / "data"), CXR_DATA_KIND="stick", CXR_LOCK=str(tmp_path / "lock"),
               CXFLASH_FIRMWARE=str(tmp_path / "fw"), CXFLASH_SYSFS=str(sysfs))
    r = subprocess.run([str(CXFLASH_ASAN), "--boards", "/dev/null", "rescue", *params], input=answers,
                       capture_output=True, text=True, env=env, timeout=120)
    for mark in SANITIZER_MARKS:
        assert mark not in r.stderr, r.stderr
    return r


@pytest.mark.parametrize("params, code, what", [
    (["job=foo"], 6, "unknown job 'foo'"),
    (["bogus"], 2, "key=value"),
    (["colour=red"], 2, "unknown rescue parameter"),
    (["card=zz:00"], 6, "not a PCI address"),
    (["card=0000:01:00.9"], 6, "not a PCI address"),
])
def test_bad_parameters_are_one_line_and_a_code(tmp_path, params, code, what):
    r = rescue(tmp_path, *params)
    assert r.returncode == code, r
    assert what in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert not (tmp_path / "data").exists(), "a refused start wrote to the data folder"


def test_no_card_then_power_off(tmp_path):
    r = rescue(tmp_path, answers="9\n")
    assert r.returncode == 0, r
    assert "0 cards found" in r.stdout and "Powering off." in r.stdout, r.stdout
    logs = list((tmp_path / "data" / "logs").glob("cxrescue-*.log"))
    assert len(logs) == 1 and "menu: Power off" in logs[0].read_text(), logs


def test_input_that_ends_is_exit_10(tmp_path):
    r = rescue(tmp_path, answers="")
    assert r.returncode == 10 and "input ended" in r.stderr, r


def test_unattended_job_with_no_card_fails_and_stays_up(tmp_path):
    """A job that finds none of its cards does not power off: the report says failed."""
    r = rescue(tmp_path, "job=inventory", answers="")
    assert r.returncode == 10, r
    assert "no card matches" in r.stdout and "The job did not complete" in r.stdout, r.stdout
    reports = list((tmp_path / "data" / "reports").glob("*-inventory.json"))
    assert len(reports) == 1, reports
    rep = json.loads(reports[0].read_text())
    assert rep["job"] == "inventory" and rep["result"] == "failed" and rep["cards"] == [], rep
