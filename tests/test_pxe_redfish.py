# SPDX-License-Identifier: GPL-2.0-or-later
"""scripts/pxe-cycle with Redfish BMCs: a real Redfish server, OpenStack sushy-tools' emulator
and its fake driver (tests/redfish_bmc.py finds it, or the test is skipped with the reason),
over HTTPS with a throwaway CA and HTTP Basic authentication, in the network namespace of a
real pxe-serve (tests/test_pxe_serve.py's rack). No QEMU: the fake driver keeps a power state
per system and nothing more, so the power cycle is checked call by call, in the emulator's
own log (each request, and each Reset action with its ResetType)."""
import hashlib
import json
import re
import ssl
import subprocess
import sys
import time

import pytest

import redfish_bmc
from conftest import ROOT
from test_pxe_serve import (NET, SERVER, card, images, node_state, quick, rack, report,  # noqa: F401
                            serving, wait_until)

CYCLE = ROOT / "scripts" / "pxe-cycle"
USER, PASSWORD = "rackadmin", "rf-s3cret-never-logged"
SYSTEMS = [f"0000000{i}-9e44-4fa7-8e91-f3527a1ef094" for i in range(1, 4)]
ACTION = re.compile(r'System "([0-9a-f-]+)" power state set to "(\w+)"')
REQUEST = re.compile(r'"(GET|POST|PUT|PATCH|DELETE|HEAD) (/\S*) HTTP/1\.[01]" (\d+)')
COLOUR = re.compile(r"\x1b\[[0-9;]*m")     # werkzeug colours each request line but a 200's


def emulator_log(folder):
    return COLOUR.sub("", (folder / "emulator.log").read_text())


def calls(log, system):
    """The emulator's log for one system, in order: ("GET", status), ("Reset", ResetType)."""
    out = []
    for ln in log.splitlines():
        a, r = ACTION.search(ln), REQUEST.search(ln)
        if a and a.group(1) == system:
            out.append(("Reset", a.group(2)))
        elif r and r.group(1) == "GET" and r.group(2).rstrip("/").endswith(system):
            out.append(("GET", r.group(3)))
    return out


ASK = """import base64, json, ssl, sys, urllib.request
req = urllib.request.Request(sys.argv[1], headers={"Authorization": "Basic " + base64.b64encode(
    sys.stdin.read().encode()).decode()})
with urllib.request.urlopen(req, context=ssl.create_default_context(cafile=sys.argv[2]), timeout=10) as r:
    print(json.loads(r.read())["PowerState"])
"""


