# SPDX-License-Identifier: GPL-2.0-or-later
"""The rescue image's build products (issue 5), checked on the host without booting:
the initramfs is reproducible and holds what /init needs, the media have the layout the
boot loaders and /init expect, and the size targets hold."""
import gzip
import hashlib
import os
import pathlib
import re
import subprocess

import pytest

from conftest import BUILD, ROOT, run

IMAGES = ROOT / os.environ.get("CXR_IMAGES", "images")
INITRD = BUILD / "initrd.gz"
MIB = 1024 * 1024


@pytest.fixture(autouse=True)
def built():
    for p in (INITRD, IMAGES / "SHA256SUMS"):
        assert p.exists(), f"{p} missing: run make images"


def cpio_entries(data):
    """name -> (mode, body) of a newc cpio archive."""
    out, i = {}, 0
    while True:
        assert data[i:i + 6] == b"070701", f"bad cpio header at {i}"
        f = [int(data[i + 6 + 8 * k:i + 14 + 8 * k], 16) for k in range(13)]
        mode, filesize, namesize = f[1], f[6], f[11]
        name = data[i + 110:i + 110 + namesize - 1].decode()
        i = (i + 110 + namesize + 3) & ~3
        body = data[i:i + filesize]
        i = (i + filesize + 3) & ~3
        if name == "TRAILER!!!":
            return out
        out[name] = (mode, body)


def has_interp(elf):
    """True if a 64-bit little-endian ELF has a PT_INTERP program header."""
    phoff = int.from_bytes(elf[0x20:0x28], "little")
    phentsize = int.from_bytes(elf[0x36:0x38], "little")
    phnum = int.from_bytes(elf[0x38:0x3a], "little")
    return any(int.from_bytes(elf[phoff + k * phentsize:phoff + k * phentsize + 4], "little") == 3
               for k in range(phnum))


def test_initramfs_is_reproducible(tmp_path):
    a, b = tmp_path / "a.gz", tmp_path / "b.gz"
    for out in (a, b):
        r = run([ROOT / "scripts" / "mkinitramfs.sh", BUILD, out])
        assert r.returncode == 0, r.stderr
    assert a.read_bytes() == b.read_bytes(), "two builds from the same inputs differ"
    assert a.read_bytes() == INITRD.read_bytes(), "the built initramfs is not what its inputs give"


def test_initramfs_contents():
    e = cpio_entries(gzip.decompress(INITRD.read_bytes()))
    for path in ("init", "bin/busybox", "bin/sh", "bin/mount", "bin/poweroff", "bin/blkid",
                 "bin/setsid", "usr/bin/cxflash", "usr/bin/lspci", "usr/bin/cxrescue-front",
                 "usr/share/misc/pci.ids", "dev/console", "etc/profile"):
        assert path in e, f"/{path} missing from the initramfs"
    assert e["init"][0] & 0o111, "/init is not executable"
    assert e["usr/bin/cxflash"][1] == (ROOT / "burner" / "cxflash").read_bytes()
    ids = e["usr/share/misc/pci.ids"][1].decode()
    assert "\t1003  MT27500 Family [ConnectX-3]" in ids and "103c  Hewlett-Packard Company" in ids
    assert len(ids) < 64 * 1024, "pci.ids was not trimmed"
    for name in ("bin/busybox", "usr/bin/cxflash", "usr/bin/lspci"):
        body = e[name][1]
        assert body[:4] == b"\x7fELF" and body[4] == 2, f"/{name} is not a 64-bit ELF"
        assert not has_interp(body), f"/{name} is not static (it names a program interpreter)"


def test_size_targets():
    assert INITRD.stat().st_size <= 2.5 * MIB, f"initramfs {INITRD.stat().st_size} bytes > 2.5 MiB"
    iso = IMAGES / "cxrescue.iso"
    assert iso.stat().st_size <= 8 * MIB, f"ISO {iso.stat().st_size} bytes > 8 MiB"


