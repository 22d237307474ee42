# SPDX-License-Identifier: GPL-2.0-or-later
"""The NICs of docs/nics.md, checked on the build: every driver of its table is built into
the kernel (its CONFIG_ option is y, its probe function is in System.map), and the firmware
files are on the image, exactly those of rootfs/nic-firmware.txt, in step with what the
drivers ask for (their MODULE_FIRMWARE entries, in the kernel's modules.builtin.modinfo)
and with the table. QEMU emulates only some of these NICs (qemu-tests/test_nic_pxe.py boots
those); for i40e, ice, igc, bnxt_en, bnx2, bnx2x and r8169 this is the check there is.

Reads CXR_BUILD/kernel/{config,System.map,modules.builtin.modinfo} and CXR_BUILD/initrd.gz
(make kernel images); nothing is built here."""
import gzip
import hashlib
import pathlib
import os
import re
import shutil
import subprocess

import pytest

from conftest import BUILD, ROOT, run
from test_image_build import cpio_entries
from test_kernel_config import load_config

KDIR = BUILD / "kernel"
DOC = ROOT / "docs" / "nics.md"
LIST = ROOT / "rootfs" / "nic-firmware.txt"
INITRD = BUILD / "initrd.gz"

# A function of each driver, as System.map names it: its pci_driver's .probe, except for
# e1000 and e1000e, whose probes are both the static e1000_probe (their up functions differ).
PROBE = {
    "e1000": "e1000_up", "e1000e": "e1000e_up", "igb": "igb_probe", "ixgbe": "ixgbe_probe",
    "i40e": "i40e_probe", "ice": "ice_probe", "igc": "igc_probe", "tg3": "tg3_init_one",
    "bnx2": "bnx2_init_one", "bnx2x": "bnx2x_init_one", "bnxt_en": "bnxt_init_one",
    "r8169": "rtl_init_one", "vmxnet3": "vmxnet3_probe_device", "virtio_net": "virtnet_probe",
}
# What docs/nics.md must list: the brief of issue 29 and the drivers that were there before.
MUST = {"e1000", "e1000e", "igb", "ixgbe", "i40e", "ice", "igc", "tg3", "bnx2", "bnx2x",
        "bnxt_en", "r8169", "vmxnet3", "virtio_net"}

