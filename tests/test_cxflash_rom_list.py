# SPDX-License-Identifier: GPL-2.0-or-later
"""cxflash rom list / rom extract (library/rom_index.h): every ROM of the library's images and
of the backup bundles in the wizard's data folder, named N (a whole ROM section) or N.K (one
ROM), with the SHA-256 of each; extract writes the bytes out. The ROMs are mkfs2's (--roms
hp544: HP's CLP + UEFI + PXE), located independently through mkfs2's map."""
import hashlib
import json
import shutil

import pytest

from conftest import MKFS2, cx, mstflint, run

HP = "--chip cx3pro --psid HP_1380110017 --fw 2.42.5700 --roms hp544 --ddr 1 --ddr-size 0x100"
STOCK = "--chip cx3pro --ddr 1 --ddr-size 0x100"
BUNDLE = "cx3pro-HP_1380110017-0002c903000a1b20-20261202T060000Z"


def sha(b):
    return hashlib.sha256(b).hexdigest()


@pytest.fixture
def stick(images, tmp_path):
    """firmware/ with the HP image, a stock one, one without ROM and a bad file; data/backups/
    with one HP bundle (its flash.bin a zebra dump, slot 1), a half-made one and a damaged one."""
    fw = tmp_path / "fw"
    fw.mkdir()
    hp, m = images.make(HP, name="hp.bin", with_map=True)
    shutil.copy(hp, fw / "hp.bin")
    stock, sm = images.make(STOCK, name="stock.bin", with_map=True)
    shutil.copy(stock, fw / "stock.bin")
    shutil.copy(images.make("--no-rom --ddr 1 --ddr-size 0x100"), fw / "norom.bin")
    (fw / "bad.bin").write_bytes(b"not an image")
    backups = tmp_path / "data" / "backups"
    for name in (BUNDLE, ".cxflash-backup-abc123", "cx3-damaged"):
        (backups / name).mkdir(parents=True)
    dump = images.make(HP + " --dump 1", name="dump.bin")
    shutil.copy(dump, backups / BUNDLE / "flash.bin")
    shutil.copy(dump, backups / ".cxflash-backup-abc123" / "flash.bin")
    (backups / "cx3-damaged" / "flash.bin").write_bytes(b"\xff" * 4096)
    data = hp.read_bytes()
    roms = [data[m[f"rom_{i}"][0]:sum(m[f"rom_{i}"])] for i in range(3)]
    o, s = m["sect_ROM"]
    sd = stock.read_bytes()
    return {"fw": fw, "data": tmp_path / "data", "roms": roms, "section": data[o + 16:o + s - 4],
            "stock_rom": sd[sm["rom_0"][0]:sum(sm["rom_0"])], "hp": hp}


def rom(stick, *args, cwd=None):
    env_args = ["env", f"CXR_DATA={stick['data']}"]
    from conftest import CXFLASH_ASAN
    r = run(env_args + [CXFLASH_ASAN, "--firmware", stick["fw"], "rom", *args], cwd=cwd)
    assert "runtime error" not in r.stderr and "AddressSanitizer" not in r.stderr, r.stderr
    return r


def test_list_library_and_backups(stick):
    r = rom(stick, "list", "--json")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    got = [(x["rom"], x["type"], x["version"], x["devid"], x["checksum"], x["from"], x["path"].split("/")[-1])
           for x in j["roms"]]
    assert got == [
        ("1.1", "CLP", "8025", 4103, "ok", "library", "hp.bin"),
        ("1.2", "UEFI", "14.11.49", 4103, None, "library", "hp.bin"),
        ("1.3", "PXE", "3.4.754", 4103, "ok", "library", "hp.bin"),
        ("2.1", "PXE", "3.4.752", 4103, "ok", "library", "stock.bin"),
        ("3.1", "CLP", "8025", 4103, "ok", "backup", BUNDLE),
        ("3.2", "UEFI", "14.11.49", 4103, None, "backup", BUNDLE),
        ("3.3", "PXE", "3.4.754", 4103, "ok", "backup", BUNDLE),
    ]
    want = [sha(b) for b in stick["roms"]]
    assert [x["sha256"] for x in j["roms"]] == want + [sha(stick["stock_rom"])] + want
    assert [x["size"] for x in j["roms"][:3]] == [len(b) for b in stick["roms"]]
    assert j["roms"][0]["psid"] == "HP_1380110017" and j["roms"][0]["fw_version"] == "2.42.5700"
    assert j["roms"][0]["section_sha256"] == sha(stick["section"])
    assert j["skipped"] == 1                      # the damaged bundle; the hidden one is not looked at

    t = rom(stick, "list")
    assert t.returncode == 0
    lines = t.stdout.splitlines()
    assert lines[0].split() == ["ROM", "type", "version", "devid", "csum", "SHA-256", "from"]
    assert lines[2].split()[:6] == ["1.2", "UEFI", "14.11.49", "4103", "-", want[1]]
    assert lines[5].split()[6:] == ["backup", str(stick["data"] / "backups" / BUNDLE), "(HP_1380110017",
                                    "2.42.5700)"]
    assert lines[-1] == "3 images with a ROM, 1 skipped (unreadable, or a bad ROM section)"


