# SPDX-License-Identifier: GPL-2.0-or-later
"""The firmware library from the command line: `cxflash library list|show|check` over
folders of generated images, and `match` for an image file and for a simulated card
(cxsim over FUSE), with generated board tables and with the real library/boards.txt.
Every image is synthetic (mkfs2); nothing here is vendor firmware."""
import json
import os
import shutil

import pytest

from conftest import CXFLASH, ROOT, cx, run, sha256
from cxsim_helpers import bdf, cxsim  # noqa: F401 (fixture)

REAL_BOARDS = ROOT / "library" / "boards.txt"
SMALL = "--ddr 2 --ddr-size 0x1000"
HP_PSID, STOCK_PSID = "HP_0280210019", "MT_1090120019"
URL = "https://example.org/src"
HP_IMG = (f"--chip cx3 {SMALL} --psid {HP_PSID} --fw 2.40.5030 --ini-set PS_INFO.Name=HP_649281-B21 "
          "--ini-set PS_INFO.Description=HP_544QSFP")
EXIT_IO, EXIT_IMAGE, EXIT_ABSENT, EXIT_USAGE, EXIT_MISMATCH = 3, 4, 5, 2, 17


def boards(tmp_path, rows, name="boards.txt"):
    p = tmp_path / name
    p.write_text("# a generated table\n" + "".join(r + "\n" for r in rows))
    return p


def hp_row(basis="stated", port="vpi", target=STOCK_PSID, notes="-", pins="-"):
    return f"HP | 649281-B21 | {HP_PSID} | cx3 | 103c:18d6 | MCX354A-FCBT | {target} | {port} | FDR | {basis} | {URL} | {notes} | {pins}"


def stock_row(pins="-"):
    return f"Mellanox | MCX354A-FCBT | {STOCK_PSID} | cx3 | - | MCX354A-FCBT | {STOCK_PSID} | vpi | FDR | stated | {URL} | - | {pins}"


def folder(tmp_path, images, name, *specs):
    """A firmware folder holding one generated image per (file name, mkfs2 options)."""
    d = tmp_path / name
    d.mkdir()
    for fname, opts in specs:
        shutil.move(images.make(opts), d / fname)
    return d


def lib(table, *args, json_out=False):
    return cx("--boards", table, *(("--json",) if json_out else ()), *args, asan=True)


# ---- library list / show / check ----

def test_list_show_check_a_folder(tmp_path, images):
    fw = folder(tmp_path, images, "fw", ("stock.bin", f"--chip cx3 {SMALL}"),
                ("pro.BIN", f"--chip cx3pro {SMALL}"), ("cx2.bin", f"--chip cx2 {SMALL} --old-guids"))
    (fw / "notes.txt").write_text("not an image and not a .bin: ignored\n")
    table = boards(tmp_path, [hp_row(), stock_row()])
    r = lib(table, "library", "list", fw)
    assert r.returncode == 0, r.stderr
    names = [ln.split()[0] for ln in r.stdout.splitlines()[3:]]
    assert names == ["cx2.bin", "pro.BIN", "stock.bin"]          # name order; notes.txt ignored
    j = json.loads(lib(table, "library", "list", fw, json_out=True).stdout)["files"]
    by = {f["name"]: f for f in j}
    assert by["stock.bin"]["psid"] == STOCK_PSID and by["stock.bin"]["family"] == "cx3"
    assert by["stock.bin"]["sha256"] == sha256(fw / "stock.bin")
    assert by["pro.BIN"]["family"] == "cx3pro" and by["cx2.bin"]["family"] == "cx2"
    assert by["stock.bin"]["port"] == "vpi"                       # the table's row says so
    assert by["stock.bin"]["ini"]["class_code"] == "0x028000"
    assert all(f["status"] == "ok" for f in j)

    r = lib(table, "--firmware", fw, "library", "show", STOCK_PSID)
    assert r.returncode == 0, r.stderr
    assert "MT_1090120019" in r.stdout and sha256(fw / "stock.bin") in r.stdout
    assert HP_PSID in r.stdout                                    # the HP board maps to it
    assert lib(table, "--firmware", fw, "library", "show", "pro.BIN").returncode == 0
    r = lib(table, "--firmware", fw, "library", "show", "nothing.bin")
    assert r.returncode == EXIT_ABSENT and "no image 'nothing.bin'" in r.stderr

    r = lib(table, "library", "check", fw)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1].startswith("3 images: 3 usable, 0 not sound, 0 refused")


