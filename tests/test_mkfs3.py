# SPDX-License-Identifier: GPL-2.0-or-later
"""mkfs3's synthetic FS3 (ConnectX-4/4 Lx) and FS4 (ConnectX-5/6) images against Debian's
mstflint 4.21: `v` passes, `q` shows the FW version, PSID, GUID and MAC asked for, `v` and
`v showitoc` list the sections mkfs3's --map lists, and every --damage gives the reaction
recorded in sim/mkfs3/README.md. Skips with a reason when mstflint is missing."""
import pathlib
import re
import shutil

import pytest

from conftest import BUILD, read_map, run

MKFS3 = BUILD / "host" / "mkfs3"
MSTFLINT = shutil.which("mstflint")

# What `v` calls a section when it differs from its type name (mstflint 4.21 fs3_ops.cpp).
V_NAME = {"NV_DATA0": "NV_DATA", "NV_DATA2": "NV_DATA"}
SECTION_TYPES = {
    "BOOT_CODE": 0x1, "MAIN_CODE": 0x3, "HW_BOOT_CFG": 0x8, "HW_MAIN_CFG": 0x9,
    "IMAGE_INFO": 0x10, "ROM_CODE": 0x18, "DBG_FW_INI": 0x30, "IMAGE_SIGNATURE_256": 0xa0,
    "PUBLIC_KEYS_2048": 0xa1, "IMAGE_SIGNATURE_512": 0xa3, "PUBLIC_KEYS_4096": 0xa4,
    "RSA_PUBLIC_KEY": 0xa6, "RSA_4096_SIGNATURES": 0xa7, "MFG_INFO": 0xe0, "DEV_INFO": 0xe1,
    "NV_DATA0": 0xe6, "NV_DATA2": 0xe4, "VPD_R0": 0xe3,
}
V_LINE = re.compile(r"/0x([0-9a-f]{8})-0x([0-9a-f]{8}) \(0x([0-9a-f]+)\)/ \((\w+)\) - (OK|CRC IGNORED)")


@pytest.fixture(scope="session", autouse=True)
def built():
    """Overrides conftest's: this file needs only mkfs3 (and mstflint, per test)."""
    assert MKFS3.exists(), f"{MKFS3} is missing: run 'make {MKFS3.relative_to(BUILD.parent)}'"


def need_mstflint():
    if not MSTFLINT:
        print("mstflint is not installed (Debian package mstflint 4.21): skipping")
        pytest.skip("mstflint is not installed (Debian package mstflint 4.21)")


def mkfs3(tmp_path, opts, name="img.bin"):
    out = tmp_path / name
    mapfile = tmp_path / (name + ".map")
    r = run([MKFS3, "-o", out, "--map", mapfile] + opts.split())
    assert r.returncode == 0, f"mkfs3 {opts}: {r.stderr}"
    assert "runtime error" not in r.stderr and "Sanitizer" not in r.stderr, r.stderr
    return out, read_map(mapfile)


def flint(img, *args):
    return run([MSTFLINT, "-i", img] + list(args))


def q_field(text, label):
    for line in text.splitlines():
        if line.startswith(label + ":"):
            return line.split(":", 1)[1].strip()
    return None


def map_sections(m, fs4=False):
    """(offset, size, v name) of each section the map lists, sorted by offset. On FS4 the
    second DEV_INFO is the failsafe spare, signature zeroed, which `v` does not list."""
    out = []
    for name, (off, size) in m.items():
        if fs4 and name == "sect_DEV_INFO_1":
            continue
        if name.startswith("sect_"):
            base = re.sub(r"_\d+$", "", name[5:]) if name[5:] not in SECTION_TYPES else name[5:]
            out.append((off, size, V_NAME.get(base, base)))
    return sorted(out)


def v_sections(text):
    """(offset, size, name) of each ITOC/DTOC section line of `v`, sorted by offset."""
    skip = {"BOOT2", "ITOC_HEADER", "DTOC_HEADER", "HW_POINTERS", "TOOLS_AREA", "HASHES_TABLE"}
    return sorted((int(a, 16), int(s, 16), n) for a, _, s, n, _ in V_LINE.findall(text) if n not in skip)


