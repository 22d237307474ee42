# SPDX-License-Identifier: GPL-2.0-or-later
"""scripts/pxe-serve and scripts/pxe-report: the jobs file's checks and what it generates
(--dry-run), the real dnsmasq and in.tftpd in network namespaces of the test's own (a DHCP
lease from BusyBox's udhcpc, TFTP reads, uploads only into uploads/, a clean stop), the
merged report table, and scripts/pxe-cycle against OpenIPMI's ipmi_sim BMCs (no QEMU). Nothing leaves the namespaces; each test removes its namespaces and
ends its processes, also when it fails."""
import contextlib
import hashlib
import json
import os
import pathlib
import re
import signal
import subprocess
import threading
import time

import pytest

from conftest import BUILD, ROOT, run
import ipmi_bmc  # noqa: E402

SERVE = ROOT / "scripts" / "pxe-serve"
REPORT = ROOT / "scripts" / "pxe-report"
IMAGES = ROOT / os.environ.get("CXR_IMAGES", "images")
NET = f"10.199.{os.getpid() % 200 + 20}"   # inside private namespaces; per worker for readable logs
SERVER = f"{NET}.1"
STOP_TIMEOUT = 30   # s: pxe-serve stopping (its daemons KILLed after 5 s), on a loaded machine
M1, M2, M3 = "aa:bb:cc:dd:ee:01", "aa:bb:cc:dd:ee:02", "aa:bb:cc:dd:ee:03"


# --- namespaces -------------------------------------------------------------------------------

def ip(*args):
    r = run(["ip"] + list(args))
    assert r.returncode == 0, f"ip {' '.join(args)}: {r.stderr}"


@contextlib.contextmanager
def namespaces(*tags):
    """Fresh network namespaces, named after this process; on the way out every process
    still in them is killed (all started by this test) and they are deleted."""
    names = [f"cxp{os.getpid()}{t}" for t in tags]
    made = []
    try:
        for n in names:
            r = run(["ip", "netns", "add", n])
            if r.returncode:
                pytest.skip(f"no network namespaces here (ip netns add: {r.stderr.strip()})")
            made.append(n)
            ip("-n", n, "link", "set", "lo", "up")
        yield names
    finally:
        for n in made:
            pids = run(["ip", "netns", "pids", n]).stdout.split()
            for p in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(p), signal.SIGKILL)
            run(["ip", "netns", "del", n])


@pytest.fixture(scope="module")
def dry_ns():
    """One namespace: s0 with SERVER/24, its veth peer p0 without an address."""
    with namespaces("d") as (ns,):
        ip("-n", ns, "link", "add", "s0", "type", "veth", "peer", "name", "p0")
        ip("-n", ns, "addr", "add", f"{SERVER}/24", "dev", "s0")
        yield ns


@pytest.fixture
def rack():
    """A server namespace (s0, SERVER/24) wired to a node namespace (c0) by a veth pair."""
    with namespaces("s", "c") as (srv, node):
        ip("-n", srv, "link", "add", "s0", "type", "veth", "peer", "name", "c0", "netns", node)
        ip("-n", srv, "addr", "add", f"{SERVER}/24", "dev", "s0")
        ip("-n", srv, "link", "set", "s0", "up")
        ip("-n", node, "link", "set", "c0", "address", "02:00:00:c0:ff:ee")
        ip("-n", node, "link", "set", "c0", "up")
        yield srv, node


# --- fixtures: fake images, the state folder ---------------------------------------------------

SYNTHETIC_MENU = """SERIAL 0 115200
UI menu.c32
DEFAULT cxrescue
LABEL cxrescue
  LINUX /boot/vmlinuz
  INITRD /boot/initrd.gz
  APPEND console=tty0 console=ttyS0,115200n8 quiet cxrescue.media=pxe
  IPAPPEND 2
LABEL shell
  LINUX /boot/vmlinuz
  INITRD /boot/initrd.gz
  APPEND console=ttyS0,115200n8 cxrescue.media=pxe cxrescue.shell=1
  IPAPPEND 2
"""


@pytest.fixture
def images(tmp_path):
    """images/pxe/ with made-up loader, kernel and initramfs, and the real menu if built."""
    pxe = tmp_path / "images" / "pxe"
    (pxe / "boot").mkdir(parents=True)
    (pxe / "pxelinux.cfg").mkdir()
    for name, size in (("pxelinux.0", 42000), ("ldlinux.c32", 9000), ("menu.c32", 5000),
                       ("boot/vmlinuz", 200000), ("boot/initrd.gz", 70000)):
        (pxe / name).write_bytes(os.urandom(size))
    real = IMAGES / "pxe" / "pxelinux.cfg" / "default"
    menu = real.read_text() if real.exists() else SYNTHETIC_MENU
    (pxe / "pxelinux.cfg" / "default").write_text(menu)
    return tmp_path / "images"


def serve(ns, *args, root, images):
    return run(["ip", "netns", "exec", ns, SERVE, "--interface", "s0", *args,
                "--root", root, "--images", images], timeout=60)


