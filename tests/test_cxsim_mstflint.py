# SPDX-License-Identifier: GPL-2.0-or-later
"""Unmodified mstflint 4.21 against simulated ConnectX-3 and ConnectX-3 Pro cards.

cxsim serves each card as a fake sysfs PCI device over FUSE; scripts/mstflint-ns runs
mstflint in a private mount namespace over that tree, with its sleeps turned into
model time. So the card model is checked against an independent implementation of the
same protocol: query, failsafe burn, read-back, recovery from a corrupt flash and a
PSID cross-flash. Images are kept small: FUSE serves ~10-25k config accesses/s."""
import json
import signal
import subprocess
import time

import pytest

from conftest import CXFLASH, run
from cxsim_helpers import (CXSIM, MSTFLINT_NS, SHIM, SLEEP_TRACE, bdf,  # noqa: F401 (fixture)
                           cxsim, patch_identity)
from test_oracle import fields

SMALL = "--ddr 2 --ddr-size 0x1000"
CHIPS = {
    # chip: (stock PSID, normal PCI ID, recovery PCI ID)
    "cx3": ("MT_1090120019", "0x1003", "0x01f6"),
    "cx3pro": ("MT_1090111023", "0x1007", "0x01f8"),
}
OLD_FW, NEW_FW = "2.10.100", "2.42.5000"
CARD_GUID, CARD_MAC = 0x0002c90300a1b200, 0x0002c9a1b200     # the card's identity
IMAGE_GUID, IMAGE_MAC = 0x0002c903000f0000, 0x0002c90f0000   # placeholders in new images


def flint_version(v):
    """flint prints the subminor with four digits: 2.10.100 -> 2.10.0100."""
    a, b, c = v.split(".")
    return f"{a}.{b}.{int(c):04d}"


def image(images, chip, fw, psid=None, guid=IMAGE_GUID, mac=IMAGE_MAC, name=None,
          with_map=False):
    psid = psid or CHIPS[chip][0]
    return images.make(f"--chip {chip} {SMALL} --fw {fw} --psid {psid} "
                       f"--guid {guid:016x} --mac {mac:012x}", name=name, with_map=with_map)


def card_ids(guid=CARD_GUID, mac=CARD_MAC):
    return [f"{guid + i:016x}" for i in range(4)], [f"{mac + i:012x}" for i in range(2)]


def new_card(cxsim, images, chip, fw=OLD_FW, psid=None):
    """A card whose flash holds an image with the card's own GUIDs/MACs patched in."""
    img = image(images, chip, fw, psid=psid, name=f"installed-{chip}.bin")
    stem = cxsim.create(f"card-{chip}", "--chip", chip, "--image", img,
                        "--guid", f"{CARD_GUID:016x}", "--mac", f"{CARD_MAC:012x}")
    return stem, img


def ok(r):
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r


def check_identity(boot, fw, psid, guid=CARD_GUID, mac=CARD_MAC):
    guids, macs = card_ids(guid, mac)
    assert boot["booted"], boot
    assert boot["fw_version"] == fw
    assert boot["psid"] == psid
    assert [boot["guids"][k] for k in ("node", "port1", "port2", "sys_image")] == guids
    assert [boot["macs"]["port1"], boot["macs"]["port2"]] == macs


def test_tree_shows_every_card(cxsim, images):
    a, _ = new_card(cxsim, images, "cx3")
    b, _ = new_card(cxsim, images, "cx3pro")
    s = cxsim.serve(a, b)
    for i, chip in enumerate(("cx3", "cx3pro")):
        assert s.read(i, "vendor") == "0x15b3"
        assert s.read(i, "device") == CHIPS[chip][1]
        assert s.read(i, "class") == "0x028000"
        cfg = s.path(i, "config").read_bytes()
        assert len(cfg) == 256
        assert cfg[:4] == bytes.fromhex("b315") + int(CHIPS[chip][1], 16).to_bytes(2, "little")
        with open(s.path(i, "resource0"), "rb") as f:
            f.seek(0xf0014)
            assert f.read(4) == b"\xff" * 4   # memory decode off: mstflint uses config cycles
    links = [p for p in s.dir.rglob("*") if p.is_symlink()]
    assert not links
    assert [c["bdf"] for c in s.stats()["cards"]] == [bdf(0), bdf(1)]
    assert s.stop() == 0


