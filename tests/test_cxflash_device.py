# SPDX-License-Identifier: GPL-2.0-or-later
"""cxflash on (simulated) cards, end to end through the FUSE sysfs tree that cxsim serves:
`list`, and `q` (only what it shows), `v`, `dc`, `rrom`, `ri` read from flash, checked against what the card
boots (cxsim boot-check) and against unmodified mstflint on the same card."""
import json

import pytest

from conftest import CXFLASH, cx, run
from cxsim_helpers import bdf, cxsim  # noqa: F401 (fixture)
from test_oracle import fields

SMALL = "--ddr 2 --ddr-size 0x1000"
CARD_GUID, CARD_MAC = "0002c90300c0ffe0", "0002c9c0ffe0"


def card(cxsim, images, chip="cx3", part="W25Q16", slot=0, extra=(), img_opts=""):
    img = images.make(f"--chip {chip} {SMALL} {img_opts}")
    macs = () if "--old-guids" in img_opts else ("--mac", CARD_MAC)
    stem = cxsim.create(f"card-{chip}-{part}-{slot}", "--chip", chip, "--flash", part, "--image", img,
                        "--slot", str(slot), "--guid", CARD_GUID, *macs, *extra)
    return stem


def dev(s, *args, index=0):
    return cx("--sysfs", s.dir, "-d", bdf(index), *args)


def test_list_shows_every_card(cxsim, images):
    a = card(cxsim, images, "cx3")
    b = card(cxsim, images, "cx3pro", extra=("--subsys", "103c:22f3", "--psid", "HP_1370110017"))
    c = cxsim.create("livefish", "--chip", "cx3", "--empty")
    s = cxsim.serve(a, b, c)
    r = cx("--sysfs", s.dir, "list")
    assert r.returncode == 0, r.stderr
    assert "3 cards found" in r.stdout
    j = json.loads(cx("--sysfs", s.dir, "--json", "list").stdout)["cards"]
    assert [x["bdf"] for x in j] == [bdf(0), bdf(1), bdf(2)]
    assert j[0]["chip"] == "ConnectX-3 A1" and j[0]["psid"] == "MT_1090120019"
    assert j[0]["guids"]["node"] == CARD_GUID and j[0]["macs"]["port1"] == CARD_MAC
    assert j[0]["fw_version"] == j[0]["fw_running"] == "2.42.5000"
    assert j[1]["chip"] == "ConnectX-3 Pro A0" and j[1]["oem"] == "HP"
    assert j[1]["psid"] == "HP_1370110017" and j[1]["subsys_device"] == "22f3"
    assert j[2]["recovery"] is True and j[2]["pci_device"] == "01f6" and j[2]["psid"] is None
    assert s.stop() == 0


def test_a_files_only_family_is_named_and_left_alone(cxsim, images):
    """A ConnectX-4 Lx whose firmware runs (its HW ID and PCI ID on a ConnectX-3 model:
    cxsim --hw-id), with no VSEC to reach that firmware's ICMD: `list` names it with why
    cxflash does not work on it (it cannot ask the firmware, and writes directly only when
    asked with --risk-fw-hang), and every card verb refuses in one line, exit 8,
    without one crspace write."""
    lx = card(cxsim, images, "cx3", extra=("--hw-id", "0x20b", "--pci-device", "0x1015"))
    s = cxsim.serve(lx, card(cxsim, images, "cx3", slot=1))
    r = cx("--sysfs", s.dir, "list")
    assert r.returncode == 0 and "2 cards found" in r.stdout, r.stdout + r.stderr
    j = json.loads(cx("--sysfs", s.dir, "--json", "list").stdout)["cards"]
    assert j[0]["family"] == "ConnectX-4 Lx" and j[0]["psid"] is None
    assert "is a ConnectX-4 Lx whose firmware runs and fetches code from the flash, and cxflash cannot " \
        "ask that firmware for it (no ICMD in its VSEC)" in j[0]["error"]
    assert "--risk-fw-hang" in j[0]["error"]
    assert j[1]["family"] == "ConnectX-3" and j[1]["error"] is None
    before = s.card_stats()["counters"]
    for verb in (("q",), ("v",), ("-y", "--no-backup", "sg", "--guid", "0002c90300c0ffe8"), ("config", "q")):
        r = dev(s, *verb)
        assert r.returncode == 8, (verb, r.stdout, r.stderr)
        assert r.stderr.count("\n") == 1 and "nothing was written" in r.stderr, (verb, r.stderr)
    after = s.card_stats()["counters"]
    assert after["cr_writes"] == before["cr_writes"] and after["gw_cmds"] == before["gw_cmds"]
    assert s.stop() == 0


