# SPDX-License-Identifier: GPL-2.0-or-later
"""A small rack over PXE (issue 8): scripts/pxe-serve (dnsmasq + tftpd-hpa) in a network
namespace of its own, a bridge with one tap per node, and three QEMU nodes (TCG) that
PXE-boot from their e1000, each with a simulated card:

  A  a UEFI node (OVMF, Debian's efi-e1000.rom): offered the GRUB network image by DHCP
     option 93, inventory only: a report, and the card's file keeps its bytes and its mtime
  B  a BIOS node with a BMC (OpenIPMI's ipmi_sim, wired to QEMU's ipmi-bmc-extern and
     isa-ipmi-kcs): an HP OEM ConnectX-3, cross-flashed to stock: its backup is on the server
     before the first byte reaches the card; it takes its jobs line's settings= (Ethernet,
     both ports) for the next boot; it powers off, scripts/pxe-cycle (ipmitool)
     powers it on after >= 10 s off, it PXE-boots into verify (running FW = the new one),
     and powered on again its boot entry sends it to its local disk (a boot sector that
     prints a marker); powered on by hand once more it boots local again and writes nothing
  C  backed up in a first round (its BMC refuses pxe-cycle's login: named, the rest goes
     on); its flash is then damaged (recovery mode), and a restore job with bundle=latest
     unbricks it from the backup the server kept

Three more runs: the server switched off under a node (nothing written, nothing lost),
pxe-serve in proxy-DHCP mode beside the site's own DHCP server (a plain dnsmasq in a second
namespace, cabled to the rack's bridge by a veth pair), and a ConnectX-4 Lx node (an HPE
640SFP28 strapped into recovery mode) cross-flashed to stock by its crossflash job, its
device data kept.

Every node must power off by itself. scripts/pxe-report merges the reports. The namespace
has no link to the host or anything else, and the test removes it, with every process in
it, pass or fail. Everything is checked on the host: the uploads, the cards' files."""
import concurrent.futures
import hashlib
import json
import os
import pathlib
import re
import shlex
import signal
import subprocess
import sys
import tarfile
import threading
import time

import pytest

import qemu_harness as qh
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests"))
import ipmi_bmc  # noqa: E402 (tests/ipmi_bmc.py: ipmi_sim's files, shared with test_pxe_serve)
from qemu_harness import Card, Guest, guests  # noqa: F401 (a fixture)

pytestmark = pytest.mark.skipif(os.environ.get("CXR_NO_QEMU") == "1",
                                reason="CXR_NO_QEMU=1: boot tests switched off")

PXE_SERVE = qh.ROOT / "scripts" / "pxe-serve"
PXE_REPORT = qh.ROOT / "scripts" / "pxe-report"
PXE_CYCLE = qh.ROOT / "scripts" / "pxe-cycle"
OEM_PSID, OEM_FW = "HP_0280210019", "2.40.5030"
STOCK_PSID, STOCK_FW = "MT_1090120019", "2.42.5000"
SMALL = "--ddr 2 --ddr-size 0x1000"
MKFS3 = qh.BUILD / "host" / "mkfs3"
CXFLASH = qh.ROOT / "burner" / "cxflash"
CX4_OEM_PSID, CX4_OEM_FW = "HP_2420110034", "14.26.1040"      # HPE 640SFP28 (library/boards.txt)
CX4_STOCK_PSID, CX4_STOCK_FW = "MT_2420110034", "14.27.1016"  # its stock MCX4121A-ACAT
# A 2 MiB flash and 1 MiB slots for the ConnectX-4 Lx node: its backup reads the whole flash
# twice through the VSEC, a config cycle at a time (16 MiB: over 10 minutes a pass on TCG).
CX4_PART, CX4_SLOT_LOG = "W25Q16", "20"
CX4_NODE_TIMEOUT = 900  # its backup alone took 4 minutes on TCG beside another make check
SERVER, PREFIX = "10.199.77.1", 24          # inside the namespace only
DHCP_RANGE = "10.199.77.100,10.199.77.150"
NODES = {  # name: (tap, MAC, node GUID, port 1 MAC)
    "A": ("tapA", "52:54:00:c0:00:0a", "0002c90300a0a0a0", "0002c9a0a0a0"),
    "B": ("tapB", "52:54:00:c0:00:0b", "0002c90300b0b0b0", "0002c9b0b0b0"),
    "C": ("tapC", "52:54:00:c0:00:0c", "0002c90300c0c0c0", "0002c9c0c0c0"),
}
ETH_BOTH = "settings=LINK_TYPE_P1=ETH,LINK_TYPE_P2=ETH"    # node B's: set after its cross-flash
ETH_REPORT = [{"name": f"LINK_TYPE_P{p}", "before": "VPI(3)", "after": "ETH(2)"} for p in (1, 2)]
NODE_TIMEOUT = 420      # boot, job, uploads and power-off of one node, with three on two cores
BMC_USER, BMC_PASSWORD = "rackadmin", "rack-bmc-s3cret"
BMC_PORT = {"B": 9623, "C": 9633}   # IPMI over LAN of each BMC, on the server's address (in the namespace)
LOCAL_MARK = "CXR-LOCAL-DISK-BOOTED"


def dashed(mac):
    return mac.replace(":", "-")


def ip(*args, check=True):
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=check)