def test_sha256sums_cover_every_medium():
    lines = (IMAGES / "SHA256SUMS").read_text().splitlines()
    names = {ln.split()[1] for ln in lines}
    assert {"cxrescue-usb.img", "cxrescue.iso", "pxe/pxelinux.0", "pxe/ldlinux.c32",
            "pxe/pxelinux.cfg/default", "pxe/boot/vmlinuz", "pxe/boot/initrd.gz"} <= names
    for ln in lines:
        digest, name = ln.split()
        assert hashlib.sha256((IMAGES / name).read_bytes()).hexdigest() == digest, name


def mdir(img, path):
    r = subprocess.run(["mdir", "-a", "-b", "-i", f"{img}@@1M", f"::{path}"], capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def test_usb_image_layout():
    img = IMAGES / "cxrescue-usb.img"
    raw = img.read_bytes()[:512]
    assert raw[510:512] == b"\x55\xaa"
    assert raw[446] == 0x80 and raw[446 + 4] == 0x0C, "partition 1 must be bootable FAT32 (LBA)"
    assert int.from_bytes(raw[446 + 8:446 + 12], "little") == 2048
    r = subprocess.run(["minfo", "-i", f"{img}@@1M", "::"], capture_output=True, text=True)
    assert "CXRESCUE" in r.stdout and "FAT32" in r.stdout, r.stdout
    for d in ("/cxrescue/firmware", "/cxrescue/backups", "/cxrescue/logs"):
        assert mdir(img, d) is not None, f"{d} missing on the stick"
    listing = mdir(img, "/syslinux")
    for f in ("ldlinux.sys", "ldlinux.c32", "syslinux.cfg", "menu.c32"):
        assert f in listing, f"/syslinux/{f} missing"
    boot = mdir(img, "/boot")
    assert "vmlinuz" in boot and "initrd.gz" in boot
    cfg = subprocess.run(["mtype", "-i", f"{img}@@1M", "::/syslinux/syslinux.cfg"],
                         capture_output=True, text=True).stdout
    assert "cxrescue.media=usb" in cfg
    for label in ("LABEL cxrescue", "LABEL serial", "LABEL shell", "cxrescue.shell=1", "TIMEOUT"):
        assert label in cfg


def test_iso_is_hybrid_with_isolinux(tmp_path):
    iso = (IMAGES / "cxrescue.iso").read_bytes()
    assert iso[510:512] == b"\x55\xaa", "no MBR: not isohybrid"
    assert iso[0x8001:0x8006] == b"CD001"
    r = subprocess.run(["xorriso", "-indev", str(IMAGES / "cxrescue.iso"), "-report_el_torito",
                        "plain"], capture_output=True, text=True)
    report = r.stdout + r.stderr
    assert re.search(r"El Torito boot img :\s+1\s+BIOS\s+y\s+none", report), report
    assert "El Torito img path :   1  /isolinux/isolinux.bin" in report, report
    cfg = tmp_path / "isolinux.cfg"
    r = subprocess.run(["xorriso", "-indev", str(IMAGES / "cxrescue.iso"), "-osirrox", "on",
                        "-extract", "/isolinux/isolinux.cfg", str(cfg)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "cxrescue.media=iso" in cfg.read_text()


def test_pxe_tree():
    pxe = IMAGES / "pxe"
    cfg = (pxe / "pxelinux.cfg" / "default").read_text()
    assert "cxrescue.media=pxe" in cfg and "IPAPPEND 2" in cfg
    for f in ("pxelinux.0", "ldlinux.c32", "menu.c32", "libutil.c32", "libcom32.c32"):
        assert (pxe / f).is_file(), f
    assert (pxe / "boot" / "vmlinuz").read_bytes() == (BUILD / "kernel" / "bzImage").read_bytes()
    assert (pxe / "boot" / "initrd.gz").read_bytes() == INITRD.read_bytes()
