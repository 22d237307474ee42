# SPDX-License-Identifier: GPL-2.0-or-later
"""cxflash on FS3/FS4 files (ConnectX-4 and later, read-only; fs3-format.md §9, §10): images
from the unit tests' own builder (build/host/fs3seed, burner/tests/fs3_builder.h), `v`,
`v showitoc` and `q full` beside Debian's mstflint 4.21 where it is installed, --json keys,
the refusals (exit 8, one line), and damaged or truncated files under ASan (exit 4, one line).

Known, intended difference: cxflash adds `devid=` and `checksum=` to the ROM line of q.
"""
import json
import re
import shutil

import pytest

from conftest import BUILD, cx, mstflint, run

FS3SEED = BUILD / "host" / "fs3seed"
KINDS = ["fs3", "fs3-olduids", "fs4", "fs4-hashes", "fs4-signed", "fs4-devkeys"]
HAVE_MSTFLINT = shutil.which("mstflint") is not None


@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    assert FS3SEED.exists(), f"{FS3SEED} is missing: run 'make check', which builds it"
    d = tmp_path_factory.mktemp("fs3")
    out = {}
    for k in KINDS + ["fs3-nooverride", "fs4-noini"]:
        p = d / f"{k}.bin"
        r = run([FS3SEED, k, p])
        assert r.returncode == 0, r.stderr
        out[k] = p
    return out


def damaged(seeds, tmp_path, kind, off, name="bad.bin"):
    data = bytearray(seeds[kind].read_bytes())
    data[off] ^= 0x40
    p = tmp_path / name
    p.write_bytes(bytes(data))
    return p


def one_line_error(r, code):
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cxflash: "), r.stderr
    return lines[0]


@pytest.mark.parametrize("kind", KINDS)
def test_verify_ok(seeds, kind):
    r = cx("-i", seeds[kind], "v", asan=True)
    assert r.returncode == 0, r.stderr
    assert f"{kind[:3].upper()} failsafe image" in r.stdout
    assert "-I- FW image verification succeeded. Image is bootable." in r.stdout


@pytest.mark.skipif(not HAVE_MSTFLINT, reason="mstflint not installed")
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("cmd", [["v"], ["v", "showitoc"]])
def test_verify_same_as_mstflint(seeds, kind, cmd):
    ours = cx("-i", seeds[kind], *cmd)
    theirs = mstflint("-i", seeds[kind], *cmd)
    assert theirs.returncode == 0, theirs.stdout + theirs.stderr
    assert ours.stdout == theirs.stdout


def normalise_rom(text):
    return re.sub(r" devid=\d+ checksum=\w+", "", text)


@pytest.mark.skipif(not HAVE_MSTFLINT, reason="mstflint not installed")
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("full", [[], ["full"]])
def test_query_same_as_mstflint(seeds, kind, full):
    ours = cx("-i", seeds[kind], "q", *full)
    theirs = mstflint("-i", seeds[kind], "q", *full)
    assert ours.returncode == 0, ours.stderr
    assert normalise_rom(ours.stdout) == theirs.stdout


def test_query_signed_attributes(seeds):
    r = cx("-i", seeds["fs4-signed"], "q", "full")
    assert "Security Attributes:   signed-fw" in r.stdout
    assert "Default Update Method: fw_ctrl" in r.stdout
    assert "Security Attributes:   signed-fw, dev" in cx("-i", seeds["fs4-devkeys"], "q").stdout
    r = cx("-i", seeds["fs4"], "q", "full")  # signed_fw set, but no signature sections: N/A
    assert "Security Attributes:   N/A" in r.stdout