def test_check_names_a_bad_file_and_fails(tmp_path, images):
    fw = folder(tmp_path, images, "fw", ("good.bin", f"--chip cx3 {SMALL}"))
    data = bytearray((fw / "good.bin").read_bytes())
    (fw / "cut.bin").write_bytes(data[: len(data) // 2])
    data[0x400] ^= 0xFF
    (fw / "flipped.bin").write_bytes(bytes(data))
    (fw / "junk.bin").write_bytes(b"\0" * 100)
    table = boards(tmp_path, [stock_row()])
    r = lib(table, "library", "check", fw)
    assert r.returncode == EXIT_IMAGE
    for bad in ("cut.bin", "flipped.bin", "junk.bin"):
        assert any(ln.startswith(str(fw / bad) + ": ") for ln in r.stdout.splitlines()), (bad, r.stdout)
    assert "1 usable, 3 not sound" in r.stdout
    assert "not a sound image" in r.stderr and r.stderr.count("\n") == 1
    j = json.loads(lib(table, "library", "check", fw, json_out=True).stdout)
    assert j["images"] == 4 and j["usable"] == 1 and j["bad"] == 3
    assert sorted(p["path"].split("/")[-1] for p in j["problems"]) == ["cut.bin", "flipped.bin", "junk.bin"]


def test_pinned_hash(tmp_path, images):
    fw = folder(tmp_path, images, "fw", ("stock.bin", f"--chip cx3 {SMALL} --fw 2.42.5000"))
    good = sha256(fw / "stock.bin")
    r = lib(boards(tmp_path, [stock_row(f"2.42.5000={good}")], "ok.txt"), "library", "check", fw)
    assert r.returncode == 0, r.stdout + r.stderr
    j = json.loads(lib(boards(tmp_path, [stock_row(f"2.42.5000={good}")], "ok2.txt"), "library", "list", fw,
                       json_out=True).stdout)
    assert j["files"][0]["pin"] == "ok"
    wrong = "0" * 64
    t = boards(tmp_path, [stock_row(f"2.40.7000={good} 2.42.5000={wrong}")], "bad.txt")
    r = lib(t, "library", "check", fw)
    assert r.returncode == EXIT_MISMATCH, r.stdout + r.stderr
    assert "pinned" in r.stdout
    # An unpinned version of a pinned PSID is not refused.
    fw2 = folder(tmp_path, images, "fw2", ("other.bin", f"--chip cx3 {SMALL} --fw 2.36.5000"))
    assert lib(t, "library", "check", fw2).returncode == 0


def test_table_errors_and_defaults(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    r = cx("--boards", tmp_path / "absent.txt", "library", "list", empty)
    assert r.returncode == EXIT_IO and "absent.txt" in r.stderr
    bad = boards(tmp_path, [hp_row().replace(URL, "-")])
    r = cx("--boards", bad, "library", "check", empty)
    assert r.returncode == EXIT_IMAGE and f"{bad}:2:" in r.stderr
    r = cx("--boards", REAL_BOARDS, "library", "check", empty)
    assert r.returncode == 0, r.stderr
    assert "0 images" in r.stdout and "board table well formed" in r.stdout
    # A folder that does not exist is an empty library, not an error.
    assert cx("--boards", REAL_BOARDS, "library", "list", tmp_path / "none").returncode == 0

def test_firmware_folders_from_the_environment(tmp_path, images):
    """CXFLASH_FIRMWARE lists folders with ':', as the rescue image's /init sets it."""
    a = folder(tmp_path, images, "a", ("one.bin", f"--chip cx3 {SMALL}"))
    b = folder(tmp_path, images, "b", ("two.bin", f"--chip cx3pro {SMALL}"))
    env = {**os.environ, "CXFLASH_FIRMWARE": f"{a}:{tmp_path / 'absent'}:{b}", "CXFLASH_BOARDS": str(REAL_BOARDS)}
    r = run([CXFLASH, "--json", "library", "list"], env=env)
    assert r.returncode == 0, r.stderr
    assert [f["path"] for f in json.loads(r.stdout)["files"]] == [str(a / "one.bin"), str(b / "two.bin")]
    # --firmware wins over the environment.
    r = run([CXFLASH, "--json", "--firmware", b, "library", "list"], env=env)
    assert [f["name"] for f in json.loads(r.stdout)["files"]] == ["two.bin"]


def test_library_usage_errors():
    assert cx("library", "frobnicate").returncode == EXIT_USAGE


# ---- match on an image file ----

def test_match_hp_image_to_stock(tmp_path, images):
    hp = images.make(HP_IMG, name="hp-card.bin")
    fw = folder(tmp_path, images, "fw", ("stock.bin", f"--chip cx3 {SMALL} --fw 2.42.5000"),
                ("swapped.bin", f"--chip cx3 {SMALL} --fw 2.42.5000 --ini-set IB.tx_logic_1_serdes=2"),
                ("pro.bin", f"--chip cx3pro {SMALL}"), ("a0.bin", f"--chip cx3 --rev 0 {SMALL}"))
    table = boards(tmp_path, [hp_row(), stock_row()])
    r = lib(table, "--firmware", fw, "-i", hp, "match")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1].startswith("recommended: stock.bin (OK)")
    j = json.loads(lib(table, "--firmware", fw, "-i", hp, "match", json_out=True).stdout)
    v = {c["file"]: c for c in j["candidates"]}
    # OK, RISKY, then REFUSED; among the refused, a0.bin's PSID is the mapped one, pro.bin's is not.
    assert [c["file"] for c in j["candidates"]] == ["stock.bin", "swapped.bin", "a0.bin", "pro.bin"]
    assert v["stock.bin"]["verdict"] == "OK" and v["stock.bin"]["relation"] == "cross-flash"
    assert v["stock.bin"]["ini"]["risky"] == 0 and v["stock.bin"]["ini"]["expected"] >= 3
    assert v["swapped.bin"]["verdict"] == "RISKY"
    assert any("tx_logic_1_serdes" in x["text"] for x in v["swapped.bin"]["reasons"])
    assert [d for d in v["swapped.bin"]["ini"]["differences"] if d["class"] == "risky"] == [
        {"class": "risky", "section": "IB", "key": "tx_logic_1_serdes", "card": "1", "image": "2"}]
    assert v["pro.bin"]["verdict"] == "REFUSED" and "ConnectX-3 Pro" in v["pro.bin"]["reasons"][0]["text"]
    assert v["a0.bin"]["verdict"] == "REFUSED" and "revision" in v["a0.bin"]["reasons"][0]["text"]
    assert j["recommended"] == "stock.bin"
    # Text: each risky key with both values.
    assert "risky    [IB] tx_logic_1_serdes: card 1, image 2" in r.stdout


def test_match_nothing_fits(tmp_path, images):
    hp = images.make(HP_IMG)
    fw = folder(tmp_path, images, "fw", ("pro.bin", f"--chip cx3pro {SMALL}"),
                ("other.bin", f"--chip cx3 {SMALL} --psid MT_1090120099"))
    table = boards(tmp_path, [hp_row(), stock_row()])
    r = lib(table, "--firmware", fw, "-i", hp, "match")
    assert r.returncode == EXIT_ABSENT
    assert "no image in the library fits this card" in r.stdout
    assert "no library image fits this card (2 looked at)" in r.stderr
    r = lib(table, "--firmware", fw, "-i", hp, "--expert", "match")
    assert r.returncode == 0 and "recommended: other.bin (RISKY)" in r.stdout


def test_match_with_the_real_table(tmp_path, images):
    """library/boards.txt: the HP 649281-B21 mapping is an inference (RISKY); Oracle's is stated (OK)."""
    fw = folder(tmp_path, images, "fw", ("stock.bin", f"--chip cx3 {SMALL} --fw 2.42.5000"))
    hp = images.make(HP_IMG)
    r = cx("--boards", REAL_BOARDS, "--firmware", fw, "-i", hp, "--json", "match")
    c = json.loads(r.stdout)["candidates"][0]
    assert c["verdict"] == "RISKY" and any("inference" in x["text"] for x in c["reasons"]), c
    orc = images.make(f"--chip cx3 {SMALL} --psid ORC1090120019 --fw 2.40.5030 --ini-set PS_INFO.Name=Oracle "
                      "--ini-set PS_INFO.Description=Oracle_dual_port")
    r = cx("--boards", REAL_BOARDS, "--firmware", fw, "-i", orc, "--json", "match")
    c = json.loads(r.stdout)["candidates"][0]
    assert r.returncode == 0 and c["verdict"] == "OK" and c["relation"] == "cross-flash", c


# ---- match on a simulated card ----

def test_match_on_a_card_writes_nothing(cxsim, tmp_path, images):
    hp = images.make(HP_IMG)
    stem = cxsim.create("hp", "--chip", "cx3", "--flash", "W25Q16", "--image", hp, "--subsys", "103c:18d6")
    fw = folder(tmp_path, images, "fw", ("stock.bin", f"--chip cx3 {SMALL} --fw 2.42.5000"),
                ("pro.bin", f"--chip cx3pro {SMALL}"))
    table = boards(tmp_path, [hp_row(), stock_row()])
    s = cxsim.serve(stem)
    r = cx("--sysfs", s.dir, "--boards", table, "--firmware", fw, "-d", bdf(0), "match")
    assert r.returncode == 0, r.stderr
    assert f"card {bdf(0)}: ConnectX-3 A1, OEM HP, PSID {HP_PSID}" in r.stdout
    assert "board .ini: read from the flash" in r.stdout
    assert r.stdout.splitlines()[-1].startswith("recommended: stock.bin (OK)")
    j = json.loads(cx("--sysfs", s.dir, "--boards", table, "--firmware", fw, "-d", bdf(0), "--json",
                      "match").stdout)
    assert j["card"]["board_line"] == 2 and j["card"]["port"] == "vpi"
    k = s.card_stats()["counters"]
    assert k["erases"] == 0 and k["bytes_programmed"] == 0
    assert s.stop() == 0


def bundle_of(tmp_path, images, img_opts):
    """A backup bundle (ops/backup.h, format cxflash-backup-1) of a card holding the image
    mkfs2 makes from img_opts, written on the host: a FUSE backup reads 1 MiB twice at
    about a minute each (tests/test_cxflash_backup.py covers that path)."""
    dump = images.make(f"{img_opts} --dump 0 --flash-size 0x100000")
    img = images.make(img_opts)
    d = tmp_path / "bundle"
    d.mkdir()
    shutil.copyfile(dump, d / "flash.bin")
    r = cx("-i", img, "dc", d / "board.ini")
    assert r.returncode == 0, r.stderr
    q = json.loads(cx("-i", img, "--json", "q").stdout)
    ident = {"format": "cxflash-backup-1", "date": "2026-11-30T09:40:15Z", "cxflash_version": "0.1.0",
             "bdf": "0000:01:00.0", "family": "ConnectX-3", "chip": "ConnectX-3 A1", "revision": 1,
             "pci_device": "1003", "subsys_vendor": "103c", "subsys_device": "18d6", "recovery": False,
             "flash": "W25QxxBV, 1024 KiB (JEDEC ef 40 14)", "flash_size": 1 << 20,
             "flash_sha256": sha256(d / "flash.bin"), "image_start": 0, "image_slot": 0,
             "image_failsafe": True, "image_size": img.stat().st_size, "image_verdict": "ok",
             "image_error": None, "fw_version": q["fw_version"], "psid": q["psid"], "vsd": "",
             "guid_entries": 6, "guids_blank": False,
             "guids": {"node": "0002c903000a1b20", "port1": "0002c903000a1b21", "port2": "0002c903000a1b22",
                       "sys_image": "0002c903000a1b23"},
             "macs": {"port1": "0002c90a1b20", "port2": "0002c90a1b21"}, "macs_derived": False,
             "rom": {"type": "PXE", "version": "3.4.752"}, "board_ini": "board.ini", "board_ini_error": None}
    (d / "identity.json").write_text(json.dumps(ident, separators=(",", ":")))
    (d / "SHA256SUMS").write_text("".join(f"{sha256(d / n)}  {n}\n"
                                          for n in ("flash.bin", "identity.json", "board.ini")))
    return d


def test_match_recovery_card_takes_identity_from_backup(cxsim, tmp_path, images):
    bundle = bundle_of(tmp_path, images, HP_IMG)
    assert cx("-i", bundle / "flash.bin", "--striped_image", "v").returncode == 0
    dead = cxsim.create("dead", "--chip", "cx3", "--flash", "W25Q16", "--empty")
    fw = folder(tmp_path, images, "fw", ("stock.bin", f"--chip cx3 {SMALL} --fw 2.42.5000"))
    table = boards(tmp_path, [hp_row(), stock_row()])
    s = cxsim.serve(dead)
    r = cx("--sysfs", s.dir, "--boards", table, "--firmware", fw, "-d", bdf(0), "--json", "match")
    c = json.loads(r.stdout)["candidates"][0]
    assert c["verdict"] == "RISKY" and c["relation"] == "card PSID unknown"
    r = cx("--sysfs", s.dir, "--boards", table, "--firmware", fw, "-d", bdf(0), "--identity-from", bundle,
           "--json", "match")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["card"]["recovery"] is True and j["card"]["psid"] == HP_PSID
    assert j["card"]["identity_from"] == str(bundle)
    assert j["candidates"][0]["verdict"] == "OK" and j["candidates"][0]["relation"] == "cross-flash"
    assert j["candidates"][0]["ini"]["risky"] == 0
    # A damaged bundle is refused with its reason.
    (bundle / "board.ini").write_text("tampered\n")
    r = cx("--sysfs", s.dir, "--boards", table, "--firmware", fw, "-d", bdf(0), "--identity-from", bundle, "match")
    assert r.returncode == EXIT_IMAGE and "board.ini" in r.stderr, r.stderr
    assert s.card_stats()["counters"]["erases"] == 0
    assert s.stop() == 0


@pytest.mark.parametrize("args", [["-i", "/nonexistent.bin", "match"], ["match"],
                                  ["-i", "x.bin", "--identity-from", "/tmp", "match"]])
def test_match_bad_input(args):
    r = cx(*args, asan=True)
    assert r.returncode in (EXIT_IO, EXIT_USAGE), r.stderr
    assert r.stderr.startswith("cxflash: ") and r.stderr.count("\n") == 1
