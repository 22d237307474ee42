# SPDX-License-Identifier: GPL-2.0-or-later
"""Simulated cards for the host tests: `cxsim create`, `cxsim serve` in the background,
and unmodified mstflint run against the served tree through scripts/mstflint-ns.

The `cxsim` fixture gives a Rig. Every server it starts is stopped with SIGTERM at
teardown (and, if it will not stop, killed and its mount detached), so a failing test
never leaves a FUSE mount behind."""
import json
import os
import pathlib
import shutil
import signal
import subprocess
import time

import pytest

from conftest import BUILD, CXFLASH, ROOT, SANITIZER_MARKS, fix_full_crc, fix_section_crc, run

CXSIM = BUILD / "host" / "cxsim"
SHIM = BUILD / "host" / "cxsim-sleep.so"
SLEEP_TRACE = BUILD / "host" / "cxsim-sleep-trace"   # the same for a static client (cxflash)
MSTFLINT_NS = ROOT / "scripts" / "mstflint-ns"
MSTFLINT = pathlib.Path("/usr/bin/mstflint")

SERVE_START_TIMEOUT = 20    # seconds until "serving ..." appears
SERVE_STOP_TIMEOUT = 30     # seconds for SIGTERM: save every card, unmount
# Every other subprocess gets conftest.run's 120 s; a small burn through FUSE takes ~4 s.


def bdf(index):
    """The fake tree's address of the index-th card (0-based)."""
    return f"0000:{index + 1:02x}:00.0"


def missing_binaries():
    return [str(p) for p in (CXSIM, SHIM, SLEEP_TRACE) if not p.exists()]


def device_test_blocker():
    """Why FUSE/namespace tests cannot run here, or None."""
    if os.geteuid() != 0:
        return "needs root (FUSE mounts and mount namespaces)"
    if not os.path.exists("/dev/fuse"):
        return "no /dev/fuse"
    if not shutil.which("unshare"):
        return "no unshare (util-linux)"
    if not MSTFLINT.exists():
        return f"no {MSTFLINT} (Debian package mstflint)"
    r = run(["unshare", "-m", "--propagation", "private", "true"])
    if r.returncode != 0:
        return f"cannot make a mount namespace: {r.stderr.strip()}"
    return None


def patch_identity(img_path, mapping, guid, mac):
    """An image as `cxsim create --guid G --mac M` should install it, patched here
    independently of cxsim: GUID entries G..G+3, MACs M, M+1, GUID and full CRCs fixed.
    mapping is mkfs2's --map (sect_GUID = the section's offset and size)."""
    buf = bytearray(pathlib.Path(img_path).read_bytes())
    off, size = mapping["sect_GUID"]
    for i, v in enumerate([guid + k for k in range(4)] + [mac, mac + 1]):
        buf[off + 16 + 8 * i:off + 24 + 8 * i] = v.to_bytes(8, "big")
    fix_section_crc(buf, off, size)
    fix_full_crc(buf, len(buf))
    return bytes(buf)


class Server:
    """One `cxsim serve DIR STEM...` process."""

    def __init__(self, folder, stems, wall_clock=False, log=None):
        self.dir = pathlib.Path(folder) / "sys"
        self.stems = [str(s) for s in stems]
        self.out = pathlib.Path(folder) / "serve.out"
        self.err = pathlib.Path(folder) / "serve.err"
        self.log = log
        argv = [str(CXSIM), "serve", str(self.dir), *self.stems]
        if wall_clock:
            argv.append("--wall-clock")
        if log:
            argv += ["--log", str(log)]
        with open(self.out, "w") as out, open(self.err, "w") as err:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        self.returncode = None
        deadline = time.monotonic() + SERVE_START_TIMEOUT
        while "serving" not in self.out.read_text():
            if self.proc.poll() is not None:
                raise AssertionError(f"cxsim serve exited {self.proc.returncode}: "
                                     f"{self.err.read_text()}")
            if time.monotonic() > deadline:
                self.stop()
                raise AssertionError("cxsim serve did not say 'serving' in time")
            time.sleep(0.02)

    def path(self, index, name):
        return self.dir / "devices" / bdf(index) / name

    def read(self, index, name):
        return self.path(index, name).read_text().strip()

    def stats(self):
        return json.loads((self.dir / "cxsim" / "stats").read_text())

    def card_stats(self, index=0):
        return self.stats()["cards"][index]

    def power_cycle(self, index):
        (self.dir / "cxsim" / "power-cycle").write_text(bdf(index) + "\n")

    def advance(self, ns):
        (self.dir / "cxsim" / "clock").write_text(f"advance {ns}\n")

    def mstflint(self, *args):
        """Unmodified mstflint in a private mount namespace over this tree."""
        return run([MSTFLINT_NS, self.dir, "--", "mstflint", *args])

    def cxflash(self, *args, timeout=300, input=None):
        """cxflash on this tree, its sleeps in model time (cxsim-sleep-trace), as mstflint's
        are under the shim: a polling loop waits as long in the model as it asks for and no
        wall time, so a burn's duration does not depend on how busy this machine is."""
        env = dict(os.environ, CXSIM_CLOCK=str(self.dir / "cxsim" / "clock"))
        stdin = {"input": input} if input is not None else {"stdin": subprocess.DEVNULL}
        r = subprocess.run([SLEEP_TRACE, CXFLASH, "--sysfs", self.dir, *args], env=env, capture_output=True,
                           text=True, errors="replace", timeout=timeout, **stdin)
        for mark in SANITIZER_MARKS:
            assert mark not in r.stderr, f"sanitizer report for cxflash {args}:\n{r.stderr}"
        return r

    def clear_semaphores(self, index=0):
        return run([MSTFLINT_NS, self.dir, "--clear-semaphores", bdf(index)])

    def stop(self):
        """SIGTERM, wait; the server saves every card and writes STEM.stats. Idempotent."""
        if self.returncode is not None:
            return self.returncode
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.returncode = self.proc.wait(timeout=SERVE_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.returncode = self.proc.wait(timeout=SERVE_STOP_TIMEOUT)
        if os.path.ismount(self.dir):
            run(["umount", "-l", self.dir])
        return self.returncode


class Rig:
    """Cards as STEM.conf/STEM.flash pairs in a test's folder, and their servers."""

    def __init__(self, folder):
        self.folder = pathlib.Path(folder)
        self.servers = []

    def create(self, name, *args):
        stem = self.folder / name
        r = run([CXSIM, "create", stem, *args])
        assert r.returncode == 0, f"cxsim create {args}: {r.stderr}"
        return stem

    def boot_check(self, stem):
        r = run([CXSIM, "boot-check", stem, "--json"])
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    def serve(self, *stems, wall_clock=False, log=None):
        """log: a file for `cxsim serve --log` (every config and BAR0 access)."""
        folder = self.folder / f"serve{len(self.servers)}"
        folder.mkdir()
        s = Server(folder, stems, wall_clock=wall_clock, log=log)
        self.servers.append(s)
        return s

    def close(self):
        for s in self.servers:
            s.stop()


@pytest.fixture
def cxsim(tmp_path):
    missing = missing_binaries()
    if missing:
        pytest.fail(f"{', '.join(missing)} missing: build with 'make cxsim'")
    reason = device_test_blocker()
    if reason:
        pytest.skip(f"cxsim device tests: {reason}")
    rig = Rig(tmp_path)
    yield rig
    rig.close()