def test_list_says_a_placeholder_identity_is_not_the_cards_own(cxsim, images):
    """A stock ConnectX-3 Pro 2.42.5000 image burned with --use_image_guids: the release's
    placeholder GUIDs and MACs, the same on every such card (ops/placeholder.h)."""
    img = images.make(f"--chip cx3pro {SMALL} --fw 2.42.5000")
    ph = cxsim.create("card-placeholder", "--chip", "cx3pro", "--image", img,
                      "--guid", "0002c9000100d050", "--mac", "0002c9000001")
    s = cxsim.serve(ph, card(cxsim, images, "cx3"))
    r = cx("--sysfs", s.dir, "list")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("NO IDENTITY OF ITS OWN") == 1, r.stdout
    first = r.stdout.split(bdf(1))[0]
    assert "NO IDENTITY OF ITS OWN: its node GUID is a release image's placeholder (illumos MELLANOX.h" in first
    j = json.loads(cx("--sysfs", s.dir, "--json", "list").stdout)["cards"]
    assert j[0]["identity"] == "placeholder" and j[0]["placeholder"]["field"] == "node GUID", j[0]
    assert j[0]["placeholder"]["value"] == "0002c9000100d050" and "MELLANOX.h" in j[0]["placeholder"]["source"]
    assert j[1]["identity"] == "own" and j[1]["placeholder"] is None, j[1]
    assert s.stop() == 0


@pytest.mark.parametrize("chip,part,slot", [("cx3", "W25Q16", 0), ("cx3pro", "M25P16", 1),
                                            ("cx3", "SST25VF016B", 1)])
def test_query_agrees_with_mstflint(cxsim, images, chip, part, slot):
    s = cxsim.serve(card(cxsim, images, chip, part, slot))
    a, b = dev(s, "q", "full"), s.mstflint("-d", bdf(0), "q", "full")
    assert a.returncode == 0, a.stderr
    assert b.returncode == 0, b.stdout
    fa, fb = fields(a.stdout), fields(b.stdout)
    for k in ("HW IDs", "Image Size", "Chunk Size", "Failsafe"):
        fa.pop(k, None)
    fa["Rom Info"] = fa["Rom Info"].split(" devid=")[0]
    fb.pop("FW Version(Running)", None)
    assert fa == fb
    assert fa["GUIDs"].split()[0] == CARD_GUID
    assert s.stop() == 0


