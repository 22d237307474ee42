# SPDX-License-Identifier: GPL-2.0-or-later
"""`cxflash -d BDF sg` and `sv` end to end over the FUSE tree: the new GUIDs/MACs or VSD
are what the card's boot ROM model finds after a power cycle (`cxsim boot-check`) and what
unmodified mstflint reads (`mstflint -d BDF q`), and everything else stays as it was.

Images are tiny (3 KiB: sg/sv read the image, and the re-burn reads, writes and verifies it,
each through FUSE at ~10,000 config accesses a second) and --no-backup is used to keep FUSE
time down (a backup reads the whole
flash twice: minutes over FUSE, see test_cxflash_backup.py); that the backup runs before the
first write, and stops it when it fails, is tested in process (burner/tests/test_setid_card.c)
and here by a backup folder that cannot be made. The power-cut campaigns for sg and sv are in
burner/tests/test_powercut.c."""
import json

from conftest import cx
from cxsim_helpers import bdf, cxsim  # noqa: F401 (fixture)
from test_oracle import fields

SMALL = "--ddr 1 --ddr-size 0x400 --no-rom"
GUID, MAC = "0002c90300c0ffe0", "0002c9c0ffe0"
NEW_GUID, NEW_MAC = "0002c90300abc120", "0002c9abc120"


def card(cxsim, images, chip="cx3", slot=0, vsd="OLD VSD", blank=False):
    """A card whose image is in slot `slot`; blank: GUIDs (and CRCs) left blank, as made."""
    img = images.make(f"--chip {chip} {SMALL} --fw 2.40.7000" + (" --blank-guids" if blank else ""))
    ident = [] if blank else ["--guid", GUID, "--mac", MAC, "--vsd", vsd]
    return cxsim.create(f"card-{chip}", "--chip", chip, "--image", img, "--slot", str(slot), *ident)


def on_card(s, *args):
    return cx("--sysfs", s.dir, "-d", bdf(0), *args)


def counters(s):
    c = s.card_stats()["counters"]
    return c["erases"], c["bytes_programmed"]


def plus(hexval, k, width):
    return f"{int(hexval, 16) + k:0{width}x}"


def test_sg_reburns_failsafe_and_mstflint_agrees(cxsim, images):
    stem = card(cxsim, images, "cx3", slot=0)
    before = cxsim.boot_check(stem)
    s = cxsim.serve(stem)
    r = on_card(s, "-y", "--no-backup", "sg", "--guid", NEW_GUID, "--mac", NEW_MAC)
    assert r.returncode == 0, r.stderr
    assert "GUIDs are already set, re-burning" in r.stdout
    assert f"Node  GUID:     {NEW_GUID}        {GUID}" in r.stdout  # the change table, as on a file
    assert "failsafe re-burn" in r.stdout and "Power the machine OFF" in r.stdout
    assert "--no-backup: writing WITHOUT a backup" in r.stderr
    assert s.mstflint("-d", bdf(0), "v").returncode == 0
    q = fields(s.mstflint("-d", bdf(0), "q").stdout)
    assert q["GUIDs"].split() == [plus(NEW_GUID, k, 16) for k in range(4)], q
    assert q["MACs"].split() == [NEW_MAC, plus(NEW_MAC, 1, 12)], q
    assert q["VSD"] == "OLD VSD" and q["FW Version"] == "2.40.7000"
    assert s.stop() == 0
    b = cxsim.boot_check(stem)
    assert b["slot"] == 1 and b["valid_images"] == 1
    assert b["guids"] == {"node": NEW_GUID, "port1": plus(NEW_GUID, 1, 16), "port2": plus(NEW_GUID, 2, 16),
                          "sys_image": plus(NEW_GUID, 3, 16)}
    assert b["macs"] == {"port1": NEW_MAC, "port2": plus(NEW_MAC, 1, 12)}
    for k in ("fw_version", "psid", "vsd", "dev_type", "pci_device"):
        assert b[k] == before[k], k