def v_structures(text):
    """name -> (offset, size) of the non-section lines of `v` (one HW_POINTERS line per entry)."""
    out = {}
    for a, _, size, name, _ in V_LINE.findall(text):
        if name in ("BOOT2", "ITOC_HEADER", "DTOC_HEADER", "TOOLS_AREA", "HASHES_TABLE"):
            out[name] = (int(a, 16), int(size, 16))
        elif name == "HW_POINTERS":
            out.setdefault(name, []).append(int(a, 16))
    return out


def map_structures(m, fs4):
    """The same, from the map: the TOC headers are the first 0x20 bytes of itoc/dtoc."""
    out = {"BOOT2": m["boot2"], "ITOC_HEADER": (m["itoc"][0], 0x20)}
    if fs4:
        out["DTOC_HEADER"] = (m["dtoc"][0], 0x20)
        out["TOOLS_AREA"] = m["tools_area"]
        out["HASHES_TABLE"] = m["hashes_table"]
        off, size = m["hw_pointers"]
        out["HW_POINTERS"] = list(range(off, off + size, 8))
    return out


# (chip, options, fw, psid, guid, mac): formats, chips, slot sizes, ROM or none, device
# sections, signature sections, INI and seeds all vary.
GOOD = [
    ("cx4", "", "12.28.2006", "MT_2190110032", 0x248a0703005a1b20, 0x248a075a1b20),
    ("cx4lx", "--fw 14.32.1010 --psid HP_2420110034 --guid 98039b0300a1b2c0 --mac 98039ba1b2c0",
     "14.32.1010", "HP_2420110034", 0x98039b0300a1b2c0, 0x98039ba1b2c0),
    ("cx4lx", "--no-rom --slot-log 20 --seed 7", "14.32.1010", "MT_2420110034", 0x248a0703005a1b20,
     0x248a075a1b20),
    ("cx4", "--signed --ini --slot-log 23 --dev-sections mfg,dev", "12.28.2006", "MT_2190110032",
     0x248a0703005a1b20, 0x248a075a1b20),
    ("cx4", "--rom-ver 3.5.901 --vsd SYNTH_VSD --psid DEL2180110032 --fw 12.27.1016", "12.27.1016",
     "DEL2180110032", 0x248a0703005a1b20, 0x248a075a1b20),
    ("cx5", "", "16.35.4030", "MT_0000000008", 0x248a0703005a1b20, 0x248a075a1b20),
    ("cx5", "--psid HPE0000000009 --fw 16.28.4000 --guid ec0d9a0300112230 --mac ec0d9a112230 --seed 3",
     "16.28.4000", "HPE0000000009", 0xec0d9a0300112230, 0xec0d9a112230),
    ("cx6", "--no-rom --signed --slot-log 24", "20.39.1002", "MT_0000000222", 0x248a0703005a1b20,
     0x248a075a1b20),
    ("cx6dx", "--signed --ini --dev-sections mfg,dev,vpd --seed 11", "22.39.1002", "MT_0000000359",
     0x248a0703005a1b20, 0x248a075a1b20),
    ("cx6lx", "--fw 26.36.1010 --slot-log 21 --dev-sections mfg,dev,nv", "26.36.1010",
     "MT_0000000531", 0x248a0703005a1b20, 0x248a075a1b20),
    ("cx4", "--format fs4", "12.28.2006", "MT_2190110032", 0x248a0703005a1b20, 0x248a075a1b20),
    ("cx5", "--format fs3 --signed", "16.35.4030", "MT_0000000008", 0x248a0703005a1b20,
     0x248a075a1b20),
]