def test_json_verify_and_query(seeds):
    v = json.loads(cx("-i", seeds["fs4"], "--json", "v").stdout)
    assert v["image_type"] == "FS4" and v["verdict"] == "ok"
    item = v["items"][0]
    assert set(item) == {"name", "start", "size", "result", "crc_stored", "crc_computed"}
    assert item["name"] == "HW_POINTERS" and item["result"] == "OK"
    assert any(i["name"] == "DEV_INFO" for i in v["items"])
    q = json.loads(cx("-i", seeds["fs3"], "--json", "q").stdout)
    assert q["image_type"] == "FS3" and q["fw_version"] == "14.32.1010"
    assert q["psid"] == "MT_2420110034" and q["hw_ids"] == [0x20b]
    assert q["guids"][0]["base"] == "98039b0300a1b2c0" and q["guids"][0]["count"] == 8
    assert q["macs"][0]["base"] == "98039ba1b2c0"
    assert q["vsd"] == "device vsd"
    assert q["security"] == {"mcc_en": True, "signed_fw": True, "secure_fw": False, "attributes": "N/A"}
    s = json.loads(cx("-i", seeds["fs4"], "--json", "v", "showitoc").stdout)
    assert len(s["toc_entries"]) == 11 and s["toc_entries"][-1]["toc"] == "DTOC"


def test_wrong_crcs_all_shown(seeds, tmp_path):
    data = bytearray(seeds["fs4"].read_bytes())
    for off in (0x5003, 0x6003, 0x1e005):  # MAIN_CODE, HW_MAIN_CFG (CRC in section), VPD_R0
        data[off] ^= 0x40
    p = tmp_path / "bad.bin"
    p.write_bytes(bytes(data))
    r = cx("-i", p, "v", asan=True)
    assert r.returncode == 4
    assert len(re.findall(r"wrong CRC \(exp:0x[0-9a-f]+, act:0x[0-9a-f]+\)", r.stdout)) == 3
    assert "FW image verification failed" in r.stderr
    if HAVE_MSTFLINT:
        theirs = mstflint("-i", p, "v")
        ours_lines = [l for l in r.stdout.splitlines() if l.startswith("     /")]
        their_lines = [l for l in theirs.stdout.splitlines() if l.startswith("     /")]
        # mstflint stops after the ITOC when one of its sections is wrong (fs3-format.md §3.2);
        # cxflash goes on through the DTOC: its lines start with mstflint's.
        assert ours_lines[:len(their_lines)] == their_lines
    j = json.loads(cx("-i", p, "--json", "v").stdout)
    assert j["verdict"] == "failed" and j["exit_code"] == 4
    assert sum(i["result"] == "wrong CRC" for i in j["items"]) == 3


@pytest.mark.skipif(not HAVE_MSTFLINT, reason="mstflint not installed")
@pytest.mark.parametrize("kind,offs", [
    ("fs3", (0x5003, 0x1e005, 0x1010)),   # MAIN_CODE, VPD_R0 (absolute), the ITOC header
    ("fs4", (0x1f010,)),                  # the DTOC header: mstflint stops there
    ("fs4", (0x1b003,)),                  # DEV_INFO's signature: no valid DEV_INFO left
    ("fs4", (0x1008,)),                   # BOOT2
])
def test_damaged_lines_start_like_mstflint(seeds, tmp_path, kind, offs):
    data = bytearray(seeds[kind].read_bytes())
    for off in offs:
        data[off] ^= 0x40
    p = tmp_path / "bad.bin"
    p.write_bytes(bytes(data))
    ours, theirs = cx("-i", p, "v", asan=True), mstflint("-i", p, "v")
    assert ours.returncode == 4 and theirs.returncode != 0
    one_line_error(ours, 4)
    mine = [l for l in ours.stdout.splitlines() if l.startswith("     /")]
    their = [l for l in theirs.stdout.splitlines() if l.startswith("     /")]
    assert their and mine[:len(their)] == their


def test_showitoc_checks_structures_not_sections(seeds, tmp_path):
    data = bytearray(seeds["fs4"].read_bytes())
    data[0x5003] ^= 0x40                       # MAIN_CODE: not checked under showitoc
    p = tmp_path / "sect.bin"
    p.write_bytes(bytes(data))
    assert cx("-i", p, "v", "showitoc").returncode == 0
    data[0x1008] ^= 0x40                       # BOOT2: checked
    p.write_bytes(bytes(data))
    one_line_error(cx("-i", p, "v", "showitoc", asan=True), 4)


