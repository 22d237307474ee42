# SPDX-License-Identifier: GPL-2.0-or-later
"""Properties of what ships, and a README that tells the truth about it."""
import re
import struct

from conftest import CXFLASH, MKFS2, ROOT, cx, run

PT_DYNAMIC, PT_INTERP = 2, 3
EM_X86_64 = 62


def program_header_types(path):
    data = path.read_bytes()
    assert data[:4] == b"\x7fELF" and data[4] == 2, "not a 64-bit ELF file"
    machine = struct.unpack_from("<H", data, 18)[0]
    phoff = struct.unpack_from("<Q", data, 32)[0]
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    types = [struct.unpack_from("<I", data, phoff + i * phentsize)[0] for i in range(phnum)]
    return machine, types


def test_cxflash_is_static_x86_64():
    machine, types = program_header_types(CXFLASH)
    assert machine == EM_X86_64
    assert PT_INTERP not in types and PT_DYNAMIC not in types, "cxflash must be static"


def test_cxflash_is_stripped():
    r = run(["readelf", "-S", CXFLASH])
    assert r.returncode == 0 and ".symtab" not in r.stdout


def test_mkfs2_crc_selftest():
    r = run([MKFS2, "--selftest"])
    assert r.returncode == 0, r.stdout + r.stderr


def test_help_lists_every_command_and_readme_documents_it():
    out = cx("--help").stdout
    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r"^\s{2}(\w+)", out.split("commands:")[1], re.M)
    assert {"v", "q", "dc", "rrom", "sg", "sv", "extract"} <= set(commands)
    for c in commands:
        assert f"`{c}" in readme or f" {c} " in readme, f"README says nothing of {c}"


def test_manual_exit_codes_match_the_code():
    """The exit-code table moved from the README to the man page's EXIT STATUS (issue 28)."""
    header = (ROOT / "burner" / "util" / "status.h").read_text()
    codes = {int(v): n for n, v in re.findall(r"\b(CX_E\w+) = (\d+),", header)}
    page = (ROOT / "docs" / "cxflash.1").read_text()
    exit_status = page.split("\n.SH EXIT STATUS\n")[1].split("\n.SH ")[0]
    table = dict(re.findall(r"^\.B (\d+)\n\.B (CX_\w+)$", exit_status, re.M))
    assert {int(k): v for k, v in table.items()} == {0: "CX_OK", **codes}


def test_help_never_needs_an_image():
    for argv in (["help"], ["-h"], ["--help"], ["v", "--help"]):
        r = cx(*argv)
        assert r.returncode == 0 and "usage: cxflash" in r.stdout