def test_sv_reburns_failsafe_from_slot_1_json(cxsim, images):
    stem = card(cxsim, images, "cx3pro", slot=1)
    before = cxsim.boot_check(stem)
    s = cxsim.serve(stem)
    r = on_card(s, "--no-backup", "--json", "sv", "--vsd", "NEW VSD from cxflash")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["result"] == "updated" and j["updated"] == "VSD" and j["method"] == "failsafe-reburn"
    assert j["start"] == 0 and j["backup"] is None and j["bytes_programmed"] > 0
    q = fields(s.mstflint("-d", bdf(0), "q").stdout)
    assert q["VSD"] == "NEW VSD from cxflash", q
    assert q["GUIDs"].split()[0] == GUID and q["MACs"].split()[0] == MAC
    assert s.stop() == 0
    b = cxsim.boot_check(stem)
    assert b["slot"] == 0 and b["vsd"] == "NEW VSD from cxflash"
    for k in ("fw_version", "psid", "guids", "macs", "dev_type"):
        assert b[k] == before[k], k


def test_sg_on_blank_guids_programs_in_place(cxsim, images):
    stem = card(cxsim, images, "cx3", slot=0, blank=True)
    assert cxsim.boot_check(stem)["guids"]["node"] == "f" * 16
    s = cxsim.serve(stem)
    erases, programmed = counters(s)
    r = on_card(s, "-y", "--no-backup", "--in-place", "sg", "--guid", NEW_GUID, "--mac", NEW_MAC)
    assert r.returncode == 0, r.stderr
    assert "GUIDs are already set" not in r.stdout and "in place" in r.stdout
    now_erases, now_programmed = counters(s)
    assert now_erases == erases                          # no erase at all
    assert 0 < now_programmed - programmed <= 512        # the GUID section and the CRC
    q = fields(s.mstflint("-d", bdf(0), "q").stdout)
    assert q["GUIDs"].split()[0] == NEW_GUID and q["MACs"].split()[1] == plus(NEW_MAC, 1, 12), q
    assert s.stop() == 0
    b = cxsim.boot_check(stem)
    assert b["slot"] == 0 and b["guids"]["port2"] == plus(NEW_GUID, 2, 16) and b["macs"]["port1"] == NEW_MAC


def test_refusals_write_nothing(cxsim, images, tmp_path):
    livefish = cxsim.create("livefish", "--chip", "cx3", "--empty")
    stem = card(cxsim, images)
    s = cxsim.serve(stem, livefish)
    before = counters(s)
    # A card in recovery mode: no identity to change; burn is the way.
    for cmd in (["sg", "--guid", NEW_GUID, "--mac", NEW_MAC], ["sv", "--vsd", "x"]):
        r = cx("--sysfs", s.dir, "-d", bdf(1), "-y", "--no-backup", *cmd)
        assert r.returncode == 8 and "recovery" in r.stderr and "burn" in r.stderr, r.stderr
    # Not answered (no -y, nothing on standard input): declined.
    r = on_card(s, "--no-backup", "sg", "--guid", NEW_GUID, "--mac", NEW_MAC)
    assert r.returncode == 10 and "Do you want to continue" in r.stdout, r.stdout + r.stderr
    # A file and a card at once: which one?
    r = on_card(s, "-i", images.make(f"--chip cx3 {SMALL}"), "sv", "--vsd", "x")
    assert r.returncode == 2 and "not both" in r.stderr
    # The backup comes first: a folder that cannot be made stops the write.
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    r = on_card(s, "-y", "--backup-dir", str(blocker / "backups"), "sv", "--vsd", "x")
    assert r.returncode == 3, r.stderr
    # A VSD that does not fit, an invalid MAC.
    assert on_card(s, "sv", "--vsd", "V" * 209).returncode == 6
    assert on_card(s, "-y", "sg", "--mac", "0102c9000001").returncode == 6
    assert counters(s) == before
    assert s.stop() == 0
    assert cxsim.boot_check(stem)["vsd"] == "OLD VSD"
