# SPDX-License-Identifier: GPL-2.0-or-later
"""`cxflash -d BDF -i IMAGE burn` end to end over the FUSE tree, checked by the card's
boot ROM model (cxsim boot-check after a power cycle) and by unmodified mstflint.
Images are small and --no-backup is used to keep FUSE time down; backups before a burn
are covered in process (burner/tests/test_burn.c, test_backup.c) and by
test_cxflash_backup.py."""
import json

import pytest

from conftest import cx
from cxsim_helpers import bdf, cxsim  # noqa: F401 (fixture)
from test_oracle import fields

SMALL = "--ddr 2 --ddr-size 0x1000"
GUID, MAC = "0002c90300c0ffe0", "0002c9c0ffe0"


def card(cxsim, images, chip="cx3", fw="2.40.7000", psid=None, extra=()):
    img = images.make(f"--chip {chip} {SMALL} --fw {fw}" + (f" --psid {psid}" if psid else ""))
    return cxsim.create(f"card-{chip}", "--chip", chip, "--image", img, "--guid", GUID, "--mac", MAC,
                        *extra)


def burn(s, img, *args):
    return cx("--sysfs", s.dir, "-d", bdf(0), "-i", img, "-y", "--no-backup", *args, "burn")


def counters(s):
    return s.card_stats()["counters"]


@pytest.mark.parametrize("chip", ["cx3", "cx3pro"])
def test_burn_keeps_identity_and_mstflint_agrees(cxsim, images, chip):
    stem = card(cxsim, images, chip)
    s = cxsim.serve(stem)
    new = images.make(f"--chip {chip} {SMALL} --fw 2.42.5000 --seed 4")
    r = burn(s, new)
    assert r.returncode == 0, r.stderr
    assert "Power the machine OFF" in r.stdout
    v = s.mstflint("-d", bdf(0), "v")
    assert v.returncode == 0, v.stdout
    q = fields(s.mstflint("-d", bdf(0), "q").stdout)
    assert q["FW Version"] == "2.42.5000" and q["GUIDs"].split()[0] == GUID
    assert q["MACs"].split()[0] == MAC
    assert s.stop() == 0
    b = cxsim.boot_check(stem)
    assert b["fw_version"] == "2.42.5000" and b["slot"] == 1 and b["valid_images"] == 1
    assert b["guids"]["node"] == GUID and b["macs"]["port2"] == "0002c9c0ffe1"


def test_same_image_again_writes_nothing(cxsim, images):
    s = cxsim.serve(card(cxsim, images))
    new = images.make(f"--chip cx3 {SMALL} --fw 2.42.5000 --seed 4")
    assert burn(s, new).returncode == 0
    before = counters(s)
    r = burn(s, new)
    assert r.returncode == 0 and "nothing written" in r.stdout, r.stdout + r.stderr
    after = counters(s)
    assert after["erases"] == before["erases"]
    assert after["bytes_programmed"] == before["bytes_programmed"]
    assert s.stop() == 0


@pytest.mark.parametrize("opts,code,word", [
    ("--chip cx3pro", 17, "ConnectX-3 Pro"),
    ("--chip cx3 --rev 0", 17, "revision"),
    ("--chip cx3 --psid MT_1090110019", 17, "PSID"),
])
def test_refusals_write_nothing(cxsim, images, opts, code, word):
    s = cxsim.serve(card(cxsim, images))
    before = counters(s)
    img = images.make(f"{opts} {SMALL} --fw 2.42.5000")
    r = burn(s, img)
    assert r.returncode == code and word in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1
    after = counters(s)
    assert after["erases"] == before["erases"] and after["bytes_programmed"] == before["bytes_programmed"]
    assert s.stop() == 0


def test_psid_cross_flash(cxsim, images):
    stem = card(cxsim, images, psid="HP_0280210019")
    s = cxsim.serve(stem)
    stock = images.make(f"--chip cx3 {SMALL} --fw 2.42.5000")
    assert burn(s, stock).returncode == 17
    r = burn(s, stock, "--allow_psid_change")
    assert r.returncode == 0, r.stderr
    assert s.stop() == 0
    b = cxsim.boot_check(stem)
    assert b["psid"] == "MT_1090120019" and b["guids"]["node"] == GUID


def test_dry_run_writes_nothing(cxsim, images):
    s = cxsim.serve(card(cxsim, images))
    before = counters(s)
    r = burn(s, images.make(f"--chip cx3 {SMALL} --fw 2.42.5000"), "--dry-run")
    assert r.returncode == 0 and "dry run" in r.stdout
    assert counters(s)["bytes_programmed"] == before["bytes_programmed"]
    assert s.stop() == 0


