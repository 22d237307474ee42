# SPDX-License-Identifier: GPL-2.0-or-later
"""The firmware library and `match` with ConnectX-4, 4 Lx, 5 and 6 files (FS3, FS4), made by
mkfs3, against the real library/boards.txt: the library lists them beside FS2 images, and
match judges a card of each new chip by its own family's rules (library/match.h): the
image's supported HW IDs, two slots against the card's flash, a secure-firmware card offered
another PSID, ConnectX-6 Dx/Lx read-only; a stated board-table row is OK, an inferred one
RISKY, none REFUSED."""
import json

import pytest

from conftest import BUILD, ROOT, cx, run

MKFS3 = BUILD / "host" / "mkfs3"
BOARDS = ROOT / "library" / "boards.txt"


@pytest.fixture
def lib(tmp_path, images):
    def mk(name, opts):
        out = tmp_path / name
        r = run([MKFS3, "-o", out] + opts.split())
        assert r.returncode == 0, r.stderr
        return out

    fw = tmp_path / "fw"
    fw.mkdir()
    mk("fw/stock-cx4lx.bin", "--chip cx4lx --psid MT_2420110034 --fw 14.32.1020")
    mk("fw/stock-cx5.bin", "--chip cx5 --psid MT_0000000008 --fw 16.35.4030")
    mk("fw/big-slot.bin", "--chip cx4lx --psid MT_2420110034 --fw 14.32.1000 --slot-log 24")
    mk("fw/broken.bin", "--chip cx4lx --psid MT_2420110034 --damage crc:MAIN_CODE")
    images.make("--chip cx3", name="fw/stock-cx3.bin")
    return mk, fw


def match(fw, card, *extra):
    r = cx("--boards", BOARDS, "--firmware", fw, "-i", card, "--json", *extra, "match")
    # With no recommendation the error follows as a second document (cxflash(1), JSON).
    return r, json.loads(r.stdout.splitlines()[0])


def by_name(j):
    return {c["file"]: c for c in j["candidates"]}


def first_reason(c):
    return c["reasons"][0]["text"]


def test_library_lists_the_new_family(lib):
    _, fw = lib
    r = cx("--boards", BOARDS, "--firmware", fw, "--json", "library", "list")
    assert r.returncode == 0, r.stderr
    files = {f["name"]: f for f in json.loads(r.stdout)["files"]}
    assert files["stock-cx4lx.bin"]["family"] == "cx4lx" and files["stock-cx4lx.bin"]["status"] == "ok"
    assert files["stock-cx5.bin"]["family"] == "cx5" and files["stock-cx5.bin"]["fw_version"] == "16.35.4030"
    assert files["stock-cx3.bin"]["family"] == "cx3"
    assert files["broken.bin"]["status"] == "bad-image" and "MAIN_CODE" in files["broken.bin"]["reason"]
    assert files["stock-cx4lx.bin"]["port"] == "en"   # the board table's stated row
    assert files["stock-cx4lx.bin"]["format"] == "FS3" and files["stock-cx5.bin"]["format"] == "FS4"
    assert files["stock-cx3.bin"]["format"] == "FS2" and files["stock-cx3.bin"]["slot_size"] is None
    assert files["big-slot.bin"]["slot_size"] == 16 << 20
    assert files["stock-cx5.bin"]["security"] == {"mcc_en": False, "signed_fw": False, "secure_fw": False}


def test_hp_640sfp28_cross_flash_is_ok_by_a_stated_row(lib):
    mk, fw = lib
    card = mk("hp.bin", "--chip cx4lx --psid HP_2420110034 --fw 14.26.1040")
    r, j = match(fw, card)
    assert r.returncode == 0, r.stdout + r.stderr
    c = by_name(j)
    assert c["stock-cx4lx.bin"]["verdict"] == "OK" and c["stock-cx4lx.bin"]["relation"] == "cross-flash"
    assert j["recommended"] == "stock-cx4lx.bin"
    assert c["stock-cx5.bin"]["verdict"] == "REFUSED"
    assert "this image is for ConnectX-5" in first_reason(c["stock-cx5.bin"])
    assert c["stock-cx3.bin"]["verdict"] == "REFUSED" and "ConnectX-3" in first_reason(c["stock-cx3.bin"])
    assert c["broken.bin"]["verdict"] == "REFUSED"
    text = cx("--boards", BOARDS, "--firmware", fw, "-i", card, "match").stdout
    # cxflash works on these cards (in recovery mode or through their running firmware): no
    # line saying it does not
    assert "recovery mode only" not in text and "not supported" not in text