def test_query_reads_only_what_it_shows(cxsim, images):
    """q reads the headers and the GUID, IMAGE_INFO and ROM sections (list and the inventory
    the FW_CONF section too, for the board .ini a match compares), not the code (96 KiB of DDR here): cxsim counts the flash bytes read. So a
    DDR section damaged under the running card (mstflint's ww) is v's to find: q answers
    as mstflint's q does (flint's quick query reads its ROM section only, Fs2IntQuery), and
    v refuses on both. A damaged ROM section is q's too, on both."""
    img, m = images.make("--chip cx3 --ddr 12 --ddr-size 0x2000", with_map=True)
    shown = sum(m[k][1] for k in ("header", "sect_GUID", "sect_IMAGE_INFO", "sect_ROM"))  # q
    ini = m["sect_FW_CONF"][1]  # list and the inventory: the board .ini a match compares
    # The walk: the magic at each of the 10 start positions (fs2-format.md §1.1), every
    # section header and both BOOT2 headers; the gateway reads whole 16-byte blocks, so a
    # header that straddles two costs both.
    walk = 16 * 10 + 2 * 16 * (sum(1 for k in m if k.startswith("sect_")) + 2)
    stems = [cxsim.create(name, "--chip", "cx3", "--image", img, "--slot", "0", "--guid", CARD_GUID,
                          "--mac", CARD_MAC) for name in ("ddr", "rom")]
    s = cxsim.serve(*stems)

    for verb in (("q",), ("q", "full"), ("--json", "list")):
        before = s.card_stats(0)["counters"]["bytes_read"]
        r = dev(s, *verb) if verb[0] == "q" else cx("--sysfs", s.dir, *verb)
        assert r.returncode == 0, r.stderr
        read = s.card_stats(0)["counters"]["bytes_read"] - before
        want = shown + (ini if verb[-1] == "list" else 0)
        assert want <= read <= want + walk, (verb, read, want, walk)
        assert read * 8 < img.stat().st_size

    def damage(index, name, at):
        """Clear one bit of the dword at image offset m[name] + at, under the running card
        (slot 0, the image inside its first chunk: physical address = image offset), with
        mstflint's wwne (no erase: a bit can only go from 1 to 0)."""
        addr = (m[name][0] + at) & ~3
        r = s.mstflint("-d", bdf(index), "rw", hex(addr))
        assert r.returncode == 0, r.stdout
        word = int(r.stdout.split()[-1], 16)
        assert word, "a dword with a bit to clear"
        r = s.mstflint("-d", bdf(index), "wwne", hex(addr), hex(word & (word - 1)))
        assert r.returncode == 0, r.stdout

    damage(0, "sect_DDR_5", 100)
    a, b = dev(s, "q", index=0), s.mstflint("-d", bdf(0), "q")
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stdout
    assert fields(a.stdout)["FW Version"] == fields(b.stdout)["FW Version"]
    a, b = dev(s, "v", index=0), s.mstflint("-d", bdf(0), "v")
    assert a.returncode != 0 and b.returncode != 0, a.stdout + b.stdout
    assert "DDR" in a.stdout + a.stderr

    damage(1, "rom_0", m["rom_0"][1] // 2)
    a, b = dev(s, "q", index=1), s.mstflint("-d", bdf(1), "q")
    assert a.returncode != 0 and b.returncode != 0, a.stdout + b.stdout
    assert "ROM" in a.stderr, a.stderr
    assert s.stop() == 0


def test_cx2_card_reads_without_mstflint(cxsim, images):
    """mstflint 4.21 has no ConnectX-2; cxflash reads it like the others."""
    s = cxsim.serve(card(cxsim, images, "cx2", slot=1, img_opts="--old-guids"))
    r = dev(s, "q")
    assert r.returncode == 0, r.stderr
    f = fields(r.stdout)
    assert f["Device ID"] == "26428" and f["GUIDs"].split()[0] == CARD_GUID
    assert "derived" in f["MACs"]
    j = json.loads(cx("--sysfs", s.dir, "--json", "list").stdout)["cards"][0]
    assert j["chip"] == "ConnectX-2 B0" and j["pci_device"] == "673c"
    assert s.stop() == 0


def test_verify_dc_rrom_ri_from_flash(cxsim, images, tmp_path):
    stem = card(cxsim, images, "cx3pro", slot=1)
    s = cxsim.serve(stem)
    v = dev(s, "v")
    assert v.returncode == 0 and "verification succeeded" in v.stdout, v.stdout + v.stderr
    assert "Start address: 0x80000" in v.stdout
    assert dev(s, "dc").stdout == s.mstflint("-d", bdf(0), "dc").stdout
    ours, theirs = tmp_path / "ours.rom", tmp_path / "theirs.rom"
    assert dev(s, "rrom", ours).returncode == 0
    assert s.mstflint("-d", bdf(0), "rrom", theirs).returncode == 0
    assert ours.read_bytes() == theirs.read_bytes()
    ri_ours, ri_theirs = tmp_path / "ri-ours.bin", tmp_path / "ri-theirs.bin"
    assert dev(s, "ri", ri_ours).returncode == 0
    assert s.mstflint("-d", bdf(0), "ri", ri_theirs).returncode == 0
    assert ri_ours.read_bytes() == ri_theirs.read_bytes()
    assert cx("-i", ri_ours, "v").returncode == 0
    assert s.stop() == 0


def test_reads_what_mstflint_burned(cxsim, images, tmp_path):
    stem = card(cxsim, images, "cx3")
    s = cxsim.serve(stem)
    new = images.make(f"--chip cx3 {SMALL} --fw 2.42.5100 --seed 9")
    assert s.mstflint("-d", bdf(0), "-i", new, "-y", "burn").returncode == 0
    q = fields(dev(s, "q").stdout)
    assert q["FW Version"] == "2.42.5100" and q["GUIDs"].split()[0] == CARD_GUID
    out = tmp_path / "ri.bin"
    assert dev(s, "ri", out).returncode == 0
    m = tmp_path / "ri-m.bin"
    assert s.mstflint("-d", bdf(0), "ri", m).returncode == 0
    assert out.read_bytes() == m.read_bytes()
    assert s.stop() == 0


def test_write_only_window_card(cxsim, images):
    s = cxsim.serve(card(cxsim, images, "cx3", extra=("--wo-window",)))
    r = dev(s, "q")
    assert r.returncode == 0 and CARD_GUID in r.stdout, r.stderr
    assert s.stop() == 0


def test_recovery_card_has_no_image(cxsim):
    s = cxsim.serve(cxsim.create("livefish", "--chip", "cx3pro", "--empty"))
    r = dev(s, "q")
    assert r.returncode == 4 and "recovery" in r.stderr
    assert r.stderr.count("\n") == 1
    assert s.stop() == 0


def test_held_semaphore_then_clear(cxsim, images):
    stem = card(cxsim, images, "cx3")
    assert run([__import__("cxsim_helpers").CXSIM, "fault", stem, "--sem-held", "gpio"]).returncode == 0
    s = cxsim.serve(stem)
    r = dev(s, "q")
    assert r.returncode == 13 and "--clear-semaphore" in r.stderr, r.stderr
    r = dev(s, "--clear-semaphore", "q")
    assert r.returncode == 0, r.stderr
    assert s.card_stats()["counters"]["gw_without_sem"] == 0
    assert s.stop() == 0


def test_unknown_bdf_and_no_tree(cxsim, images, tmp_path):
    s = cxsim.serve(card(cxsim, images, "cx3"))
    r = cx("--sysfs", s.dir, "-d", "07:00.0", "q")
    assert r.returncode == 11 and "no ConnectX" in r.stderr
    r = cx("--sysfs", tmp_path / "nothing", "list")
    assert r.returncode == 11 and "no PCI device tree" in r.stderr
    (tmp_path / "empty" / "devices").mkdir(parents=True)
    r = cx("--sysfs", tmp_path / "empty", "list")
    assert r.returncode == 0 and "0 cards found" in r.stdout
    assert s.stop() == 0


@pytest.mark.parametrize("kind", ["config", "mem"])
def test_config_lock_is_shared_with_mstflint(cxsim, images, tmp_path, kind):
    """Each window access holds flock() on both of mstflint's lock files for the function
    (BDF_config, which mstflint 4.x takes, and BDF_mem, which mstflint 3.8 takes for a
    plain BDF: hw-access.md §9.2 D3), so a second program cannot split an address/data
    pair. While another program keeps either lock, cxflash waits, then gives up with
    exit 13 and writes nothing."""
    import fcntl
    import os
    s = cxsim.serve(card(cxsim, images, "cx3"))
    lockdir = tmp_path / "locks"
    env = dict(os.environ, CXFLASH_LOCK_DIR=str(lockdir))
    r = run([CXFLASH, "--sysfs", s.dir, "-d", bdf(0), "q"], env=env)
    assert r.returncode == 0, r.stderr
    lockfile = lockdir / f"{bdf(0)}_{kind}"
    assert lockfile.exists(), "cxflash made no lock file"
    before = s.card_stats()["counters"]
    with open(lockfile, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        r = run([CXFLASH, "--sysfs", s.dir, "-d", bdf(0), "q"], env=env)
    assert r.returncode == 13, r.stderr
    assert "lock" in r.stderr and r.stderr.count("\n") == 1, r.stderr
    after = s.card_stats()["counters"]
    assert after["cr_reads"] == before["cr_reads"] and after["cr_writes"] == before["cr_writes"]
    r = run([CXFLASH, "--sysfs", s.dir, "-d", bdf(0), "q"], env=env)
    assert r.returncode == 0, r.stderr
    assert s.stop() == 0