def snapshot(folder):
    """path -> (mode, bytes) of everything under folder."""
    folder = pathlib.Path(folder)
    return {str(p.relative_to(folder)): (p.lstat().st_mode, p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*"))}


def state(tmp_path):
    """A state folder from an earlier run: an old tree and two nodes' uploads."""
    root = tmp_path / "root"
    up = root / "tftp" / "uploads"
    up.mkdir(parents=True)
    up.chmod(0o1777)
    (root / "tftp" / "stale.txt").write_text("from an older image\n")
    (up / "aa-bb-cc-dd-ee-02_cx3-old.tar").write_bytes(os.urandom(3000))
    (up / "aa-bb-cc-dd-ee-01_report.json").write_text('{"format": "cxrescue-report-1"}\n')
    return root


def bundle_tar(path, name="cx3-HP_0280210019-0002c90300c0ffe0-20261130T150010Z", flash=None):
    """A whole backup bundle as a node uploads it: a tar of NAME/ with flash.bin,
    identity.json and a SHA256SUMS covering them (ops/backup.h). Returns its SHA-256."""
    import io
    import tarfile
    files = {"flash.bin": flash if flash is not None else os.urandom(4096),
             "identity.json": b'{"format": "cxrescue-identity-1"}\n'}
    files["SHA256SUMS"] = "".join(f"{hashlib.sha256(d).hexdigest()}  {n}\n"
                                  for n, d in files.items()).encode()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
        for n, d in files.items():
            info = tarfile.TarInfo(f"{name}/{n}")
            info.size = len(d)
            t.addfile(info, io.BytesIO(d))
    pathlib.Path(path).write_bytes(buf.getvalue())
    return hashlib.sha256(buf.getvalue()).hexdigest()


# --- 1. the jobs file's checks ------------------------------------------------------------------

BAD_JOBS = [
    ("bad MAC", "aa:bb:cc:dd:ee inventory\n", 1, "bad MAC 'aa:bb:cc:dd:ee'"),
    ("mixed MAC", "aa:bb-cc:dd:ee:01 inventory\n", 1, "bad MAC"),
    ("duplicate", f"# rack 1\n{M1} inventory\n\nAA-BB-CC-DD-EE-01 backup\n", 4,
     "duplicate: AA-BB-CC-DD-EE-01 already has a job on line 2"),
    ("two defaults", "default inventory\ndefault backup\n", 2,
     "duplicate: default already has a job on line 1"),
    ("unknown job", f"{M1} flash yes=1\n", 1, "unknown job 'flash'"),
    ("no job", f"{M1}\n", 1, "no job after"),
    ("unknown key", f"{M1} backup colour=red\n", 1, "unknown key 'colour'"),
    ("not key=value", f"{M1} backup yes\n", 1, "'yes' is not key=value"),
    ("bad card", f"{M1} backup card=1:0\n", 1, "card=1:0: a PCI address"),
    ("bad console", f"{M1} backup console=vga\n", 1, "console=vga: both, serial, ttyS0 or ttyS1"),
    ("bad upload", f"{M1} backup upload=maybe\n", 1, "upload=maybe: required or optional"),
    ("yes=2", f"{M1} update yes=2\n", 1, "yes=2: only yes=1"),
    ("key twice", f"{M1} backup card=all card=01:00.0\n", 1, "card= given twice"),
    ("write without yes", f"{M1} inventory\n{M2} crossflash card=all\n", 2,
     "crossflash writes cards: add yes=1"),
    ("update without yes", "default update\n", 1, "update writes cards: add yes=1"),
    ("restore without bundle", f"{M1} restore yes=1\n", 1, "restore needs bundle=latest or bundle=FILE"),
    ("restore on default", "default restore yes=1 bundle=latest\n", 1, "restore needs a node's MAC"),
    ("bundle=latest, none uploaded", f"{M1} restore yes=1 bundle=latest\n", 1,
     "bundle=latest: no whole bundle aa-bb-cc-dd-ee-01_*.tar from aa:bb:cc:dd:ee:01 in kept/ or uploads/"),
    ("bundle file missing", f"{M2} restore yes=1 bundle=cx3-new.tar\n", 1,
     "bundle=cx3-new.tar: no such whole bundle in kept/ or uploads/"),
    # state(): node 2's upload is not a bundle (random bytes): never offered to a restore
    ("bundle not whole", f"{M2} restore yes=1 bundle=latest\n", 1,
     "bundle=latest: no whole bundle aa-bb-cc-dd-ee-02_*.tar"),
    ("bundle file not whole", f"{M2} restore yes=1 bundle=aa-bb-cc-dd-ee-02_cx3-old.tar\n", 1,
     "bundle=aa-bb-cc-dd-ee-02_cx3-old.tar: no such whole bundle"),
    ("bundle with a path", f"{M2} restore yes=1 bundle=../../etc/passwd\n", 1, "bundle=../../etc/passwd"),
    ("bundle on backup", f"{M1} backup bundle=latest\n", 1, "bundle= is for restore only"),
    ("device_data on crossflash", f"{M1} crossflash yes=1 device_data=1\n", 1, "device_data= is for restore only"),
    ("device_data=yes", f"{M1} restore yes=1 device_data=yes bundle=latest\n", 1,
     "device_data=yes: only device_data=1"),
    ("menu with card", f"{M1} menu card=all\n", 1, "menu is the interactive wizard"),
    ("rom on backup", f"{M1} backup rom=none\n", 1, "rom= is for update and crossflash only"),
    ("rom file missing", f"{M1} crossflash yes=1 rom=uefi.rom\n", 1,
     "rom=uefi.rom: no such *.rom in the --firmware folder"),
    ("rom with a path", f"{M1} crossflash yes=1 rom=../x.rom\n", 1, "rom=../x.rom: no such *.rom"),
    ("rom of another kind", f"{M1} update yes=1 rom=mine\n", 1, "rom=mine: keep, image, none or a *.rom"),
    ("settings unknown name", f"{M1} crossflash yes=1 settings=LINK_TYPE_P1=ETH,LINK_SPEED=40\n", 1,
     "settings=: unknown setting LINK_SPEED"),
    ("settings bad value", f"{M1} crossflash yes=1 settings=LINK_TYPE_P1=ETHERNET\n", 1,
     "settings=: LINK_TYPE_P1=ETHERNET: not a value of LINK_TYPE_P1 (IB, ETH, VPI or 1..3)"),
    ("settings out of range", f"{M1} update yes=1 settings=BOOT_VLAN_P1=4096\n", 1,
     "settings=: BOOT_VLAN_P1=4096: out of range (0..4095)"),
    ("settings two values", f"{M1} update yes=1 settings=SRIOV_EN=1,SRIOV_EN=False\n", 1,
     "settings=: SRIOV_EN is given two different values"),
    ("settings not a list", f"{M1} update yes=1 settings=SRIOV_EN=1,,NUM_OF_VFS=4\n", 1,
     "settings=SRIOV_EN=1,,NUM_OF_VFS=4: NAME=VALUE,..."),
    ("settings item", f"{M1} update yes=1 settings=SRIOV_EN\n", 1, "settings=: 'SRIOV_EN' is not NAME=VALUE"),
    ("settings on backup", f"{M1} backup settings=SRIOV_EN=1\n", 1,
     "settings= is for update, crossflash and settings only"),
    ("settings job without", f"{M1} settings yes=1\n", 1, "settings needs settings=NAME=VALUE,..."),
    ("settings job without yes", f"{M1} settings settings=SRIOV_EN=1\n", 1, "settings writes cards: add yes=1"),
    ("bmc of another protocol", f"{M1} update yes=1 bmc=https://10.0.0.5\n", 1,
     "bmc=https://10.0.0.5: [ipmi://]HOST[:PORT] or redfish://HOST[:PORT][/ID] (plain HTTP is not offered)"),
    ("bmc with an IPMI system", f"{M1} update yes=1 bmc=ipmi://10.0.0.5/1\n", 1, "bmc=ipmi://10.0.0.5/1: "),
    ("bmc_ca for IPMI", f"{M1} update yes=1 bmc=10.0.0.5 bmc_ca=ca.pem\n", 1,
     "bmc_ca= and bmc_fingerprint= are for bmc=redfish://"),
    ("bmc_ca and a pin", f"{M1} update yes=1 bmc=redfish://10.0.0.5 bmc_ca=ca.pem bmc_fingerprint={'ab' * 32}\n",
     1, "bmc_ca= or bmc_fingerprint=, not both"),
    ("bmc_fingerprint short", f"{M1} update yes=1 bmc=redfish://10.0.0.5 bmc_fingerprint=AB:CD\n", 1,
     "bmc_fingerprint=AB:CD: a SHA-256, 64 hex digits (colons allowed)"),
    ("bmc with a bad port", f"{M1} update yes=1 bmc=10.0.0.5:x\n", 1, "bmc=10.0.0.5:x: [ipmi://]HOST[:PORT]"),
    ("bmc_auth without bmc", f"{M1} update yes=1 bmc_auth=rack.auth\n", 1, "bmc_auth= without bmc="),
    ("bmc on default", "default inventory bmc=10.0.0.5\n", 1, "bmc= belongs to one node, not default"),
]


@pytest.mark.parametrize("jobs,line,message", [b[1:] for b in BAD_JOBS], ids=[b[0] for b in BAD_JOBS])
def test_jobs_file_errors_write_nothing(dry_ns, images, tmp_path, jobs, line, message):
    jf = tmp_path / "rack.jobs"
    jf.write_text(jobs)
    root = state(tmp_path)
    before = snapshot(root)
    r = serve(dry_ns, "--dhcp", f"{NET}.100,{NET}.150", "--jobs", jf, "--dry-run",
              root=root, images=images)
    assert r.returncode == 3, r.stdout + r.stderr
    assert f"{jf}:{line}: {message}" in r.stderr, r.stderr
    assert snapshot(root) == before, "a refused jobs file changed the state folder"
    # without a state folder, none is made
    r = serve(dry_ns, "--dhcp", f"{NET}.100,{NET}.150", "--jobs", jf, "--dry-run",
              root=tmp_path / "fresh", images=images)
    assert r.returncode == 3 and not (tmp_path / "fresh").exists()


def test_jobs_file_reports_every_bad_line(dry_ns, images, tmp_path):
    jf = tmp_path / "rack.jobs"
    jf.write_text(f"{M1} inventory\nzz inventory\n{M2} update\n{M3} backup\n")
    r = serve(dry_ns, "--proxy", "--jobs", jf, "--dry-run", root=tmp_path / "r", images=images)
    assert r.returncode == 3
    assert [ln.split(": ", 1)[1].split(":", 2)[:2] for ln in r.stderr.splitlines()[:2]] == \
        [[str(jf), "2"], [str(jf), "3"]], r.stderr


# --- 2. what --dry-run writes ---------------------------------------------------------------------

def appends(path):
    return [ln.strip()[len("APPEND "):] for ln in path.read_text().splitlines()
            if ln.strip().startswith("APPEND ")]


def test_dry_run_writes_the_nodes_configs(dry_ns, images, tmp_path):
    root = state(tmp_path)
    up = root / "tftp" / "uploads"
    # two uploads of node 3: the newer one (by time) has the name that sorts first
    bundle_tar(up / "aa-bb-cc-dd-ee-03_cx3-b.tar")                   # older
    sha_a = bundle_tar(up / "aa-bb-cc-dd-ee-03_cx3-a.tar")           # newer
    (up / "aa-bb-cc-dd-ee-03_cx3-c.tar").write_bytes(os.urandom(3000))  # newest, not a bundle
    os.utime(up / "aa-bb-cc-dd-ee-03_cx3-b.tar", (1_700_000_000, 1_700_000_000))
    os.utime(up / "aa-bb-cc-dd-ee-03_cx3-a.tar", (1_700_000_100, 1_700_000_100))
    sha_b = hashlib.sha256((up / "aa-bb-cc-dd-ee-03_cx3-b.tar").read_bytes()).hexdigest()
    jf = tmp_path / "rack.jobs"
    jf.write_text(f"""# rack 7, row 2
AA:BB:CC:DD:EE:01   crossflash card=0000:01:00.0 yes=1 allow_risky=1   # the HP ones
aa-bb-cc-dd-ee-02 inventory console=serial
{M3} restore yes=1 bundle=latest
aa:bb:cc:dd:ee:04 restore bundle=aa-bb-cc-dd-ee-03_cx3-b.tar yes=1 device_data=1
aa:bb:cc:dd:ee:05 update card=all yes=1 upload=optional
aa:bb:cc:dd:ee:06 menu console=serial
aa:bb:cc:dd:ee:07 backup card=01:00.0
aa:bb:cc:dd:ee:08 crossflash yes=1 rom=hp-uefi.rom
aa:bb:cc:dd:ee:09 update yes=1 rom=none
aa:bb:cc:dd:ee:0a inventory console=ttyS1
aa:bb:cc:dd:ee:0b inventory console=ttyS0
""")
    uploads_before = snapshot(up)
    fw = tmp_path / "firmware"
    fw.mkdir()
    bins = {"mcx354a-stock.bin": os.urandom(5000), "fw_2.42.5000.bin": os.urandom(3000),
            "hp-uefi.rom": os.urandom(2048)}
    for name, data in bins.items():
        (fw / name).write_bytes(data)
    (fw / "README.txt").write_text("not an image\n")
    r = serve(dry_ns, "--dhcp", f"{NET}.100,{NET}.150", "--jobs", jf, "--firmware", fw, "--dry-run",
              root=root, images=images)
    assert r.returncode == 0, r.stderr
    cfg = root / "tftp" / "pxelinux.cfg"
    base = f"quiet ixgbe.allow_unsupported_sfp=1 cxrescue.media=pxe cxrescue.server={SERVER}"
    both = "console=tty0 console=ttyS0,115200n8 console=ttyS1,115200n8"
    serial = "console=ttyS0,115200n8 console=ttyS1,115200n8"
    assert (cfg / "01-aa-bb-cc-dd-ee-01").read_text() == f"""\
# generated by pxe-serve from {jf} line 2: AA:BB:CC:DD:EE:01   crossflash card=0000:01:00.0 yes=1 allow_risky=1   # the HP ones
SERIAL 0 115200
DEFAULT cxrescue
PROMPT 0
TIMEOUT 0
LABEL cxrescue
  LINUX /boot/vmlinuz
  INITRD /boot/initrd.gz
  APPEND {both} {base} cxrescue.job=crossflash cxrescue.card=0000:01:00.0 cxrescue.yes=1 cxrescue.allow_risky=1
  IPAPPEND 2
"""
    want = {
        "02": f"{serial} {base} cxrescue.job=inventory",
        "03": f"{both} {base} cxrescue.job=restore cxrescue.yes=1 "
              f"cxrescue.bundle=kept/aa-bb-cc-dd-ee-03_cx3-a.tar cxrescue.bundle_sha256={sha_a}",
        "04": f"{both} {base} cxrescue.job=restore cxrescue.yes=1 cxrescue.device_data=1 "
              f"cxrescue.bundle=kept/aa-bb-cc-dd-ee-03_cx3-b.tar cxrescue.bundle_sha256={sha_b}",
        "05": f"{both} {base} cxrescue.job=update cxrescue.card=all cxrescue.yes=1 cxrescue.upload=optional",
        "06": f"{serial} {base}",
        "07": f"{both} {base} cxrescue.job=backup cxrescue.card=01:00.0",
        "08": f"{both} {base} cxrescue.job=crossflash cxrescue.yes=1 cxrescue.rom=hp-uefi.rom",
        "09": f"{both} {base} cxrescue.job=update cxrescue.yes=1 cxrescue.rom=none",
        "0a": f"console=ttyS1,115200n8 {base} cxrescue.job=inventory",
        "0b": f"console=ttyS0,115200n8 {base} cxrescue.job=inventory",
    }
    for k, append in want.items():
        assert appends(cfg / f"01-aa-bb-cc-dd-ee-{k}") == [append], k
    # no default line: the menu stays, each entry told the server
    menu = (images / "pxe" / "pxelinux.cfg" / "default").read_text().splitlines()
    got = (cfg / "default").read_text().splitlines()
    assert len(got) == len(menu)
    for a, b in zip(menu, got):
        assert b == (a + f" cxrescue.server={SERVER}" if a.strip().startswith("APPEND ") else a)
    assert any(a.strip().startswith("APPEND ") for a in menu)
    # the tree: a fresh copy, readable by all and writable by root only; uploads kept
    tftp = root / "tftp"
    assert not (tftp / "stale.txt").exists()
    for name in ("pxelinux.0", "ldlinux.c32", "menu.c32", "boot/vmlinuz", "boot/initrd.gz"):
        assert (tftp / name).read_bytes() == (images / "pxe" / name).read_bytes(), name
    for p in [tftp] + [p for p in tftp.rglob("*") if "uploads" not in p.parts]:
        assert p.stat().st_mode & 0o022 == 0 and p.stat().st_mode & 0o004, p
    assert (up.stat().st_mode & 0o7777) == 0o1777
    assert snapshot(up) == uploads_before
    # the firmware folder: the images and their SHA-256 as a node's /init reads them
    served_fw = tftp / "firmware"
    assert sorted(p.name for p in served_fw.iterdir()) == sorted(["INDEX", *bins])
    index = dict(reversed(ln.split()) for ln in (served_fw / "INDEX").read_text().splitlines())
    assert index == {n: hashlib.sha256(d).hexdigest() for n, d in bins.items()}
    assert all((served_fw / n).read_bytes() == d for n, d in bins.items())
    out = r.stdout
    assert f"server {SERVER} on s0, full DHCP: leases {NET}.100..{NET}.150" in out
    assert re.search(r"\b42000  pxelinux\.0$", out, re.M)
    assert re.search(r"^  aa:bb:cc:dd:ee:03  restore +yes=1 bundle=latest "
                     r"\(kept/aa-bb-cc-dd-ee-03_cx3-a\.tar\)$", out, re.M), out
    assert "every other node: the interactive menu" in out
    assert f"uploads land in {up}/ (named <node MAC>_<name>)" in out
    assert "dry run: nothing started" in out

    # Again, with a default job and no node lines: the old 01- files go, uploads stay.
    jf.write_text("default backup console=serial\n")
    r = serve(dry_ns, "--proxy", "--jobs", jf, "--dry-run", root=root, images=images)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in cfg.iterdir()) == ["default"]
    assert not (tftp / "firmware").exists()
    assert appends(cfg / "default") == [f"{serial} {base} cxrescue.job=backup"]
    assert "every other node: backup console=serial" in r.stdout
    assert f"proxy-DHCP beside the network's DHCP server on {NET}.0/24" in r.stdout
    assert snapshot(up) == uploads_before


def test_environment_and_usage_errors(dry_ns, images, tmp_path):
    root = tmp_path / "root"
    r = serve(dry_ns, "--proxy", "--dry-run", root=root, images=tmp_path / "none")
    assert r.returncode == 4 and "run make images first" in r.stderr, r.stderr
    r = run(["ip", "netns", "exec", dry_ns, SERVE, "--interface", "p0", "--proxy", "--dry-run",
             "--root", root, "--images", images])
    assert r.returncode == 4 and "p0 has no IPv4 address" in r.stderr, r.stderr
    r = run(["ip", "netns", "exec", dry_ns, SERVE, "--interface", "eth9", "--proxy", "--dry-run",
             "--root", root, "--images", images])
    assert r.returncode == 4 and "no interface eth9" in r.stderr, r.stderr
    for args in (["--dry-run"], ["--proxy", "--dhcp", f"{NET}.100,{NET}.150"], ["--dhcp", "x,y"],
                 ["--proxy", "--bogus"]):
        r = serve(dry_ns, *args, root=root, images=images)
        assert r.returncode == 2 and "usage:" in r.stderr, (args, r.stderr)
    fw = tmp_path / "fw"
    r = serve(dry_ns, "--proxy", "--firmware", fw, "--dry-run", root=root, images=images)
    assert r.returncode == 4 and "no such folder" in r.stderr, r.stderr
    fw.mkdir()
    (fw / "notes.txt").write_text("x")
    r = serve(dry_ns, "--proxy", "--firmware", fw, "--dry-run", root=root, images=images)
    assert r.returncode == 4 and "no *.bin or *.rom in it" in r.stderr, r.stderr
    (fw / "stock fw.bin").write_bytes(b"x")
    r = serve(dry_ns, "--proxy", "--firmware", fw, "--dry-run", root=root, images=images)
    assert r.returncode == 4 and "'stock fw.bin': nodes take only names" in r.stderr, r.stderr
    r = serve(dry_ns, "--dhcp", "10.1.2.100,10.1.2.150", root=root, images=images)
    assert r.returncode == 2 and "not inside s0's subnet" in r.stderr, r.stderr
    r = serve(dry_ns, "--dhcp", f"{NET}.1,{NET}.9", root=root, images=images)
    assert r.returncode == 2 and "holds the server's own address" in r.stderr, r.stderr
    assert not root.exists()


# --- 3. the real daemons ------------------------------------------------------------------------

def busybox_with(*applets):
    """The built static BusyBox, if it has these applets (the image's udhcpc and tftp)."""
    for bb in (BUILD / "busybox" / "busybox", BUILD / "initramfs-stage" / "bin" / "busybox"):
        if bb.is_file() and os.access(bb, os.X_OK):
            have = set(run([bb, "--list"]).stdout.split())
            if have.issuperset(applets):
                return bb
    return None


def default_sigint():
    """In the child: SIGINT and SIGQUIT as a terminal's shell starts a command. A pytest-xdist
    worker was seen ignoring both after some hours of tests (/proc/PID/status SigIgn 0x6 of
    pxe-serve, inherited), and a shell started with a signal ignored cannot trap it (bash(1),
    trap), so pxe-serve's Ctrl-C trap never ran and test_proxy_mode_serves_tftp waited."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


class Served:
    """pxe-serve running in the background; its output collected as it comes."""

    def __init__(self, ns, *args):
        self.p = subprocess.Popen(["ip", "netns", "exec", ns, str(SERVE), "--interface", "s0",
                                   *map(str, args)], stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, errors="replace",
                                  start_new_session=True,   # a process group, as in a terminal
                                  preexec_fn=default_sigint)
        self.lines = []
        self.t = threading.Thread(target=lambda: self.lines.extend(self.p.stdout), daemon=True)
        self.t.start()

    @property
    def out(self):
        return "".join(self.lines)

    def wait_for(self, text, timeout=15):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if text in self.out:
                return
            if self.p.poll() is not None:
                break
            time.sleep(0.05)
        self.t.join(1)
        raise AssertionError(f"no {text!r} from pxe-serve (exit {self.p.poll()}):\n{self.out}")

    def stop(self, sig=signal.SIGTERM):
        """SIGTERM to pxe-serve, or SIGINT to its process group (the terminal's Ctrl-C). It
        KILLs what is left of its daemons after 5 s: STOP_TIMEOUT leaves room for a loaded
        machine; past it, the error shows pxe-serve's signal masks."""
        if self.p.poll() is None:
            if sig == signal.SIGINT:
                os.killpg(self.p.pid, sig)
            else:
                self.p.send_signal(sig)
        try:
            return self.p.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            status = pathlib.Path(f"/proc/{self.p.pid}/status").read_text()
            masks = "".join(line for line in status.splitlines(True) if line.startswith("Sig"))
            raise AssertionError(f"pxe-serve did not stop in {STOP_TIMEOUT} s; its signals:\n{masks}{self.out}")
        finally:
            self.t.join(2)


@contextlib.contextmanager
def served(ns, *args):
    s = Served(ns, *args)
    try:
        yield s
    finally:
        if s.p.poll() is None:
            s.p.kill()
            s.p.wait()


def tftp(node, bb, *args):
    return run(["ip", "netns", "exec", node, bb, "tftp", *args, SERVER], timeout=30)


def test_dhcp_tftp_uploads_and_stop(rack, images, tmp_path):
    srv, node = rack
    bb = busybox_with("udhcpc", "tftp")
    if bb is None:
        pytest.skip(f"no BusyBox with udhcpc and tftp under {BUILD} (make builds it)")
    root = tmp_path / "root"
    with served(srv, "--dhcp", f"{NET}.100,{NET}.150", "--root", root, "--images", images) as s:
        s.wait_for("serving;")
        # DHCP: udhcpc's script writes down what it was told. -B asks for broadcast replies:
        # dnsmasq pings a fresh address first, and the unicast offer then found no ARP entry
        # on these veths (what PXE ROMs do anyway).
        script = tmp_path / "dhcp.sh"
        script.write_text(f"#!/bin/sh\nenv > {tmp_path}/dhcp.$1\n")
        script.chmod(0o755)
        r = run(["ip", "netns", "exec", node, bb, "udhcpc", "-i", "c0", "-f", "-q", "-n", "-B",
                 "-t", "5", "-T", "1", "-s", script], timeout=30)
        assert r.returncode == 0, r.stdout + r.stderr
        lease = dict(ln.split("=", 1) for ln in (tmp_path / "dhcp.bound").read_text().splitlines()
                     if "=" in ln)
        assert lease["siaddr"] == SERVER and lease["boot_file"] == "pxelinux.0", lease
        assert lease["serverid"] == SERVER
        last = int(lease["ip"].rsplit(".", 1)[1])
        assert lease["ip"].startswith(NET + ".") and 100 <= last <= 150, lease
        ip("-n", node, "addr", "add", f"{lease['ip']}/24", "dev", "c0")

        # TFTP: the served files, in blocks of up to 1468 bytes as the nodes ask
        got = tmp_path / "got.0"
        r = tftp(node, bb, "-g", "-r", "pxelinux.0", "-l", got, "-b", "1468")
        assert r.returncode == 0 and got.read_bytes() == (images / "pxe/pxelinux.0").read_bytes(), r.stderr
        r = tftp(node, bb, "-g", "-r", "pxelinux.cfg/default", "-l", got)
        assert r.returncode == 0 and f"cxrescue.server={SERVER}" in got.read_text()

        # an upload lands in uploads/, byte for byte, and is written once: a second upload of
        # the same name is refused, and the first stays (a node sends its next try as <name>~N)
        up = root / "tftp" / "uploads"
        blob, first = tmp_path / "blob", None
        for size in (300_000, 1000):
            blob.write_bytes(os.urandom(size))
            r = tftp(node, bb, "-p", "-l", blob, "-r", "uploads/aa-bb-cc-dd-ee-01_x.bin", "-b", "1468")
            if first is None:
                assert r.returncode == 0, r.stderr
                first = blob.read_bytes()
            else:
                assert r.returncode != 0 and "Permission denied" in r.stderr, r.stderr
            assert (up / "aa-bb-cc-dd-ee-01_x.bin").read_bytes() == first
            # a node reads each upload back to check it
            r = tftp(node, bb, "-g", "-r", "uploads/aa-bb-cc-dd-ee-01_x.bin", "-l", got, "-b", "1468")
            assert r.returncode == 0 and got.read_bytes() == first, r.stderr
        st = (up / "aa-bb-cc-dd-ee-01_x.bin").stat()
        assert (st.st_uid, st.st_mode & 0o777) == (65534, 0o444)   # nobody's, read-only

        # nothing else can be written: the boot files, new files beside them, a node's config
        served_tree = snapshot(root / "tftp" / "boot"), (root / "tftp" / "pxelinux.0").read_bytes()
        for remote in ("pxelinux.0", "boot/vmlinuz", "evil.bin", "pxelinux.cfg/01-02-00-00-c0-ff-ee",
                       "../escape.bin", "/etc/cron.d/x"):
            r = tftp(node, bb, "-p", "-l", blob, "-r", remote)
            assert r.returncode != 0, f"upload to {remote} was accepted"
        assert (snapshot(root / "tftp" / "boot"), (root / "tftp" / "pxelinux.0").read_bytes()) == served_tree
        assert not (root / "tftp" / "evil.bin").exists()
        assert not (root / "tftp" / "pxelinux.cfg" / "01-02-00-00-c0-ff-ee").exists()
        assert not (root / "escape.bin").exists()

        t0 = time.monotonic()
        assert s.stop() == 0, s.out
        assert time.monotonic() - t0 < 5
        assert "pxe-serve: stopped" in s.out
        assert run(["ip", "netns", "pids", srv]).stdout.split() == [], "a daemon outlived pxe-serve"
    log = (root / "dnsmasq.log").read_text()
    assert "DHCPACK(s0)" in log and "02:00:00:c0:ff:ee" in log


def test_proxy_mode_serves_tftp(rack, images, tmp_path):
    srv, node = rack
    bb = busybox_with("tftp")
    root = tmp_path / "root"
    with served(srv, "--proxy", "--root", root, "--images", images) as s:
        s.wait_for("serving;")
        assert f"proxy-DHCP beside the network's DHCP server on {NET}.0/24" in s.out
        assert f"DHCP, proxy on subnet {NET}.0" in (root / "dnsmasq.log").read_text()
        if bb is None:
            print(f"TFTP part skipped: no BusyBox with tftp under {BUILD}")
        else:
            ip("-n", node, "addr", "add", f"{NET}.2/24", "dev", "c0")
            got = tmp_path / "got"
            r = tftp(node, bb, "-g", "-r", "boot/initrd.gz", "-l", got)
            assert r.returncode == 0 and got.read_bytes() == (images / "pxe/boot/initrd.gz").read_bytes()
        # Ctrl-C reaches pxe-serve alone (its trap stops the daemons), never a daemon directly
        assert os.getpgid(int((root / "dnsmasq.pid").read_text())) != s.p.pid
        assert s.stop(signal.SIGINT) == 0, s.out
        assert "pxe-serve: stopped" in s.out and "exited by itself" not in s.out
        assert run(["ip", "netns", "pids", srv]).stdout.split() == []


def test_a_daemon_that_dies_stops_the_other(rack, images, tmp_path):
    srv, _ = rack
    root = tmp_path / "root"
    with served(srv, "--dhcp", f"{NET}.100,{NET}.150", "--root", root, "--images", images) as s:
        s.wait_for("serving;")
        os.kill(int((root / "dnsmasq.pid").read_text()), signal.SIGTERM)
        assert s.p.wait(timeout=STOP_TIMEOUT) == 1
        s.t.join(2)
        assert "dnsmasq exited by itself" in s.out and "exiting on receipt of SIGTERM" in s.out, s.out
        assert run(["ip", "netns", "pids", srv]).stdout.split() == []


def test_a_taken_port_is_named(rack, images, tmp_path):
    srv, _ = rack
    other = subprocess.Popen(["ip", "netns", "exec", srv, "in.tftpd", "--foreground", "--address",
                              ":69", str(tmp_path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(50):
            if ":69 " in run(["ip", "netns", "exec", srv, "ss", "-Huln"]).stdout:
                break
            time.sleep(0.05)
        r = run(["ip", "netns", "exec", srv, SERVE, "--interface", "s0", "--proxy",
                 "--root", tmp_path / "root", "--images", images])
        assert r.returncode == 4, r.stdout + r.stderr
        assert "UDP port 69 (TFTP)" in r.stderr and "in.tftpd" in r.stderr
        assert "systemctl stop tftpd-hpa" in r.stderr
        assert not (tmp_path / "root").exists()
    finally:
        other.kill()
        other.wait()



# --- 3b. one-shot jobs, kept bundles, UEFI and BIOS clients ------------------------------------

G1 = "0002c90300c0ffe0"


def wait_until(what, check, timeout=15):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = check()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def fetch(node, bb, remote, tmp_path):
    """A file from the server over TFTP, as a node reads it; None when refused."""
    got = tmp_path / "fetched"
    got.unlink(missing_ok=True)
    r = tftp(node, bb, "-g", "-r", remote, "-l", got)
    return got.read_bytes() if r.returncode == 0 else None


def put(node, bb, local, remote):
    return tftp(node, bb, "-p", "-l", local, "-r", remote, "-b", "1468")


def upload_report(node, bb, tmp_path, mac, name, rep):
    f = tmp_path / name
    f.write_text(json.dumps(rep))
    r = put(node, bb, f, f"uploads/{mac}_{name}")
    assert r.returncode == 0, r.stderr


def node_state(root, mac):
    p = root / "nodes" / f"{mac}.json"
    return json.loads(p.read_text()) if p.exists() else {}


def serving(srv, root, images, jobs, *extra):
    return served(srv, "--dhcp", f"{NET}.100,{NET}.150", "--jobs", jobs, "--root", root,
                  "--images", images, *extra)


@pytest.fixture
def quick(monkeypatch):
    """pxe-nodes looks every 0.2 s, and drops a kept bundle's uploads/ name after 2 s."""
    monkeypatch.setenv("CXR_PXE_POLL", "0.2")
    monkeypatch.setenv("CXR_PXE_GRACE", "2")


def test_one_shot_jobs_follow_the_uploads(rack, images, tmp_path, quick):
    srv, node = rack
    bb = busybox_with("tftp")
    if bb is None:
        pytest.skip(f"no BusyBox with tftp under {BUILD} (make builds it)")
    ip("-n", node, "addr", "add", f"{NET}.2/24", "dev", "c0")
    root = tmp_path / "root"
    jf = tmp_path / "rack.jobs"
    jf.write_text(f"{M1} crossflash yes=1\n{M2} backup\n{M3} update yes=1\n")
    n1, n2, n3 = (m.replace(":", "-") for m in (M1, M2, M3))
    cfg1 = f"pxelinux.cfg/01-{n1}"
    with serving(srv, root, images, jf) as s:
        s.wait_for("serving;")
        assert node_state(root, n1)["state"] == "job"
        assert "cxrescue.job=crossflash" in fetch(node, bb, cfg1, tmp_path).decode()

        # the backup before the write: from now on a boot again writes nothing
        bundle = tmp_path / "b.tar"
        bundle_tar(bundle)
        assert put(node, bb, bundle, f"uploads/{n1}_cx3-HP-{G1}-20261130T150010Z.tar").returncode == 0
        wait_until("running", lambda: node_state(root, n1).get("state") == "running")
        text = fetch(node, bb, cfg1, tmp_path).decode()
        assert "crossflash started" in text.splitlines()[0] and "cxrescue.job=" not in text
        assert "MENU TITLE" in text or "LABEL shell" in text      # the interactive menu

        upload_report(node, bb, tmp_path, n1, "20261130T150110Z-crossflash.json", report(
            "crossflash", "2026-11-30T15:01:10Z", [card(guid=G1, to=("MT_1090120019", "2.42.5000"))]))
        wait_until("verify", lambda: node_state(root, n1).get("state") == "verify")
        expect = f"cxrescue.job=verify cxrescue.expect={G1}:MT_1090120019:2.42.5000:2.40.5030"
        assert appends_of(fetch(node, bb, cfg1, tmp_path).decode()) == [
            f"console=tty0 console=ttyS0,115200n8 console=ttyS1,115200n8 quiet ixgbe.allow_unsupported_sfp=1 "
            f"cxrescue.media=pxe cxrescue.server={SERVER} {expect}"]
        grub = fetch(node, bb, f"grub/nodes/{M1}.cfg", tmp_path).decode()
        assert expect in grub and "BOOTIF=01-${net_default_mac}" in grub

        # node 3's update fails: the menu, with the reason; node 2's backup: local boot
        upload_report(node, bb, tmp_path, n3, "20261130T160000Z-update.json", report(
            "update", "2026-11-30T16:00:00Z", [card(result="failed", message="verify failed at 0x10000",
                                                     to=("MT_1090120019", "2.42.5000"))], result="failed"))
        upload_report(node, bb, tmp_path, n2, "20261130T150000Z-backup.json",
                      report("backup", "2026-11-30T15:00:00Z", [card()]))
        upload_report(node, bb, tmp_path, "aa-bb-cc-dd-ee-09", "20261130T150000Z-inventory.json",
                      report("inventory", "2026-11-30T15:00:00Z", [card()]))
        wait_until("menu", lambda: node_state(root, n3).get("state") == "menu")
        wait_until("local", lambda: node_state(root, n2).get("state") == "local")
        first = fetch(node, bb, f"pxelinux.cfg/01-{n3}", tmp_path).decode().splitlines()[0]
        assert first == (f"# pxe-serve: {M3}: update failed (aa-bb-cc-dd-ee-03_20261130T160000Z-update.json): "
                         "0000:00:04.0: failed: verify failed at 0x10000"), first
        assert "LOCALBOOT 0" in fetch(node, bb, f"pxelinux.cfg/01-{n2}", tmp_path).decode()
        s.wait_for("aa:bb:cc:dd:ee:09: report aa-bb-cc-dd-ee-09_20261130T150000Z-inventory.json "
                   "from a node the jobs file does not name")
        assert s.stop() == 0, s.out
    assert run(["ip", "netns", "pids", srv]).stdout.split() == [], "pxe-nodes outlived pxe-serve"

    # a restart: the states stay, and so do the entries they give
    with serving(srv, root, images, jf) as s:
        s.wait_for("serving;")
        assert re.search(rf"^  {M1}  now: verify: crossflash ok", s.out, re.M), s.out
        assert expect in fetch(node, bb, cfg1, tmp_path).decode()
        # the verify report, after the cold restart: local boot, pxelinux and GRUB
        upload_report(node, bb, tmp_path, n1, "20261130T170000Z-verify.json", report(
            "verify", "2026-11-30T17:00:00Z", [card(guid=G1, psid="MT_1090120019", fw="2.42.5000",
                                                    message="running FW 2.42.5000, the one written")]))
        wait_until("local", lambda: node_state(root, n1).get("state") == "local")
        text = fetch(node, bb, cfg1, tmp_path).decode()
        assert "LOCALBOOT 0" in text and "cxrescue.job" not in text
        assert "\texit\n" in fetch(node, bb, f"grub/nodes/{M1}.cfg", tmp_path).decode()
        assert [h["state"] for h in node_state(root, n1)["history"]] == ["job", "running", "verify", "local"]
        s.wait_for(f"{M1}: verified (aa-bb-cc-dd-ee-01_20261130T170000Z-verify.json): running {G1} 2.42.5000")
        assert s.stop() == 0
    # pxe-report: the newest report of each job, each node's state; node 3 failed: exit 1
    r = run([REPORT, "--jobs", jf, root])
    assert r.returncode == 1, r.stdout
    got = {(ln[0], ln[1]): (ln[6], ln[-1]) for ln in cells(r.stdout)[1:] if len(ln) == 10}
    assert got == {(M1, "crossflash"): ("ok", "verified running 2.42.5000: local boot"),
                   (M1, "verify"): ("ok", "verified running 2.42.5000: local boot"),
                   (M2, "backup"): ("ok", "local boot"), (M3, "update"): ("failed", "menu"),
                   ("aa:bb:cc:dd:ee:09", "inventory"): ("ok", "-")}, r.stdout
    assert r.stdout.splitlines()[-1].endswith("; 2 of 3 nodes of the jobs file done")

    # a changed jobs line is a new job; the old reports do not move it on
    jf.write_text(f"{M1} crossflash yes=1 card=all\n{M2} backup\n")
    with serving(srv, root, images, jf) as s:
        s.wait_for("serving;")
        time.sleep(0.6)   # pxe-nodes has looked at uploads/ a few times
        assert node_state(root, n1)["state"] == "job"
        assert "cxrescue.job=crossflash" in fetch(node, bb, cfg1, tmp_path).decode()
        assert node_state(root, n2)["state"] == "local"
        assert node_state(root, n3)["state"] == "menu"           # kept, but no entry of its own
        assert fetch(node, bb, f"pxelinux.cfg/01-{n3}", tmp_path) is None
        assert s.stop() == 0


def appends_of(text):
    return [ln.strip()[len("APPEND "):] for ln in text.splitlines() if ln.strip().startswith("APPEND ")]


def test_a_kept_bundle_cannot_be_swapped(rack, images, tmp_path, quick):
    srv, node = rack
    bb = busybox_with("tftp")
    if bb is None:
        pytest.skip(f"no BusyBox with tftp under {BUILD} (make builds it)")
    ip("-n", node, "addr", "add", f"{NET}.2/24", "dev", "c0")
    root = tmp_path / "root"
    jf = tmp_path / "rack.jobs"
    jf.write_text(f"{M1} backup\n")
    n1 = M1.replace(":", "-")
    name = f"{n1}_cx3-HP-{G1}-20261130T150010Z.tar"
    mine, planted = tmp_path / "mine.tar", tmp_path / "planted.tar"
    sha = bundle_tar(mine)
    bundle_tar(planted, flash=b"\xff" * 4096)
    half = tmp_path / "half.tar"
    half.write_bytes(mine.read_bytes()[:3000])
    with serving(srv, root, images, jf) as s:
        s.wait_for("serving;")
        # a cut upload is never kept
        assert put(node, bb, half, f"uploads/{n1}_cut.tar").returncode == 0
        assert put(node, bb, mine, f"uploads/{name}").returncode == 0
        # the node reads it back at once: that works before and after it is kept
        assert fetch(node, bb, f"uploads/{name}", tmp_path) == mine.read_bytes()
        kept = root / "tftp" / "kept" / name
        wait_until("kept", kept.exists)
        assert fetch(node, bb, f"uploads/{name}", tmp_path) == mine.read_bytes()
        st = kept.stat()
        assert (st.st_uid, st.st_mode & 0o777) == (0, 0o444)
        index = json.loads((root / "kept.json").read_text())
        assert index[name]["sha256"] == sha and index[name]["node"] == M1
        assert f"{n1}_cut.tar" not in index
        # another host overwrites the name: refused while the uploads/ name is there ...
        assert put(node, bb, planted, f"uploads/{name}").returncode != 0
        assert fetch(node, bb, f"uploads/{name}", tmp_path) == mine.read_bytes()
        # ... and after it went (GRACE), the new file is never kept nor used
        wait_until("the uploads/ name to go", lambda: not (root / "tftp" / "uploads" / name).exists())
        assert put(node, bb, planted, f"uploads/{name}").returncode == 0
        s.wait_for(f"uploads/{name}: a new upload under the name of a kept bundle: not kept, not used")
        assert kept.read_bytes() == mine.read_bytes()
        assert put(node, bb, planted, f"kept/{name}").returncode != 0
        assert put(node, bb, planted, f"kept/{n1}_new.tar").returncode != 0
        assert s.stop() == 0

    # the restore names the kept bundle and its recorded SHA-256, never the planted one
    jf.write_text(f"{M1} restore yes=1 bundle=latest\n")
    with serving(srv, root, images, jf) as s:
        s.wait_for("serving;")
        text = fetch(node, bb, f"pxelinux.cfg/01-{n1}", tmp_path).decode()
        assert f"cxrescue.bundle=kept/{name} cxrescue.bundle_sha256={sha}" in text, text
        assert fetch(node, bb, f"kept/{name}", tmp_path) == mine.read_bytes()
        assert (root / "tftp" / "uploads" / name).read_bytes() == planted.read_bytes()
        assert kept.read_bytes() == mine.read_bytes()
        assert s.stop() == 0


def udhcpc_boot_file(node, bb, tmp_path, *opts):
    """The boot file a DHCP server offers this client (udhcpc -x options, -V vendor class)."""
    script = tmp_path / "dhcp.sh"
    script.write_text(f"#!/bin/sh\nenv > {tmp_path}/dhcp.$1\n")
    script.chmod(0o755)
    (tmp_path / "dhcp.bound").unlink(missing_ok=True)
    r = run(["ip", "netns", "exec", node, bb, "udhcpc", "-i", "c0", "-f", "-q", "-n", "-B",
             "-t", "5", "-T", "1", "-s", script, *opts], timeout=30)
    assert r.returncode == 0, r.stdout + r.stderr
    lease = dict(ln.split("=", 1) for ln in (tmp_path / "dhcp.bound").read_text().splitlines() if "=" in ln)
    return lease.get("boot_file"), lease.get("siaddr")


@pytest.fixture
def uefi_images(images):
    (images / "pxe" / "grub").mkdir()
    (images / "pxe" / "grub" / "grubx64.efi").write_bytes(os.urandom(30000))
    return images


def test_uefi_and_bios_clients_dhcp(rack, uefi_images, tmp_path):
    srv, node = rack
    bb = busybox_with("udhcpc", "tftp")
    if bb is None:
        pytest.skip(f"no BusyBox with udhcpc and tftp under {BUILD} (make builds it)")
    root = tmp_path / "root"
    with served(srv, "--dhcp", f"{NET}.100,{NET}.150", "--root", root, "--images", uefi_images) as s:
        s.wait_for("serving;")
        assert "x86-64 UEFI clients (option 93 = 7 or 9) grub/grubx64.efi" in s.out
        # option 93 (client architecture, 2 bytes): 7 and 9 are x86-64 UEFI, 0 a BIOS PC
        assert udhcpc_boot_file(node, bb, tmp_path, "-x", "0x5d:0007") == ("grub/grubx64.efi", SERVER)
        assert udhcpc_boot_file(node, bb, tmp_path, "-x", "0x5d:0009") == ("grub/grubx64.efi", SERVER)
        assert udhcpc_boot_file(node, bb, tmp_path, "-x", "0x5d:0000") == ("pxelinux.0", SERVER)
        assert udhcpc_boot_file(node, bb, tmp_path) == ("pxelinux.0", SERVER)
        ip("-n", node, "addr", "add", f"{NET}.2/24", "dev", "c0")
        assert fetch(node, bb, "grub/grubx64.efi", tmp_path) == \
            (uefi_images / "pxe" / "grub" / "grubx64.efi").read_bytes()
        assert b"menuentry" in fetch(node, bb, "grub/grub.cfg", tmp_path)
        assert s.stop() == 0
    # images without the GRUB image: a UEFI client gets an address but never pxelinux.0
    (uefi_images / "pxe" / "grub" / "grubx64.efi").unlink()
    ip("-n", node, "addr", "flush", "dev", "c0")
    with served(srv, "--dhcp", f"{NET}.100,{NET}.150", "--root", root, "--images", uefi_images) as s:
        s.wait_for("serving;")
        assert "no " in s.out and "UEFI clients get no boot file" in s.out
        assert udhcpc_boot_file(node, bb, tmp_path, "-x", "0x5d:0007")[0] is None
        assert udhcpc_boot_file(node, bb, tmp_path)[0] == "pxelinux.0"
        assert s.stop() == 0


# A PXE ROM's DHCPDISCOVER (RFC 2131 §4.4.1 with RFC 4578's options 93 and 60), sent from the
# node namespace; prints the reply's siaddr, boot file and whether option 43 (the PXE menu that
# a BIOS ROM then takes to the boot server on port 4011) names our service.
PXE_DISCOVER = r"""
import os, socket, struct, sys
arch = int(sys.argv[1]); mac = bytes.fromhex(sys.argv[2].replace(":", ""))
xid = os.urandom(4)
vendor = b"PXEClient:Arch:%05d:UNDI:002001" % arch


def packet(kind, extra=b"", ciaddr=bytes(4)):
    head = struct.pack("!BBBB4sHH4s4s4s4s16s64s128s", 1, 1, 6, 0, xid, 0, 0x8000, ciaddr, bytes(4),
                       bytes(4), bytes(4), mac.ljust(16, b"\0"), bytes(64), bytes(128))
    return (head + b"\x63\x82\x53\x63" + bytes([53, 1, kind, 93, 2]) + arch.to_bytes(2, "big")
            + bytes([60, len(vendor)]) + vendor + b"\x37\x03\x2b\x3c\x42" + extra + b"\xff")


def answer(to):
    for _ in range(3):
        s.sendto(to[0], to[1])
        s.settimeout(3)
        try:
            while True:
                data, _ = s.recvfrom(4096)
                if data[4:8] == xid and data[0] == 2:
                    return data
        except socket.timeout:
            continue
    print("no answer"); sys.exit(1)


def option(data, code):
    o, i = data[240:], 0
    while i < len(o) and o[i] != 255:
        if o[i] == 0: i += 1; continue
        if o[i] == code: return o[i + 2:i + 2 + o[i + 1]]
        i += 2 + o[i + 1]
    return b""


s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, b"c0")   # 255.255.255.255 has no route
s.bind(("0.0.0.0", 68))
data = answer((packet(1), ("255.255.255.255", 67)))
menu = option(data, 43)
if len(sys.argv) > 3:
    # then the boot server, as the ROM asks it (PXE 2.1 §2.2.5, port 4011): a BIOS ROM names
    # the menu's first item (sub-option 9: type, length, text) as PXE_BOOT_ITEM (71), layer 0
    item = b""
    o, i = menu, 0
    while i < len(o) and o[i] != 255:
        if o[i] == 9: item = bytes([43, 6, 71, 4]) + o[i + 2:i + 4] + b"\0\0"
        i += 2 + o[i + 1]
    # from the address the network's own DHCP server gave it (ciaddr)
    data = answer((packet(3, item, socket.inet_aton(sys.argv[4])), (sys.argv[3], 4011)))
siaddr = socket.inet_ntoa(data[20:24]); file = data[108:236].split(b"\0")[0].decode()
print(siaddr, file or "-", "menu:cxrescue" if b"cxrescue" in menu else "no-menu")
"""


def pxe_discover(node, arch, boot_server=None):
    r = run(["ip", "netns", "exec", node, "/usr/bin/python3", "-c", PXE_DISCOVER, str(arch),
             "02:00:00:c0:ff:ee", *([boot_server, f"{NET}.2"] if boot_server else [])], timeout=30)
    assert r.returncode == 0, r.stdout + r.stderr
    return tuple(r.stdout.split())


def test_uefi_and_bios_clients_proxy(rack, uefi_images, tmp_path):
    """Proxy-DHCP answers only the PXE part, and the boot server (port 4011) the boot file: a
    UEFI ROM gets the GRUB image, a BIOS ROM the PXE menu with our service, then pxelinux."""
    srv, node = rack
    root = tmp_path / "root"
    with served(srv, "--proxy", "--root", root, "--images", uefi_images) as s:
        s.wait_for("serving;")
        ip("-n", node, "addr", "add", f"{NET}.2/24", "dev", "c0")
        # UEFI: the offer names us as the boot server, which then gives the GRUB image
        for arch in (7, 9):
            assert pxe_discover(node, arch) == (SERVER, "-", "no-menu")
            assert pxe_discover(node, arch, SERVER) == (SERVER, "grub/grubx64.efi", "no-menu")
        # BIOS: the PXE menu with our service, whose item the boot server answers with pxelinux
        assert pxe_discover(node, 0)[1:] == ("-", "menu:cxrescue")
        assert pxe_discover(node, 0, SERVER)[:2] == (SERVER, "pxelinux.0")
        assert s.stop() == 0


def grub_entries(text):
    """[(id, linux line, initrd)] of a GRUB menu."""
    return re.findall(r'menuentry "[^"]*" --id (\S+) \{\n\tlinux (.*)\n\tinitrd (.*)\n\}', text)


def test_grub_entries_are_pxelinux_entries(dry_ns, uefi_images, tmp_path):
    root = tmp_path / "root"
    jf = tmp_path / "rack.jobs"
    jf.write_text(f"{M1} crossflash yes=1\n{M2} inventory console=serial\n")
    r = serve(dry_ns, "--proxy", "--jobs", jf, "--dry-run", root=root, images=uefi_images)
    assert r.returncode == 0, r.stderr
    tftp_root = root / "tftp"

    def pxe_entries(text):
        out = []
        for block in re.split(r"^LABEL ", text, flags=re.M)[1:]:
            label = block.split("\n", 1)[0].strip()
            kv = {ln.split(None, 1)[0].upper(): ln.split(None, 1)[1] if len(ln.split(None, 1)) > 1 else ""
                  for ln in block.splitlines()[1:] if ln.strip()}
            boot = " BOOTIF=01-${net_default_mac}" if kv.get("IPAPPEND", "").strip() == "2" else ""
            out.append((label, f"{kv['LINUX']} {kv['APPEND']}{boot}", kv["INITRD"]))
        return out

    menu = pxe_entries((tftp_root / "pxelinux.cfg" / "default").read_text())
    assert len(menu) >= 2
    grub = (tftp_root / "grub" / "grub.cfg").read_text()
    assert grub_entries(grub) == menu
    assert "configfile $prefix/nodes/${net_default_mac}.cfg" in grub
    for mac in (M1, M2):
        pxe = pxe_entries((tftp_root / "pxelinux.cfg" / f"01-{mac.replace(':', '-')}").read_text())
        assert len(pxe) == 1
        assert grub_entries((tftp_root / "grub" / "nodes" / f"{mac}.cfg").read_text()) == pxe


def test_settings_go_on_the_nodes_command_line(dry_ns, uefi_images, tmp_path):
    """settings= goes on the node's kernel command line as cxrescue.settings=, in its pxelinux
    entry and its GRUB entry alike; a line without it gets none."""
    root = tmp_path / "root"
    jf = tmp_path / "rack.jobs"
    jf.write_text(f"{M1} crossflash yes=1 settings=LINK_TYPE_P1=ETH,LINK_TYPE_P2=eth\n"
                  f"{M2} settings yes=1 settings=SRIOV_EN=True,NUM_OF_VFS=0x10 card=01:00.0\n"
                  f"{M3} update yes=1\n")
    r = serve(dry_ns, "--proxy", "--jobs", jf, "--dry-run", root=root, images=uefi_images)
    assert r.returncode == 0, r.stderr
    tftp_root = root / "tftp"
    want = {M1: " cxrescue.job=crossflash cxrescue.yes=1 cxrescue.settings=LINK_TYPE_P1=ETH,LINK_TYPE_P2=eth",
            M2: " cxrescue.job=settings cxrescue.card=01:00.0 cxrescue.yes=1 "
                "cxrescue.settings=SRIOV_EN=True,NUM_OF_VFS=0x10",
            M3: " cxrescue.job=update cxrescue.yes=1"}
    for mac, tail in want.items():
        (pxe,) = appends(tftp_root / "pxelinux.cfg" / f"01-{mac.replace(':', '-')}")
        (grub,) = grub_entries((tftp_root / "grub" / "nodes" / f"{mac}.cfg").read_text())
        assert pxe.endswith(tail), pxe
        assert grub[1].endswith(tail + " BOOTIF=01-${net_default_mac}"), grub
        assert ("cxrescue.settings=" in pxe) == (mac != M3)


def nv_table_names():
    """The setting names of cxflash's table (burner/ops/nv_table.c; the per-port macros
    once per port; the ConnectX-4/4 Lx/5 rows, GEN5(...), too)."""
    text = (ROOT / "burner" / "ops" / "nv_table.c").read_text()
    names = set(re.findall(r'\{"([A-Z0-9_a-z]+)", NV_TLV', text))
    for port_name in re.findall(r'\{"([A-Z0-9_]+)" #n,', text):
        names |= {f"{port_name}1", f"{port_name}2"}
    assert len(names) == 31, names   # mstconfig 4.21's ConnectX-3 settings
    rows = re.findall(r'^\t\{"([A-Za-z0-9_]+)", (.*?)(?=^\t\{|^\})', text, re.M | re.S)
    gen5 = {name for name, row in rows if "GEN5(" in row}
    assert len(gen5) == 7, gen5      # LINK_TYPE_P1/P2, SRIOV_EN, NUM_OF_VFS, EXP_ROM_*, LEGACY_BOOT_PROTOCOL
    return names | gen5


def test_settings_checks_agree_with_cxflash(dry_ns, images, tmp_path):
    """pxe-serve's settings table against the node's own check (cxflash rescue without a card:
    the check before any card is read): every name of cxflash's table, with numbers in and out
    of range, every value name, in other cases, and nonsense: both take or both refuse."""
    cxflash = ROOT / "burner" / "cxflash"
    if not cxflash.exists():
        pytest.skip("burner/cxflash is not built (make burner)")
    values = ["0", "1", "2", "3", "4", "7", "8", "31", "32", "4095", "4096", "65535", "65536", "0x10", "010",
              "08", "eth", "ETH", "Vpi", "True", "false", "_20G", "iscsi", "IPv6_IPv4", "legacy", "SGMII",
              "bogus", "-1", "", "5", "6", "none", "PXE", "pxe_wo_fail_iscsi", "ISCSI_WO_FAIL_PXE", "-"]
    items = [f"{n}={v}" for n in sorted(nv_table_names()) for v in values]
    items += ["LINK_SPEED=1", "link_type_p1=ETH", "LINK_TYPE_P3=ETH", "SRIOV_EN=1,SRIOV_EN=True",
              "EXP_ROM_UEFI_x86_ENABLE=0,SRIOV_EN=1"]
    jf = tmp_path / "rack.jobs"
    jf.write_text("".join(f"02:00:00:00:{i >> 8:02x}:{i & 255:02x} settings yes=1 settings={it}\n"
                          for i, it in enumerate(items)))
    r = serve(dry_ns, "--proxy", "--jobs", jf, "--dry-run", root=tmp_path / "root", images=images)
    refused_lines = {int(m) for m in re.findall(rf"^pxe-serve: {re.escape(str(jf))}:(\d+): ", r.stderr, re.M)}
    (tmp_path / "nosys" / "devices").mkdir(parents=True)   # a machine without a card
    env = dict(os.environ, CXR_DATA=str(tmp_path / "data"), CXR_LOCK=str(tmp_path / "lock"),
               CXFLASH_SYSFS=str(tmp_path / "nosys"))
    differ = []
    for i, it in enumerate(items):
        c = subprocess.run([str(cxflash), "--boards", "/dev/null", "rescue", "job=settings", "yes=1",
                            f"settings={it}", "after=exit"], env=env, capture_output=True, text=True,
                           input="", timeout=30)
        node_takes = "The job did not complete: settings=: " not in c.stdout
        assert not node_takes or "no card matches" in c.stdout, c.stdout + c.stderr
        if node_takes == (i + 1 in refused_lines):
            differ.append(f"{it}: cxflash {'takes' if node_takes else 'refuses'} it, pxe-serve does not")
    assert not differ, "\n".join(differ)


def pxe_nodes_module():
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("pxe_nodes", str(ROOT / "scripts" / "pxe-nodes"))
    spec = importlib.util.spec_from_loader("pxe_nodes", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def test_what_verify_is_told_to_expect():
    """cxrescue.expect= from a write report: the cards written ok, by node GUID; a card restored
    from recovery mode by its bundle's GUID; nothing-to-do and failed cards left out."""
    nodes = pxe_nodes_module()
    rep = report("crossflash", "2026-11-30T15:01:10Z", [
        card(guid=G1, to=("MT_1090120019", "2.42.5000")),
        card(bdf="0000:00:05.0", guid="0002c90300000002", result="nothing-to-do"),
        card(bdf="0000:00:06.0", guid="0002c90300000003", result="failed", to=("MT_1090120019", "2.42.5000"))])
    assert nodes.expectation(rep) == f"{G1}:MT_1090120019:2.42.5000:2.40.5030"
    rep = report("restore", "2026-11-30T15:30:00Z",
                 [card(psid=None, fw=None, guid=None, to=("HP_0280210019", "2.40.5030"))],
                 bundle="cx3-HP_0280210019-0002c90300c0ffe3-20261001T000000Z.tar")
    assert nodes.expectation(rep) == "0002c90300c0ffe3:HP_0280210019:2.40.5030:-"
    s = {"mac": "aa-bb-cc-dd-ee-01", "job": "restore", "state": "job", "history": []}
    assert "verify after the cold restart" in nodes.take_report(s, "r.json", rep)
    assert s["state"] == "verify" and s["expect"] == "0002c90300c0ffe3:HP_0280210019:2.40.5030:-"
    # a verify report of another job's state, or a report of another job, moves nothing
    s2 = {"mac": "aa-bb-cc-dd-ee-02", "job": "backup", "state": "job", "history": []}
    assert nodes.take_report(s2, "v.json", report("verify", "2026-11-30T15:30:00Z", [])) is None
    assert s2["state"] == "job"
    # a settings job writes no firmware: done at ok (its settings apply at that cold boot), menu when failed
    s3 = {"mac": "aa-bb-cc-dd-ee-03", "job": "settings", "state": "job", "history": []}
    nodes.take_report(s3, "s.json", report("settings", "2026-11-30T15:40:00Z", [card(settings=[])]))
    assert s3["state"] == "local" and "expect" not in s3, s3
    s3 = {"mac": "aa-bb-cc-dd-ee-03", "job": "settings", "state": "job", "history": []}
    nodes.take_report(s3, "s.json", report("settings", "2026-11-30T15:40:00Z",
                                           [card(result="failed", message="settings not set: firmware not started")],
                                           result="failed"))
    assert s3["state"] == "menu" and "firmware not started" in s3["reason"], s3

# --- 4. pxe-report -------------------------------------------------------------------------------

def report(job, ended, cards, result="ok", **extra):
    return dict({"format": "cxrescue-report-1", "job": job, "card": "all", "yes": True,
                 "allow_risky": False, "started": ended[:-3] + "00Z", "ended": ended,
                 "result": result, "log": "x-ttyS0.log", "cards": cards}, **extra)


def card(bdf="0000:00:04.0", psid="HP_0280210019", fw="2.40.5030", guid="0002c90300c0ffe0",
         result="ok", to=None, backup=None, message=None, **extra):
    return dict({"bdf": bdf, "chip": "ConnectX-3 A1", "oem": "HP", "recovery": psid is None,
                 "psid": psid, "fw": fw, "running": fw, "node_guid": guid,
                 "macs": None if guid is None else ["0002c9c0ffe0", "0002c9c0ffe1"],
                 "result": result, "message": message,
                 "to": to and {"file": "firmware/x.bin", "sha256": "00", "psid": to[0], "fw": to[1]},
                 "backup": backup and {"path": f"/run/data/cxrescue/backups/{backup}", "sha256": "11"}},
                **extra)


@pytest.fixture
def uploads(tmp_path):
    up = tmp_path / "root" / "tftp" / "uploads"
    up.mkdir(parents=True)
    files = {
        "aa-bb-cc-dd-ee-01_20261130T150110Z-crossflash.json": report("crossflash", "2026-11-30T15:01:10Z", [
            card(to=("MT_1090120019", "2.42.5000"), backup="cx3-HP-0002c90300c0ffe0-20261130T150010Z",
                 message="MT_1090120019 2.42.5000 written and verified",
                 rom_before="CLP 8025, UEFI 14.11.49, PXE 3.4.754", rom_after="CLP 8025, UEFI 14.11.49, PXE 3.4.754")]),
        # node 2: the later report's file name sorts first; its update failed; the earlier
        # backup's bundle never reached the server
        "aa-bb-cc-dd-ee-02_1-update.json": report("update", "2026-11-30T16:00:00Z", [
            card(psid="MT_1090120019", fw="2.40.7000", guid="0002c90300000002", result="failed",
                 to=("MT_1090120019", "2.42.5000"), message="verify failed at 0x10000")],
            result="failed"),
        "aa-bb-cc-dd-ee-02_2-backup.json": report("backup", "2026-11-30T15:00:00Z", [
            card(psid="MT_1090120019", fw="2.40.7000", guid="0002c90300000002",
                 backup="cx3-MT-0002c90300000002-20261130T145900Z", rom_before="PXE 3.4.752")]),
        # node 3: a card in recovery mode brought back from a bundle; unknown keys tolerated
        "aa-bb-cc-dd-ee-03_r.json": report("restore", "2026-11-30T15:30:00Z", [
            card(bdf="0000:00:05.0", psid=None, fw=None, guid=None, to=("HP_0280210019", "2.40.5030"),
                 from_bundle="cx3-HP-0002c90300c0ffe3-20261001T000000Z.tar")],
            bundle="cx3-HP-0002c90300c0ffe3-20261001T000000Z.tar"),
        "aa-bb-cc-dd-ee-04_i.json": report("inventory", "2026-11-30T15:05:00Z", []),
        "aa-bb-cc-dd-ee-05_notes.json": {"format": "something-else", "cards": [card(result="failed")]},
        "notes.json": {"format": "cxrescue-report-1"},
    }
    for name, body in files.items():
        (up / name).write_text(json.dumps(body))
    (up / "aa-bb-cc-dd-ee-06_cut.json").write_text('{"format": "cxrescue-report-1", "cards": [')
    (up / "aa-bb-cc-dd-ee-01_cx3-HP-0002c90300c0ffe0-20261130T150010Z.tar").write_bytes(b"tar")
    return up


ROWS = [
    ["aa:bb:cc:dd:ee:01", "crossflash", "0000:00:04.0 ConnectX-3 A1 HP_0280210019 0002c90300c0ffe0",
     "HP_0280210019 2.40.5030", "MT_1090120019 2.42.5000",
     "CLP 8025, UEFI 14.11.49, PXE 3.4.754 -> CLP 8025, UEFI 14.11.49, PXE 3.4.754", "ok", "yes",
     "2026-11-30T15:01:10Z", "-"],
    ["aa:bb:cc:dd:ee:02", "backup", "0000:00:04.0 ConnectX-3 A1 MT_1090120019 0002c90300000002",
     "MT_1090120019 2.40.7000", "-", "PXE 3.4.752", "ok", "no", "2026-11-30T15:00:00Z", "-"],
    ["aa:bb:cc:dd:ee:02", "update", "0000:00:04.0 ConnectX-3 A1 MT_1090120019 0002c90300000002",
     "MT_1090120019 2.40.7000", "MT_1090120019 2.42.5000", "-", "failed", "-", "2026-11-30T16:00:00Z", "-"],
    ["aa:bb:cc:dd:ee:03", "restore", "0000:00:05.0 ConnectX-3 A1 recovery", "recovery",
     "HP_0280210019 2.40.5030", "-", "ok", "-", "2026-11-30T15:30:00Z", "-"],
    ["aa:bb:cc:dd:ee:04", "inventory", "-", "-", "-", "-", "ok", "-", "2026-11-30T15:05:00Z", "-"],
]


def cells(out):
    return [re.split(r" {2,}", ln.rstrip()) for ln in out.splitlines()]


def test_report_table(uploads, tmp_path):
    r = run([REPORT, tmp_path / "root"])
    assert r.returncode == 1, r.stdout + r.stderr            # node 2's update failed
    lines = cells(r.stdout)
    assert lines[0] == ["NODE", "JOB", "CARD", "FROM", "TO", "ROM", "RESULT", "BACKUP", "ENDED", "STATE"]
    assert lines[1:6] == ROWS
    assert r.stdout.splitlines()[6:] == [
        "aa:bb:cc:dd:ee:02 0000:00:04.0: failed: verify failed at 0x10000",
        "4 nodes, 4 cards: 3 ok, 1 failed; 1 reports failed"]
    assert r.stderr.count("\n") == 1 and "aa-bb-cc-dd-ee-06_cut.json: skipped" in r.stderr


def test_report_jobs_json_and_exit_codes(uploads, tmp_path):
    jf = tmp_path / "rack.jobs"
    jf.write_text(f"default inventory\n{M1} crossflash yes=1  # done\nAA-BB-CC-DD-EE-07 backup\n"
                  f"aa:bb:cc:dd:ee:08 inventory\n")
    r = run([REPORT, "--jobs", jf, uploads])           # the uploads folder itself
    assert r.returncode == 1
    lines = cells(r.stdout)
    assert lines[6:8] == [["aa:bb:cc:dd:ee:07", "backup", "-", "-", "-", "-", "no report", "-", "-", "-"],
                          ["aa:bb:cc:dd:ee:08", "inventory", "-", "-", "-", "-", "no report", "-", "-", "-"]]
    assert r.stdout.splitlines()[-1] == ("6 nodes, 4 cards: 3 ok, 1 failed; 1 reports failed; "
                                         "2 nodes without a report; 0 of 3 nodes of the jobs file done")

    r = run([REPORT, "--json", "--jobs", jf, tmp_path / "root"])
    assert r.returncode == 1
    rows = json.loads(r.stdout)
    assert [[x[k] for k in ("node", "job", "card", "from", "to", "rom", "result", "backup", "ended", "state")]
            for x in rows] == ROWS + lines[6:8]
    assert rows[1]["rom_before"] == "PXE 3.4.752" and rows[1]["rom_after"] is None
    assert rows[2]["message"] == "verify failed at 0x10000" and rows[2]["bdf"] == "0000:00:04.0"
    assert rows[3]["psid"] == "recovery" and rows[3]["node_guid"] is None
    assert rows[0]["report"] == "aa-bb-cc-dd-ee-01_20261130T150110Z-crossflash.json"

    # only the good ones: 0; a jobs node without a report: 1
    for name in ("aa-bb-cc-dd-ee-02_1-update.json", "aa-bb-cc-dd-ee-06_cut.json"):
        (uploads / name).unlink()
    r = run([REPORT, uploads])
    assert r.returncode == 0, r.stdout
    assert r.stdout.splitlines()[-1] == "4 nodes, 3 cards: 3 ok, 0 failed" and r.stderr == ""
    # jobs that write are done only once a newer verify report is ok
    jf.write_text(f"{M1} crossflash yes=1\n{M3} restore yes=1 bundle=latest\n{M2} menu\n")
    r = run([REPORT, "--jobs", jf, uploads])
    assert r.returncode == 1 and r.stdout.endswith("; 1 of 3 nodes of the jobs file done\n"), r.stdout
    (uploads / "aa-bb-cc-dd-ee-01_v.json").write_text(json.dumps(report(
        "verify", "2026-11-30T16:30:00Z", [card(psid="MT_1090120019", fw="2.42.5000")])))
    (uploads / "aa-bb-cc-dd-ee-03_v.json").write_text(json.dumps(report(
        "verify", "2026-11-30T14:00:00Z", [card(psid="HP_0280210019")])))      # older than the restore
    r = run([REPORT, "--jobs", jf, uploads])
    assert r.returncode == 1 and r.stdout.splitlines()[-1].endswith("; 2 of 3 nodes of the jobs file done")
    (uploads / "aa-bb-cc-dd-ee-03_w.json").write_text(json.dumps(report(
        "verify", "2026-11-30T16:00:00Z", [card(psid="HP_0280210019")])))
    assert run([REPORT, "--jobs", jf, uploads]).returncode == 0
    jf.write_text("aa:bb:cc:dd:ee:09 backup\n")
    assert run([REPORT, "--jobs", jf, uploads]).returncode == 1

    assert run([REPORT, tmp_path / "nowhere"]).returncode == 2
    assert run([REPORT]).returncode == 2
    assert run([REPORT, "--jobs", tmp_path / "nojobs", uploads]).returncode == 2


def test_report_newest_of_each_job_and_the_states(uploads, tmp_path):
    """An old failed report no longer counts after a good rerun of the same job; the STATE
    column and the exit code follow pxe-nodes' states."""
    (uploads / "aa-bb-cc-dd-ee-06_cut.json").unlink()
    root = tmp_path / "root"
    assert run([REPORT, root]).returncode == 1                   # node 2's update failed
    (uploads / "aa-bb-cc-dd-ee-02_3-update.json").write_text(json.dumps(report("update", "2026-11-30T17:00:00Z", [
        card(psid="MT_1090120019", fw="2.40.7000", guid="0002c90300000002", to=("MT_1090120019", "2.42.5000"))])))
    r = run([REPORT, root])
    assert r.returncode == 0, r.stdout
    node2 = [ln for ln in cells(r.stdout) if ln[0] == M2]
    assert [(ln[1], ln[6], ln[8]) for ln in node2] == [("backup", "ok", "2026-11-30T15:00:00Z"),
                                                        ("update", "ok", "2026-11-30T17:00:00Z")]
    nodes = root / "nodes"
    nodes.mkdir()
    for mac, state, reason in ((M1, "local", "verified (v.json): running 0002c90300c0ffe0 2.42.5000: local boot"),
                               (M2, "menu", "verify failed (x.json): 0000:00:04.0: failed: running the old firmware"),
                               (M3, "verify", "restore ok (r.json): verify after the cold restart")):
        (nodes / f"{mac.replace(':', '-')}.json").write_text(json.dumps(
            {"format": "cxrescue-node-1", "mac": mac.replace(":", "-"), "state": state, "reason": reason}))
    jf = tmp_path / "rack.jobs"
    jf.write_text(f"{M1} crossflash yes=1\n{M2} update yes=1\n{M3} restore yes=1 bundle=latest\n")
    r = run([REPORT, "--jobs", jf, root])
    assert r.returncode == 1
    state = {ln[0]: ln[-1] for ln in cells(r.stdout)[1:] if len(ln) == 10}
    assert state == {M1: "local boot", M2: "menu", M3: "written", "aa:bb:cc:dd:ee:04": "-"}
    assert f"{M2}: on the menu: verify failed (x.json): 0000:00:04.0: failed: running the old firmware" in r.stdout
    assert r.stdout.splitlines()[-1].endswith("; 1 of 3 nodes of the jobs file done")
    rows = json.loads(run([REPORT, "--json", "--jobs", jf, root]).stdout)
    assert {x["node"]: x["state_reason"] for x in rows}[M3] == "restore ok (r.json): verify after the cold restart"
    jf.write_text(f"{M1} crossflash yes=1\n")
    assert run([REPORT, "--jobs", jf, root]).returncode == 0


def test_report_state_is_decided_by_every_whole_report(tmp_path):
    """The rack test's race (issue 28): a report that reached the server decides its node's
    state at once, whether pxe-nodes' follow has taken it yet or not (it may be a poll behind,
    or stopped with the server): pxe-report says the same before and after follow ran. A cut
    report decides nothing, and neither does a report of another job."""
    root = tmp_path / "root"
    up = root / "tftp" / "uploads"
    nodes = root / "nodes"
    up.mkdir(parents=True)
    nodes.mkdir()
    for mac, since in ((M1, "backup"), (M2, "backup"), (M3, "backup")):
        dashed = mac.replace(":", "-")
        (nodes / f"{dashed}.json").write_text(json.dumps(
            {"format": "cxrescue-node-1", "mac": dashed, "job": "restore", "state": "running",
             "reason": f"restore started (its {since} reached the server)", "seen": [], "history": [],
             "since": "2026-11-30T15:00:00Z", "since_epoch": 0, "append_base": "console=ttyS0",
             "append_job": "console=ttyS0 cxrescue.job=restore", "text": "restore yes=1",
             "jobs_file": "rack.jobs", "line": 1}))
    for d in ("pxelinux.cfg", "grub/nodes"):
        (root / "tftp" / d).mkdir(parents=True)
    written = report("restore", "2026-11-30T15:30:00Z", [card(to=("HP_0280210019", "2.40.5030"))])
    text = json.dumps(written)
    (up / "aa-bb-cc-dd-ee-01_20261130T153000Z-restore.json").write_text(text)            # whole, just now
    (up / "aa-bb-cc-dd-ee-02_20261130T153000Z-restore.json").write_text(text[:-1])       # cut
    (up / "aa-bb-cc-dd-ee-03_20261130T153000Z-inventory.json").write_text(
        json.dumps(report("inventory", "2026-11-30T15:30:00Z", [])))                    # another job

    jobs = tmp_path / "rack.jobs"
    jobs.write_text("".join(f"{m} restore yes=1 bundle=latest\n" for m in (M1, M2, M3)))

    def states():
        rows = json.loads(run([REPORT, "--json", "--jobs", jobs, root]).stdout)
        return {x["node"]: (x["state"], x["state_reason"]) for x in rows}

    before = states()
    assert before[M1] == ("written", "restore ok (aa-bb-cc-dd-ee-01_20261130T153000Z-restore.json): "
                                     "verify after the cold restart"), before
    assert before[M2][0] == "writing" and before[M3][0] == "writing", before
    # follow takes the same reports: the state files then say what pxe-report said
    mod = pxe_nodes_module()
    r = mod.Root(str(root))
    loaded = mod.load_states(r)
    mod.follow_once(r, loaded)
    assert loaded["aa-bb-cc-dd-ee-01"]["state"] == "verify", loaded
    assert {k: v["state"] for k, v in loaded.items() if k != "aa-bb-cc-dd-ee-01"} == {
        "aa-bb-cc-dd-ee-02": "running", "aa-bb-cc-dd-ee-03": "running"}, loaded
    assert states() == before
    # the cut report's second try arrives whole (as <name>~1, scripts/pxe-serve): now it decides
    (up / "aa-bb-cc-dd-ee-02_20261130T153000Z-restore~1.json").write_text(text)
    assert states()[M2][0] == "written"


def test_report_settings_before_after(tmp_path):
    """A card whose job set settings: a line under the table with each before -> after, and
    the row's "settings" in --json; a card whose settings were not read or not set says so."""
    up = tmp_path / "uploads"
    up.mkdir()
    eth = [{"name": f"LINK_TYPE_P{p}", "before": "VPI(3)", "after": "ETH(2)"} for p in (1, 2)]
    (up / "aa-bb-cc-dd-ee-01_x-crossflash.json").write_text(json.dumps(report(
        "crossflash", "2026-11-30T15:01:10Z",
        [card(to=("MT_1090120019", "2.42.5000"), settings=eth,
              message="stock.bin written and verified; settings set for the next cold boot")],
        settings="LINK_TYPE_P1=ETH,LINK_TYPE_P2=ETH")))
    (up / "aa-bb-cc-dd-ee-02_y-settings.json").write_text(json.dumps(report(
        "settings", "2026-11-30T15:02:00Z",
        [card(guid="0002c90300000002", result="failed", settings=[{"name": "SRIOV_EN", "before": None, "after": None}],
              message="0 of 1 settings changed; settings not set: the card's firmware is not started"),
         card(bdf="0000:00:05.0", guid="0002c90300000003", result="ok",
              settings=[{"name": "SRIOV_EN", "before": "False(0)", "after": "True(1)"}])],
        result="failed")))
    (up / "aa-bb-cc-dd-ee-03_z-backup.json").write_text(json.dumps(report("backup", "2026-11-30T15:03:00Z", [card()])))
    r = run([REPORT, up])
    assert r.returncode == 1, r.stdout
    out = r.stdout.splitlines()
    assert f"{M1} 0000:00:04.0 settings: LINK_TYPE_P1 VPI(3) -> ETH(2), LINK_TYPE_P2 VPI(3) -> ETH(2)" in out
    assert f"{M2} 0000:00:04.0 settings: SRIOV_EN ? -> not set" in out
    assert f"{M2} 0000:00:05.0 settings: SRIOV_EN False(0) -> True(1)" in out
    assert sum(" settings: " in ln for ln in out) == 3, r.stdout      # none for the backup
    rows = json.loads(run([REPORT, "--json", up]).stdout)
    assert [x["settings"] for x in rows] == [eth, [{"name": "SRIOV_EN", "before": None, "after": None}],
                                             [{"name": "SRIOV_EN", "before": "False(0)", "after": "True(1)"}], None]


# --- 5. scripts/pxe-cycle: the BMCs (OpenIPMI's ipmi_sim, Debian's ipmitool) -----------------------

CYCLE = ROOT / "scripts" / "pxe-cycle"
BMC_USER, BMC_PASSWORD = "rackadmin", "s3cret-not-in-logs"


def ipmi_sim(ns, folder, name, port, startcmd):
    """One BMC: ipmi_sim in namespace ns, IPMI over LAN on SERVER:port, user BMC_USER; a
    power-on runs startcmd (the node), whose end is the power-off."""
    ipmi_bmc.write_config(folder, name, SERVER, port, port + 1000, startcmd, BMC_USER, BMC_PASSWORD)
    return ipmi_bmc.start(ns, folder)


def fake_node(path, uploads, mac, rep):
    """A node's power-on as its BMC runs it: after a while its verify report is on the server."""
    body = path.with_suffix(".json")
    body.write_text(json.dumps(rep))
    path.write_text(f"#!/bin/sh\nsleep 1\ncp {body} {uploads}/{mac}_20261130T180000Z-verify.json\nsleep 2\n")
    path.chmod(0o755)
    return path


def test_pxe_cycle_powers_written_nodes_on(rack, images, tmp_path, quick):
    """pxe-serve with seven nodes of bmc=: node 1's BMC powers it on after its write report
    (>= 10 s off), its verify report comes and agrees: verified, and once it is off again it
    is powered on once more (its entry boots the local disk). Named in one line each, and
    the rest goes on: node 2 has no credentials, node 3's BMC does not answer, node 4's BMC
    refuses the login, node 5's verify report contradicts its write report, node 6 never
    comes back, node 7's job (inventory) writes nothing: not powered on. The password is in no output, log or file of ROOT but the credentials file."""
    if not (shutil_which("ipmi_sim") and shutil_which("ipmitool")):
        pytest.skip("ipmi_sim or ipmitool missing (packages openipmi, ipmitool: make deps)")
    srv, _ = rack
    root = tmp_path / "root"
    uploads = root / "tftp" / "uploads"
    macs = [f"aa:bb:cc:dd:ee:1{i}" for i in range(1, 7)]
    dashes = [m.replace(":", "-") for m in macs]
    guids = [f"0002c90300c0ff1{i}" for i in range(1, 7)]
    good = tmp_path / "rack.auth"
    good.write_text(f"user={BMC_USER}\npassword={BMC_PASSWORD}\n")
    good.chmod(0o600)
    wrong = tmp_path / "wrong.auth"
    wrong.write_text(f"user={BMC_USER}\npassword=guessed\n")
    jf = tmp_path / "rack.jobs"
    port = 6230 + os.getpid() % 500
    lines = [f"{macs[0]} crossflash yes=1 bmc={SERVER}:{port + 1} bmc_auth=rack.auth",
             f"{macs[1]} crossflash yes=1 bmc={SERVER}:{port + 2}",
             f"{macs[2]} crossflash yes=1 bmc=ipmi://{SERVER}:{port + 3} bmc_auth={good}",
             f"{macs[3]} crossflash yes=1 bmc={SERVER}:{port + 4} bmc_auth=wrong.auth",
             f"{macs[4]} crossflash yes=1 bmc={SERVER}:{port + 5} bmc_auth=rack.auth",
             f"{macs[5]} crossflash yes=1 bmc={SERVER}:{port + 6} bmc_auth=rack.auth",
             f"aa:bb:cc:dd:ee:17 inventory bmc={SERVER}:{port + 1} bmc_auth=rack.auth",
             f"aa:bb:cc:dd:ee:18 settings yes=1 settings=SRIOV_EN=1 bmc={SERVER}:{port + 8} bmc_auth=rack.auth"]
    jf.write_text("\n".join(lines) + "\n")
    new = ("MT_1090120019", "2.42.5000")
    verify_ok = report("verify", "2026-11-30T18:00:00Z", [card(guid=guids[0], psid=new[0], fw=new[1])])
    # node 5's verify job says ok, but its card runs the old firmware
    verify_bad = report("verify", "2026-11-30T18:00:00Z", [card(guid=guids[4])])
    sims = []
    try:
        with serving(srv, root, images, jf) as s:
            s.wait_for("serving;")
            assert f"8 node(s) with a BMC: {CYCLE.parent}/pxe-cycle {root} powers them on" in s.out, s.out
            assert node_state(root, dashes[0])["bmc"] == f"{SERVER}:{port + 1}"
            assert node_state(root, dashes[0])["bmc_auth"] == str(good)
            nodes = {0: fake_node(tmp_path / "node1.sh", uploads, dashes[0], verify_ok),
                     3: fake_node(tmp_path / "node4.sh", uploads, dashes[3], verify_ok),
                     4: fake_node(tmp_path / "node5.sh", uploads, dashes[4], verify_bad)}
            for i in (0, 3, 4, 5, 7):  # node 3's BMC is not there at all
                cmd = nodes.get(i, "sleep 60")
                sims.append(ipmi_sim(srv, tmp_path / f"bmc{i + 1}", f"bmc{i + 1}", port + i + 1, cmd))
            time.sleep(1)
            for i in range(6):         # every node did its write job and powers off
                (uploads / f"{dashes[i]}_20261130T170000Z-crossflash.json").write_text(json.dumps(report(
                    "crossflash", "2026-11-30T17:00:00Z", [card(guid=guids[i], to=new)])))
            # node 8 set its card's settings (no flash written) and powers off
            (uploads / "aa-bb-cc-dd-ee-18_20261130T170000Z-settings.json").write_text(json.dumps(report(
                "settings", "2026-11-30T17:00:00Z", [card(guid="0002c90300c0ff18")])))
            wait_until("settings done", lambda: node_state(root, "aa-bb-cc-dd-ee-18").get("state") == "local")
            wait_until("written", lambda: all(node_state(root, d).get("state") == "verify" for d in dashes))
            t0 = time.monotonic()
            cyc = run(["ip", "netns", "exec", srv, CYCLE, "--bound", "8", root], timeout=120)
            took = time.monotonic() - t0
            out = cyc.stdout + cyc.stderr
            assert cyc.returncode == 1, out
            wait_until("node 5 on the menu", lambda: node_state(root, dashes[4]).get("state") == "menu")
            assert s.stop() == 0, s.out
    finally:
        for p in sims:
            p.terminate()
            p.wait(timeout=10)
    said = {}
    for ln in out.splitlines():
        m = re.match(r"pxe-cycle: ([0-9a-f:]{17}): (verified|not powered on|failed|never came back): (.*)", ln)
        if m:
            said[m.group(1)] = (m.group(2), m.group(3))
    assert said[macs[0]] == ("verified", f"running {guids[0]} {new[1]}; powered on again: it boots from its "
                             "local disk"), out
    assert said[macs[1]] == ("not powered on", f"bmc={SERVER}:{port + 2} without credentials: no bmc_auth= "
                             f"on its jobs line, and no credentials file {root}/bmc.auth; power it on by hand"), out
    assert said[macs[2]][0] == "not powered on" and "does not answer" in said[macs[2]][1], out
    assert said[macs[3]][0] == "not powered on" and \
        f"refused the login of user {BMC_USER} (ipmitool: RAKP 2 HMAC is invalid)" in said[macs[3]][1], out
    assert said[macs[4]][0] == "failed" and "contradicts the write report: card " \
        f"{guids[4]} is HP_0280210019 running 2.40.5030, the write report says {new[0]} {new[1]} was written" \
        in said[macs[4]][1], out
    assert said[macs[5]] == ("never came back", "no verify report 8 s after the power-on"), out
    assert said["aa:bb:cc:dd:ee:17"] == ("not powered on", "its job (inventory) writes nothing: no verify to run"), out
    # node 8: a settings job has no verify, but its cold boot is what applies them: off REST s, then on
    assert said["aa:bb:cc:dd:ee:18"] == ("verified", "settings set; powered on again: it boots from its local disk"), out
    assert out.splitlines()[-1] == f"pxe-cycle: 2 of 8 node(s) with a BMC verified; never came back: {macs[5]}" \
        f"; not powered on: {macs[1]}; not powered on: {macs[2]}; not powered on: {macs[3]}; failed: {macs[4]}" \
        "; not powered on: aa:bb:cc:dd:ee:17", out
    assert took >= 10, f"node 1 was off only {took:.1f} s"
    # node 1: job -> running? no: its write report came at once -> verify -> powered on -> local
    st = node_state(root, dashes[0])
    assert [h["state"] for h in st["history"]] == ["job", "verify", "powered on", "local"], st["history"]
    off = re.search(rf"{macs[0]}: chassis off; powering it on in 10 s", out)
    assert off, out
    # the rack's report: the states of the loop
    r = run([REPORT, "--json", "--jobs", jf, root])
    rows = {(x["node"], x["job"]): x for x in json.loads(r.stdout)}
    assert rows[(macs[0], "verify")]["state"] == "verified running 2.42.5000: local boot", rows
    assert rows[(macs[5], "crossflash")]["state"] == "powered on", rows
    assert rows[(macs[3], "crossflash")]["state"] == "written", rows
    table = run([REPORT, "--jobs", jf, root]).stdout
    assert f"{macs[3]}: BMC {SERVER}:{port + 4}: refused the login of user {BMC_USER}" in table, table
    # the password: only in the credentials files
    for f in [*root.rglob("*"), *tmp_path.glob("*.log")]:
        if f.is_file():
            assert BMC_PASSWORD.encode() not in f.read_bytes(), f
    assert BMC_PASSWORD not in out and BMC_PASSWORD not in s.out


def test_pxe_cycle_forces_a_node_off(rack, images, tmp_path, quick):
    """A node whose board does not power off after its write report (its BMC's startcmd runs
    on): --force-off s after the report, pxe-cycle powers it off by IPMI (`chassis power off`),
    sees it off, waits 10 s and powers it on for its verify. With --force-off 0 it never would."""
    if not (shutil_which("ipmi_sim") and shutil_which("ipmitool")):
        pytest.skip("ipmi_sim or ipmitool missing (packages openipmi, ipmitool: make deps)")
    srv, _ = rack
    root, mac = tmp_path / "root", "aa:bb:cc:dd:ee:31"
    (tmp_path / "rack.auth").write_text(f"user={BMC_USER}\npassword={BMC_PASSWORD}\n")
    port = 7230 + os.getpid() % 500
    jf = tmp_path / "rack.jobs"
    jf.write_text(f"{mac} crossflash yes=1 bmc=ipmi://{SERVER}:{port} bmc_auth=rack.auth\n")
    ipmitool = ["ip", "netns", "exec", srv, "ipmitool", "-I", "lanplus", "-C", "3", "-H", SERVER, "-p", str(port),
                "-U", BMC_USER, "-E", "chassis", "power"]
    env = dict(os.environ, IPMI_PASSWORD=BMC_PASSWORD)
    sim = None
    try:
        with serving(srv, root, images, jf) as s:
            s.wait_for("serving;")
            sim = ipmi_sim(srv, tmp_path / "bmc", "bmc", port, "sleep 600")
            wait_until("the BMC", lambda: run(ipmitool + ["on"], env=env).returncode == 0, timeout=30)
            assert "Chassis Power is on" in run(ipmitool + ["status"], env=env).stdout
            (root / "tftp" / "uploads" / f"{mac.replace(':', '-')}_20261204T170000Z-crossflash.json").write_text(
                json.dumps(report("crossflash", "2026-12-04T17:00:00Z", [card(guid="0002c90300c0ff31",
                                                                               to=("MT_1090120019", "2.42.5000"))])))
            wait_until("written", lambda: node_state(root, mac.replace(":", "-")).get("state") == "verify")
            cyc = run(["ip", "netns", "exec", srv, CYCLE, "--force-off", "2", "--bound", "3", root], timeout=120)
            out = cyc.stdout + cyc.stderr
            on_after = run(ipmitool + ["status"], env=env).stdout
            assert s.stop() == 0, s.out
    finally:
        if sim:
            sim.terminate()
            sim.wait(timeout=10)
    assert cyc.returncode == 1, out
    mine = [ln for ln in out.splitlines() if ln.startswith(f"pxe-cycle: {mac}: ")]
    story = ["answers", "its write report is in", "its chassis is still on 2 s after its write report: forced off "
             "by its BMC (chassis power off)", "chassis off; powering it on in 10 s", "powered on by its BMC",
             "never came back: no verify report 3 s after the power-on"]
    assert len(mine) == len(story) and all(w in ln for w, ln in zip(story, mine)), out
    assert "Chassis Power is on" in on_after, on_after     # powered on again (its startcmd runs on)
    assert BMC_PASSWORD not in out


def shutil_which(name):
    import shutil
    return shutil.which(name)
