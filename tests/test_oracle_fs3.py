# SPDX-License-Identifier: GPL-2.0-or-later
"""cxflash against Debian's mstflint 4.21 on FS3 and FS4 files (ConnectX-4 to 6 Lx) that mkfs3
makes, good ones and every damage mkfs3 knows: `v`, `v showitoc`, `q` and `q full` must agree
line by line, and `--json q` must say what the text says (fs3-format.md §10).

The two sides share nothing: mkfs3 (sim/mkfs3) and cxflash's parser (burner/image/fs3*.c) were
written apart from mstflint's source, each by its own reading. Known, intended differences,
normalised here and listed in cxflash(1), DIFFERENCES FROM FLINT: cxflash adds `devid=` and
`checksum=` to the ROM line. Skips with a reason when mstflint is missing."""
import json
import shutil

import pytest

from conftest import BUILD, cx, run

MKFS3 = BUILD / "host" / "mkfs3"
MSTFLINT = shutil.which("mstflint")

# Good files: every chip at its own format, the other format, each option that changes
# what v or q prints, and whole-flash dumps (both slots and the device data).
GOOD = {
    "cx4": "--chip cx4",
    "cx4lx-hp": "--chip cx4lx --psid HP_2420110034 --guid 0002c90300a0b0c0 --mac 0002c9a0b0c0",
    "cx5": "--chip cx5 --fw 16.35.4030",
    "cx6": "--chip cx6",
    "cx6dx": "--chip cx6dx",
    "cx6lx": "--chip cx6lx",
    "cx4lx-norom": "--chip cx4lx --no-rom --seed 3",
    "cx5-vsd": "--chip cx5 --vsd hello-vsd --psid MT_0000000008",
    "cx4-signed-fw": "--chip cx4 --signed --mcc-en --signed-fw",
    "cx5-secure-fw": "--chip cx5 --signed --mcc-en --signed-fw --secure-fw",
    "cx6dx-signed": "--chip cx6dx --signed --seed 9",
    "cx4lx-mfg-only": "--chip cx4lx --dev-sections mfg",
    "cx5-no-nv-vpd": "--chip cx5 --dev-sections mfg,dev",
    "cx5-ini": "--chip cx5 --ini",
    "cx4lx-slot22": "--chip cx4lx --slot-log 22",
    "cx4-as-fs4": "--chip cx4 --format fs4",
    "cx5-as-fs3": "--chip cx5 --format fs3",
    "cx4lx-override": "--chip cx4lx --guids-override --rom-ver 3.5.901",
    "cx4lx-dump0": "--chip cx4lx --dump --flash-size 0x1000000",
    "cx4lx-dump1": "--chip cx4lx --dump --dump-slot 1 --flash-size 0x1000000",
    "cx4-dump-both": "--chip cx4 --dump --dump-slot both --flash-size 0x800000",
    "cx5-dump0": "--chip cx5 --dump --flash-size 0x1000000",
}

# Every damage, on each format that has it (sim/mkfs3/README.md).
BOTH = ["crc:IMAGE_INFO", "crc:MAIN_CODE", "crc:BOOT_CODE", "crc:DEV_INFO", "crc:MFG_INFO",
        "crc:ROM_CODE", "itoc-hdr-crc", "itoc-entry-crc", "no-mfg", "itoc-trunc", "too-many",
        "two-dev-info", "trunc-file"]
FS4_ONLY = ["dtoc-place", "hw-ptr-crc", "tools-crc", "hashes-crc", "hashes-hdr-crc"]
DAMAGED = {f"cx4lx-{d}": f"--chip cx4lx --damage {d}" for d in BOTH}
DAMAGED.update({f"cx5-{d}": f"--chip cx5 --damage {d}" for d in BOTH + FS4_ONLY})
ALL = {**GOOD, **DAMAGED}

# Where cxflash knowingly departs from mstflint 4.21 (cxflash(1), DIFFERENCES FROM FLINT;
# fs3-format.md §10): `v showitoc` judges as `v` does, so an FS4 file with two DEV_INFO
# sections fails it (mstflint's showitoc skips that count), and a file that ends inside a
# section fails it (mstflint's showitoc reads no section, lists the entries past the end,
# and an FS3 one passes).


