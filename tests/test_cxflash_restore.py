# SPDX-License-Identifier: GPL-2.0-or-later
"""`cxflash -d BDF restore BUNDLE` and `burn --identity-from BUNDLE` end to end over the
FUSE tree: backup -> burn -> restore gives back the original flash byte for byte (the
cxsim card file against the bundle's flash.bin), the card boots its old firmware with its
identity, mstflint agrees; a bundle of another card, or a damaged one, writes nothing;
a card whose flash was lost comes back with its bundle's identity (burn --nofs --identity-from).

COST: 1 MiB flashes (the smallest part); a backup reads the flash twice and a restore
reads it twice (before, and to verify) at ~20k config accesses/s through FUSE, so this
file takes a few minutes, so one bundle serves the restore, the refusal and the recovery burn. The ordering of a restore under power cuts, and every other
case, is tested in process (burner/tests/test_restore.c)."""
import hashlib
import json
import pathlib
import subprocess

from conftest import CXFLASH, cx
from cxsim_helpers import bdf, cxsim  # noqa: F401 (fixture)
from test_oracle import fields

SMALL = "--ddr 2 --ddr-size 0x1000"
PART = "W25Q80"
GUID, MAC = "0002c90300c0ffe0", "0002c9c0ffe0"
SLOW = 900  # seconds for one FUSE command that reads the whole flash several times


def slow(*args):
    return subprocess.run([str(CXFLASH), *map(str, args)], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=SLOW)


def counters(s, index=0):
    return s.card_stats(index)["counters"]


def make_bundle(s, tmp_path):
    r = slow("--sysfs", s.dir, "--json", "-d", bdf(0), "backup", tmp_path / "backups")
    assert r.returncode == 0, r.stderr
    return pathlib.Path(json.loads(r.stdout)["bundle"])


def test_backup_burn_restore(cxsim, images, tmp_path):
    img = images.make(f"--chip cx3 {SMALL} --fw 2.40.7000 --vsd original_vsd")
    mine = cxsim.create("mine", "--chip", "cx3", "--flash", PART, "--image", img, "--slot", "1",
                        "--guid", GUID, "--mac", MAC)
    other = cxsim.create("other", "--chip", "cx3", "--flash", PART, "--image", img,
                         "--guid", "0002c90300aaaa00", "--mac", "0002c9aaaa00")
    blank = cxsim.create("blank", "--chip", "cx3", "--flash", PART)  # a flash that lost everything
    s = cxsim.serve(mine, other, blank, wall_clock=True)  # block erases: cxflash's real sleeps count
    original = mine.with_suffix(".flash").read_bytes()
    bundle = make_bundle(s, tmp_path)
    assert (bundle / "flash.bin").read_bytes() == original

    new = images.make(f"--chip cx3 {SMALL} --fw 2.42.5000 --seed 4")
    r = slow("--sysfs", s.dir, "-d", bdf(0), "-i", new, "-y", "--no-backup", "burn")
    assert r.returncode == 0, r.stderr

    # Another card's bundle: refused with its code, one line, nothing erased or programmed.
    before = counters(s, 1)
    r = slow("--sysfs", s.dir, "-d", bdf(1), "-y", "--no-backup", "restore", bundle)
    assert r.returncode == 17 and "another card" in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1
    after = counters(s, 1)
    assert (after["erases"], after["bytes_programmed"]) == (before["erases"], before["bytes_programmed"])

    r = slow("--sysfs", s.dir, "--json", "-d", bdf(0), "-y", "--no-backup", "restore", bundle)
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert res["result"] == "restored" and res["identity_checked"] is True
    assert res["flash_sha256"] == hashlib.sha256(original).hexdigest()
    v = s.mstflint("-d", bdf(0), "v")
    assert v.returncode == 0, v.stdout
    q = fields(s.mstflint("-d", bdf(0), "q").stdout)
    assert q["FW Version"] == "2.40.7000" and q["GUIDs"].split()[0] == GUID

    # The unbrick path: the blank card (recovery ID) gets an image and the bundle's identity.
    assert s.read(2, "device") == "0x01f6"
    r = slow("--sysfs", s.dir, "-d", bdf(2), "-i", new, "-y", "--no-backup", "--nofs", "--identity-from",
             bundle, "burn")
    assert r.returncode == 0, r.stderr
    assert s.stop() == 0
    assert mine.with_suffix(".flash").read_bytes() == original
    b = cxsim.boot_check(mine)
    assert b["fw_version"] == "2.40.7000" and b["guids"]["node"] == GUID and b["macs"]["port1"] == MAC
    b = cxsim.boot_check(blank)
    assert b["fw_version"] == "2.42.5000" and b["guids"]["node"] == GUID and b["macs"]["port1"] == MAC
    assert b["vsd"] == "original_vsd"


def test_damaged_bundle_writes_nothing(cxsim, images, tmp_path):
    img = images.make(f"--chip cx3 {SMALL} --fw 2.40.7000")
    stem = cxsim.create("card", "--chip", "cx3", "--flash", PART, "--image", img, "--guid", GUID,
                        "--mac", MAC)
    s = cxsim.serve(stem)
    bundle = tmp_path / "fake"
    bundle.mkdir()
    (bundle / "flash.bin").write_bytes(stem.with_suffix(".flash").read_bytes())
    (bundle / "identity.json").write_text("{}")
    (bundle / "SHA256SUMS").write_text("0" * 64 + "  flash.bin\n")
    before = counters(s)
    r = cx("--sysfs", s.dir, "-d", bdf(0), "-y", "--no-backup", "restore", bundle)
    assert r.returncode == 4, r.stderr
    assert r.stderr.count("\n") == 1
    assert counters(s)["erases"] == before["erases"]
    r = cx("--sysfs", s.dir, "-d", bdf(0), "-y", "restore", tmp_path / "absent")
    assert r.returncode == 3, r.stderr
    assert s.stop() == 0