def power_state(ns, port, ca, system):
    """The system's PowerState, asked by the test itself in the namespace (urllib, the CA,
    Basic auth: the credentials on stdin)."""
    r = subprocess.run(in_ns(ns, [sys.executable, "-c", ASK, f"https://{SERVER}:{port}/redfish/v1/Systems/{system}",
                                  ca]), input=f"{USER}:{PASSWORD}", capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def in_ns(ns, argv):
    return ["ip", "netns", "exec", ns, *map(str, argv)]


def test_pxe_cycle_redfish(rack, images, tmp_path, quick):  # noqa: F811
    """Two nodes cycled by Redfish (the BMC's CA given; its certificate pinned): pxe-cycle
    reads PowerState, sends ForceOff (the node is still on --force-off s after its report),
    reads Off, waits 10 s, sends On and reads On; after the verify report, ForceOff and On
    again. Each other node is named in one line, and the rest goes on: a refused login; a
    wrong pin, no CA at all, a missing CA file (none of them sends a request: the second
    emulator's log has none); a BMC with three systems and none named. The password is in
    no argument of pxe-cycle, no output, no log, no file of ROOT."""
    srv, _ = rack
    argv, why = redfish_bmc.find(tmp_path)
    if not argv:
        pytest.skip(why)
    ca, cert, key = redfish_bmc.tls(tmp_path, SERVER)
    der = ssl.PEM_cert_to_DER_cert(cert.read_text())
    pin = ":".join(f"{b:02X}" for b in hashlib.sha256(der).digest())
    wrong_pin = hashlib.sha256(b"another BMC").hexdigest()
    port = 8400 + (hash(str(tmp_path)) % 500) * 2
    emu1, emu2, emu3 = tmp_path / "emu1", tmp_path / "emu2", tmp_path / "emu3"
    for folder, p in ((emu1, port), (emu2, port + 1), (emu3, port + 2)):
        redfish_bmc.write_config(folder, SERVER, p, cert, key, {USER: PASSWORD},
                                 [(u, f"node-{i + 1}", "On") for i, u in enumerate(SYSTEMS)],
                                 # the third refuses ForceOff (HTTP 400), as a BMC may refuse an action
                                 "SUSHY_EMULATOR_DISABLE_POWER_OFF = True\n" if folder == emu3 else "")
    (tmp_path / "rack.auth").write_text(f"user={USER}\npassword={PASSWORD}\n")
    (tmp_path / "wrong.auth").write_text(f"user={USER}\npassword=guessed\n")
    macs = [f"aa:bb:cc:dd:ee:2{i}" for i in range(1, 9)]
    dashes = [m.replace(":", "-") for m in macs]
    bmc1, bmc2, bmc3 = (f"redfish://{SERVER}:{port + i}" for i in range(3))
    lines = [f"{bmc1}/{SYSTEMS[0]} bmc_ca={ca.name} bmc_auth=rack.auth",
             f"{bmc1}/{SYSTEMS[1]} bmc_fingerprint={pin} bmc_auth=rack.auth",
             f"{bmc1}/{SYSTEMS[2]} bmc_ca={ca} bmc_auth=wrong.auth",
             f"{bmc2}/{SYSTEMS[0]} bmc_fingerprint={wrong_pin} bmc_auth=rack.auth",
             f"{bmc2}/{SYSTEMS[0]} bmc_auth=rack.auth",
             f"{bmc2}/{SYSTEMS[0]} bmc_ca=missing.pem bmc_auth=rack.auth",
             f"{bmc1} bmc_ca={ca} bmc_auth=rack.auth",
             f"{bmc3}/{SYSTEMS[0]} bmc_ca={ca} bmc_auth=rack.auth"]
    jf = tmp_path / "rack.jobs"
    jf.write_text("".join(f"{m} crossflash yes=1 bmc={b}\n" for m, b in zip(macs, lines)))
    guids = [f"0002c90300c0ff2{i}" for i in range(1, 9)]
    new = ("MT_1090120019", "2.42.5000")
    uploads = tmp_path / "root" / "tftp" / "uploads"
    root = tmp_path / "root"
    emus = []
    try:
        with serving(srv, root, images, jf) as s:
            s.wait_for("serving;")
            assert f"8 node(s) with a BMC: {CYCLE.parent}/pxe-cycle {root} powers them on" in s.out, s.out
            assert node_state(root, dashes[1])["bmc_fingerprint"] == pin
            assert node_state(root, dashes[0])["bmc_ca"] == str(ca)
            for folder, p in ((emu1, port), (emu2, port + 1), (emu3, port + 2)):
                emus.append(redfish_bmc.start(argv, srv, folder, SERVER, p))
            for i, d in enumerate(dashes):      # every node did its write job, and stays on
                (uploads / f"{d}_20261204T170000Z-crossflash.json").write_text(json.dumps(report(
                    "crossflash", "2026-12-04T17:00:00Z", [card(guid=guids[i], to=new)])))
            wait_until("written", lambda: all(node_state(root, d).get("state") == "verify" for d in dashes))
            cycle_out = tmp_path / "cycle.out"
            cyc = subprocess.Popen(in_ns(srv, [CYCLE, "--force-off", "2", "--bound", "90", root]),
                                   stdout=open(cycle_out, "w"), stderr=subprocess.STDOUT)
            try:
                time.sleep(1)
                cmdline = open(f"/proc/{cyc.pid}/cmdline", "rb").read()
                for i in (0, 1):                # each node boots its verify once powered on
                    wait_until(f"node {i + 1} powered on", lambda: node_state(root, dashes[i]).get("powered_on"),
                               timeout=90)
                    (uploads / f"{dashes[i]}_20261204T180000Z-verify.json").write_text(json.dumps(report(
                        "verify", "2026-12-04T18:00:00Z", [card(guid=guids[i], psid=new[0], fw=new[1])])))
                cyc.wait(timeout=120)
            finally:
                if cyc.poll() is None:
                    cyc.kill()
            out = cycle_out.read_text()
            assert s.stop() == 0, s.out
        states = [power_state(srv, port, ca, u) for u in SYSTEMS[:2]]
    finally:
        for p in emus:
            p.terminate()
            p.wait(timeout=10)
    log1, log2, log3 = emulator_log(emu1), emulator_log(emu2), emulator_log(emu3)
    assert cyc.returncode == 1, out
    said = {m.group(1): (m.group(2), m.group(3)) for m in re.finditer(
        r"^pxe-cycle: ([0-9a-f:]{17}): (verified|not powered on|never came back): (.*)$", out, re.M)}
    for i in (0, 1):
        assert said[macs[i]] == ("verified", f"running {guids[i]} {new[1]}; powered on again: it boots from "
                                 "its local disk"), out
        # pxe-cycle's story, in order
        mine = [ln for ln in out.splitlines() if ln.startswith(f"pxe-cycle: {macs[i]}: ")]
        story = ["answers", "its write report is in", "forced off by its BMC (ForceOff)",
                 "chassis off; powering it on in 10 s", "powered on by its BMC", "verified, running",
                 "forced off by its BMC (ForceOff)", "verified: running"]
        assert len(mine) == len(story) and all(w in ln for w, ln in zip(story, mine)), "\n".join(mine)
        # the emulator's: the state read first, ForceOff, Off read, On, On read; the same after the verify
        got = calls(log1, SYSTEMS[i])
        resets = [x for x in got if x[0] == "Reset"]
        assert resets == [("Reset", "ForceOff"), ("Reset", "On")] * 2, got
        assert got[0] == ("GET", "200"), got
        cuts = [n for n, x in enumerate(got) if x[0] == "Reset"]
        for a, b in zip(cuts, cuts[1:] + [len(got)]):
            assert b - a > 1 and all(x == ("GET", "200") for x in got[a + 1:b]), got
    assert states == ["On", "On"]
    assert said[macs[2]] == ("not powered on", f"BMC {bmc1}/{SYSTEMS[2]} refused user {USER} (HTTP 401 to GET "
                             "/redfish/v1/Systems)"), out
    assert not [x for x in calls(log1, SYSTEMS[2]) if x[0] == "Reset"]
    assert '"GET /redfish/v1/Systems HTTP/1.1" 401' in log1, log1     # its login, refused
    assert said[macs[3]] == ("not powered on", f"BMC {bmc2}/{SYSTEMS[0]} shows a TLS certificate of SHA-256 "
                             f"{pin}, not the one of bmc_fingerprint=; nothing was sent"), out
    assert said[macs[4]] == ("not powered on", f"BMC {bmc2}/{SYSTEMS[0]} shows a TLS certificate this host does "
                             "not trust (unable to get local issuer certificate): give its CA (bmc_ca=FILE) or pin "
                             f"it (bmc_fingerprint=SHA256; it shows SHA-256 {pin}: check that at the BMC itself); "
                             "nothing was sent"), out
    assert said[macs[5]] == ("not powered on", f"BMC {bmc2}/{SYSTEMS[0]} cannot be checked: bmc_ca="
                             f"{tmp_path}/missing.pem: no such file; nothing was sent"), out
    assert said[macs[6]] == ("not powered on", f"BMC {bmc1} has 3 systems ({', '.join(SYSTEMS)}): name one, "
                             "bmc=redfish://HOST[:PORT]/ID"), out
    assert not REQUEST.search(log2), log2        # no request reached the BMC that was not trusted
    # a BMC that refuses the action: named with its HTTP status and its own message; nothing done
    target = f"/redfish/v1/Systems/{SYSTEMS[0]}/Actions/ComputerSystem.Reset"
    assert said[macs[7]][0] == "not powered on" and said[macs[7]][1].startswith(
        f"BMC {bmc3}/{SYSTEMS[0]} answered POST {target} with HTTP 400 (Can not request power off transition."), out
    assert f'"POST {target} HTTP/1.1" 400' in log3 and not ACTION.search(log3), log3
    assert REQUEST.search(log1) and ACTION.search(log1), log1
    assert out.splitlines()[-1].startswith("pxe-cycle: 2 of 8 node(s) with a BMC verified; not powered on: "), out
    # the password: not in pxe-cycle's arguments, its output, its log or ROOT (the served tree)
    assert str(root).encode() in cmdline and PASSWORD.encode() not in cmdline, cmdline
    for f in [*root.rglob("*")]:
        if f.is_file():
            assert PASSWORD.encode() not in f.read_bytes(), f
    assert (root / "cycle.log").read_text().count("forced off by its BMC (ForceOff)") == 4
    assert PASSWORD not in out and PASSWORD not in s.out
