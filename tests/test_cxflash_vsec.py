# SPDX-License-Identifier: GPL-2.0-or-later
"""The VSEC gateway (hw-access.md §2.4) end to end over the FUSE tree: cards made with
`cxsim create --vsec`, read and burned by cxflash, and read by unmodified mstflint 4.21,
which uses the gateway whenever it has mtcr's minimum spaces (CR_SPACE, ICMD_EXT,
SEMAPHORE) — so mstflint also checks the model against its own implementation. The model's
counters say who went through the gateway (vsec_accesses) and whether anyone did so
without its semaphore (vsec_without_sem).

FUSE is slow and a VSEC access costs about 11 config cycles where the window needs 2
(semaphore, space, address, flag, data, release: mtcr's single access, which cxflash
copies), so images are small and each card is served once per test."""
import os
import struct

from conftest import CXFLASH, cx, run
from cxsim_helpers import CXSIM, MSTFLINT_NS, bdf, cxsim  # noqa: F401 (fixture)
from test_oracle import fields

SMALL = "--ddr 2 --ddr-size 0x1000"
GUID, MAC = "0002c90300c0ffe0", "0002c9c0ffe0"
VSEC_SEM = 0xC0 + 0x0C     # the model's VSEC sits at 0xc0 (sim/core/pcicfg.c)


def card(cxsim, images, name, *extra, fw="2.40.7000"):
    img = images.make(f"--chip cx3 {SMALL} --fw {fw}")
    return cxsim.create(name, "--chip", "cx3", "--image", img, "--guid", GUID, "--mac", MAC, *extra)


def dev(s, *args, index=0, env=None):
    if env:
        r = run([CXFLASH, "--sysfs", s.dir, "-d", bdf(index), *args], env=dict(os.environ, **env))
        return r
    return cx("--sysfs", s.dir, "-d", bdf(index), *args)


def counters(s, index=0):
    return s.card_stats(index)["counters"]


def vsec_sem(s, index=0):
    """The VSEC semaphore register, read from the served config file as any tool would."""
    with open(s.path(index, "config"), "rb") as f:
        return struct.unpack("<I", os.pread(f.fileno(), 4, VSEC_SEM))[0]


def test_query_is_the_same_and_mstflint_uses_the_gateway(cxsim, images):
    img = images.make(f"--chip cx3 {SMALL}")
    args = ("--chip", "cx3", "--image", img, "--guid", GUID, "--mac", MAC)
    s = cxsim.serve(cxsim.create("plain", *args), cxsim.create("vsec", *args, "--vsec", "full"))
    a, b = dev(s, "q", index=0), dev(s, "q", index=1)
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    assert a.stdout == b.stdout
    assert counters(s, 0)["vsec_accesses"] == 0
    k = counters(s, 1)
    assert k["vsec_accesses"] > 1000 and k["vsec_without_sem"] == 0, k
    assert vsec_sem(s, 1) == 0
    # mstflint 4.21: BAR0 reads all-ones here, so mtcr opens config space, finds the
    # capability, takes the semaphore with a ticket, probes the spaces (all nine of
    # 4.21's list), sees CR_SPACE+ICMD_EXT+SEMAPHORE and uses the gateway for everything.
    m = s.mstflint("-d", bdf(1), "q")
    assert m.returncode == 0, m.stdout + m.stderr
    after = counters(s, 1)
    assert after["vsec_accesses"] > k["vsec_accesses"] + 1000
    assert after["vsec_without_sem"] == 0 and after["gw_without_sem"] == 0
    assert after["unmodelled"] == 0      # nobody read a space the model does not have
    assert vsec_sem(s, 1) == 0
    fm, fb = fields(m.stdout), fields(b.stdout)
    for k in ("FW Version", "PSID", "GUIDs", "MACs", "Device ID"):
        assert fm[k] == fb[k], k
    assert s.stop() == 0


def test_burn_through_the_gateway_keeps_identity(cxsim, images):
    stem = card(cxsim, images, "vsec", "--vsec", "full")
    s = cxsim.serve(stem)
    new = images.make(f"--chip cx3 {SMALL} --fw 2.42.5000 --seed 4")
    r = dev(s, "-i", new, "-y", "--no-backup", "burn")
    assert r.returncode == 0, r.stderr
    k = counters(s)
    assert k["vsec_accesses"] > 0 and k["vsec_without_sem"] == 0 and k["gw_without_sem"] == 0
    assert k["bytes_programmed"] > 0
    assert vsec_sem(s) == 0
    assert s.stop() == 0
    b = cxsim.boot_check(stem)
    assert b["fw_version"] == "2.42.5000" and b["slot"] == 1 and b["valid_images"] == 1
    assert b["guids"]["node"] == GUID and b["macs"]["port2"] == "0002c9c0ffe1"


def test_crspace_only_gateway_is_not_used(cxsim, images):
    """Without ICMD_EXT and SEMAPHORE, mtcr uses the window, and so does cxflash."""
    s = cxsim.serve(card(cxsim, images, "crspace-only", "--vsec", "crspace-only"))
    r = dev(s, "q")
    assert r.returncode == 0 and GUID in r.stdout, r.stderr
    m = s.mstflint("-d", bdf(0), "q")
    assert m.returncode == 0 and GUID in m.stdout, m.stdout
    assert counters(s)["vsec_accesses"] == 0
    r = dev(s, "q", env={"CXFLASH_ACCESS": "vsec"})
    assert r.returncode == 11 and "CR_SPACE, ICMD_EXT or SEMAPHORE" in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1
    assert s.stop() == 0


def test_held_gateway_semaphore(cxsim, images):
    stem = card(cxsim, images, "held", "--vsec", "full")
    assert run([CXSIM, "fault", stem, "--vsec-sem-held", "on"]).returncode == 0
    s = cxsim.serve(stem)
    held = vsec_sem(s)
    assert held != 0
    r = dev(s, "q")
    assert r.returncode == 13 and r.stderr.count("\n") == 1, r.stderr
    assert "VSEC gateway semaphore" in r.stderr and "--clear-semaphore" in r.stderr
    assert counters(s)["cr_reads"] + counters(s)["cr_writes"] == 0
    # mstflint's open takes the semaphore first and gives up (mtcr returns EBUSY; the
    # message it prints says ENOENT, from a later fallback). Its clear_semaphore opens
    # the device the same way, so it cannot free it either: only mstmcra -c (mtcr's
    # Clear_Vsec_Semaphore, which writes 0 before the open takes it) can.
    assert s.mstflint("-d", bdf(0), "q").returncode != 0
    assert run([MSTFLINT_NS, s.dir, "--clear-semaphores", bdf(0)]).returncode != 0
    assert vsec_sem(s) == held
    r = run([MSTFLINT_NS, s.dir, "--", "/usr/bin/mstmcra", "-c", bdf(0)])
    assert r.returncode == 0, r.stdout + r.stderr
    assert vsec_sem(s) == 0
    # Held again from power-on; cxflash --clear-semaphore frees it the same way.
    s.power_cycle(0)
    assert vsec_sem(s) == held
    r = dev(s, "--clear-semaphore", "q")
    assert r.returncode == 0 and GUID in r.stdout, r.stderr
    assert vsec_sem(s) == 0 and counters(s)["vsec_without_sem"] == 0
    assert s.stop() == 0
