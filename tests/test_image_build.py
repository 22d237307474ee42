# SPDX-License-Identifier: GPL-2.0-or-later
"""The rescue image's build products (issues 5 and 9), checked on the host without booting:
the initramfs is reproducible and holds what /init needs, the media have the layout the
BIOS and UEFI boot loaders and /init expect, both menus offer the same entries, and the
size targets hold."""
import gzip
import hashlib
import json
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
                 "usr/share/misc/pci.ids", "dev/console", "etc/profile", "bin/man", "bin/less",
                 "usr/share/man/man1/cxflash.1", "usr/share/man/cat1/cxflash.1"):
        assert path in e, f"/{path} missing from the initramfs"
    assert e["init"][0] & 0o111, "/init is not executable"
    assert e["usr/bin/cxflash"][1] == (ROOT / "burner" / "cxflash").read_bytes()
    assert e["usr/share/man/man1/cxflash.1"][1] == (ROOT / "docs" / "cxflash.1").read_bytes()
    ids = e["usr/share/misc/pci.ids"][1].decode()
    assert "\t1003  MT27500 Family [ConnectX-3]" in ids and "103c  Hewlett-Packard Company" in ids
    assert len(ids) < 64 * 1024, "pci.ids was not trimmed"
    for name in ("bin/busybox", "usr/bin/cxflash", "usr/bin/lspci"):
        body = e[name][1]
        assert body[:4] == b"\x7fELF" and body[4] == 2, f"/{name} is not a 64-bit ELF"
        assert not has_interp(body), f"/{name} is not static (it names a program interpreter)"


def test_the_manual_reads_as_plain_text():
    """The shell has no groff: BusyBox's man shows the cat page with less, as less or more
    alone do. Plain ASCII (no overstrikes, no escape sequences) in 80 columns, the whole page."""
    e = cpio_entries(gzip.decompress(INITRD.read_bytes()))
    text = e["usr/share/man/cat1/cxflash.1"][1].decode("ascii")
    assert "\b" not in text and "\x1b" not in text
    assert max(len(line) for line in text.splitlines()) <= 80
    for heading in ("NAME", "SYNOPSIS", "COMMANDS", "OPTIONS", "EXIT STATUS", "EXAMPLES", "SEE ALSO"):
        assert f"\n{heading}\n" in text, heading
    assert "CX_ESETTING" in text and "--allow_psid_change" in text