@pytest.fixture(scope="module", autouse=True)
def need_mstflint():
    if not MSTFLINT:
        print("mstflint is not installed (Debian package mstflint 4.21): skipping")
        pytest.skip("mstflint is not installed (Debian package mstflint 4.21)")
    assert MKFS3.exists(), f"{MKFS3} is missing: run 'make check', which builds it"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """name -> path, made once per module (mkfs3 is deterministic)."""
    folder = tmp_path_factory.mktemp("fs3")
    made = {}

    def make(name):
        if name not in made:
            out = folder / f"{name.replace(':', '_')}.bin"
            r = run([MKFS3, "-o", out] + ALL[name].split())
            assert r.returncode == 0, f"mkfs3 {ALL[name]}: {r.stderr}"
            made[name] = out
        return made[name]
    return make


def flint(img, *args):
    return run([MSTFLINT, "-i", img] + list(args))


def item_lines(text):
    return [l for l in text.splitlines() if l.startswith("     /0x")]


def boot2_as_flint(lines, name):
    """mstflint 4.21 prints BOOT2's address without the slot's start (0x38 for an image in
    slot 1 at 0x200000, where cxflash says 0x200038): fs3-format.md §8, a departure."""
    if "dump1" not in name:
        return lines
    slot = 1 << 21   # --slot-log default for FS3 (sim/mkfs3/README.md)
    return [l.replace(l[6:27], "0x%08x-0x%08x" % (int(l[8:16], 16) - slot, int(l[19:27], 16) - slot))
            if l.endswith("(BOOT2) - OK") else l for l in lines]


def flint_items(a_text, b_text, name):
    """cxflash's item lines as mstflint would print them. mstflint's FS4 verify stops at the
    first bad CRC, or prints nothing when its HW pointers are bad; cxflash shows every item
    (fs3-format.md §10, a departure): on a damaged FS4 file mstflint's lines are the first
    of cxflash's."""
    a, b = boot2_as_flint(item_lines(a_text), name), item_lines(b_text)
    if name in DAMAGED and "fs4" in fmt_of(name):
        return a[:len(b)]
    return a


def fmt_of(name):
    opts = ALL[name]
    if "--format fs4" in opts or ("--format fs3" not in opts and "--chip cx4" not in opts):
        return "fs4"
    return "fs3"


def q_lines(text):
    """q's lines, with cxflash's additions to the ROM line taken off."""
    out = []
    for line in text.splitlines():
        if line.startswith("Rom Info:"):
            line = line.split(" devid=")[0]
        if line.strip():
            out.append(line.rstrip())
    return out


@pytest.mark.parametrize("name", list(ALL))
def test_verify_agrees(files, name):
    img = files(name)
    a, b = cx("-i", img, "v"), flint(img, "v")
    assert flint_items(a.stdout, b.stdout, name) == item_lines(b.stdout), a.stdout + a.stderr + "\n---\n" + b.stdout
    assert (a.returncode == 0) == (b.returncode == 0), (a.returncode, a.stderr, b.stdout)
    if name in GOOD:
        assert a.returncode == 0 and "Image is bootable" in a.stdout and item_lines(a.stdout)
    elif b.returncode == 0:
        # A damage neither notices: FS3 counts no DEV_INFO (sim/mkfs3/README.md); q shows
        # the later one, on both sides (test_query_agrees).
        assert name == "cx4lx-two-dev-info" and a.returncode == 0
    else:
        # One line saying what is wrong, exit 4 (malformed or a wrong CRC).
        assert a.returncode == 4 and a.stderr.count("\n") == 1, (a.returncode, a.stderr)