def test_files_out(seeds, tmp_path):
    rom = tmp_path / "rom.bin"
    assert cx("-i", seeds["fs4"], "rrom", rom).returncode == 0
    assert rom.read_bytes() == seeds["fs4"].read_bytes()[0x8000:0x8400]
    r = cx("-i", seeds["fs3"], "dc")
    assert r.returncode == 0 and r.stdout.startswith("[PS_INFO]")
    if HAVE_MSTFLINT:
        assert r.stdout == mstflint("-i", seeds["fs3"], "dc").stdout
    r = cx("-i", seeds["fs4-noini"], "dc")
    assert one_line_error(r, 5)
    out = tmp_path / "ri.bin"
    assert cx("-i", seeds["fs4"], "ri", out).returncode == 0
    assert out.read_bytes() == seeds["fs4"].read_bytes()


def test_refusals(seeds, tmp_path):
    line = one_line_error(cx("-i", seeds["fs3-nooverride"], "sg", "--guid", "0x2c903000a1b2c", asan=True), 8)
    assert "guids override is not set, cannot set device guids" in line
    line = one_line_error(cx("-i", seeds["fs3"], "sg", "--guid", "0x2c903000a1b2c"), 8)
    assert "device data" in line
    line = one_line_error(cx("-i", seeds["fs4"], "sv", "--vsd", "x"), 8)
    assert "device data" in line
    line = one_line_error(cx("-i", seeds["fs4-signed"], "drom", "-o", tmp_path / "o.bin"), 8)
    assert "signed" in line
    line = one_line_error(cx("-i", seeds["fs3"], "brom", seeds["fs3"], "-o", tmp_path / "o.bin"), 8)
    assert not (tmp_path / "o.bin").exists()
    for argv in (["-d", "0000:01:00.0", "burn"], ["-d", "0000:01:00.0", "-y", "burn"]):
        line = one_line_error(cx("-i", seeds["fs4"], *argv, asan=True), 8)
        assert "read-only until card support lands" in line


def test_fs2_showitoc_is_a_usage_error(images):
    img = images.make("--chip cx3")
    one_line_error(cx("-i", img, "v", "showitoc"), 2)
    assert cx("-i", img, "v").returncode == 0


@pytest.mark.parametrize("cut", [0x20, 0x1010, 0x3030, 0x5100, 0x1f010])
def test_truncated_files_fail_in_one_line(seeds, tmp_path, cut):
    p = tmp_path / "cut.bin"
    p.write_bytes(seeds["fs4"].read_bytes()[:cut])
    r = cx("-i", p, "q", asan=True)
    assert r.returncode in (4,), r.stderr
    one_line_error(r, r.returncode)


def test_flash_dump_reads_like_a_file(seeds, tmp_path):
    img = seeds["fs4"].read_bytes()
    dump = bytearray(b"\xff" * 0x200000)
    dump[0x100000:0x100000 + len(img)] = img          # the image in slot 1
    dump[0x1a000:0x1f000] = img[0x1a000:0x1f000]      # device sections, absolute
    dump[-0x1000:] = img[-0x1000:]                    # the DTOC in the last 4 KiB
    p = tmp_path / "dump.bin"
    p.write_bytes(bytes(dump))
    r = cx("-i", p, "q", asan=True)
    assert r.returncode == 0, r.stderr
    assert "MT_0000000008" in r.stdout
    if HAVE_MSTFLINT:
        # mstflint 4.21 looks for the ITOC at the toc pointer without the image start
        # (Fs4Operations::IsEncryptedImage) and takes an image in slot 1 for encrypted.
        assert "Cannot verify an encrypted image" in mstflint("-i", p, "v").stdout
        dump[0:0x100000] = dump[0x100000:0x200000]   # the same image in slot 0
        dump[0x100000:0x100010] = b"\0" * 16           # slot 1's magic erased
        p.write_bytes(bytes(dump))
        assert mstflint("-i", p, "v").returncode == 0
        assert cx("-i", p, "v").returncode == 0
