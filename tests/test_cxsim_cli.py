# SPDX-License-Identifier: GPL-2.0-or-later
"""cxsim's command line without FUSE: create (install, patch, damage), boot-check, fault.

What `create --image` installs is read back with cxflash (`--striped_image extract`) and
checked against mstflint and against an independent patch of the image in Python."""
import json

import pytest

from conftest import CXFLASH, mstflint, run
from cxsim_helpers import CXSIM, missing_binaries, patch_identity
from test_oracle import fields

SMALL = "--ddr 2 --ddr-size 0x1000"


@pytest.fixture(autouse=True)
def binaries():
    missing = missing_binaries()
    if missing:
        pytest.fail(f"{', '.join(missing)} missing: build with 'make cxsim'")


def cxsim(*args):
    return run([CXSIM, *args])


def boot(stem):
    r = cxsim("boot-check", stem, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def conf(stem):
    """STEM.conf's key=value lines."""
    lines = stem.with_suffix(".conf").read_text().splitlines()
    return dict(l.split("=", 1) for l in lines if "=" in l and not l.startswith("#"))


def extract(stem, out):
    r = run([CXFLASH, "-i", stem.with_suffix(".flash"), "--striped_image", "extract", out])
    assert r.returncode == 0, r.stderr
    return out.read_bytes()


@pytest.mark.parametrize("chip,devid", [("cx2", "0x673c"), ("cx3", "0x1003"),
                                        ("cx3pro", "0x1007")])
@pytest.mark.parametrize("slot", [0, 1])
def test_image_boots_from_its_slot(images, tmp_path, chip, devid, slot):
    img = images.make(f"--chip {chip} {SMALL} --fw 2.9.1200")
    stem = tmp_path / "card"
    r = cxsim("create", stem, "--chip", chip, "--image", img, "--slot", str(slot))
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.splitlines()) == 1 and f"boots slot {slot}" in r.stdout
    b = boot(stem)
    assert b["booted"] and b["slot"] == slot and b["start"] == hex(slot * 0x80000)
    assert b["fw_version"] == "2.9.1200" and b["pci_device"] == devid
    assert extract(stem, tmp_path / "x.bin") == img.read_bytes()
    text = cxsim("boot-check", stem).stdout
    assert f"slot {slot}" in text and "2.9.1200" in text and devid[2:] in text


def test_non_failsafe_image_goes_to_address_zero(images, tmp_path):
    img = images.make(f"--chip cx3 {SMALL} --no-failsafe")
    stem = tmp_path / "card"
    assert cxsim("create", stem, "--image", img).returncode == 0
    assert stem.with_suffix(".flash").read_bytes()[:img.stat().st_size] == img.read_bytes()
    assert boot(stem)["failsafe"] is False
    r = cxsim("create", tmp_path / "other", "--image", img, "--slot", "1")
    assert r.returncode == 1 and "slot 0" in r.stderr


def test_identity_patch_matches_an_independent_patch(images, tmp_path):
    img, m = images.make(f"--chip cx3pro {SMALL}", with_map=True)
    stem = tmp_path / "card"
    guid, mac = 0x0002c9030badc0d0, 0x0002c9bad0d0
    r = cxsim("create", stem, "--chip", "cx3pro", "--image", img, "--slot", "1",
              "--guid", f"{guid:016x}", "--mac", f"{mac:012x}")
    assert r.returncode == 0, r.stderr
    assert extract(stem, tmp_path / "x.bin") == patch_identity(img, m, guid, mac)


def test_psid_and_vsd_patch_verify_under_mstflint(images, tmp_path):
    img = images.make(f"--chip cx3 {SMALL}")
    stem = tmp_path / "card"
    r = cxsim("create", stem, "--image", img, "--psid", "HP_1380110017", "--vsd", "sim vsd",
              "--guid", "0x0002c903000000a0", "--mac", "00:02:c9:00:00:a0")
    assert r.returncode == 0, r.stderr
    x = tmp_path / "x.bin"
    extract(stem, x)
    v = mstflint("-i", x, "v")
    assert v.returncode == 0, v.stdout
    f = fields(mstflint("-i", x, "q").stdout)
    assert f["PSID"] == "HP_1380110017" and f["VSD"] == "sim vsd"
    assert f["GUIDs"].split()[0] == "0002c903000000a0"
    assert f["MACs"].split() == ["0002c90000a0", "0002c90000a1"]
    b = boot(stem)
    assert b["psid"] == "HP_1380110017" and b["vsd"] == "sim vsd"


def test_mac_on_a_four_guid_image_is_refused(images, tmp_path):
    img = images.make(f"--chip cx2 {SMALL} --old-guids")
    r = cxsim("create", tmp_path / "card", "--chip", "cx2", "--image", img, "--mac", "0002c9000001")
    assert r.returncode == 1 and "MAC" in r.stderr
    assert not (tmp_path / "card.flash").exists()


@pytest.mark.parametrize("chip,recovery", [("cx3", "0x01f6"), ("cx3pro", "0x01f8"),
                                           ("cx2", "0x0191")])