@pytest.fixture
def rack(tmp_path):
    """The namespace, its bridge and taps; removed with everything in it at teardown."""
    gone = qh.missing()
    assert gone is None, gone
    ns = f"cxr-rack-{os.getpid()}"
    ip("netns", "del", ns, check=False)
    r = ip("netns", "add", ns, check=False)
    if r.returncode:
        pytest.skip(f"cannot make a network namespace (needs root): {r.stderr.strip()}")
    try:
        ip("-n", ns, "link", "set", "lo", "up")
        ip("-n", ns, "link", "add", "br0", "type", "bridge")
        ip("-n", ns, "addr", "add", f"{SERVER}/{PREFIX}", "dev", "br0")
        ip("-n", ns, "link", "set", "br0", "up")
        for tap, *_ in NODES.values():
            ip("-n", ns, "tuntap", "add", "dev", tap, "mode", "tap")
            ip("-n", ns, "link", "set", tap, "master", "br0")
            ip("-n", ns, "link", "set", tap, "up")
        yield ns
    finally:
        pids = ip("netns", "pids", ns, check=False).stdout.split()
        for pid in pids:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass
        ip("netns", "del", ns, check=False)


class Server:
    """scripts/pxe-serve inside the namespace, its output in a file."""

    def __init__(self, ns, root, jobs, firmware, log, proxy=False):
        self.log_path = log
        mode = ["--proxy"] if proxy else ["--dhcp", DHCP_RANGE]
        self.p = subprocess.Popen(
            ["ip", "netns", "exec", ns, str(PXE_SERVE), "--interface", "br0", *mode,
             "--jobs", str(jobs), "--root", str(root), "--images", str(qh.IMAGES)]
            + (["--firmware", str(firmware)] if firmware else []),
            stdout=open(log, "w"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while "serving;" not in self.output():
            assert self.p.poll() is None, f"pxe-serve ended ({self.p.returncode}):\n{self.output()}"
            assert time.monotonic() < deadline, f"pxe-serve did not start:\n{self.output()}"
            time.sleep(0.2)

    def output(self):
        return pathlib.Path(self.log_path).read_text(errors="replace")

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        rc = self.p.wait(timeout=20)
        assert rc == 0, f"pxe-serve stopped with {rc}:\n{self.output()}"
        assert "stopped" in self.output()


def card(folder, name, node, corrupt=False):
    _, _, guid, mac = NODES[node]
    extra = ["--corrupt"] if corrupt else []
    return Card(folder, name, "--chip", "cx3", "--subsys", "103c:18d6", "--guid", guid, "--mac", mac,
                *extra, image_opts=f"--chip cx3 --psid {OEM_PSID} --fw {OEM_FW} {SMALL}")


def stock_firmware(folder):
    """A folder with a generated stock image, for pxe-serve --firmware."""
    fw = folder / "firmware"
    fw.mkdir()
    r = subprocess.run([str(qh.MKFS2), "-o", str(fw / "mcx354a-stock.bin"), "--chip", "cx3",
                        "--psid", STOCK_PSID, "--fw", STOCK_FW, *SMALL.split()], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return fw


def boot_nodes(tmp_path, ns, guests, cards, tag, firmware=None, timeout=NODE_TIMEOUT):
    """Start one guest per node, wait (concurrently: a console nobody reads stalls its guest)
    until every one has powered off by itself, each within timeout; their exit statuses.
    firmware: node -> "uefi"."""
    started = {}
    for node, c in cards.items():
        tap, mac, *_ = NODES[node]
        g = Guest(tmp_path, "pxe-tap", cards=[c], netns=ns, tap=tap, mac=mac, name=f"{tag}-{node}",
                  firmware=(firmware or {}).get(node, "bios"))
        guests.append(g)
        started[node] = g

    def wait(g):
        try:
            return g.wait_power_off(timeout=timeout)
        except Exception as e:  # noqa: BLE001 - reported with the console's tail below
            return f"{type(e).__name__}: {g.tail(30)}"
    with concurrent.futures.ThreadPoolExecutor(len(started)) as pool:
        result = dict(zip(started, pool.map(wait, started.values())))
    for node, rc in result.items():
        assert rc == 0, f"node {node} did not power off by itself ({started[node].log_path}):\n{rc}"
    return started


def local_disk(path):
    """A disk whose boot sector prints LOCAL_MARK on COM1 and halts: the node's own system."""
    code = bytes([0xFA,                     # cli
                  0x31, 0xC0, 0x8E, 0xD8,   # xor ax,ax; mov ds,ax
                  0xBE, 0x16, 0x7C,         # mov si,0x7c16 (the text below)
                  0xBA, 0xF8, 0x03,         # mov dx,0x3f8 (COM1)
                  0xAC, 0x08, 0xC0,         # next: lodsb; or al,al
                  0x74, 0x03,               # jz done
                  0xEE, 0xEB, 0xF8,         # out dx,al; jmp next
                  0xF4, 0xEB, 0xFD])        # done: hlt; jmp done
    assert len(code) == 0x16
    sector = code + f"\r\n{LOCAL_MARK}\r\n".encode() + b"\0"
    sector = sector.ljust(510, b"\0") + b"\x55\xaa"
    path.write_bytes(sector.ljust(1 << 20, b"\0"))
    return path


class Bmc:
    """A node's BMC: OpenIPMI's ipmi_sim in the namespace, IPMI over LAN on SERVER:port (user
    BMC_USER). With a node (a spawn=False Guest's command line) its power-on runs QEMU
    (lan.conf's startcmd), with QEMU's ipmi-bmc-extern behind an isa-ipmi-kcs wired to
    ipmi_sim's VM serial port by a chardev socket, the console of each boot to a file of its
    own and a local disk after the network; QEMU's end is the power-off."""

    def __init__(self, tmp, ns, node, port, guest=None):
        self.ns, self.port, self.node = ns, port, node
        self.dir = tmp / f"bmc-{node}"
        self.dir.mkdir(parents=True)
        startcmd = "true"
        if guest:
            argv = guest.argv[4:] if guest.argv[:3] == ["ip", "netns", "exec"] else guest.argv
            i = argv.index("-serial")
            argv = argv[:i] + argv[i + 2:]
            disk = local_disk(self.dir / "disk.img")
            argv += ["-chardev", f"socket,id=ipmi0,host=127.0.0.1,port={port + 1},reconnect=1",
                     "-device", "ipmi-bmc-extern,id=bmc0,chardev=ipmi0", "-device", "isa-ipmi-kcs,bmc=bmc0",
                     "-drive", f"if=none,id=disk0,format=raw,file={disk}", "-device", "ide-hd,drive=disk0,bootindex=2"]
            script = self.dir / "power-on.sh"
            script.write_text("#!/bin/sh\n# a power-on: one boot, its console in boot-N.log\n"
                              f"n=$(ls {self.dir}/boot-*.log 2>/dev/null | wc -l)\n"
                              f"exec {' '.join(shlex.quote(str(a)) for a in argv)} "
                              f"-serial file:{self.dir}/boot-$((n + 1)).log\n")
            script.chmod(0o755)
            startcmd = str(script)
        ipmi_bmc.write_config(self.dir, f"bmc{node}", SERVER, port, port + 1, startcmd, BMC_USER, BMC_PASSWORD,
                              kill_wait=3)
        self.p = ipmi_bmc.start(ns, self.dir)
        deadline = time.monotonic() + 10
        while self.power("status", check=False).returncode:
            assert self.p.poll() is None, (self.dir / "sim.log").read_text()
            assert time.monotonic() < deadline, "ipmi_sim does not answer"
            time.sleep(0.2)

    def power(self, what, check=True):
        """ipmitool from the server's side, as an operator: chassis power status|on|off."""
        r = subprocess.run(["ip", "netns", "exec", self.ns, "ipmitool", "-I", "lanplus", "-C", "3", "-H", SERVER,
                            "-p", str(self.port), "-U", BMC_USER, "-E", "chassis", "power", what],
                           env=dict(os.environ, IPMI_PASSWORD=BMC_PASSWORD), capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=60)
        assert not check or r.returncode == 0, f"ipmitool chassis power {what}: {r.stdout}{r.stderr}"
        return r

    def is_on(self):
        return "Chassis Power is on" in self.power("status").stdout

    def boots(self):
        return sorted(self.dir.glob("boot-*.log"), key=lambda p: int(p.stem.split("-")[1]))

    def console(self, n):
        p = self.dir / f"boot-{n}.log"
        return p.read_text(errors="replace") if p.exists() else ""

    def wait(self, n, text, timeout=NODE_TIMEOUT):
        """Boot n's console shows text."""
        deadline = time.monotonic() + timeout
        while text not in self.console(n):
            assert time.monotonic() < deadline, f"boot {n} of node {self.node}: no {text!r}:\n{self.console(n)[-3000:]}"
            time.sleep(0.5)

    def wait_off(self, timeout=NODE_TIMEOUT):
        deadline = time.monotonic() + timeout
        while self.is_on():
            assert time.monotonic() < deadline, f"node {self.node} still on"
            time.sleep(1)

    def stop(self):
        if self.p.poll() is None:
            self.p.terminate()
            self.p.wait(timeout=15)


def plant_bundle(tmp_path, rack_ns, name, top, flash):
    """A second host on the rack network (a namespace of its own, cabled to the bridge by a
    veth pair, removed afterwards) uploads a whole bundle of other bytes under a node's
    bundle name, with BusyBox's tftp as a node would."""
    import io
    bb = qh.BUILD / "busybox" / "busybox"
    assert bb.is_file(), f"{bb} missing (make images builds it)"
    files = {"flash.bin": flash, "identity.json": b'{"format": "cxrescue-identity-1"}\n'}
    files["SHA256SUMS"] = "".join(f"{hashlib.sha256(d).hexdigest()}  {n}\n" for n, d in files.items()).encode()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
        for n, d in files.items():
            info = tarfile.TarInfo(f"{top}/{n}")
            info.size = len(d)
            t.addfile(info, io.BytesIO(d))
    planted = tmp_path / "planted.tar"
    planted.write_bytes(buf.getvalue())
    other = rack_ns + "-x"
    ip("netns", "del", other, check=False)
    ip("netns", "add", other)
    try:
        ip("-n", rack_ns, "link", "add", "vx", "type", "veth", "peer", "name", "eth0", "netns", other)
        ip("-n", rack_ns, "link", "set", "vx", "master", "br0")
        ip("-n", rack_ns, "link", "set", "vx", "up")
        ip("-n", other, "addr", "add", "10.199.77.3/24", "dev", "eth0")
        ip("-n", other, "link", "set", "eth0", "up")
        r = subprocess.run(["ip", "netns", "exec", other, str(bb), "tftp", "-p", "-l", str(planted),
                            "-r", f"uploads/{name}", SERVER], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, f"the second host's upload: {r.stderr}"
    finally:
        ip("netns", "del", other, check=False)
    return hashlib.sha256(buf.getvalue()).hexdigest()


def reports(uploads, mac):
    out = []
    for f in sorted(uploads.glob(f"{dashed(mac)}_*.json")):
        j = json.loads(f.read_text())
        if j.get("format") == "cxrescue-report-1":
            out.append(j)
    return out


def bundles(uploads, mac):
    """The node's uploaded bundles: in uploads/ until pxe-serve keeps them (scripts/pxe-nodes),
    then in kept/ (the uploads/ name goes a while later); one path per name."""
    found = {}
    for folder in (uploads, uploads.parent / "kept"):
        for f in folder.glob(f"{dashed(mac)}_*.tar"):
            found.setdefault(f.name, f)
    return [found[n] for n in sorted(found)]


def tar_flash(path):
    """flash.bin of an uploaded bundle, and the bundle's name."""
    with tarfile.open(path) as t:
        names = t.getnames()
        top = names[0].split("/")[0]
        return t.extractfile(f"{top}/flash.bin").read(), top


class FirstChange:
    """Polls, on the host, when the card's file first changes and when the node's backup
    first sits whole on the server: the order the issue asks for, seen from outside."""

    def __init__(self, card_file, uploads, mac, original):
        self.card_file, self.uploads, self.prefix = card_file, uploads, dashed(mac) + "_"
        self.original = hashlib.sha256(original).hexdigest()
        self.mtime0 = card_file.stat().st_mtime_ns
        self.card_changed = self.backup_whole = None
        self.stop_flag = threading.Event()
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def whole_backup(self):
        for f in self.uploads.glob(self.prefix + "*.tar"):
            try:
                data, _ = tar_flash(f)
            except (tarfile.TarError, KeyError, EOFError, OSError):
                continue      # still arriving
            if hashlib.sha256(data).hexdigest() == self.original:
                return True
        return False

    def run(self):
        while not self.stop_flag.is_set():
            now = time.monotonic()
            if self.card_changed is None and self.card_file.stat().st_mtime_ns != self.mtime0:
                self.card_changed = now
            if self.backup_whole is None and self.whole_backup():
                self.backup_whole = now
            time.sleep(0.05)

    def stop(self):
        self.stop_flag.set()
        self.t.join()


def test_a_rack_of_three_nodes(tmp_path, rack, guests):
    ns = rack
    root = tmp_path / "srv"
    uploads = root / "tftp" / "uploads"
    fw = stock_firmware(tmp_path)
    cards = {n: card(tmp_path, f"node{n}", n) for n in NODES}
    before = {n: (c.flash.read_bytes(), c.flash.stat().st_mtime_ns) for n, c in cards.items()}
    (_, mac_a, *_), (_, mac_b, *_), (_, mac_c, *_) = NODES.values()

    # Round 1: A (UEFI) takes stock, B is cross-flashed and verified through its BMC, C is
    # backed up (its BMC refuses pxe-cycle's login: named, and the rest goes on).
    (tmp_path / "bmc.auth").write_text(f"user={BMC_USER}\npassword={BMC_PASSWORD}\n")
    (tmp_path / "wrong.auth").write_text(f"user={BMC_USER}\npassword=guessed\n")
    bmc_b = f" bmc={SERVER}:{BMC_PORT['B']} bmc_auth=bmc.auth"
    bmc_c = f" bmc={SERVER}:{BMC_PORT['C']} bmc_auth=wrong.auth"
    jobs = tmp_path / "jobs"
    jobs.write_text(f"# the rack\n{mac_a} inventory\n{mac_b} crossflash yes=1 allow_risky=1 {ETH_BOTH}{bmc_b}\n"
                    f"{dashed(mac_c).upper()} backup{bmc_c}\n")
    srv = Server(ns, root, jobs, fw, tmp_path / "serve-1.log")
    assert "x86-64 UEFI clients (option 93 = 7 or 9) grub/grubx64.efi" in srv.output(), srv.output()
    tap_b = NODES["B"][0]
    bmcs = {"B": Bmc(tmp_path, ns, "B", BMC_PORT["B"], Guest(tmp_path, "pxe-tap", cards=[cards["B"]], netns=ns,
                                                            tap=tap_b, mac=mac_b, spawn=False)),
            "C": Bmc(tmp_path, ns, "C", BMC_PORT["C"])}
    t0 = time.monotonic()
    cycle_log = tmp_path / "cycle.log"
    cycle = subprocess.Popen(["ip", "netns", "exec", ns, str(PXE_CYCLE), "--bound", str(NODE_TIMEOUT), str(root)],
                             stdout=open(cycle_log, "w"), stderr=subprocess.STDOUT)
    watch_b = FirstChange(cards["B"].flash, uploads, mac_b, before["B"][0])
    try:
        assert not bmcs["B"].is_on()
        bmcs["B"].power("on")            # the operator powers B on by its BMC, A and C by hand
        boot_nodes(tmp_path, ns, guests, {n: cards[n] for n in "AC"}, "round1", firmware={"A": "uefi"})
        bmcs["B"].wait(1, "cxrescue: powering off")
        t_off = time.monotonic()
        cycle.wait(timeout=3 * NODE_TIMEOUT)
        t_cycle = time.monotonic()
    finally:
        watch_b.stop()
        if cycle.poll() is None:
            cycle.kill()
        said = cycle_log.read_text()
        bmcs["C"].stop()     # the rack fixture ends B's (and its QEMU) if the test fails
    # pxe-cycle: B verified and powered on again; C's BMC named; exit 1 (C not verified)
    assert cycle.returncode == 1, said
    assert f"pxe-cycle: {mac_b}: chassis off; powering it on in 10 s" in said, said
    assert f"pxe-cycle: {mac_b}: verified: running {NODES['B'][2]} {STOCK_FW}; powered on again: it boots " \
        "from its local disk" in said, said
    assert f"pxe-cycle: {mac_c}: not powered on: BMC {SERVER}:{BMC_PORT['C']} refused the login of user " \
        f"{BMC_USER} (ipmitool: RAKP 2 HMAC is invalid)" in said, said
    assert BMC_PASSWORD not in said + srv.output()
    # B's boots: 1 the cross-flash, 2 the verify (its BMC's power-on), 3 the local disk
    b = bmcs["B"]
    assert "cxrescue: unattended job: job=crossflash" in b.console(1), b.console(1)[-2000:]
    b.wait(2, "cxrescue: powering off")
    assert re.search(rf"cxrescue: unattended job: job=verify\b", b.console(2)), b.console(2)[-2000:]
    b.wait(3, LOCAL_MARK, timeout=120)
    t_local = time.monotonic()
    assert "cxrescue" not in b.console(3).replace(LOCAL_MARK, ""), b.console(3)[-2000:]
    st_b = json.loads((root / "nodes" / f"{dashed(mac_b)}.json").read_text())
    assert [h["state"] for h in st_b["history"]] == ["job", "running", "verify", "powered on", "local"], st_b
    # powered on by hand a second time: local again, nothing written, no report
    written = (cards["B"].flash.read_bytes(), cards["B"].flash.stat().st_mtime_ns)
    reports_b = sorted(p.name for p in uploads.glob(f"{dashed(mac_b)}_*"))
    b.power("off")
    b.wait_off(timeout=60)
    b.power("on")
    b.wait(4, LOCAL_MARK, timeout=120)
    b.power("off")
    b.wait_off(timeout=60)
    b.stop()
    assert (cards["B"].flash.read_bytes(), cards["B"].flash.stat().st_mtime_ns) == written, "B written again"
    assert sorted(p.name for p in uploads.glob(f"{dashed(mac_b)}_*")) == reports_b
    assert len(b.boots()) == 4, b.boots()
    srv.stop()
    # A: the UEFI node asked as architecture 7 and was given the GRUB image; local boot is GRUB's exit
    log = (root / "dnsmasq.log").read_text()
    assert "PXEClient:Arch:00007" in log and "tags: efi64" in log, log[-3000:]
    assert "option: 67 bootfile-name  grub/grubx64.efi" in log, log[-3000:]
    assert "\texit\n" in (root / "tftp" / "grub" / "nodes" / f"{mac_a}.cfg").read_text()
    (qh.BUILD / "qemu-tests").mkdir(parents=True, exist_ok=True)
    with open(qh.BUILD / "qemu-tests" / "boot-times.txt", "a") as f:
        f.write(f"pxe/rack bmc node B: first power-off {t_off - t0:.0f} s, verified and on again "
                f"{t_cycle - t0:.0f} s, local disk {t_local - t0:.0f} s; whole round 1 {time.monotonic() - t0:.0f} s\n")

    # A: a report, nothing written, nothing backed up.
    rep_a = reports(uploads, mac_a)
    assert [r["job"] for r in rep_a] == ["inventory"] and rep_a[0]["result"] == "ok", rep_a
    assert rep_a[0]["cards"][0]["psid"] == OEM_PSID and rep_a[0]["cards"][0]["node_guid"] == NODES["A"][2]
    st = cards["A"].flash.stat()
    assert cards["A"].flash.read_bytes() == before["A"][0] and st.st_mtime_ns == before["A"][1], \
        "node A's card was written"
    assert not list(uploads.glob(f"{dashed(mac_a)}_*.tar"))

    # B: its original flash was whole on the server before the card's file first changed;
    # the card boots stock with its own identity.
    assert watch_b.backup_whole is not None and watch_b.card_changed is not None, vars(watch_b)
    assert watch_b.backup_whole < watch_b.card_changed, \
        f"B's card changed {watch_b.backup_whole - watch_b.card_changed:.2f} s before its backup was on the server"
    b = cards["B"].boot_check()
    assert b["booted"] is True and b["psid"] == STOCK_PSID and b["fw_version"] == STOCK_FW, b
    assert b["guids"]["node"] == NODES["B"][2] and b["macs"]["port1"] == NODES["B"][3], b
    nb = b["next_boot_settings"]["values"]
    assert (nb["LINK_TYPE_P1"], nb["LINK_TYPE_P2"]) == (2, 2), b   # ETH; the records' other fields at defaults
    rep_b = reports(uploads, mac_b)
    assert [(r["job"], r["result"]) for r in rep_b] == [("crossflash", "ok"), ("verify", "ok")], rep_b
    vb = rep_b[1]["cards"][0]
    assert (vb["node_guid"], vb["psid"], vb["running"]) == (NODES["B"][2], STOCK_PSID, STOCK_FW), vb
    cb = rep_b[0]["cards"][0]
    assert cb["settings"] == ETH_REPORT, cb
    assert cb["psid"] == OEM_PSID and cb["to"]["psid"] == STOCK_PSID and cb["to"]["fw"] == STOCK_FW, cb
    bundle_b = pathlib.PurePosixPath(cb["backup"]["path"]).name
    data, top = tar_flash(root / "tftp" / "kept" / f"{dashed(mac_b)}_{bundle_b}.tar")
    assert top == bundle_b and data == before["B"][0]
    assert bundle_b.startswith(f"cx3-{OEM_PSID}-{NODES['B'][2]}-"), bundle_b   # the card's identity
    for kind in ("history-", "cxrescue-"):
        assert list(uploads.glob(f"{dashed(mac_b)}_{kind}*")), f"no {kind}* from B"

    # C: its backup is on the server; C itself untouched so far.
    tars_c = bundles(uploads, mac_c)
    assert len(tars_c) == 1 and tar_flash(tars_c[0])[0] == before["C"][0], tars_c

    # Round 2: C's flash is damaged; restore bundle=latest unbricks it from that backup.
    cards_c = {"C": card(tmp_path, "nodeC", "C", corrupt=True)}
    assert cards_c["C"].boot_check()["booted"] is False
    jobs.write_text(f"{mac_c} restore yes=1 bundle=latest\n")
    srv = Server(ns, root, jobs, fw, tmp_path / "serve-2.log")
    # another host on the rack network puts other bytes under the name of C's backup (its
    # uploads/ name went at this start: the bundle is kept): not kept, not used
    kept_c = root / "tftp" / "kept" / tars_c[0].name
    kept_sha = hashlib.sha256(kept_c.read_bytes()).hexdigest()
    plant_bundle(tmp_path, ns, tars_c[0].name, tar_flash(kept_c)[1],
                 bytes(x ^ 0xFF for x in before["C"][0][:65536]) + before["C"][0][65536:])
    boot_nodes(tmp_path, ns, guests, cards_c, "round2")
    srv.stop()
    assert f"uploads/{tars_c[0].name}: a new upload under the name of a kept bundle: not kept, not used" \
        in srv.output(), srv.output()
    assert hashlib.sha256(kept_c.read_bytes()).hexdigest() == kept_sha
    assert (uploads / tars_c[0].name).read_bytes() != kept_c.read_bytes()   # the planted one is there
    c = cards_c["C"].boot_check()
    assert c["booted"] is True and c["psid"] == OEM_PSID and c["fw_version"] == OEM_FW, c
    assert c["guids"]["node"] == NODES["C"][2] and c["macs"]["port1"] == NODES["C"][3], c
    assert cards_c["C"].flash.read_bytes() == before["C"][0]
    rep_c = reports(uploads, mac_c)
    assert [r["job"] for r in rep_c] == ["backup", "restore"], rep_c
    assert rep_c[1]["result"] == "ok" and rep_c[1]["cards"][0]["recovery"] is True, rep_c[1]
    assert rep_c[1]["bundle"] == tar_flash(root / "tftp" / "kept" / tars_c[0].name)[1], rep_c[1]
    to_c = rep_c[1]["cards"][0]["to"]
    assert (to_c["psid"], to_c["fw"]) == (OEM_PSID, OEM_FW), to_c
    assert to_c["sha256"] == hashlib.sha256(before["C"][0]).hexdigest(), to_c

    # The merged report: every node, every result.
    jobs_all = tmp_path / "jobs-all"
    jobs_all.write_text(f"{mac_a} inventory\n{mac_b} crossflash yes=1 allow_risky=1\n{mac_c} restore yes=1 bundle=latest\n")
    r = subprocess.run([str(PXE_REPORT), "--jobs", str(jobs_all), str(root)], capture_output=True, text=True)
    # A is done, B is verified; C was written and waits for its verify after a cold restart
    # (its boot entry runs job=verify now: C has no BMC that lets pxe-cycle in), so the rack
    # is not done yet
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stdout.splitlines()[-1].endswith("; 2 of 3 nodes of the jobs file done"), r.stdout
    states = {x["node"]: x["state"] for x in json.loads(subprocess.run(
        [str(PXE_REPORT), "--json", "--jobs", str(jobs_all), str(root)], capture_output=True, text=True).stdout)}
    assert states == {mac_a: "local boot", mac_b: f"verified running {STOCK_FW}: local boot",
                      mac_c: "written"}, states
    table = r.stdout
    for mac in (mac_a, mac_b, mac_c):
        assert mac in table, table
    rows = json.loads(subprocess.run([str(PXE_REPORT), "--json", str(root)], capture_output=True,
                                     text=True, check=True).stdout)
    assert sorted((x["node"], x["job"], x["result"]) for x in rows) == sorted([
        (mac_a, "inventory", "ok"), (mac_b, "crossflash", "ok"), (mac_b, "verify", "ok"), (mac_c, "backup", "ok"),
        (mac_c, "restore", "ok")]), rows
    row_b = next(x for x in rows if x["node"] == mac_b)
    assert (row_b["from"], row_b["to"], row_b["backup"]) == (
        f"{OEM_PSID} {OEM_FW}", f"{STOCK_PSID} {STOCK_FW}", "yes"), row_b
    assert f"{STOCK_PSID} {STOCK_FW}" in table, table
    assert row_b["settings"] == ETH_REPORT, row_b
    assert f"{mac_b} {cb['bdf']} settings: LINK_TYPE_P1 VPI(3) -> ETH(2), LINK_TYPE_P2 VPI(3) -> ETH(2)" in table

    # Nothing from outside: the namespace holds only the bridge and the nodes' taps, and
    # only the nodes' MACs got leases.
    links = {line.split(":")[1].strip().split("@")[0] for line in ip("-n", ns, "-o", "link").stdout.splitlines()}
    assert links == {"lo", "br0", "tapA", "tapB", "tapC"}, links
    leases = (root / "dnsmasq.leases").read_text().split("\n")
    assert {line.split()[1] for line in leases if line.strip()} <= {mac_a, mac_b, mac_c}, leases


def test_a_node_keeps_its_files_until_the_server_is_back(tmp_path, rack, guests):
    """The server goes away after the node booted: the backup cannot reach it, so the
    card is not written; the report and the backup stay in the node's RAM and are sent
    again, round after round, until the server is back; the node then stays up (the job
    failed) and powers off only when asked, with everything on the server."""
    ns = rack
    root = tmp_path / "srv"
    uploads = root / "tftp" / "uploads"
    fw = stock_firmware(tmp_path)
    c = card(tmp_path, "nodeA", "A")
    original, mtime = c.flash.read_bytes(), c.flash.stat().st_mtime_ns
    tap, mac, *_ = NODES["A"]
    jobs = tmp_path / "jobs"
    jobs.write_text(f"{mac} crossflash yes=1 allow_risky=1\n")
    srv = Server(ns, root, jobs, fw, tmp_path / "serve-1.log")
    g = Guest(tmp_path, "pxe-tap", cards=[c], netns=ns, tap=tap, mac=mac, name="away")
    guests.append(g)
    g.expect(r"cxrescue: unattended job: job=crossflash")
    srv.stop()                                   # before the job's backup: nothing can reach it
    g.expect(r"did not reach the server", timeout=NODE_TIMEOUT)
    g.expect(r"not everything is on the server; trying again in \d+ s", timeout=NODE_TIMEOUT)
    assert c.flash.read_bytes() == original and c.flash.stat().st_mtime_ns == mtime, "written without a backup"
    assert not list(uploads.glob("*")), list(uploads.glob("*"))

    srv = Server(ns, root, jobs, fw, tmp_path / "serve-2.log")
    g.expect(r"the job did not complete \(status \d+\): the wizard starts", timeout=NODE_TIMEOUT)
    g.front_end()
    assert g.p.isalive(), "the node powered off after a failed job"
    tars = bundles(uploads, mac)
    assert len(tars) == 1 and tar_flash(tars[0])[0] == original, tars
    rep = reports(uploads, mac)
    assert len(rep) == 1 and rep[0]["result"] == "failed", rep
    card_rep = rep[0]["cards"][0]
    assert card_rep["result"] == "failed" and "did not reach the server" in card_rep["message"], card_rep
    assert card_rep["backup"] is not None, card_rep     # written to RAM, and now on the server
    assert c.flash.read_bytes() == original and c.flash.stat().st_mtime_ns == mtime

    assert g.power_off(timeout=NODE_TIMEOUT) == 0      # asked for: everything is on the server
    srv.stop()
    assert c.boot_check()["psid"] == OEM_PSID


@pytest.fixture
def site_dhcp(rack, tmp_path):
    """The site's own DHCP server, which knows nothing of PXE: a plain dnsmasq in a second
    namespace, on a veth pair whose other end is a port of the rack's bridge."""
    site = rack + "-site"
    ip("netns", "del", site, check=False)
    ip("netns", "add", site)
    dns = None
    try:
        ip("-n", rack, "link", "add", "vsite", "type", "veth", "peer", "name", "eth0", "netns", site)
        ip("-n", rack, "link", "set", "vsite", "master", "br0")
        ip("-n", rack, "link", "set", "vsite", "up")
        ip("-n", site, "addr", "add", "10.199.77.2/24", "dev", "eth0")
        ip("-n", site, "link", "set", "eth0", "up")
        dns = subprocess.Popen(["ip", "netns", "exec", site, "dnsmasq", "--keep-in-foreground",
                                "--conf-file=/dev/null", "--port=0", "--interface=eth0", "--bind-interfaces",
                                f"--dhcp-leasefile={tmp_path / 'site.leases'}", "--dhcp-range=10.199.77.50,10.199.77.60,1h",
                                f"--pid-file={tmp_path / 'site.pid'}", "--log-dhcp",
                                f"--log-facility={tmp_path / 'site-dhcp.log'}"])
        yield site
    finally:
        if dns:
            dns.terminate()
            dns.wait(timeout=10)
        ip("netns", "del", site, check=False)


def test_proxy_dhcp_beside_the_sites_own_server(tmp_path, rack, site_dhcp, guests):
    """pxe-serve --proxy: the address comes from the site's DHCP server, the boot from ours;
    the node runs its job, uploads its report and powers off."""
    ns = rack
    root = tmp_path / "srv"
    uploads = root / "tftp" / "uploads"
    c = card(tmp_path, "nodeA", "A")
    tap, mac, *_ = NODES["A"]
    jobs = tmp_path / "jobs"
    jobs.write_text(f"{mac} inventory\n")
    srv = Server(ns, root, jobs, None, tmp_path / "serve.log", proxy=True)
    g = Guest(tmp_path, "pxe-tap", cards=[c], netns=ns, tap=tap, mac=mac, name="proxy")
    guests.append(g)
    g.expect(r"cxrescue: network: eth0 is 10\.199\.77\.(5\d|60)/24; the server is 10\.199\.77\.1\b")
    assert g.wait_power_off(timeout=NODE_TIMEOUT) == 0
    srv.stop()
    rep = reports(uploads, mac)
    assert [r["job"] for r in rep] == ["inventory"] and rep[0]["result"] == "ok", rep
    assert mac in (tmp_path / "site.leases").read_text()          # the site's server leased it
    assert not (root / "dnsmasq.leases").exists() or mac not in (root / "dnsmasq.leases").read_text()


def flash_query(path):
    """cxflash q of a card's backing file (a raw flash dump): image PSID and FW, GUIDs, MACs."""
    r = subprocess.run([str(CXFLASH), "-i", str(path), "q", "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("running", [False, True], ids=["recovery", "running"])
def test_a_cx4lx_node_cross_flashed(tmp_path, rack, guests, running):
    """Issue 32 item 7: a BIOS node with an HPE 640SFP28 (ConnectX-4 Lx, FS3) strapped into
    recovery mode, or its firmware running (the node reaches its flash through that firmware,
    and its jobs line adds settings=SRIOV_EN=1,NUM_OF_VFS=4), its jobs line `crossflash yes=1`,
    the stock MCX4121A-ACAT image in pxe-serve's firmware folder (mkfs3). The node backs the
    card up to the server before the card's file first changes, burns the stock image (then sets
    the settings through the running firmware), reports and powers off by itself. On the host:
    the card boots the stock image, its device data (GUIDs, MACs, MFG_INFO's PSID) as it was (a
    running card: SR-IOV on with 4 VFs for its next boot); the report and pxe-report say
    crossflash ok, from the OEM image to stock, the backup on the server (the original flash)."""
    ns = rack
    root = tmp_path / "srv"
    uploads = root / "tftp" / "uploads"
    tap, mac, guid, port_mac = NODES["A"]
    fw = tmp_path / "firmware"
    fw.mkdir()
    for path, psid, ver, ids in ((tmp_path / "hpe-640sfp28.bin", CX4_OEM_PSID, CX4_OEM_FW, ["--guid", guid, "--mac", port_mac]),
                                 (fw / "mcx4121a-stock.bin", CX4_STOCK_PSID, CX4_STOCK_FW, [])):
        r = subprocess.run([str(MKFS3), "-o", str(path), "--chip", "cx4lx", "--psid", psid, "--fw", ver,
                            "--slot-log", CX4_SLOT_LOG, *ids],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    c = Card(tmp_path, "nodeA-cx4lx", "--chip", "cx4lx", "--flash", CX4_PART, "--image", tmp_path / "hpe-640sfp28.bin",
             *([] if running else ["--recovery"]))
    original = c.flash.read_bytes()
    before = flash_query(c.flash)
    jobs = tmp_path / "jobs"
    jobs.write_text(f"{mac} crossflash yes=1{' settings=SRIOV_EN=1,NUM_OF_VFS=4' if running else ''}\n")
    srv = Server(ns, root, jobs, fw, tmp_path / "serve-cx4lx.log")
    watch = FirstChange(c.flash, uploads, mac, original)
    t0 = time.monotonic()
    try:
        boot_nodes(tmp_path, ns, guests, {"A": c}, "cx4lx-running" if running else "cx4lx", timeout=CX4_NODE_TIMEOUT)
    finally:
        watch.stop()
    t_off = time.monotonic()
    srv.stop()
    (qh.BUILD / "qemu-tests").mkdir(parents=True, exist_ok=True)
    with open(qh.BUILD / "qemu-tests" / "boot-times.txt", "a") as f:
        f.write(f"pxe/rack cx4lx node ({'running' if running else 'recovery'}): crossflash job, powered off "
                f"{t_off - t0:.0f} s\n")

    assert watch.backup_whole is not None and watch.card_changed is not None, vars(watch)
    assert watch.backup_whole < watch.card_changed, "the card changed before its backup was on the server"
    b = c.boot_check()
    assert b["format"] == "FS3" and b["booted"] is True and b["slot"] == 1, b
    assert (b["psid"], b["fw_version"]) == (CX4_STOCK_PSID, CX4_STOCK_FW), b
    after = flash_query(c.flash)
    assert (after["psid"], after["orig_psid"]) == (CX4_STOCK_PSID, CX4_OEM_PSID), after
    assert after["guids"] == before["guids"] and after["guids"][0]["base"] == guid, after
    assert after["macs"] == before["macs"] and after["macs"][0]["base"] == port_mac, after
    slot = 1 << b["slot_log"]
    now = c.flash.read_bytes()
    assert now[16:slot] == original[16:slot] and now[2 * slot:] == original[2 * slot:]

    rep = reports(uploads, mac)
    assert [(x["job"], x["result"]) for x in rep] == [("crossflash", "ok")], rep
    card_rep = rep[0]["cards"][0]
    assert card_rep["recovery"] is (not running) and card_rep["chip"].startswith("ConnectX-4 Lx"), card_rep
    if running:
        nb = b["next_boot_settings"]["values"]
        assert (nb["SRIOV_EN"], nb["NUM_OF_VFS"]) == (1, 4), b
        names = {x["name"]: (x["before"], x["after"]) for x in card_rep["settings"]}
        assert names["SRIOV_EN"][1] == "True(1)" and names["NUM_OF_VFS"][1] == "4", card_rep
    assert (card_rep["psid"], card_rep["fw"], card_rep["node_guid"]) == (CX4_OEM_PSID, CX4_OEM_FW, guid), card_rep
    assert (card_rep["to"]["psid"], card_rep["to"]["fw"]) == (CX4_STOCK_PSID, CX4_STOCK_FW), card_rep
    bundle = pathlib.PurePosixPath(card_rep["backup"]["path"]).name
    tars = bundles(uploads, mac)
    assert [t.name for t in tars] == [f"{dashed(mac)}_{bundle}.tar"], tars
    assert tar_flash(tars[0]) == (original, bundle)
    r = subprocess.run([str(PXE_REPORT), "--json", "--jobs", str(jobs), str(root)], capture_output=True, text=True)
    rows = json.loads(r.stdout)
    row = next(x for x in rows if x["node"] == mac)
    assert (row["job"], row["result"], row["backup"], row["state"]) == ("crossflash", "ok", "yes", "written"), row
    assert (row["from"], row["to"]) == (f"{CX4_OEM_PSID} {CX4_OEM_FW}", f"{CX4_STOCK_PSID} {CX4_STOCK_FW}"), row