def test_libpci_finds_the_cards(cxsim, images):
    """libpci, built as cxflash links it (static musl), pointed at the tree with its
    sysfs.path parameter, lists every card with its IDs, class and subsystem."""
    from conftest import BUILD
    a, _ = new_card(cxsim, images, "cx3")
    b = cxsim.create("card-empty", "--chip", "cx3pro", "--subsys", "103c:18d6", "--empty")
    s = cxsim.serve(a, b)
    r = run([BUILD / "host" / "pci-list", s.dir])
    assert r.returncode == 0, r.stderr
    assert sorted(r.stdout.splitlines()) == [f"{bdf(0)} 15b3:1003 0280 15b3:0050",
                                     f"{bdf(1)} 15b3:01f8 0500 103c:18d6"], r.stdout
    assert s.stop() == 0


@pytest.mark.parametrize("chip", CHIPS)
def test_query_shows_installed_image(cxsim, images, chip):
    stem, _ = new_card(cxsim, images, chip)
    s = cxsim.serve(stem)
    r = ok(s.mstflint("-d", bdf(0), "q"))
    f = fields(r.stdout)
    guids, macs = card_ids()
    assert f["FW Version"] == flint_version(OLD_FW)
    assert f["PSID"] == CHIPS[chip][0]
    assert f["GUIDs"].split() == guids
    assert f["MACs"].split() == macs
    assert s.stop() == 0


@pytest.mark.parametrize("chip", CHIPS)
def test_burn_newer_fw_keeps_card_identity(cxsim, images, chip):
    stem, _ = new_card(cxsim, images, chip)
    new = image(images, chip, NEW_FW, name="new.bin")
    before = cxsim.boot_check(stem)
    assert before["slot"] == 0
    s = cxsim.serve(stem)
    r = ok(s.mstflint("-d", bdf(0), "-i", new, "-y", "burn"))
    assert "Restoring signature" in r.stdout
    assert s.stop() == 0
    stats = json.loads(stem.with_suffix(".stats").read_text())["cards"][0]
    k = stats["counters"]
    print(f"{chip} burn of {new.stat().st_size} bytes: {json.dumps(k)}")
    assert k["erases"] >= 1 and k["bytes_erased"] >= 0x10000
    assert k["bytes_programmed"] >= new.stat().st_size
    assert k["gw_without_sem"] == 0
    assert k["time_ns"] > 0
    after = cxsim.boot_check(stem)       # a power-on: the boot ROM picks the new image
    check_identity(after, NEW_FW, CHIPS[chip][0])
    assert after["slot"] == 1 and after["valid_images"] == 1
    assert after["pci_device"] == CHIPS[chip][1]


@pytest.mark.parametrize("chip", CHIPS)
def test_read_image_equals_what_the_card_boots(cxsim, images, chip, tmp_path):
    img, mapping = image(images, chip, OLD_FW, with_map=True)
    stem = cxsim.create("card", "--chip", chip, "--image", img, "--slot", "1",
                        "--guid", f"{CARD_GUID:016x}", "--mac", f"{CARD_MAC:012x}")
    s = cxsim.serve(stem)
    out = tmp_path / "ri.bin"
    ok(s.mstflint("-d", bdf(0), "ri", out))
    assert s.stop() == 0
    extracted = tmp_path / "extracted.bin"
    ok(run([CXFLASH, "-i", stem.with_suffix(".flash"), "--striped_image", "extract", extracted]))
    assert out.read_bytes() == extracted.read_bytes()
    assert out.read_bytes() == patch_identity(img, mapping, CARD_GUID, CARD_MAC)


