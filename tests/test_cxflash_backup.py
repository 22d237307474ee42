# SPDX-License-Identifier: GPL-2.0-or-later
"""`cxflash -d BDF backup DIR` end to end, through the FUSE sysfs tree that cxsim serves.

COST: a backup reads the whole flash twice, and through FUSE every 16 bytes cost about 14
config-space accesses (a file read or write each). The smallest part in the table is 1 MiB
(W25Q80), so ONE backup here takes about two minutes (~130 s measured on a 2-CPU machine;
two cards backed up in parallel were slower, not faster). That is why exactly one card is
backed up over FUSE; the other cases (recovery mode, blank flash, reads that differ, a full
disk, damaged bundles, each chip family) run in process against the same card model in
burner/tests/test_backup.c, in a few seconds. The refusals below fail before the flash is
read and cost about a second each.

Checked with tools that share no code with cxflash: hashlib and sha256sum for the checksums,
Python's json for identity.json, `cxsim boot-check` for what the card boots, the card file
cxsim saved for the flash contents, and cxflash's `dc` on the original image for board.ini.
The card holds three settings records when it is backed up; the bundle's settings.json has
them, and after a change `restore --settings` puts them back as Debian's mstconfig 4.21 reads
them (test_cxflash_config.restore_settings: the one bundle serves both, as a second backup
would cost another two minutes)."""
import calendar
import hashlib
import json
import re
import subprocess
import time

from conftest import CXFLASH, cx, run
from cxsim_helpers import bdf, cxsim  # noqa: F401 (fixture)
from test_cxflash_config import restore_settings, table

SMALL = "--ddr 2 --ddr-size 0x1000"
PART = "W25Q80"                      # 1 MiB: the smallest flash in the parts table
FLASH_SIZE = 1 << 20
GUID, MAC, PSID = "0002c90300c0ffe0", "0002c9c0ffe0", "CX_0000000042"
SETTINGS = ("LINK_TYPE_P1=ETH", "SRIOV_EN=1", "NUM_OF_VFS=4", "BOOT_VLAN_P1=7")   # three records
BACKUP_TIMEOUT = 600                 # seconds; one backup over FUSE takes ~130 s
NAME = re.compile(r"^cx3-CX_0000000042-0002c90300c0ffe0-(\d{8}T\d{6}Z)$")


def make_card(cxsim, images):
    img = images.make(f"--chip cx3 {SMALL} --psid {PSID} --vsd rescued_by_cxflash --fw 2.42.5100")
    stem = cxsim.create("card", "--chip", "cx3", "--flash", PART, "--image", img, "--slot", "1",
                        "--guid", GUID, "--mac", MAC)
    return img, stem