@pytest.mark.parametrize("chip,opts,fw,psid,guid,mac", GOOD, ids=[f"{g[0]}-{i}" for i, g in enumerate(GOOD)])
def test_good_image(tmp_path, chip, opts, fw, psid, guid, mac):
    need_mstflint()
    img, m = mkfs3(tmp_path, f"--chip {chip} {opts}")
    fs4 = ("fs4" in opts) or (chip not in ("cx4", "cx4lx") and "fs3" not in opts)
    v = flint(img, "v")
    assert v.returncode == 0 and "Image is bootable" in v.stdout, v.stdout + v.stderr
    assert ("FS4 failsafe image" if fs4 else "FS3 failsafe image") in v.stdout
    assert v_sections(v.stdout) == map_sections(m, fs4), v.stdout
    assert ("sect_DEV_INFO_1" in m) == fs4
    assert v_structures(v.stdout) == map_structures(m, fs4), v.stdout
    q = flint(img, "q", "full")
    assert q.returncode == 0, q.stdout + q.stderr
    assert q_field(q.stdout, "Image type") == ("FS4" if fs4 else "FS3")
    assert q_field(q.stdout, "FW Version") == fw
    assert q_field(q.stdout, "PSID") == psid
    assert q_field(q.stdout, "Base GUID").split()[0] == f"{guid:016x}"
    assert q_field(q.stdout, "Base MAC").split()[0] == f"{mac:012x}"
    if "--no-rom" in opts:
        assert q_field(q.stdout, "Rom Info") is None
    else:
        want = re.search(r"--rom-ver (\S+)", opts)
        assert q_field(q.stdout, "Rom Info") == \
            f"type=PXE version={want.group(1) if want else '3.6.502'} proto=ETH cpu=AMD64"
    if "--vsd" in opts:
        assert q_field(q.stdout, "Image VSD") == "SYNTH_VSD"
        assert q_field(q.stdout, "Device VSD") == "SYNTH_VSD"


@pytest.mark.parametrize("chip", ["cx4lx", "cx5"])
def test_showitoc_lists_map(tmp_path, chip):
    """`v showitoc` dumps one entry per ITOC/DTOC entry the map lists, with its type."""
    need_mstflint()
    img, m = mkfs3(tmp_path, f"--chip {chip} --signed --ini")
    r = flint(img, "v", "showitoc")
    assert r.returncode == 0, r.stdout + r.stderr
    types = sorted(int(t, 16) for t in re.findall(r"^type\s*:\s*(0x[0-9a-f]+)", r.stdout, re.M))
    want = sorted(SECTION_TYPES[re.sub(r"_\d+$", "", n[5:]) if n[5:] not in SECTION_TYPES else n[5:]]
                  for n in m if n.startswith("sect_"))
    assert types == want
    entries = [n for n in m if re.match(r"[id]toc_entry_\d+$", n)]
    assert len(entries) == len(want)
    # Each dumped entry: flash_addr and size are in dwords; FS3 marks device data as absolute.
    dumped = []
    for block in r.stdout.split("========")[2::2]:
        f = dict(re.findall(r"^(\w+)\s*:\s*(0x[0-9a-f]+)", block, re.M))
        dumped.append((int(f["flash_addr"], 16) * 4, int(f["size"], 16) * 4, int(f["type"], 16)))
        if chip == "cx4lx":
            dev = int(f["type"], 16) >= 0xe0
            assert (f["relative_addr"], f["device_data"]) == (("0x0", "0x1") if dev else ("0x1", "0x0"))
    assert sorted(dumped) == sorted((off, size, SECTION_TYPES[re.sub(r"_\d+$", "", n[5:])
                                                              if n[5:] not in SECTION_TYPES else n[5:]])
                                    for n, (off, size) in m.items() if n.startswith("sect_"))


def hw_crc(data):
    """calc_hw_crc from its parameters alone, bit by bit: poly 0x100B reflected, init 0xFFFF,
    the first two bytes inverted, the result byte-swapped."""
    poly = int(f"{0x100B:016b}"[::-1], 2)
    crc = 0xFFFF
    for i, byte in enumerate(data):
        crc ^= byte ^ (0xFF if i < 2 else 0)
        for _ in range(8):
            crc = (crc >> 1) ^ poly if crc & 1 else crc >> 1
    return ((crc << 8) | (crc >> 8)) & 0xFFFF


