# SPDX-License-Identifier: GPL-2.0-or-later
"""Shared fixtures for cxrescue's host tests: where the binaries are, how to make
synthetic images with mkfs2, how to run cxflash and mstflint."""
import hashlib
import os
import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
BUILD = ROOT / os.environ.get("CXR_BUILD", "build")
CXFLASH = ROOT / "burner" / "cxflash"          # the shipped static binary
CXFLASH_ASAN = BUILD / "asan" / "cxflash"      # the same code under ASan/UBSan
MKFS2 = BUILD / "host" / "mkfs2"

SANITIZER_MARKS = ("ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer")


def run(argv, stdin=subprocess.DEVNULL, timeout=120, **kw):
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True,
                          errors="replace", stdin=stdin, timeout=timeout, **kw)


def make_check_runs():
    """The targets `make check` runs before its tests, in order: the prerequisites of its
    `check:` line, with check-static's own put in its place (the Makefile groups the
    checks that take no build under it)."""
    makefile = (ROOT / "Makefile").read_text()
    rule = {m.group(1): m.group(2).split() for m in re.finditer(r"^([\w-]+):(.*)$", makefile, re.M)}
    return [t for dep in rule["check"] for t in (rule[dep] if dep == "check-static" else [dep])]


def sha256(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


class Images:
    """Makes synthetic images in a temporary folder, by mkfs2 option strings."""

    def __init__(self, folder):
        self.folder = pathlib.Path(folder)
        self.n = 0

    def make(self, opts="", name=None, with_map=False):
        self.n += 1
        out = self.folder / (name or f"img{self.n}.bin")
        argv = [MKFS2, "-o", out] + opts.split()
        mapfile = None
        if with_map:
            mapfile = out.with_suffix(".map")
            argv += ["--map", mapfile]
        r = run(argv)
        assert r.returncode == 0, f"mkfs2 {opts} failed: {r.stderr}"
        if with_map:
            return out, read_map(mapfile)
        return out


def read_map(path):
    """mkfs2 --map: name -> (offset, size)."""
    m = {}
    for line in pathlib.Path(path).read_text().splitlines():
        name, off, size = line.split()
        m[name] = (int(off, 16), int(size, 16))
    return m


@pytest.fixture
def images(tmp_path):
    return Images(tmp_path)


@pytest.fixture(scope="session", autouse=True)
def private_lock_dir(tmp_path_factory):
    """cxflash flocks mstflint's lock file for the card's address (/tmp/mstflint_lockfiles,
    hw-access.md §2.3). Every simulated tree names its first card 0000:01:00.0, so two pytest
    workers, each with its own card, shared one lock file and one could wait past cxflash's
    5 s limit (exit 13) on a loaded machine. Each worker gets its own folder; tests that
    contend on purpose set CXFLASH_LOCK_DIR themselves, and mstflint runs in a namespace
    of its own (scripts/mstflint-ns)."""
    d = tmp_path_factory.mktemp("mstflint_lockfiles")
    old = os.environ.get("CXFLASH_LOCK_DIR")
    os.environ["CXFLASH_LOCK_DIR"] = str(d)
    yield d
    if old is None:
        os.environ.pop("CXFLASH_LOCK_DIR", None)
    else:
        os.environ["CXFLASH_LOCK_DIR"] = old


@pytest.fixture(scope="session", autouse=True)
def built():
    for p in (CXFLASH, CXFLASH_ASAN, MKFS2):
        assert p.exists(), f"{p} is missing: run 'make check', which builds it"


def cx(*args, asan=False, stdin=subprocess.DEVNULL):
    r = run([CXFLASH_ASAN if asan else CXFLASH] + list(args), stdin=stdin)
    for mark in SANITIZER_MARKS:
        assert mark not in r.stderr, f"sanitizer report for cxflash {args}:\n{r.stderr}"
    return r


def mstflint(*args, stdin=subprocess.DEVNULL):
    return run(["mstflint"] + list(args), stdin=stdin)


def crc16_dwords(data):
    """The FS2 CRC16 of fs2-format.md §2.1, written independently of the burner:
    poly 0x100B, init 0xFFFF, big-endian dwords MSB first, 16 zero bits, xor 0xFFFF."""
    crc = 0xFFFF
    bits = []
    for i in range(0, len(data) - len(data) % 4, 4):
        dw = int.from_bytes(data[i:i + 4], "big")
        bits.extend((dw >> b) & 1 for b in range(31, -1, -1))
    bits.extend([0] * 16)
    for bit in bits:
        top = crc & 0x8000
        crc = ((crc << 1) | bit) & 0xFFFF
        if top:
            crc ^= 0x100B
    return crc ^ 0xFFFF


def fix_section_crc(buf, off, size):
    """Recompute the CRC dword of the section that occupies [off, off+size)."""
    buf[off + size - 4:off + size] = crc16_dwords(bytes(buf[off:off + size - 4])).to_bytes(4, "big")


def fix_full_crc(buf, end):
    """Recompute 0x20 bits 15:0 over [0, end) with that field read as 0xFFFF (§2.2)."""
    tmp = bytearray(buf[:end])
    tmp[0x22:0x24] = b"\xff\xff"
    buf[0x22:0x24] = crc16_dwords(bytes(tmp)).to_bytes(2, "big")