def test_two_slots_must_fit_the_flash(lib):
    mk, fw = lib
    dump = mk("hp-dump.bin", "--chip cx4lx --psid HP_2420110034 --fw 14.26.1040 --dump --flash-size 0x1000000")
    r, j = match(fw, dump)
    c = by_name(j)
    assert c["big-slot.bin"]["verdict"] == "REFUSED"
    assert "its slot is 16384 KiB: two do not fit the card's 16384 KiB flash" in first_reason(c["big-slot.bin"])
    assert c["stock-cx4lx.bin"]["verdict"] == "OK"


def test_inferred_row_is_risky_and_secure_fw_is_refused(lib):
    mk, fw = lib
    plain = mk("hpe-cx5.bin", "--chip cx5 --psid HPE0000000009")
    r, j = match(fw, plain)
    c = by_name(j)["stock-cx5.bin"]
    assert c["verdict"] == "RISKY" and "is an inference" in first_reason(c)
    secure = mk("hpe-cx5-secure.bin", "--chip cx5 --psid HPE0000000009 --signed --mcc-en --signed-fw --secure-fw")
    r, j = match(fw, secure)
    assert r.returncode == 5
    c = by_name(j)["stock-cx5.bin"]
    assert c["verdict"] == "REFUSED"
    assert "secure firmware, which refuses a PSID change: only recovery mode" in first_reason(c)
    # The same PSID on a secure card is an update, not refused for security.
    own = mk("fw/own-secure.bin", "--chip cx5 --psid HPE0000000009 --fw 16.36.1000 --signed --mcc-en --signed-fw --secure-fw")
    r, j = match(fw, secure)
    assert by_name(j)["own-secure.bin"]["verdict"] == "OK", by_name(j)["own-secure.bin"]
    own.unlink()


def test_connectx6dx_is_read_only(lib):
    mk, fw = lib
    mk("fw/stock-cx6dx.bin", "--chip cx6dx --psid DEL0000000027 --fw 22.40.1000")
    card = mk("dell-cx6dx.bin", "--chip cx6dx --psid DEL0000000027 --fw 22.27.6106")
    r, j = match(fw, card)
    c = by_name(j)["stock-cx6dx.bin"]
    assert c["verdict"] == "REFUSED"
    assert "its firmware is signed and the chip enforces it" in first_reason(c)


@pytest.mark.parametrize("chip", ["cx4", "cx4lx", "cx5", "cx6", "cx6dx", "cx6lx"])
def test_a_verdict_for_each_new_chip(lib, chip):
    """A card of each chip, and a newer image of its own PSID in the library: an update (OK)
    on ConnectX-4, 4 Lx and 5; REFUSED on the read-only ConnectX-6 family, naming why."""
    mk, fw = lib
    mk(f"fw/own-{chip}.bin", f"--chip {chip} --psid MT_0000009999 --fw 30.1.2")
    card = mk(f"card-{chip}.bin", f"--chip {chip} --psid MT_0000009999 --fw 30.1.1")
    r, j = match(fw, card)
    c = by_name(j)[f"own-{chip}.bin"]
    assert c["relation"] == "same PSID" and c["version_change"] == "upgrade", c
    if chip.startswith("cx6"):
        assert r.returncode == 5 and c["verdict"] == "REFUSED"
        assert "its firmware is signed and the chip enforces it" in first_reason(c)
    else:
        assert r.returncode == 0 and c["verdict"] == "OK" and j["recommended"] == f"own-{chip}.bin"
    # every other image of the library is another chip's, or broken: refused
    assert all(x["verdict"] == "REFUSED" for n, x in by_name(j).items() if n != f"own-{chip}.bin")
