# SPDX-License-Identifier: GPL-2.0-or-later
"""`cxflash rescue` from the command line: its parameters, and a whole session on a machine
with no card (an empty sysfs tree), answers from standard input. The flows on cards are in
burner/tests/test_wizard_*.c (in-process cards) and qemu-tests/test_wizard.py (the image)."""
import json
import os
import subprocess

import pytest

from conftest import CXFLASH_ASAN, SANITIZER_MARKS


def rescue(tmp_path, *params, answers="", data=None):
    """data: the CXR_DATA_* variables /init's data-area.sh hands over (default: a stick)."""
    sysfs = tmp_path / "sys"
    (sysfs / "devices").mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, CXR_DATA=str(tmp_path / "data"), CXR_DATA_KIND="stick", CXR_LOCK=str(tmp_path / "lock"),
               CXFLASH_FIRMWARE=str(tmp_path / "fw"), CXFLASH_SYSFS=str(sysfs))
    env.update(data or {})
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
    (["job=crossflash", "rom="], 6, "rom=: keep, image, none or a ROM file"),
    (["job=backup", "rom=none"], 2, "rom= goes with job=update or job=crossflash only"),
    (["rom=keep"], 2, "rom= goes with job=update or job=crossflash only"),
    (["job=inventory", "expect=0002c90300c0ffe0:MT_1090120019:2.42.5000:-"], 2, "expect= goes with job=verify only"),
    (["job=verify", "expect=0002c90300c0ffe0:MT_1090120019"], 6, "not GUID:PSID:FW:OLD"),
    (["job=verify", "expect=00:MT_1090120019:2.42.5000:-"], 6, "the GUID is not 16 hex digits"),
])
def test_bad_parameters_are_one_line_and_a_code(tmp_path, params, code, what):
    r = rescue(tmp_path, *params)
    assert r.returncode == code, r
    assert what in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert not (tmp_path / "data").exists(), "a refused start wrote to the data folder"


def test_no_card_then_power_off(tmp_path):
    r = rescue(tmp_path, answers="11\n")
    assert r.returncode == 0, r
    assert "0 cards found" in r.stdout and "Powering off." in r.stdout, r.stdout
    logs = list((tmp_path / "data" / "logs").glob("cxrescue-*.log"))
    assert len(logs) == 1 and "menu: Power off" in logs[0].read_text(), logs


def test_the_data_area_from_init_is_on_the_first_screen(tmp_path):
    """$CXR_DATA_DEV and $CXR_DATA_ID name the stick; $CXR_DATA_WP a write-protected one;
    $CXR_DATA_SEEN lists what /init saw when it found none (burner/rescue/data_area.h)."""
    r = rescue(tmp_path, data={"CXR_DATA_DEV": "/dev/sdb1", "CXR_DATA_ID": "0123456789abcdef"})
    assert "Backups and logs go to the cxrescue stick /dev/sdb1 (ID 0123456789abcdef): " in r.stdout, r.stdout
    r = rescue(tmp_path, data={"CXR_DATA_KIND": "ram", "CXR_DATA_WP": "/dev/sdb1"})
    assert "WARNING: the cxrescue stick /dev/sdb1 is WRITE-PROTECTED: backups and logs stay in RAM" in r.stdout
    seen = tmp_path / "data-seen"
    seen.write_text('/dev/sda1 vfat "ESP": not taken: FAT, but not labelled CXRESCUE (not ours: never mounted)\n')
    r = rescue(tmp_path, data={"CXR_DATA_KIND": "ram", "CXR_DATA_SEEN": str(seen)})
    assert "WARNING: no cxrescue stick was found: backups and logs stay in RAM" in r.stdout, r.stdout
    assert '    /dev/sda1 vfat "ESP": not taken: FAT, but not labelled CXRESCUE' in r.stdout, r.stdout


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


@pytest.mark.parametrize("params, code, what", [
    (["job=restore"], 2, "job=restore needs bundle=DIR"),
    (["job=restore", "bundle="], 2, "job=restore needs bundle=DIR"),
    (["job=restore", "yes=1", "after=exit"], 2, "job=restore needs bundle=DIR"),
    (["bundle=/srv/b"], 2, "bundle= goes with job=restore only"),
    (["job=backup", "bundle=/srv/b"], 2, "bundle= goes with job=restore only"),
    (["bundle=/srv/b", "job=update"], 2, "bundle= goes with job=restore only"),
    (["upload=maybe"], 6, "upload=maybe: required or optional"),
    (["upload="], 6, "upload=: required or optional"),
    (["job=backup", "upload=OPTIONAL"], 6, "upload=OPTIONAL: required or optional"),
    (["after=reboot"], 6, "after=reboot: menu or exit"),
    (["job=settings", "yes=1"], 2, "settings=NAME=VALUE,... goes with job=update, crossflash or settings"),
    (["job=settings", "settings="], 2, "settings=NAME=VALUE,... goes with"),
    (["job=backup", "settings=SRIOV_EN=1"], 2, "settings=NAME=VALUE,... goes with"),
    (["settings=SRIOV_EN=1"], 2, "settings=NAME=VALUE,... goes with"),
    (["job=inventory", "after=1"], 6, "after=1: menu or exit"),
])
def test_restore_upload_after_parameters_refused(tmp_path, params, code, what):
    """Checked before the wizard starts: one line, the code, nothing in the data folder."""
    r = rescue(tmp_path, *params)
    assert r.returncode == code, r
    assert what in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert "cxrescue" not in r.stdout, r.stdout  # the wizard's banner: it did not start
    assert not (tmp_path / "data").exists(), "a refused start wrote to the data folder"


