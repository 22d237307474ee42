# SPDX-License-Identifier: GPL-2.0-or-later
"""`cxflash -d BDF probe` end to end over the FUSE tree `cxsim serve` shows: the verdict and
exit code on a held semaphore, a gateway stuck busy and a healthy card, --json as one object,
a fake lockdown file through $CXFLASH_LOCKDOWN_FILE, and that the probe never writes: the
model's counters (DIR/cxsim/stats) show no erase, no programmed byte and no write command,
and the card's flash file is byte for byte what it was.

The verdicts of every fault, and of recovery-mode and damaged cards, are checked in process
(burner/tests/test_probe.c, fast); here only what needs the shipped binary and the sysfs
path. A healthy probe reads the whole flash twice: over FUSE ~2 minutes for 1 MiB (as a
backup, test_cxflash_backup.py), so there is exactly one."""
import json

import pytest

from conftest import CXFLASH, run
from cxsim_helpers import CXSIM, bdf, cxsim  # noqa: F401 (fixture)

SMALL = "--ddr 1 --ddr-size 0x100 --no-rom --fw 2.42.5000"
CX_EFLASH_ROW, CX_EUNSAFE = "stuck busy", 19          # cxflash(1) EXIT STATUS
WRITE_OPCODES = ("0x01", "0x02", "0x06", "0x20", "0xd8", "0xc7")  # WRSR PP WREN SSE SE CE


def host_lockdown():
    """This machine's own lockdown mode ("none" without the file), as cxflash reads it."""
    try:
        text = open("/sys/kernel/security/lockdown").read()
    except OSError:
        return "none"
    return text.split("[", 1)[1].split("]", 1)[0] if "[" in text else "none"


def card(rig, images, name, part="W25Q80"):
    img = images.make(f"--chip cx3 {SMALL}")
    stem = rig.create(name, "--chip", "cx3", "--flash", part, "--image", img)
    return stem, stem.with_suffix(".flash")


def probe(s, *args, env=None, timeout=120):
    return run([CXFLASH, "--sysfs", s.dir, "-d", bdf(0), "probe", *args], env=env, timeout=timeout)


def assert_nothing_written(s):
    k = s.card_stats()["counters"]
    assert k["erases"] == 0 and k["bytes_erased"] == 0 and k["bytes_programmed"] == 0, k
    assert not any(k["gw_by_opcode"].get(op) for op in WRITE_OPCODES), k
    return k


def fault(stem, *args):
    r = run([CXSIM, "fault", stem, *args])
    assert r.returncode == 0, r.stderr


def test_held_semaphore_is_not_safe_and_stays_held(cxsim, images):
    stem, flash = card(cxsim, images, "sem")
    fault(stem, "--sem-held", "gpio")
    before = flash.read_bytes()
    s = cxsim.serve(stem)
    r = probe(s)
    assert r.returncode == CX_EUNSAFE, (r.stdout, r.stderr)
    assert "verdict: not safe to write" in r.stdout
    reasons = [line for line in r.stdout.splitlines() if line.startswith("  - ")]
    assert len(reasons) == 1 and "0xf03fc" in reasons[0] and "--clear-semaphore" in reasons[0], r.stdout
    assert r.stderr.splitlines() == [f"cxflash: {bdf(0)} is not safe to write: 1 reason (above); "
                                     "nothing was written"], r.stderr
    k = assert_nothing_written(s)
    assert k["gw_cmds"] == 0, k
    # The other agent still holds it: the second probe finds the same, in JSON.
    r = probe(s, "--json")
    assert r.returncode == CX_EUNSAFE
    j = json.loads(r.stdout)
    assert j["verdict"] == "not-safe" and j["exit_code"] == CX_EUNSAFE and j["code"] == "not-safe"
    assert j["card_state"] == "untouched" and len(j["reasons"]) == 1
    assert {x["addr"]: x["state"] for x in j["semaphores"]} == {"f03a0": "free", "f03fc": "held"}
    assert [c["result"] for c in j["checks"] if c["name"] in ("flash", "reads", "image")] == ["skip"] * 3
    assert j["flash"] is None and j["reads_agree"] is False
    assert s.stop() == 0
    assert flash.read_bytes() == before


def test_stuck_busy_is_not_safe(cxsim, images):
    stem, flash = card(cxsim, images, "busy")
    fault(stem, "--stuck-busy", "on")
    before = flash.read_bytes()
    s = cxsim.serve(stem)
    r = probe(s, "--json")
    assert r.returncode == CX_EUNSAFE, r.stderr
    j = json.loads(r.stdout)
    row = {c["name"]: c for c in j["checks"]}
    assert row["flash"]["result"] == "FAIL" and CX_EFLASH_ROW in row["flash"]["text"], row
    assert j["reasons"] == [row["flash"]["text"]]
    assert_nothing_written(s)
    assert s.stop() == 0
    assert flash.read_bytes() == before