@pytest.mark.parametrize("chip", CHIPS)
def test_corrupt_card_recovers_with_nofs_burn(cxsim, images, chip):
    _, normal_id, recovery_id = CHIPS[chip]
    img = image(images, chip, OLD_FW)
    stem = cxsim.create("card", "--chip", chip, "--image", img, "--corrupt")
    s = cxsim.serve(stem)
    assert s.read(0, "device") == recovery_id
    assert s.read(0, "class") == "0x050000"
    ok(s.mstflint("-d", bdf(0), "-i", img, "-nofs", "-use_image_guids", "-y", "burn"))
    assert s.read(0, "device") == recovery_id      # until the next power-on
    s.power_cycle(0)
    assert s.read(0, "device") == normal_id
    f = fields(ok(s.mstflint("-d", bdf(0), "q")).stdout)
    assert f["FW Version"] == flint_version(OLD_FW)
    assert s.stop() == 0
    check_identity(cxsim.boot_check(stem), OLD_FW, CHIPS[chip][0], IMAGE_GUID, IMAGE_MAC)


@pytest.mark.parametrize("chip", CHIPS)
def test_psid_cross_flash(cxsim, images, chip):
    oem = "HP_1380110017"
    stem, _ = new_card(cxsim, images, chip, OLD_FW, oem)
    new = image(images, chip, NEW_FW, name="stock.bin")
    s = cxsim.serve(stem)
    refused = s.mstflint("-d", bdf(0), "-i", new, "-y", "burn")
    assert refused.returncode != 0 and "PSID" in refused.stdout + refused.stderr
    ok(s.mstflint("-d", bdf(0), "-i", new, "-y", "-allow_psid_change", "burn"))
    assert s.stop() == 0
    check_identity(cxsim.boot_check(stem), NEW_FW, CHIPS[chip][0])