def test_upload_and_after_menu_are_accepted(tmp_path):
    """upload=required|optional and after=menu are taken: the failed job leaves the menu up."""
    r = rescue(tmp_path, "job=inventory", "upload=optional", "after=menu", answers="11\n")
    assert r.returncode == 0, r
    assert "The job did not complete" in r.stdout and "Powering off." in r.stdout, r.stdout
    r = rescue(tmp_path, "job=inventory", "upload=required", answers="11\n")
    assert r.returncode == 0, r


def test_after_exit_ends_with_the_jobs_code(tmp_path):
    """after=exit: the job's outcome is the exit status, and the menu is never shown (its
    answer "11", power off, would have made it 0)."""
    r = rescue(tmp_path, "job=inventory", "after=exit", answers="11\n")
    assert r.returncode == 10, r
    assert "the inventory job did not complete" in r.stderr, r.stderr
    assert "Powering off." not in r.stdout and "Choose 1-" not in r.stdout, r.stdout
    reports = list((tmp_path / "data" / "reports").glob("*-inventory.json"))
    assert len(reports) == 1 and json.loads(reports[0].read_text())["result"] == "failed", reports


def test_restore_job_report_names_the_bundle(tmp_path):
    """A restore job whose bundle cannot be used writes nothing, fails, and its report says
    which bundle it was given (the top-level "bundle")."""
    bundle = tmp_path / "data" / "backups" / "missing-aa_bb.tar"
    r = rescue(tmp_path, "job=restore", f"bundle={bundle}", "yes=1", "after=exit", answers="11\n")
    assert r.returncode == 10, r
    assert "the restore job did not complete" in r.stderr, r.stderr
    reports = list((tmp_path / "data" / "reports").glob("*-restore.json"))
    assert len(reports) == 1, reports
    rep = json.loads(reports[0].read_text())
    assert rep["job"] == "restore" and rep["result"] == "failed" and rep["yes"] is True, rep
    assert rep["bundle"] == "missing-aa_bb.tar" and rep["cards"] == [], rep


@pytest.mark.parametrize("settings, code, what", [
    ("LINK_TYPE_P1=ETH,LINK_SPEED=40G", 23, "unknown setting LINK_SPEED"),
    ("LINK_TYPE_P1=ETHERNET", 6, "LINK_TYPE_P1=ETHERNET: not a value of LINK_TYPE_P1 (IB, ETH, VPI (or 1..3))"),
    ("SRIOV_EN=1,SRIOV_EN=0", 6, "SRIOV_EN is given two different values"),
    ("LINK_TYPE_P1", 2, "'LINK_TYPE_P1': a setting is NAME=VALUE"),
    (",", 2, "settings= is NAME=VALUE,..."),
])
def test_settings_job_refuses_bad_settings_with_a_report(tmp_path, settings, code, what):
    """A bad settings= is refused by the job before anything (here: no card at all), with its
    code and one line, and a failed report that names the settings asked."""
    r = rescue(tmp_path, "job=crossflash", "yes=1", f"settings={settings}", "after=exit", answers="10\n")
    assert r.returncode == code, r
    assert f"The job did not complete: settings=: {what}" in r.stdout and "; nothing written\n" in r.stdout, r.stdout
    assert "the crossflash job did not complete" in r.stderr and r.stderr.count("\n") == 1, r.stderr
    reports = list((tmp_path / "data" / "reports").glob("*-crossflash.json"))
    assert len(reports) == 1, reports
    rep = json.loads(reports[0].read_text())
    assert rep["result"] == "failed" and rep["settings"] == settings and rep["cards"] == [], rep


def test_settings_job_good_settings_without_a_card(tmp_path):
    """Good settings pass the check without a card; the job then fails only for want of one."""
    r = rescue(tmp_path, "job=settings", "yes=1", "settings=LINK_TYPE_P1=eth,SRIOV_EN=True,NUM_OF_VFS=0x10",
               "after=exit", answers="10\n")
    assert r.returncode == 10, r
    assert "no card matches" in r.stdout and "unknown setting" not in r.stdout, r.stdout
    rep = json.loads(next((tmp_path / "data" / "reports").glob("*-settings.json")).read_text())
    assert rep["job"] == "settings" and rep["result"] == "failed", rep


def test_restore_job_needs_yes(tmp_path):
    r = rescue(tmp_path, "job=restore", f"bundle={tmp_path / 'b'}", "after=exit", answers="11\n")
    assert r.returncode == 10, r
    assert "it needs cxrescue.yes=1" in r.stdout, r.stdout
    assert not (tmp_path / "data" / "reports").exists()