@pytest.mark.parametrize("chip", ["cx5", "cx6lx"])
def test_hw_pointer_crcs(tmp_path, chip):
    """Every HW pointer's CRC dword, checked here without mstflint; blank ones are all-ones."""
    img, m = mkfs3(tmp_path, f"--chip {chip}")
    data = img.read_bytes()
    off, size = m["hw_pointers"]
    assert hw_crc(bytes(6)) == 0
    ptrs = {}
    for e in range(off, off + size, 8):
        ptr, crc = int.from_bytes(data[e:e + 4], "big"), int.from_bytes(data[e + 4:e + 8], "big")
        if ptr == 0xFFFFFFFF:
            assert crc == 0xFFFFFFFF
            continue
        assert crc == hw_crc(data[e:e + 6]), hex(e)
        ptrs[(e - off) // 8] = ptr
    # boot2, toc, tools, image_info, hashes_table (image_layout_hw_pointers_carmel order)
    assert ptrs == {1: m["boot2"][0], 2: m["itoc"][0], 3: m["tools_area"][0],
                    10: m["sect_IMAGE_INFO"][0], 15: m["hashes_table"][0]}


def test_selftest():
    r = run([MKFS3, "--selftest"])
    assert r.returncode == 0 and "selftest passed" in r.stdout, r.stdout
    assert "hw_crc table[1] 0x1ba1, reflected poly 0xd008" in r.stdout


def test_deterministic(tmp_path):
    a, _ = mkfs3(tmp_path, "--chip cx5 --seed 5", "a.bin")
    b, _ = mkfs3(tmp_path, "--chip cx5 --seed 5", "b.bin")
    c, _ = mkfs3(tmp_path, "--chip cx5 --seed 6", "c.bin")
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()


# (flags, what `q` says): mstflint shows the flags only when a signature section, a public
# keys section and mcc_en are all there (fs3_ops.cpp FsIntQueryAux resets security_mode).
SECURITY = [
    ("--signed-fw", "N/A", "Legacy"),
    ("--mcc-en --signed-fw", "N/A", "Legacy"),
    ("--signed --signed-fw", "N/A", "Legacy"),
    ("--signed --mcc-en", "N/A", "fw_ctrl"),
    ("--signed --mcc-en --signed-fw", "signed-fw", "fw_ctrl"),
    ("--signed --mcc-en --secure-fw", "secure-fw", "fw_ctrl"),
    ("--signed --mcc-en --signed-fw --secure-fw", "secure-fw", "fw_ctrl"),
]


@pytest.mark.parametrize("chip", ["cx4lx", "cx6dx"])
@pytest.mark.parametrize("flags,attrs,method", SECURITY)
def test_security_attributes(tmp_path, chip, flags, attrs, method):
    need_mstflint()
    img, _ = mkfs3(tmp_path, f"--chip {chip} {flags}")
    q = flint(img, "q", "full")     # the update method is in the full query only
    assert q.returncode == 0, q.stdout + q.stderr
    assert q_field(q.stdout, "Security Attributes") == attrs
    assert q_field(q.stdout, "Default Update Method") == method
    if chip == "cx6dx":
        assert q_field(q.stdout, "Security Ver") == "0"


@pytest.mark.parametrize("chip", ["cx4", "cx5"])
def test_ini_dump_configuration(tmp_path, chip):
    need_mstflint()
    img, _ = mkfs3(tmp_path, f"--chip {chip} --ini --psid MT_SYNTH00001")
    out = tmp_path / "conf.ini"
    r = flint(img, "dc", out)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PSID = MT_SYNTH00001" in out.read_text()


@pytest.mark.parametrize("chip,slot", [("cx4lx", 0), ("cx4lx", 1), ("cx5", 0), ("cx6dx", 0)])
def test_dump(tmp_path, chip, slot):
    """A whole 8 MiB flash: the image in a slot, device data at the top (DTOC last)."""
    need_mstflint()
    img, m = mkfs3(tmp_path, f"--chip {chip} --dump --dump-slot {slot} --flash-size 0x800000 --slot-log 21")
    assert img.stat().st_size == 0x800000
    assert m[f"dump_slot_{slot}"] == (slot << 21, 1 << 21)
    v = flint(img, "v")
    assert v.returncode == 0 and "Image is bootable" in v.stdout, v.stdout
    assert v_sections(v.stdout) == map_sections(m, chip != "cx4lx")
    assert m["sect_DEV_INFO"][0] >= 0x400000
    q = flint(img, "q")
    assert q_field(q.stdout, "Base GUID").split()[0] == "248a0703005a1b20"


@pytest.mark.parametrize("chip,size", [("cx5", 16 << 20), ("cx6dx", 32 << 20), ("cx6lx", 16 << 20)])
def test_fs4_file_is_flash_sized(tmp_path, chip, size):
    """An FS4 file is the flash's size (RestoreDevToc: 16 MiB for a ConnectX-5, 32 MiB for
    the others; --flash-size overrides), the same bytes as a slot-0 dump, its device data and
    DTOC inside the top slot-sized area, where CheckFs4ImgSize wants them for a burn."""
    need_mstflint()
    opts = f"--chip {chip} --slot-log 20" + (" --flash-size 0x1000000" if chip == "cx6lx" else "")
    img, m = mkfs3(tmp_path, opts)
    dump, _ = mkfs3(tmp_path, opts + " --dump --dump-slot 0", "dump.bin")
    assert img.stat().st_size == size and img.read_bytes() == dump.read_bytes()
    assert m["dtoc"][0] == size - 0x1000
    dev = [off for name, (off, _) in m.items() if name.startswith("sect_") and off >= 1 << 20]
    assert len(dev) == 6 and min(dev) >= size - (1 << 20)
    data = img.read_bytes()
    assert set(data[0x20000:min(dev)]) == {0xFF}      # erased between image and device data
    v = flint(img, "v")
    assert v.returncode == 0 and "Image is bootable" in v.stdout, v.stdout


def test_fs4_dev_after_image(tmp_path):
    """--dev-after-image: the old small FS4 file, device data and DTOC right after the image;
    mstflint verifies it (CheckFs4ImgSize only matters when burning its device data)."""
    need_mstflint()
    img, m = mkfs3(tmp_path, "--chip cx5 --no-rom --slot-log 20 --dev-after-image")
    size = img.stat().st_size
    assert size < 1 << 20 and m["dtoc"][0] == size - 0x1000
    assert m["sect_MFG_INFO"][0] < 1 << 20
    v = flint(img, "v")
    assert v.returncode == 0 and "Image is bootable" in v.stdout, v.stdout


def test_dump_fs4_slot1_taken_for_encrypted(tmp_path):
    """mstflint 4.21 reads an FS4 file's ITOC at toc_ptr without the slot's start
    (Fs4Operations::IsEncryptedImage), finds erased flash there and calls it encrypted."""
    need_mstflint()
    img, _ = mkfs3(tmp_path, "--chip cx5 --dump --dump-slot 1 --flash-size 0x800000 --slot-log 21")
    v = flint(img, "v")
    assert v.returncode == 1 and "Cannot verify an encrypted image" in v.stdout + v.stderr


# (damage, chip, exit status of `v`, a line it prints): what mstflint 4.21 does.
DAMAGES = [
    ("crc:IMAGE_INFO", "cx4lx", 1, "(IMAGE_INFO) /0x"), ("crc:IMAGE_INFO", "cx5", 1, "(IMAGE_INFO) /0x"),
    ("crc:MAIN_CODE", "cx4lx", 1, "(MAIN_CODE) /0x"), ("crc:MAIN_CODE", "cx5", 1, "(MAIN_CODE) /0x"),
    ("crc:DEV_INFO", "cx4lx", 1, "(DEV_INFO) /0x"),
    ("crc:DEV_INFO", "cx5", 1, 'No "DEV_INFO" info section.'),
    ("crc:MFG_INFO", "cx4lx", 1, "(MFG_INFO) /0x"), ("crc:MFG_INFO", "cx5", 1, "(MFG_INFO) /0x"),
    ("crc:ROM_CODE", "cx4", 1, "(ROM_CODE) /0x"), ("crc:VPD_R0", "cx6", 1, "(VPD_R0) /0x"),
    ("itoc-hdr-crc", "cx4lx", 1, "(ITOC_HEADER) /0x"),
    ("itoc-hdr-crc", "cx5", 1, "No valid ITOC Header was found."),
    ("itoc-entry-crc", "cx4lx", 1, "Bad Itoc Entry CRC. Expected:"),
    ("itoc-entry-crc", "cx5", 1, "Bad IToc Entry CRC. Expected:"),
    ("no-mfg", "cx4lx", 1, 'No "MFG_INFO" info section.'),
    ("no-mfg", "cx5", 1, 'No "MFG_INFO" info section.'),
    ("dtoc-place", "cx5", 1, "No valid DTOC Header was found."),
    ("itoc-trunc", "cx4lx", 1, "Bad Itoc Entry CRC. Expected: 0x0 ,"),
    ("itoc-trunc", "cx5", 1, "Bad IToc Entry CRC. Expected: 0x0 ,"),
    ("too-many", "cx4lx", 1, "Internal error: number of ITOCs 64 is greater than allowed 64"),
    ("too-many", "cx5", 1, "Internal error: number of ITocs 64 is greater than allowed 64"),
    ("hw-ptr-crc", "cx5", 1, "initHwPtrs: HW pointers not found."),
    ("tools-crc", "cx5", 1, "(TOOLS_AREA) /0x"),
    ("hashes-crc", "cx6dx", 1, "(HASHES_TABLE) /0x"),
    ("hashes-hdr-crc", "cx5", 1, "HASHES TABLE HEADER /0x00002008/ - wrong CRC"),
    ("two-dev-info", "cx4lx", 0, "Image is bootable"),   # FS3 does not count DEV_INFOs
    ("two-dev-info", "cx5", 1, 'Two "DEV_INFO" info sections.'),
    ("trunc-file", "cx4lx", 1, "is out of image limits"),
    ("trunc-file", "cx5", 1, "is out of image limits"),
]


@pytest.mark.parametrize("damage,chip,rc,line", DAMAGES, ids=[f"{d[0]}-{d[1]}" for d in DAMAGES])
def test_damage(tmp_path, damage, chip, rc, line):
    need_mstflint()
    img, m = mkfs3(tmp_path, f"--chip {chip} --damage {damage}")
    v = flint(img, "v")
    out = v.stdout + v.stderr
    assert v.returncode == rc, out
    assert line in out, out
    if damage.startswith("crc:") and rc == 1:
        assert "wrong CRC (exp:" in out and "Bad CRC" in out or "DEV_INFO" in out


@pytest.mark.parametrize("opts", [
    "--chip cx9", "--format fs5", "--fw 1.2", "--fw 1.2.70000", "--psid 12345678901234567",
    "--slot-log 30", "--slot-log 16", "--damage nothing", "--damage crc:NOPE",
    "--damage hw-ptr-crc --chip cx4", "--chip cx4lx --damage dtoc-place", "--dev-sections mfg,foo",
    "--mac 1000000000000", "--guid xyz", "--hw-ids 1,2,3,4,5", "--flash-size 0x1001", "--dump-slot 2",
    "--dump-slot both", "--chip cx4lx --dev-after-image", "--chip cx5 --dump --dev-after-image",
])
def test_usage_errors(tmp_path, opts):
    r = run([MKFS3, "-o", tmp_path / "x.bin"] + opts.split())
    assert r.returncode == 2, (opts, r.stderr)
    assert "usage: mkfs3" in r.stderr
    assert not (tmp_path / "x.bin").exists()


def test_no_output_is_usage_error():
    r = run([MKFS3, "--chip", "cx5"])
    assert r.returncode == 2 and "-o OUT is required" in r.stderr


@pytest.mark.parametrize("dump", [["--dump"], []])
def test_dump_too_small(tmp_path, dump):
    """Two 4 MiB slots (a dump), or one (an FS4 file), and the device data need more."""
    r = run([MKFS3, "-o", tmp_path / "x.bin", "--chip", "cx5", "--flash-size",
             "0x800000" if dump else "0x400000"] + dump)
    assert r.returncode == 1 and "do not fit" in r.stderr


def test_unknown_hw_id_fails_query(tmp_path):
    """supported_hw_id[0] names the chip: one mstflint does not know fails IMAGE_INFO."""
    need_mstflint()
    img, _ = mkfs3(tmp_path, "--chip cx5 --hw-ids 0x999")
    v = flint(img, "v")
    assert v.returncode == 1 and "check the supported_hw_id section" in v.stdout + v.stderr


@pytest.mark.parametrize("chip,sections,rc,line", [
    ("cx4", "mfg", 0, "Image is bootable"), ("cx4", "dev", 1, 'No "MFG_INFO" info section.'),
    ("cx6", "mfg", 1, 'No "DEV_INFO" info section.'), ("cx6", "none", 1, 'No "MFG_INFO" info section.'),
    ("cx6", "mfg,dev", 0, "Image is bootable"),
])
def test_dev_sections(tmp_path, chip, sections, rc, line):
    need_mstflint()
    img, _ = mkfs3(tmp_path, f"--chip {chip} --dev-sections {sections}")
    v = flint(img, "v")
    assert v.returncode == rc and line in v.stdout + v.stderr, v.stdout + v.stderr


def test_fs3_mfg_only_query(tmp_path):
    """Without DEV_INFO, FS3 `q` shows the MFG_INFO GUIDs as "Orig" ones, ConnectX-IB style."""
    need_mstflint()
    img, _ = mkfs3(tmp_path, "--chip cx4 --dev-sections mfg")
    q = flint(img, "q")
    assert q.returncode == 0
    assert q_field(q.stdout, "Base GUID1").startswith("N/A")
    assert q_field(q.stdout, "Orig Base GUID1").split()[0] == "248a0703005a1b20"


def test_readme_lists_every_damage():
    text = (pathlib.Path(__file__).resolve().parent.parent / "sim" / "mkfs3" / "README.md").read_text()
    for damage, *_ in DAMAGES:
        assert f"`{damage.split(':')[0] if damage.startswith('crc:') else damage}" in text, damage


@pytest.mark.parametrize("chip", ["cx4lx", "cx5", "cx6dx"])
def test_set_guids_needs_override(tmp_path, chip):
    """`sg` on a file needs MFG_INFO guids_override_en; on FS4 it writes the spare DEV_INFO
    (in-section CRC, no DTOC change) and zeroes the old one's signature, so it works twice."""
    need_mstflint()
    img, _ = mkfs3(tmp_path, f"--chip {chip}", "plain.bin")
    r = flint(img, "-uid", "0x1122334455667788", "sg")
    assert r.returncode != 0 and "guids override is not set" in r.stdout + r.stderr
    img, _ = mkfs3(tmp_path, f"--chip {chip} --guids-override", "override.bin")
    for guid in ("1122334455667788", "99aabbccddeeff00"):
        r = flint(img, "-uid", "0x" + guid, "sg")
        assert r.returncode == 0, r.stdout + r.stderr
        q = flint(img, "q")
        assert q_field(q.stdout, "Base GUID").split()[0] == guid
        assert q_field(q.stdout, "Orig Base GUID").split()[0] == "248a0703005a1b20"
        assert flint(img, "v").returncode == 0


@pytest.mark.parametrize("chip", ["cx4", "cx6lx"])
def test_set_vsd(tmp_path, chip):
    need_mstflint()
    img, _ = mkfs3(tmp_path, f"--chip {chip}")
    r = flint(img, "-vsd", "NEWVSD", "sv")
    assert r.returncode == 0, r.stdout + r.stderr
    q = flint(img, "q")
    assert q_field(q.stdout, "Device VSD") == "NEWVSD"
    assert flint(img, "v").returncode == 0


@pytest.mark.parametrize("chip,rc,line", [
    ("cx4lx", 0, "Image is bootable"), ("cx5", 1, "More than one FS4 image found on image"),
])
def test_dump_both_slots(tmp_path, chip, rc, line):
    """The same image in both slots: FS3 takes the first, FS4 refuses two."""
    need_mstflint()
    img, m = mkfs3(tmp_path, f"--chip {chip} --dump --dump-slot both --flash-size 0x800000 --slot-log 21")
    assert m["dump_slot_1"] == (1 << 21, 1 << 21)
    data = img.read_bytes()
    assert data[:1 << 21] == data[1 << 21:2 << 21]
    v = flint(img, "v")
    assert v.returncode == rc and line in v.stdout + v.stderr, v.stdout + v.stderr


def test_fs3_two_dev_info_last_wins(tmp_path):
    """FS3 does not count DEV_INFOs: `v` passes and `q` shows the later one (GUIDs + 0x100)."""
    need_mstflint()
    img, _ = mkfs3(tmp_path, "--chip cx4 --damage two-dev-info")
    q = flint(img, "q")
    assert q.returncode == 0
    assert q_field(q.stdout, "Base GUID").split()[0] == "248a0703005a1c20"
    assert q_field(q.stdout, "Orig Base GUID").split()[0] == "248a0703005a1b20"