def test_killed_burn_leaves_semaphores_that_clear_semaphore_frees(cxsim, images):
    """mstflint killed while it holds the flash semaphores: the next run cannot get them
    until `--clear-semaphores`; then a burn works. The kill lands before any page program
    (reads and the erase are single transactions), so no SPI command is left half-sent."""
    stem, _ = new_card(cxsim, images, "cx3")
    new = image(images, "cx3", NEW_FW, name="new.bin")
    s = cxsim.serve(stem)
    p = subprocess.Popen([str(MSTFLINT_NS), str(s.dir), "--", "mstflint", "-d", bdf(0), "-i",
                          str(new), "-y", "burn"], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while s.card_stats()["counters"]["cfg_reads"] < 2000 and p.poll() is None:
            assert time.monotonic() < deadline, "mstflint burn made no progress"
            time.sleep(0.01)
        p.send_signal(signal.SIGSTOP)
        k = s.card_stats()["counters"]
    finally:
        p.kill()
        p.wait(timeout=30)
    assert k["gw_by_opcode"].get("0x02", 0) == 0, "killed too late: a page program had begun"
    held = s.mstflint("-d", bdf(0), "q")
    assert held.returncode != 0 and "semaphore" in held.stdout + held.stderr
    ok(s.clear_semaphores(0))
    assert fields(ok(s.mstflint("-d", bdf(0), "q")).stdout)["PSID"] == CHIPS["cx3"][0]
    ok(s.mstflint("-d", bdf(0), "-i", new, "-y", "burn"))
    assert s.stop() == 0
    check_identity(cxsim.boot_check(stem), NEW_FW, CHIPS["cx3"][0])


def test_sleep_shim_turns_sleep_into_model_time(cxsim, images):
    stem = cxsim.create("card", "--empty")
    s = cxsim.serve(stem)
    t0 = s.card_stats()["counters"]["time_ns"]
    env = {"PATH": "/usr/bin:/bin", "LD_PRELOAD": str(SHIM),
           "CXSIM_CLOCK": str(s.dir / "cxsim" / "clock")}
    r = subprocess.run(["sleep", "30"], env=env, capture_output=True, text=True, timeout=10)
    assert r.returncode == 0, r.stderr
    assert s.card_stats()["counters"]["time_ns"] - t0 == 30 * 10**9
    s.advance(5000)
    assert s.card_stats()["counters"]["time_ns"] - t0 == 30 * 10**9 + 5000
    assert s.stop() == 0


def test_sleep_trace_turns_a_static_clients_sleeps_into_model_time(cxsim, images):
    """cxsim-sleep-trace: what the shim does, for cxflash (static, no preload). Its sleeps
    (the tools interface's go-bit waits of config set: the settings write the flash, 5 ms in
    the model, longer than the polls before the first sleep) are model time, exactly, and
    take no wall time; the client's exit status passes through."""
    stem = cxsim.create("card", "--chip", "cx3", "--image", images.make(f"--chip cx3 {SMALL}"))
    s = cxsim.serve(stem)
    clock = str(s.dir / "cxsim" / "clock")
    env = {"PATH": "/usr/bin:/bin", "CXSIM_CLOCK": clock}
    t0 = s.card_stats()["counters"]["time_ns"]
    r = subprocess.run([SLEEP_TRACE, "sleep", "30"], env=env, capture_output=True, text=True, timeout=10)
    assert r.returncode == 0, r.stderr
    assert s.card_stats()["counters"]["time_ns"] - t0 == 30 * 10**9
    r = subprocess.run([SLEEP_TRACE, "sh", "-c", "exit 7"], env=env, timeout=10)
    assert r.returncode == 7
    before = s.card_stats()["counters"]
    r = subprocess.run([SLEEP_TRACE, CXFLASH, "--sysfs", s.dir, "-d", bdf(0), "-y", "config", "set",
                        "SRIOV_EN=1"], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    after = s.card_stats()["counters"]
    accesses = sum(after[k] - before[k] for k in ("cfg_reads", "cfg_writes"))
    slept = after["time_ns"] - before["time_ns"] - accesses * 1000
    assert slept > 0 and slept % 1000 == 0, slept          # cxflash sleeps whole microseconds
    r = run([SLEEP_TRACE])
    assert r.returncode == 2 and "usage" in r.stderr
    assert s.stop() == 0


def test_wall_clock_lets_real_time_pass(cxsim, images):
    stem = cxsim.create("card", "--empty")
    s = cxsim.serve(stem, wall_clock=True)
    t0 = s.card_stats()["counters"]["time_ns"]
    time.sleep(0.3)
    assert s.card_stats()["counters"]["time_ns"] - t0 >= 300 * 10**6
    assert s.stop() == 0


def test_power_cycle_of_unknown_card_is_refused(cxsim):
    s = cxsim.serve(cxsim.create("card", "--empty"))
    with pytest.raises(OSError):
        (s.dir / "cxsim" / "power-cycle").write_text("0000:09:00.0\n")
    with pytest.raises(OSError):
        (s.dir / "cxsim" / "clock").write_text("later please\n")
    assert s.stop() == 0


def test_mstflint_ns_usage():
    r = run([MSTFLINT_NS])
    assert r.returncode == 2 and "usage" in r.stderr


def test_power_cut_during_burn_leaves_the_old_image(cxsim, images):
    stem, _ = new_card(cxsim, images, "cx3")
    new = image(images, "cx3", NEW_FW, name="new.bin")
    r = run([CXSIM, "fault", stem, "--power-cut-after", "30000"])
    assert r.returncode == 0, r.stderr
    s = cxsim.serve(stem)
    r = s.mstflint("-d", bdf(0), "-i", new, "-y", "burn")
    assert r.returncode != 0, r.stdout        # the card lost power mid-burn
    assert not s.card_stats()["boot"]["powered"]
    assert s.stop() == 0
    check_identity(cxsim.boot_check(stem), OLD_FW, CHIPS["cx3"][0])