@pytest.mark.parametrize("name", list(ALL))
def test_showitoc_agrees(files, name):
    img = files(name)
    a, b = cx("-i", img, "v", "showitoc"), flint(img, "v", "showitoc")
    if name == "cx5-two-dev-info":
        assert b.returncode == 0 and a.returncode == 4 and 'two "DEV_INFO" info sections' in a.stderr
        return
    if "trunc-file" in name:
        # showitoc reads no section, so mstflint lists the entries past the file's end
        # before it fails; cxflash stops at the first (its parse bounds every section).
        ours, theirs = item_lines(a.stdout), item_lines(b.stdout)
        assert a.returncode == 4 and ours and theirs[:len(ours)] == ours
        assert "runs past the end of the file" in a.stderr
        return
    assert (a.returncode == 0) == (b.returncode == 0), (a.stderr, b.stdout)
    if name in GOOD and "dump1" not in name:
        assert a.stdout == b.stdout
        assert "itoc_entry_crc" in a.stdout
    else:
        assert flint_items(a.stdout, b.stdout, name) == item_lines(b.stdout), a.stdout + "\n---\n" + b.stdout


@pytest.mark.parametrize("full", [False, True], ids=["q", "q-full"])
@pytest.mark.parametrize("name", list(ALL))
def test_query_agrees(files, name, full):
    img = files(name)
    args = ["q", "full"] if full else ["q"]
    a, b = cx("-i", img, *args), flint(img, *args)
    assert (a.returncode == 0) == (b.returncode == 0), (a.returncode, a.stderr, b.stdout)
    if b.returncode == 0:
        assert q_lines(a.stdout) == q_lines(b.stdout), a.stdout + "\n---\n" + b.stdout
        assert any(l.startswith("PSID:") for l in q_lines(a.stdout))


@pytest.mark.parametrize("name", list(GOOD))
def test_query_json_matches_text(files, name):
    img = files(name)
    text = {l.split(":", 1)[0]: l.split(":", 1)[1].strip()
            for l in q_lines(flint(img, "q").stdout) if ":" in l}
    r = cx("-i", img, "--json", "q")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["image_type"] == text["Image type"]
    assert j["fw_version"] == text["FW Version"]
    assert j["psid"] == text["PSID"]
    if "Base GUID" in text:
        assert text["Base GUID"].split()[0] == j["guids"][0]["base"]
        assert text["Base MAC"].split()[0] == j["macs"][0]["base"]
    sec = j["security"]
    assert sec["attributes"] == text["Security Attributes"]
    assert ("secure-fw" in text["Security Attributes"]) == sec["secure_fw"] or sec["attributes"] == "N/A"


def test_counts(files):
    """What this file covers, for the note: every good file and every damage of both formats."""
    fs3 = [n for n in ALL if "cx4" in n and "as-fs4" not in n or "as-fs3" in n]
    assert len(GOOD) == 22 and len(DAMAGED) == 31
    assert len(fs3) > 10 and len(ALL) - len(fs3) > 10


@pytest.mark.parametrize("name", ["cx5-ini", "cx4lx-hp", "cx4-signed-fw", "cx5-dump0", "cx4lx-dump1"])
def test_rrom_ri_dc_agree(files, name, tmp_path):
    """The ROM rrom writes and dc's .ini are mstflint's own; the image ri writes (mstflint's
    ri takes only a card) verifies with mstflint and shows what the file shows."""
    img = files(name)
    ours, theirs = tmp_path / "rom.cx", tmp_path / "rom.mst"
    a, b = cx("-i", img, "rrom", ours), flint(img, "rrom", theirs)
    assert a.returncode == 0 and b.returncode == 0, (a.stderr, b.stdout)
    assert ours.read_bytes() == theirs.read_bytes() and ours.read_bytes()[:2] == b"\x55\xaa"
    out = tmp_path / "ri.bin"
    assert cx("-i", img, "ri", out).returncode == 0
    v = flint(out, "v")
    assert v.returncode == 0 and "Image is bootable" in v.stdout, v.stdout
    assert q_lines(flint(out, "q").stdout) == q_lines(flint(img, "q").stdout)
    if "dump" not in name:
        assert out.read_bytes() == img.read_bytes()[:out.stat().st_size]
    a, b = cx("-i", img, "dc"), flint(img, "dc")
    assert (a.returncode == 0) == (b.returncode == 0), (a.stderr, b.stdout)
    if "ini" in name:
        assert a.returncode == 0 and a.stdout.strip() == b.stdout.strip() and "[" in a.stdout
    else:
        assert a.returncode == 5 and "no DBG_FW_INI" in a.stderr