def test_empty_and_corrupt_cards_are_in_recovery(images, tmp_path, chip, recovery):
    img = images.make(f"--chip {chip} {SMALL}")
    for how in (["--empty"], ["--image", str(img), "--corrupt"]):
        stem = tmp_path / f"card{len(how)}"
        r = cxsim("create", stem, "--chip", chip, *how)
        assert r.returncode == 0, r.stderr
        assert "recovery mode" in r.stdout
        b = boot(stem)
        assert not b["booted"] and b["pci_device"] == recovery and b["class"] == "0x050000"
        assert b["recovery_reason"]
        assert "recovery mode: " in cxsim("boot-check", stem).stdout
    assert stem.with_suffix(".flash").stat().st_size == 2 << 20


def test_fault_sets_and_clears_parameters(tmp_path):
    stem = tmp_path / "card"
    assert cxsim("create", stem, "--empty", "--chip", "cx3", "--flash", "W25Q16").returncode == 0
    r = cxsim("fault", stem, "--power-cut-after", "123", "--stuck-busy", "on",
              "--sem-held", "both")
    assert r.returncode == 0, r.stderr
    c = conf(stem)
    assert int(c["power_cut_after"], 0) == 123
    assert all(int(c[k], 0) == 1 for k in ("stuck_busy", "sem_held_gpio", "sem_held_flashprog"))
    r = cxsim("fault", "--sem-held", "gpio", stem, "--stuck-busy", "off", "--power-cut-after", "0")
    assert r.returncode == 0, r.stderr
    c = conf(stem)
    assert int(c["sem_held_gpio"], 0) == 1 and int(c["sem_held_flashprog"], 0) == 0
    assert int(c["stuck_busy"], 0) == 0 and int(c["power_cut_after"], 0) == 0


def test_fault_write_protect_is_saved(tmp_path):
    stem = tmp_path / "card"
    assert cxsim("create", stem, "--empty").returncode == 0
    assert cxsim("fault", stem, "--write-protect", "on").returncode == 0
    assert int(conf(stem)["write_protect"], 0) == 1
    assert cxsim("fault", stem, "--write-protect", "off").returncode == 0
    assert int(conf(stem)["write_protect"], 0) == 0


def test_create_parameters_reach_the_card(tmp_path):
    stem = tmp_path / "card"
    r = cxsim("create", stem, "--chip", "cx3pro", "--pci-device", "0x1007", "--rev", "0",
              "--subsys", "103c:1234", "--seed", "7", "--wo-window", "--empty")
    assert r.returncode == 0, r.stderr
    c = conf(stem)
    assert c["chip"] == "cx3pro" and int(c["subsys_vendor"], 0) == 0x103c
    assert int(c["subsys_device"], 0) == 0x1234 and int(c["seed"], 0) == 7
    assert int(c["wo_addr_window"], 0) == 1


def test_vsec_option_and_fault_are_saved(tmp_path):
    plain, vsec = tmp_path / "plain", tmp_path / "vsec"
    assert cxsim("create", plain, "--empty").returncode == 0
    assert not any("vsec" in k for k in conf(plain))   # cards without one keep their old .conf
    r = cxsim("create", vsec, "--empty", "--vsec", "cr_space,icmd_ext,semaphore")
    assert r.returncode == 0, r.stderr
    assert int(conf(vsec)["vsec_spaces"], 0) == 0x406
    r = cxsim("fault", vsec, "--vsec-sem-held", "on")
    assert r.returncode == 0 and "sem_held_vsec=on" in r.stdout, r.stderr
    assert int(conf(vsec)["sem_held_vsec"], 0) == 1
    assert cxsim("fault", vsec, "--vsec-sem-held", "off").returncode == 0
    assert "sem_held_vsec" not in conf(vsec)
    for words in ("full", "crspace-only", "2"):
        assert cxsim("create", tmp_path / words, "--empty", "--vsec", words).returncode == 0
    assert int(conf(tmp_path / "crspace-only")["vsec_spaces"], 0) == 0x4
    r = cxsim("create", "--help")
    assert r.returncode == 0 and "--vsec SPACES" in r.stdout and "--vsec-sem-held" in r.stdout


def test_settings_profile_and_fault_are_saved(tmp_path):
    """The settings interface's profile (hw-access.md §8) in STEM.conf: only what differs
    from the chip's defaults, so a stock card keeps the .conf it had before."""
    plain, shaped = tmp_path / "plain", tmp_path / "shaped"
    assert cxsim("create", plain, "--empty").returncode == 0
    assert not any(k.startswith("tools_") or k in ("no_cr_mbox", "hcr_fault") for k in conf(plain))
    r = cxsim("create", shaped, "--chip", "cx3pro", "--empty", "--ports", "1", "--max-vfs", "4",
              "--bar-size", "2", "--max-bar-size", "7", "--caps", "sriov,vpi_p1,vpi_p2", "--no-cr-mbox")
    assert r.returncode == 0, r.stderr
    c = conf(shaped)
    assert int(c["tools_ports"], 0) == 1 and int(c["tools_max_vfs"], 0) == 4
    assert int(c["tools_bar_size"], 0) == 2 and int(c["tools_max_bar_size"], 0) == 7
    assert int(c["tools_caps"], 0) == 0x09              # one port: VPI_P2 dropped
    assert int(c["tools_def_num_vfs"], 0) == 4          # the default 8 is above the maximum
    assert int(c["no_cr_mbox"], 0) == 1
    r = cxsim("fault", shaped, "--hcr", "nv-corrupt")
    assert r.returncode == 0 and "hcr=nv-corrupt" in r.stdout, r.stderr
    assert conf(shaped)["hcr_fault"] == "nv-corrupt"
    assert conf(shaped)["tools_ports"] == c["tools_ports"]   # a fault keeps the profile
    assert cxsim("fault", shaped, "--hcr", "none").returncode == 0
    assert "hcr_fault" not in conf(shaped)