def test_extract_by_name(stick, tmp_path):
    out = tmp_path / "uefi.rom"
    r = rom(stick, "extract", "3.2", out)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == stick["roms"][1]
    assert r.stdout.startswith(f"wrote {out}: {len(stick['roms'][1])} bytes, SHA-256 {sha(stick['roms'][1])}")
    q = mstflint("-i", out, "qrom")
    assert "type=UEFI version=14.11.49 cpu=AMD64" in q.stdout
    # N: the whole section, as rrom writes it
    r = rom(stick, "extract", "1", out, "--json")
    assert r.returncode == 0
    assert out.read_bytes() == stick["section"]
    j = json.loads(r.stdout)
    assert j["sha256"] == sha(stick["section"]) and [x["type"] for x in j["roms"]] == ["CLP", "UEFI", "PXE"]
    rr = tmp_path / "rrom.rom"
    assert cx("-i", stick["hp"], "rrom", rr).returncode == 0
    assert rr.read_bytes() == out.read_bytes()


def test_extract_from_a_file_or_bundle(stick, tmp_path):
    out = tmp_path / "x.rom"
    assert rom(stick, "extract", stick["fw"] / "hp.bin", out, "pxe").returncode == 0
    assert out.read_bytes() == stick["roms"][2]
    assert rom(stick, "extract", stick["data"] / "backups" / BUNDLE, out).returncode == 0
    assert out.read_bytes() == stick["section"]
    assert rom(stick, "extract", stick["data"] / "backups" / BUNDLE, out, "UEFI").returncode == 0
    assert out.read_bytes() == stick["roms"][1]


@pytest.mark.parametrize("args,code,msg", [
    (["extract", "9.1"], 5, "no ROM 9.1"),
    (["extract", "2.2"], 5, "no ROM 2.2"),
    (["extract", "0"], 2, "not a ROM name"),
    (["extract", "1."], 2, "not a ROM name"),
    (["extract", "1.0"], 2, "not a ROM name"),
    (["extract", "FW/norom.bin"], 5, "no ROM section"),
    (["extract", "FW/bad.bin"], 4, ""),
    (["extract", "FW/missing.bin"], 3, ""),
    (["extract", "FW/stock.bin", "OUT", "uefi"], 5, "has no uefi ROM"),
])
def test_extract_refusals(stick, tmp_path, args, code, msg):
    out = tmp_path / "out.rom"
    args = [str(a).replace("FW", str(stick["fw"])) for a in args]
    if "OUT" not in args:
        args.insert(2, str(out))
    args = [str(out) if a == "OUT" else a for a in args]
    r = rom(stick, *args)
    assert r.returncode == code, (args, r.stdout, r.stderr)
    assert msg in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert not out.exists()


@pytest.mark.parametrize("args", [[], ["lists"], ["list", "x"], ["extract", "1"]])
def test_usage(stick, args):
    r = rom(stick, *args)
    assert r.returncode == 2 and "usage" in r.stderr, r.stderr


def test_backup_dir_option_and_empty(stick, tmp_path):
    empty = tmp_path / "none"
    r = run([MKFS2, "--selftest"])
    assert r.returncode == 0
    from conftest import CXFLASH
    r = run([CXFLASH, "--firmware", empty, "--backup-dir", stick["data"] / "backups", "rom", "list", "--json"])
    assert r.returncode == 0, r.stderr
    assert [x["rom"] for x in json.loads(r.stdout)["roms"]] == ["1.1", "1.2", "1.3"]
    r = run([CXFLASH, "--firmware", empty, "--backup-dir", empty, "rom", "list"])
    assert r.returncode == 0 and r.stdout.splitlines()[-1] == "0 images with a ROM"