def test_backup_one_card_over_fuse(cxsim, images, tmp_path):
    """The slow one (see COST above): one backup, checked file by file."""
    img, stem = make_card(cxsim, images)
    # The wall clock: cxflash's settings writes wait for real (test_cxflash_config.py).
    s = cxsim.serve(stem, wall_clock=True)
    r = cx("--sysfs", s.dir, "-d", bdf(0), "-y", "config", "set", *SETTINGS)
    assert r.returncode == 0, r.stdout + r.stderr
    saved = table(cx("--sysfs", s.dir, "-d", bdf(0), "config", "q").stdout)
    out = tmp_path / "backups"
    t0 = time.monotonic()
    r = subprocess.run([str(CXFLASH), "--sysfs", str(s.dir), "--json", "-d", bdf(0), "backup", str(out)],
                       capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=BACKUP_TIMEOUT)
    took = time.monotonic() - t0
    assert r.returncode == 0, r.stderr
    assert r.stderr == "", "progress lines only when standard error is a terminal"
    res = json.loads(r.stdout)
    assert set(res) == {"bundle", "flash_sha256", "size"}, res
    assert res["size"] == FLASH_SIZE

    # One folder in DIR, named by identity; no temporary folder left beside it.
    entries = [p.name for p in out.iterdir()]
    assert len(entries) == 1, entries
    bundle = out / entries[0]
    assert res["bundle"] == str(bundle)
    m = NAME.match(bundle.name)
    assert m, bundle.name
    assert sorted(p.name for p in bundle.iterdir()) == ["SHA256SUMS", "board.ini", "flash.bin",
                                                        "identity.json", "settings.json"]

    # flash.bin is the card's flash (the cxsim card file), and its checksum is the one reported.
    flash = (bundle / "flash.bin").read_bytes()
    assert len(flash) == FLASH_SIZE
    assert hashlib.sha256(flash).hexdigest() == res["flash_sha256"]
    assert flash == stem.with_suffix(".flash").read_bytes()

    # SHA256SUMS covers every other file, and coreutils agrees with it.
    listed = {}
    for line in (bundle / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split("  ")
        listed[name] = digest
    assert sorted(listed) == ["board.ini", "flash.bin", "identity.json", "settings.json"]
    for name, digest in listed.items():
        assert hashlib.sha256((bundle / name).read_bytes()).hexdigest() == digest, name
    c = run(["sha256sum", "-c", "--strict", "SHA256SUMS"], cwd=bundle)
    assert c.returncode == 0, c.stdout + c.stderr

    # identity.json says what the card boots (cxsim's own boot ROM model).
    ident = json.loads((bundle / "identity.json").read_text())
    boot = cxsim.boot_check(stem)
    assert ident["format"] == "cxflash-backup-1"
    assert ident["cxflash_version"] == cx("--version").stdout.split()[1]
    assert ident["bdf"] == bdf(0) and ident["recovery"] is False
    assert ident["family"] == "ConnectX-3" and ident["chip"] == "ConnectX-3 A1" and ident["revision"] == 1
    assert ident["pci_device"] == "1003" and ident["subsys_vendor"] == "15b3"
    assert ident["flash_size"] == FLASH_SIZE and ident["flash"].startswith("W25QxxBV, 1024 KiB")
    assert ident["flash_sha256"] == res["flash_sha256"]
    assert ident["image_start"] == int(boot["start"], 16) == 0x80000 and ident["image_slot"] == 1
    assert ident["image_verdict"] == "ok" and ident["image_error"] is None
    for k in ("fw_version", "psid", "vsd", "guid_entries", "guids", "macs"):
        assert ident[k] == boot[k], k
    assert ident["psid"] == PSID and ident["vsd"] == "rescued_by_cxflash"
    assert ident["guids"]["node"] == GUID and ident["macs"]["port1"] == MAC
    assert ident["rom"] == {"type": "PXE", "version": "3.4.752"}
    assert ident["board_ini"] == "board.ini"
    # The date is when it was taken, and the folder name carries it.
    assert ident["date"].replace("-", "").replace(":", "") == m.group(1)
    taken = calendar.timegm(time.strptime(ident["date"], "%Y-%m-%dT%H:%M:%SZ"))
    assert abs(taken - time.time()) < took + 60

    # board.ini is the .ini stored in the image.
    dc = cx("-i", img, "dc")
    assert dc.returncode == 0 and (bundle / "board.ini").read_text() == dc.stdout

    # The whole flash was read twice, nothing was written, every transaction under the semaphore.
    k = s.card_stats()["counters"]
    assert k["bytes_read"] >= 2 * FLASH_SIZE
    assert k["bytes_programmed"] == 0 and k["erases"] == 0 and k["gw_without_sem"] == 0

    # settings.json: the values cxflash read, and the three records stored; then the
    # bundle's settings go back onto the card, as mstconfig reads them.
    nv = json.loads((bundle / "settings.json").read_text())
    assert nv["available"] is True and nv["settings"]["LINK_TYPE_P1"]["value"] == 2
    assert sum(v is not None for v in nv["records"].values()) == 3, nv["records"]
    print(f"one 1 MiB backup over FUSE: {took:.0f} s")
    restore_settings(cxsim, s, stem, str(bundle), saved)


def test_backup_refusals(cxsim, images, tmp_path):
    """Wrong command lines and unusable folders are refused before the flash is read."""
    img, stem = make_card(cxsim, images)
    s = cxsim.serve(stem)

    def backup(*args):
        return cx("--sysfs", s.dir, *args)

    # -i is refused (a file needs no backup), -d is needed, DIR is needed.
    r = backup("-d", bdf(0), "-i", img, "backup", tmp_path / "b")
    assert r.returncode == 2 and "-d BDF" in r.stderr and r.stderr.count("\n") == 1, r.stderr
    r = backup("-i", img, "backup", tmp_path / "b")
    assert r.returncode == 2 and "-d BDF" in r.stderr, r.stderr
    assert backup("backup", tmp_path / "b").returncode == 2
    assert backup("-d", bdf(0), "backup").returncode == 2
    assert not (tmp_path / "b").exists()

    # DIR is a file; DIR's parent does not exist: exit 3, one line, nothing read.
    (tmp_path / "file").write_text("x")
    r = backup("-d", bdf(0), "backup", tmp_path / "file")
    assert r.returncode == 3 and "not a folder" in r.stderr and r.stderr.count("\n") == 1, r.stderr
    r = backup("-d", bdf(0), "--json", "backup", tmp_path / "no" / "such")
    # --json: the failure is one object on stdout (issue 17), the line on stderr stays.
    assert r.returncode == 3 and "cannot create" in r.stderr, r.stderr
    fail = json.loads(r.stdout)
    assert fail == {"error": fail["error"], "code": fail["code"], "exit_code": 3, "card_state": "untouched"}, fail
    assert "cannot create" in fail["error"], fail
    assert s.card_stats()["counters"]["bytes_read"] == 0

    # No such card.
    r = backup("-d", "07:00.0", "backup", tmp_path / "b")
    assert r.returncode == 11 and "no ConnectX" in r.stderr
    assert not (tmp_path / "b").exists()
    assert s.stop() == 0