def test_lockdown_file_gives_the_line_and_the_verdict(cxsim, images, tmp_path):
    """A held semaphore keeps the probe fast (the lockdown row is checked first either way);
    `list` on a healthy card of its own (on a held one it would wait for the semaphore)."""
    stem, _ = card(cxsim, images, "lock")
    ok, _ = card(cxsim, images, "lock-list")
    fault(stem, "--sem-held", "gpio")
    lock = tmp_path / "lockdown"
    lock.write_text("none integrity [confidentiality]\n")
    env = {"CXFLASH_LOCKDOWN_FILE": str(lock), "PATH": "/usr/bin:/bin"}
    line = ("Secure Boot's lockdown (confidentiality) forbids the PCI access flashing needs; "
            "turn Secure Boot off in the firmware setup")
    s = cxsim.serve(stem)
    j = json.loads(probe(s, "--json", env=env).stdout)
    assert j["lockdown"] == "confidentiality"
    assert line in j["reasons"] and len(j["reasons"]) == 2, j["reasons"]
    # Without the variable: this machine's own state, which the other tests need to be "none".
    assert host_lockdown() == "none", "this machine is locked down: the device tests cannot write"
    j = json.loads(probe(s, "--json", env={"PATH": "/usr/bin:/bin"}).stdout)
    assert j["lockdown"] == "none" and len(j["reasons"]) == 1
    assert_nothing_written(s)
    assert s.stop() == 0
    s = cxsim.serve(ok)
    r = run([CXFLASH, "--sysfs", s.dir, "list"], env=env)
    assert r.returncode == 0 and line in r.stdout, r.stdout
    assert json.loads(run([CXFLASH, "--sysfs", s.dir, "list", "--json"], env=env).stdout)["lockdown"] == \
        "confidentiality"
    r = run([CXFLASH, "--sysfs", s.dir, "list"])
    assert r.returncode == 0 and "1 card found" in r.stdout and "lockdown" not in r.stdout, r.stdout
    assert_nothing_written(s)
    assert s.stop() == 0


def test_healthy_card_is_safe(cxsim, images):
    """The one whole probe over FUSE (two reads of 1 MiB)."""
    stem, flash = card(cxsim, images, "ok")
    before = flash.read_bytes()
    s = cxsim.serve(stem)
    r = probe(s, timeout=900)   # as a backup (~130 s idle, test_cxflash_backup.py); 7-13 min at load 10
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert r.stdout.rstrip().endswith("verdict: safe to write"), r.stdout
    assert " FAIL " not in r.stdout and r.stderr == "", r.stdout
    for words in ("W25QxxBV, 1024 KiB (JEDEC ef 40 14)", "read twice, 1024 KiB, identical",
                  "0xf03a0 free, 0xf03fc free (each left as found)", "FW 2.42.5000 at 0x000000",
                  "the card runs FW 2.42.5000, the one on the flash", "not write-protected"):
        assert words in r.stdout, (words, r.stdout)
    assert_nothing_written(s)
    assert s.stop() == 0
    assert flash.read_bytes() == before
    # The semaphores were left free: a second tool gets them at once.
    s = cxsim.serve(stem)
    assert run([CXFLASH, "--sysfs", s.dir, "-d", bdf(0), "q"]).returncode == 0
    assert s.stop() == 0


def test_refused_config_access_under_lockdown_says_secure_boot(cxsim, images, tmp_path):
    """A copy of the served device whose config file the kernel refuses to open for writing
    (immutable: EPERM even for root, as lockdown's refusal is): with a lockdown file the one
    line, without it the old "run as root" line. Exit code 12 both times."""
    stem, _ = card(cxsim, images, "perm")
    s = cxsim.serve(stem)
    fake = tmp_path / "fake-sys"
    (fake / "devices").mkdir(parents=True)
    dev = fake / "devices" / bdf(0)
    r = run(["cp", "-r", s.dir / "devices" / bdf(0), dev])
    assert r.returncode == 0, r.stderr
    assert s.stop() == 0
    if run(["chattr", "+i", dev / "config"]).returncode != 0:
        pytest.skip("chattr +i is not supported on this file system")
    try:
        lock = tmp_path / "lockdown"
        lock.write_text("none [integrity] confidentiality\n")
        for env, want in (({"CXFLASH_LOCKDOWN_FILE": str(lock)},
                           f"cxflash: {bdf(0)}: Secure Boot's lockdown (integrity) forbids the PCI access "
                           "flashing needs; turn Secure Boot off in the firmware setup"),
                          ({}, "Operation not permitted (run as root)")):
            r = run([CXFLASH, "--sysfs", fake, "-d", bdf(0), "probe"], env={"PATH": "/usr/bin:/bin", **env})
            assert r.returncode == 12, (r.stdout, r.stderr)
            assert len(r.stderr.splitlines()) == 1 and want in r.stderr, r.stderr
            assert r.stdout == ""
    finally:
        run(["chattr", "-i", dev / "config"])