def table():
    """docs/nics.md's families: [{family, driver, option, firmware, qemu}]."""
    text = DOC.read_text()
    part = text.split("## The NIC families", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in part.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or cells[0] in ("Family", "") or set(cells[0]) <= set("-"):
            continue
        rows.append(dict(zip(("family", "driver", "option", "firmware", "qemu"), cells)))
    return rows


def manifest():
    """rootfs/nic-firmware.txt: ({package: (version, sha256)}, {path: (package, sha256)})."""
    debs, files = {}, {}
    for line in LIST.read_text().splitlines():
        w = line.split()
        if not w or w[0].startswith("#"):
            continue
        if w[0] == "deb":
            debs[w[1]] = (w[2], w[3])
        elif w[0] == "file":
            files[w[2]] = (w[1], w[3])
    return debs, files


def need(path, what):
    if not path.is_file():
        pytest.fail(f"{path} not found: {what}", pytrace=False)
    return path


def system_map():
    text = need(KDIR / "System.map", "run make kernel").read_text()
    return {line.split()[2] for line in text.splitlines() if len(line.split()) == 3}


def asked_for():
    """{module name: [firmware file]} from modules.builtin.modinfo."""
    data = need(KDIR / "modules.builtin.modinfo", "run make kernel").read_bytes()
    out = {}
    for item in data.split(b"\0"):
        m = re.match(rb"^([A-Za-z0-9_]+)\.firmware=(.+)$", item)
        if m:
            out.setdefault(m.group(1).decode(), []).append(m.group(2).decode())
    return out


def initrd_files():
    data = gzip.decompress(need(INITRD, "run make images").read_bytes())
    return {name: body for name, (mode, body) in cpio_entries(data).items() if mode & 0o170000 == 0o100000}


def shipped_folder(cell):
    """'`bnx2/`' -> 'bnx2/'; 'none ...' -> None."""
    m = re.fullmatch(r"`([a-z0-9_]+/)`", cell)
    if m:
        return m.group(1)
    assert cell.startswith("none"), f"docs/nics.md: firmware cell {cell!r} is neither `folder/` nor none..."
    return None


def test_the_table_lists_every_driver_once():
    drivers = [r["driver"] for r in table()]
    assert len(drivers) == len(set(drivers)), f"a driver twice in docs/nics.md: {drivers}"
    assert set(drivers) >= MUST, f"docs/nics.md lacks {sorted(MUST - set(drivers))}"
    assert set(drivers) <= set(PROBE), \
        f"docs/nics.md names {sorted(set(drivers) - set(PROBE))}: add its probe function to PROBE here"


@pytest.mark.parametrize("row", table(), ids=lambda r: r["driver"])
def test_driver_is_built_in(row):
    config = load_config()
    assert config.get(row["option"]) == "y", \
        f"{row['driver']}: CONFIG_{row['option']} is {config.get(row['option'], 'not set')}, must be y (built in)"
    assert PROBE[row["driver"]] in system_map(), \
        f"{row['driver']}: {PROBE[row['driver']]} is not in System.map: the driver is not in the kernel"


@pytest.mark.parametrize("row", table(), ids=lambda r: r["driver"])
def test_firmware_in_step_with_the_driver(row):
    """A driver that asks for files either has its folder shipped, with every file it asks
    for there (bnx2x: its first choice of each pair), or is said to run without them."""
    folder = shipped_folder(row["firmware"])
    asks = asked_for().get(row["driver"], [])
    _, files = manifest()
    listed = sorted(p for p in files if folder and p.startswith(folder))
    if folder is None:
        if row["firmware"].startswith("none needed"):
            assert asks == [], f"{row['driver']} asks for {asks}: docs/nics.md says none needed"
        else:
            assert asks, f"{row['driver']} asks for no firmware: docs/nics.md says none shipped"
        assert not set(asks) & set(files), f"{row['driver']}: files listed, but docs/nics.md ships none"
        return
    assert asks, f"{row['driver']} asks for no firmware (modules.builtin.modinfo), but docs/nics.md ships {folder}"
    assert listed, f"rootfs/nic-firmware.txt lists nothing in {folder}"
    assert set(listed) <= set(asks), f"{row['driver']}: listed but not asked for: {sorted(set(listed) - set(asks))}"
    missing = set(asks) - set(listed)
    # bnx2x asks for its 7.13.21.0 file and falls back to 7.13.15.0 (bnx2x_init_firmware):
    # a missing file is fine only as the fallback of one that is there.
    fallback_of = {a: re.sub(r"-7\.13\.15\.0\.fw$", "-7.13.21.0.fw", a) for a in missing}
    unexplained = sorted(a for a, first in fallback_of.items() if first == a or first not in listed)
    assert unexplained == [], f"{row['driver']} asks for these, not on the image: {unexplained}"


def test_image_carries_exactly_the_listed_files():
    debs, files = manifest()
    assert files, "rootfs/nic-firmware.txt lists no file"
    on_image = {n[len("lib/firmware/"):]: body for n, body in initrd_files().items()
                if n.startswith("lib/firmware/")}
    assert sorted(on_image) == sorted(files), \
        f"/lib/firmware on the image differs from rootfs/nic-firmware.txt: " \
        f"extra {sorted(set(on_image) - set(files))}, missing {sorted(set(files) - set(on_image))}"
    for path, (pkg, digest) in files.items():
        assert pkg in debs, f"{path}: package {pkg} has no deb line"
        assert hashlib.sha256(on_image[path]).hexdigest() == digest, f"{path}: not the pinned SHA-256"


def test_copyright_notices_go_with_the_files():
    """The licences (binary-redist-firmware, binary-redist-Realtek-permissive) grant
    distribution "provided this copyright notice is accompanying it"."""
    text = initrd_files()["usr/share/doc/nic-firmware/copyright"].decode()
    _, files = manifest()
    for folder in sorted({p.split("/", 1)[0] for p in files}):
        para = re.search(rf"^Files: (?:\S+ )*{re.escape(folder)}/\*.*?\nLicense: (\S+)", text, re.M | re.S)
        assert para, f"no Files: paragraph for {folder}/ in the image's copyright notices:\n{text}"
        lic = para.group(1)
        assert re.search(rf"^License: {re.escape(lic)}\n Permission is hereby granted", text, re.M), \
            f"{folder}/: the text of its licence {lic} is not in the notices"


def test_shipped_folders_are_those_of_the_table():
    _, files = manifest()
    folders = {p.split("/", 1)[0] + "/" for p in files}
    in_doc = {shipped_folder(r["firmware"]) for r in table()} - {None}
    assert folders == in_doc, f"rootfs/nic-firmware.txt has {sorted(folders)}, docs/nics.md ships {sorted(in_doc)}"


def test_packages_are_pinned_from_debian():
    debs, _ = manifest()
    assert set(debs) == {"firmware-bnx2", "firmware-bnx2x", "firmware-realtek"}, debs
    for pkg, (version, digest) in debs.items():
        assert version == "20230210-5", f"{pkg} {version}: docs/nics.md names 20230210-5"
        assert re.fullmatch(r"[0-9a-f]{64}", digest), pkg
    assert "20230210-5" in DOC.read_text()


def test_no_firmware_file_is_committed():
    """The files are fetched at build time, never part of the repository."""
    r = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"not a git checkout: {r.stderr.strip()}")
    _, files = manifest()
    names = {pathlib.PurePosixPath(p).name for p in files}
    committed = [p for p in r.stdout.splitlines() if p.endswith(".fw") or pathlib.PurePosixPath(p).name in names]
    assert committed == [], committed


def test_a_file_with_another_hash_stops_the_build(tmp_path):
    """scripts/nic-firmware.sh takes out only files whose SHA-256 is the pinned one. Run on
    the .debs the build fetched (copied: no network), with one file's hash changed."""
    debs = BUILD / "nic-firmware" / "apt" / "debs"
    if not list(debs.glob("*.deb")):
        pytest.fail(f"no .deb in {debs}: run make images (scripts/nic-firmware.sh)", pytrace=False)
    build = tmp_path / "build"
    shutil.copytree(debs, build / "nic-firmware" / "apt" / "debs")
    script = ROOT / "scripts" / "nic-firmware.sh"
    good = tmp_path / "good.txt"
    good.write_text(LIST.read_text())
    r = run([script, build], env={**os.environ, "NIC_FIRMWARE_LIST": str(good)})
    assert r.returncode == 0, r.stderr
    fw = build / "nic-firmware" / "lib" / "firmware"
    _, files = manifest()
    got = sorted(str(p.relative_to(fw)) for p in fw.rglob("*") if p.is_file())
    assert got == sorted(files)
    path, (pkg, digest) = sorted(files.items())[0]
    bad = tmp_path / "bad.txt"
    bad.write_text(LIST.read_text().replace(digest, "0" * 64))
    r = run([script, build], env={**os.environ, "NIC_FIRMWARE_LIST": str(bad)})
    assert r.returncode != 0, r.stdout
    assert f"lib/firmware/{path} is not the SHA-256 pinned" in r.stderr, r.stderr
    assert not (build / "nic-firmware" / ".stamp").exists(), "a refused tree is marked whole"