def test_boot_check_decodes_the_settings_store(images, tmp_path):
    img = images.make(f"--chip cx3 {SMALL}")
    stem = tmp_path / "card"
    assert cxsim("create", stem, "--image", img).returncode == 0
    assert not stem.with_suffix(".nv").exists()
    assert "no stored settings" in cxsim("boot-check", stem).stdout
    assert boot(stem)["next_boot_settings"] == {"tlvs": 0, "values": {}}
    # What an MNVA SET of SRIOV (0x11) and port 2's VPI (0x12) leaves, in the store's format.
    stem.with_suffix(".nv").write_text("# by hand\n0x0011:0 0 0x80000010\n0x12:2 0 0x2\n")
    b = boot(stem)["next_boot_settings"]
    assert b["tlvs"] == 2
    assert b["values"]["SRIOV_EN"] == 1 and b["values"]["NUM_OF_VFS"] == 16
    assert b["values"]["LINK_TYPE_P2"] == 2
    text = cxsim("boot-check", stem).stdout
    assert "SRIOV_EN" in text and "True(1)" in text and "ETH(2)" in text
    stem.with_suffix(".nv").write_text("0x0011:0 zero\n")
    r = cxsim("boot-check", stem)
    assert r.returncode == 1 and "line 1" in r.stderr and len(r.stderr.splitlines()) == 1
    # A ConnectX-2 has no settings: boot-check says nothing about them.
    cx2 = tmp_path / "cx2"
    assert cxsim("create", cx2, "--chip", "cx2", "--empty").returncode == 0
    assert "next boot" not in cxsim("boot-check", cx2).stdout


@pytest.mark.parametrize("argv", [
    [], ["bogus"], ["create"], ["create", "x", "--chip", "cx9"], ["create", "x", "--corrupt"],
    ["create", "x", "--empty", "--image", "y.bin"], ["create", "x", "--guid", "zz"],
    ["create", "x", "--slot", "1"], ["create", "x", "--seed"], ["create", "x", "--seed", "+7"],
    ["create", "x", "--seed", ""], ["create", "x", "--ports", "-1"], ["boot-check"],
    ["boot-check", "x", "--yaml"], ["fault"], ["fault", "x", "--stuck-busy", "maybe"],
    ["fault", "x", "--sem-held", "all"], ["serve"], ["serve", "dir"], ["serve", "d", "x", "--ro"],
    ["create", "x", "--vsec", "icmd_exd"], ["create", "x", "--vsec"], ["create", "x", "--vsec", "32"],
    ["fault", "x", "--vsec-sem-held", "maybe"], ["serve", "d", "x", "--log"],
    ["create", "x", "--ports", "3"], ["create", "x", "--ports", "0"], ["create", "x", "--max-vfs", "255"],
    ["create", "x", "--bar-size", "0"], ["create", "x", "--max-bar-size", "64"],
    ["create", "x", "--bar-size", "6"], ["create", "x", "--caps", "sriov,wifi"],
    ["create", "x", "--chip", "cx2", "--ports", "1"], ["create", "x", "--chip", "cx2", "--no-cr-mbox"],
    ["fault", "x", "--hcr", "broken"], ["fault", "x", "--hcr"],
])
def test_usage_errors_exit_2(tmp_path, argv):
    r = run([CXSIM, *argv], cwd=tmp_path)
    assert r.returncode == 2, (argv, r.stdout, r.stderr)
    assert r.stderr and not list(tmp_path.iterdir())


def test_missing_card_or_image_exit_1(tmp_path):
    for argv in (["boot-check", tmp_path / "none"], ["fault", tmp_path / "none", "--stuck-busy", "on"],
                 ["create", tmp_path / "c", "--image", tmp_path / "none.bin"],
                 ["create", tmp_path / "c", "--flash", "NOSUCHPART"]):
        r = cxsim(*argv)
        assert r.returncode == 1, (argv, r.stderr)
        assert r.stderr.startswith("cxsim: ") and len(r.stderr.splitlines()) == 1


def test_help():
    r = cxsim("--help")
    assert r.returncode == 0
    for cmd in ("create", "boot-check", "fault", "serve"):
        assert cmd in r.stdout