def test_the_rescue_shell_shows_the_manual(tmp_path):
    """`man cxflash` with the image's own BusyBox: it finds the cat page first (it has no groff
    for the man1 source) and shows it through the pager, here cat on a terminal."""
    e = cpio_entries(gzip.decompress(INITRD.read_bytes()))
    man = tmp_path / "usr" / "share" / "man"
    for name in ("bin/busybox", "usr/share/man/cat1/cxflash.1", "usr/share/man/man1/cxflash.1"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(e[name][1])
    bb = tmp_path / "bin" / "busybox"
    bb.chmod(0o755)
    env = {"PATH": "/usr/bin:/bin", "MANPATH": str(man), "PAGER": "cat", "TERM": "dumb"}
    r = run([bb, "man", "-w", "cxflash"], env=env)
    assert r.returncode == 0 and r.stdout.strip() == str(man / "cat1" / "cxflash.1"), r.stdout + r.stderr
    controller, terminal = os.openpty()     # BusyBox's man uses the pager only on a terminal
    p = subprocess.Popen([str(bb), "man", "cxflash"], env=env, stdin=subprocess.DEVNULL,
                         stdout=terminal, stderr=terminal)
    os.close(terminal)
    shown = b""
    while True:                             # the page is larger than the terminal's buffer
        try:
            chunk = os.read(controller, 65536)
        except OSError:                     # EIO: every writer has closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(controller)
    assert p.wait(timeout=60) == 0
    assert b"CXFLASH(1)" in shown and b"EXIT STATUS" in shown and b"SEE ALSO" in shown, shown[:500]


def test_initramfs_carries_the_library():
    """The board table and a manifest of whatever firmware FIRMWARE_DIR held at build time."""
    e = cpio_entries(gzip.decompress(INITRD.read_bytes()))
    assert e["usr/share/cxrescue/boards.txt"][1] == (ROOT / "library" / "boards.txt").read_bytes()
    manifest = json.loads(e["usr/share/cxrescue/manifest.json"][1])
    shipped = sorted(n.split("/")[-1] for n in e if n.startswith("usr/share/cxrescue/firmware/"))
    assert sorted(f["name"] for f in manifest["files"]) == shipped
    assert "usr/share/cxrescue/firmware" in e, "the image's firmware folder is missing"


def test_firmware_dir_goes_into_the_initramfs(tmp_path, images):
    fw = tmp_path / "fw"
    fw.mkdir()
    stock = images.make("--chip cx3 --ddr 2 --ddr-size 0x1000 --fw 2.42.5000", name="stock.bin")
    stock.rename(fw / "stock.bin")
    out = tmp_path / "initrd.gz"
    r = run([ROOT / "scripts" / "mkinitramfs.sh", BUILD, out], env={**os.environ, "FIRMWARE_DIR": str(fw)})
    assert r.returncode == 0, r.stderr
    assert "1 image: 1 usable" in r.stdout, r.stdout
    e = cpio_entries(gzip.decompress(out.read_bytes()))
    assert e["usr/share/cxrescue/firmware/stock.bin"][1] == (fw / "stock.bin").read_bytes()
    (f,) = json.loads(e["usr/share/cxrescue/manifest.json"][1])["files"]
    assert f["path"] == "firmware/stock.bin" and f["psid"] == "MT_1090120019" and f["status"] == "ok"
    assert f["sha256"] == hashlib.sha256((fw / "stock.bin").read_bytes()).hexdigest()
    # A file the library refuses stops the build, naming it.
    (fw / "broken.bin").write_bytes(b"\xff" * 4096)
    r = run([ROOT / "scripts" / "mkinitramfs.sh", BUILD, tmp_path / "bad.gz"],
            env={**os.environ, "FIRMWARE_DIR": str(fw)})
    assert r.returncode != 0 and "broken.bin" in r.stderr, r.stderr
    assert not (tmp_path / "bad.gz").exists()


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
    # The burner and its manual, for the installed system (README, "Using cxflash on your
    # installed system").
    for name, src in (("cxflash", ROOT / "burner" / "cxflash"), ("cxflash.1", ROOT / "docs" / "cxflash.1")):
        r = subprocess.run(["mtype", "-i", f"{img}@@1M", f"::/cxrescue/bin/{name}"], capture_output=True)
        assert r.returncode == 0 and r.stdout == src.read_bytes(), f"/cxrescue/bin/{name} on the stick"
    readme = subprocess.run(["mtype", "-i", f"{img}@@1M", "::/cxrescue/firmware/README.txt"],
                            capture_output=True, text=True).stdout
    assert "drop firmware images here" in readme and "cxflash library check" in readme
    # The data area's marker (data-area.sh): the same in every image, id=new until the stick's
    # first boot gives it its own ID (docs/rescue-image.md, "The data area").
    marker = subprocess.run(["mtype", "-i", f"{img}@@1M", "::/cxrescue/stick-id.txt"], capture_output=True)
    assert marker.returncode == 0 and marker.stdout == (ROOT / "rootfs" / "stick" / "stick-id.txt").read_bytes()
    assert marker.stdout.startswith(b"cxrescue data area 1\nid=new\n"), marker.stdout[:40]
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
    # UEFI nodes: the GRUB network image (x86-64 EFI application), its menu from the server
    grub = (pxe / "grub" / "grubx64.efi").read_bytes()
    assert pe_machine_and_subsystem(grub) == (EFI_MACHINE_X86_64, EFI_SUBSYSTEM_APPLICATION)
    assert b"(tftp)/grub" in grub


# --- UEFI (issue 9) ----------------------------------------------------------------------
EFI_MACHINE_X86_64 = 0x8664       # PE/COFF machine type (PE format spec, "Machine Types")
EFI_SUBSYSTEM_APPLICATION = 10    # PE optional header subsystem: EFI application


def pe_machine_and_subsystem(data):
    assert data[:2] == b"MZ", "not a PE file"
    pe = int.from_bytes(data[0x3c:0x40], "little")
    assert data[pe:pe + 4] == b"PE\0\0", "no PE signature"
    machine = int.from_bytes(data[pe + 4:pe + 6], "little")
    opt = pe + 24
    assert int.from_bytes(data[opt:opt + 2], "little") == 0x20b, "not PE32+"
    return machine, int.from_bytes(data[opt + 68:opt + 70], "little")


def mtype(img, path):
    r = subprocess.run(["mtype", "-i", img, f"::{path}"], capture_output=True)
    assert r.returncode == 0, f"{path} missing in {img}: {r.stderr.decode()}"
    return r.stdout


def iso_extract(tmp_path, path):
    out = tmp_path / pathlib.PurePath(path).name
    r = subprocess.run(["xorriso", "-indev", str(IMAGES / "cxrescue.iso"), "-osirrox", "on",
                        "-extract", path, str(out)], capture_output=True, text=True)
    assert r.returncode == 0, f"{path}: {r.stderr}"
    return out.read_bytes()


def syslinux_entries(cfg):
    """label -> kernel command line, from a syslinux menu."""
    entries, label = {}, None
    for ln in cfg.splitlines():
        ln = ln.strip()
        if ln.startswith("LABEL "):
            label = ln.split()[1]
        elif ln.startswith("APPEND ") and label:
            entries[label] = ln.split(None, 1)[1]
    return entries


def grub_entries(cfg):
    """--id -> kernel command line, from a GRUB menu (entries without a kernel left out)."""
    entries = {}
    for m in re.finditer(r'menuentry\s+"[^"]*".*?--id\s+(\S+)[^{]*\{(.*?)\n\}', cfg, re.S):
        linux = re.search(r"^\s*linux\s+(\S+)\s+(.*)$", m.group(2), re.M)
        if linux:
            assert linux.group(1) == "/boot/vmlinuz"
            assert re.search(r"^\s*initrd\s+/boot/initrd.gz\s*$", m.group(2), re.M), m.group(1)
            entries[m.group(1)] = linux.group(2).strip()
    return entries


def test_usb_stick_boots_uefi_through_grub():
    fat = f"{IMAGES / 'cxrescue-usb.img'}@@1M"
    loader = mtype(fat, "/EFI/BOOT/BOOTX64.EFI")
    assert pe_machine_and_subsystem(loader) == (EFI_MACHINE_X86_64, EFI_SUBSYSTEM_APPLICATION)
    grub = mtype(fat, "/boot/grub/cxrescue.cfg").decode()
    bios = mtype(fat, "/syslinux/syslinux.cfg").decode()
    # The same kernel, initramfs and entries on both paths: each command line, word for word.
    assert grub_entries(grub) == syslinux_entries(bios) != {}
    assert set(grub_entries(grub)) == {"cxrescue", "serial", "com2", "shell"}
    assert "cxrescue.media=usb" in grub_entries(grub)["cxrescue"]


def test_iso_has_an_efi_boot_image_with_the_same_loader(tmp_path):
    r = subprocess.run(["xorriso", "-indev", str(IMAGES / "cxrescue.iso"), "-report_el_torito",
                        "plain"], capture_output=True, text=True)
    report = r.stdout + r.stderr
    assert re.search(r"El Torito boot img :\s+2\s+UEFI\s+y\s+none", report), report
    assert "El Torito img path :   2  /boot/efiboot.img" in report, report
    efi = tmp_path / "efiboot.img"
    efi.write_bytes(iso_extract(tmp_path, "/boot/efiboot.img"))
    r = subprocess.run(["minfo", "-i", str(efi), "::"], capture_output=True, text=True)
    assert "CXR-EFI" in r.stdout, "the EFI image's label is what /init uses to leave it alone"
    loader = mtype(str(efi), "/EFI/BOOT/BOOTX64.EFI")
    stick = mtype(f"{IMAGES / 'cxrescue-usb.img'}@@1M", "/EFI/BOOT/BOOTX64.EFI")
    assert loader == stick, "one UEFI loader for every medium"
    grub = iso_extract(tmp_path, "/boot/grub/cxrescue.cfg").decode()
    isolinux = iso_extract(tmp_path, "/isolinux/isolinux.cfg").decode()
    assert grub_entries(grub) == syslinux_entries(isolinux) != {}
    assert "cxrescue.media=iso" in grub_entries(grub)["cxrescue"]
    # Written to a stick, the ISO shows its EFI image as an EFI system partition (type 0xEF).
    mbr = (IMAGES / "cxrescue.iso").read_bytes()[:512]
    types = [mbr[446 + 16 * i + 4] for i in range(4)]
    assert 0xEF in types, f"MBR partition types {types}"


def test_secure_boot_is_explained():
    readme = (ROOT / "README.md").read_text()
    first_screen = "\n".join(readme.splitlines()[:40])
    assert "Secure Boot" in first_screen, "README's first screen must say the image is unsigned"
    for menu in ("rootfs/syslinux/menu.cfg.in", "rootfs/grub/cxrescue.cfg.in"):
        text = (ROOT / menu).read_text()
        assert "Secure Boot" in text and "not signed" in text, menu