def test_recovery_card_needs_and_gets_an_identity(cxsim, images):
    stem = cxsim.create("livefish", "--chip", "cx3", "--empty")
    s = cxsim.serve(stem)
    img = images.make(f"--chip cx3 {SMALL}")
    r = burn(s, img)
    assert r.returncode == 6 and "recovery" in r.stderr
    r = burn(s, img, "--guid", "0002c90300001230", "--mac", "0002c9001230")
    assert r.returncode == 0, r.stderr
    # What the card was: recovery mode, no image; never a made-up "FW 0.0.0000".
    assert "burned recovery mode, no readable image -> FW " in r.stdout and "0.0.0" not in r.stdout, r.stdout
    assert s.stop() == 0
    b = cxsim.boot_check(stem)
    assert b["booted"] and b["pci_device"] == "0x1003" and b["guids"]["port1"] == "0002c90300001231"


def test_recovery_burn_json_has_no_version_before(cxsim, images):
    s = cxsim.serve(cxsim.create("livefish-json", "--chip", "cx3", "--empty"))
    r = burn(s, images.make(f"--chip cx3 {SMALL}"), "--guid", "0002c90300001230", "--mac", "0002c9001230",
             "--json")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["result"] == "burned" and j["from"] is None and j["from_recovery"] is True and j["to"], j
    assert s.stop() == 0


def test_recovery_card_keeps_the_guids_its_damaged_image_holds(cxsim, images):
    """`cxsim create --corrupt` breaks only BOOT2's CRC: the card comes up in recovery mode,
    but its GUID section is whole. As mstflint 3.8 does (hw-access.md §9.2 D6), the burn
    keeps those GUIDs and MACs, and says where they came from (text, and --json)."""
    stem = card(cxsim, images, extra=("--corrupt",))
    s = cxsim.serve(stem)
    assert s.read(0, "device") == "0x01f6"
    img = images.make(f"--chip cx3 {SMALL} --fw 2.42.5000")
    r = burn(s, img, "--dry-run", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["guids_from"] == "damaged-image"
    r = burn(s, img)
    assert r.returncode == 0, r.stderr
    assert "recovery mode; its GUIDs and MACs were read from its damaged image" in r.stdout
    assert s.stop() == 0
    b = cxsim.boot_check(stem)
    assert b["booted"] and b["pci_device"] == "0x1003" and b["fw_version"] == "2.42.5000"
    assert b["guids"]["node"] == GUID and b["macs"]["port2"] == "0002c9c0ffe1"


def test_recovery_card_keeps_the_vsd_its_damaged_image_holds(cxsim, images):
    """The same damaged card, its image carrying a VSD of its own: mstflint 3.8 keeps that
    VSD as it keeps the GUIDs (issue 29, point 7), so the burn does too, and says where it
    came from. A burn given --vsd takes that one; --use_image_ps takes the new image's."""
    img = images.make(f"--chip cx3 {SMALL} --fw 2.40.7000 --vsd card-own-vsd")
    stem = cxsim.create("card-cx3", "--chip", "cx3", "--image", img, "--guid", GUID, "--mac", MAC,
                        "--corrupt")
    s = cxsim.serve(stem)
    assert s.read(0, "device") == "0x01f6"
    new = images.make(f"--chip cx3 {SMALL} --fw 2.42.5000 --vsd image-vsd")
    r = burn(s, new, "--dry-run", "--json")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["vsd_from"] == "damaged-image" and j["guids_from"] == "damaged-image", j
    j = json.loads(burn(s, new, "--dry-run", "--json", "--vsd", "typed").stdout)
    assert j["vsd_from"] == "given", j
    j = json.loads(burn(s, new, "--dry-run", "--json", "--use_image_ps").stdout)
    assert j["vsd_from"] == "image", j
    r = burn(s, new)
    assert r.returncode == 0, r.stderr
    assert "recovery mode; its VSD was read from its damaged image" in r.stdout
    assert s.stop() == 0
    b = cxsim.boot_check(stem)
    assert b["booted"] and b["fw_version"] == "2.42.5000" and b["guids"]["node"] == GUID
    assert b["vsd"] == "card-own-vsd", b


def test_burns_over_what_mstflint_burned_and_json(cxsim, images):
    stem = card(cxsim, images)
    # A 64 KiB block erase: with model time only, cxflash's real sleeps do not count and it
    # polls WIP ~44,000 times over FUSE (36 s alone, past the 120 s limit on a loaded machine).
    s = cxsim.serve(stem, wall_clock=True)
    mid = images.make(f"--chip cx3 {SMALL} --fw 2.41.1000 --seed 6")
    assert s.mstflint("-d", bdf(0), "-i", mid, "-y", "burn").returncode == 0
    new = images.make(f"--chip cx3 {SMALL} --fw 2.42.5000 --seed 7")
    r = cx("--sysfs", s.dir, "-d", bdf(0), "-i", new, "-y", "--no-backup", "--json", "burn")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["result"] == "burned" and j["from"] == "2.41.1000" and j["to"] == "2.42.5000"
    assert j["from_recovery"] is False
    assert j["start"] == 0 and j["backup"] is None and j["guids_from"] == "card"
    assert j["vsd_from"] == "card"
    assert s.stop() == 0
    assert cxsim.boot_check(stem)["slot"] == 0
