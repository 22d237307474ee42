# SPDX-License-Identifier: GPL-2.0-or-later
"""A QEMU node powered by a Redfish BMC: OpenStack sushy-tools' emulator (tests/redfish_bmc.py
finds it, or the test is skipped with the reason), its fake driver, over HTTPS with Basic
authentication, in qemu-tests/test_rack.py's namespace with a real pxe-serve.

The fake driver keeps a power state and tells it to EXTERNAL_NOTIFICATION_URL at each change
(fakedriver.py _send_external_notification: a PUT of the system's JSON). The node's "board"
(board.py below, in the namespace) listens there: at a state that took effect (no
pending_power) On it starts the node's QEMU, at Off it ends it; when QEMU ends by itself (the
node powered off) the board posts ForceOff to the emulator, so that the BMC sees the system
off, as ipmi_sim sees its startcmd end. The cycle: the operator powers the node on by
Redfish; it cross-flashes and powers off; pxe-cycle reads Off, waits 10 s, sends On: the node
boots its verify, powers off; pxe-cycle sends On again and the node boots its local disk."""
import os
import re
import shlex
import subprocess
import sys
import time

import pytest

import qemu_harness as qh
import test_rack as tr
from qemu_harness import Guest, guests  # noqa: F401 (a fixture)
from test_rack import rack  # noqa: F401 (a fixture)

sys.path.insert(0, str(qh.ROOT / "tests"))
import redfish_bmc  # noqa: E402

pytestmark = pytest.mark.skipif(os.environ.get("CXR_NO_QEMU") == "1",
                                reason="CXR_NO_QEMU=1: boot tests switched off")

USER, PASSWORD = "rackadmin", "rf-rack-s3cret"
BOARD_USER, BOARD_PASSWORD = "board", "board-s3cret"   # the board's own account (its power-off)
SYSTEM = "0000000b-9e44-4fa7-8e91-f3527a1ef094"
EMU_PORT, BOARD_PORT = 9443, 9444

BOARD = r'''"""board.py PORT POWER_ON_SH EMULATOR_URL CA: a node's power rail for sushy-tools' fake
driver (its credentials on stdin: USER:PASSWORD)."""
import base64, http.server, json, ssl, subprocess, sys, threading, urllib.request
port, power_on, url, ca = sys.argv[1:5]
auth = "Basic " + base64.b64encode(sys.stdin.read().strip().encode()).decode()
lock, state = threading.Lock(), {"p": None, "n": 0}


def powered_off_by_itself(p):
    p.wait()
    with lock:
        if state["p"] is not p:
            return                      # ended by a ForceOff: the BMC knows
        state["p"] = None
    req = urllib.request.Request(url, data=json.dumps({"ResetType": "ForceOff"}).encode(), method="POST",
                                 headers={"Authorization": auth, "Content-Type": "application/json"})
    urllib.request.urlopen(req, context=ssl.create_default_context(cafile=ca), timeout=30).read()
    print(f"board: boot {state['n']} ended by itself: ForceOff posted", flush=True)


class Board(http.server.BaseHTTPRequestHandler):
    def do_PUT(self):
        system = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.send_response(204)
        self.end_headers()
        if system.get("pending_power"):
            return                      # not yet: the fake driver applies it 1 to 11 s later
        with lock:
            if system["power_state"] == "On" and state["p"] is None:
                state["n"] += 1
                state["p"] = p = subprocess.Popen([power_on, str(state["n"])])
                threading.Thread(target=powered_off_by_itself, args=(p,), daemon=True).start()
                print(f"board: On: boot {state['n']}", flush=True)
            elif system["power_state"] == "Off" and state["p"] is not None:
                state["p"].kill()
                state["p"] = None
                print("board: Off: QEMU ended", flush=True)


http.server.ThreadingHTTPServer(("127.0.0.1", int(port)), Board).serve_forever()
'''


def redfish(ns, ca, method, path, body=None):
    """The operator's Redfish request (urllib in the namespace; credentials on stdin)."""
    code = ("import base64, json, ssl, sys, urllib.request\n"
            "a, body = sys.stdin.read().split('\\n', 1)\n"
            "req = urllib.request.Request(sys.argv[1], method=sys.argv[2], data=body.encode() or None, headers={"
            "'Authorization': 'Basic ' + base64.b64encode(a.encode()).decode(), 'Content-Type': 'application/json'})\n"
            "t = urllib.request.urlopen(req, context=ssl.create_default_context(cafile=sys.argv[3]), timeout=30).read()\n"
            "print(json.loads(t).get('PowerState', '') if t.strip() else '')\n")
    r = subprocess.run(["ip", "netns", "exec", ns, sys.executable, "-c", code,
                        f"https://{tr.SERVER}:{EMU_PORT}{path}", method, str(ca)],
                       input=f"{USER}:{PASSWORD}\n" + (body or ""), capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def power_on_script(folder, guest):
    """The node's power-on: its QEMU (a spawn=False Guest's command line, a local disk after the
    network), boot N's console in boot-N.log."""
    argv = guest.argv[4:] if guest.argv[:3] == ["ip", "netns", "exec"] else guest.argv
    i = argv.index("-serial")
    argv = argv[:i] + argv[i + 2:]
    disk = tr.local_disk(folder / "disk.img")
    argv += ["-drive", f"if=none,id=disk0,format=raw,file={disk}", "-device", "ide-hd,drive=disk0,bootindex=2"]
    script = folder / "power-on.sh"
    script.write_text("#!/bin/sh\n# a power-on: boot $1, its console in boot-$1.log\n"
                      f"exec {' '.join(shlex.quote(str(a)) for a in argv)} -serial file:{folder}/boot-$1.log\n")
    script.chmod(0o755)
    return script


def console(folder, n):
    p = folder / f"boot-{n}.log"
    return p.read_text(errors="replace") if p.exists() else ""


def wait_console(folder, n, text, timeout=tr.NODE_TIMEOUT):
    deadline = time.monotonic() + timeout
    while text not in console(folder, n):
        assert time.monotonic() < deadline, f"boot {n}: no {text!r}:\n{console(folder, n)[-3000:]}"
        time.sleep(0.5)


def test_a_node_cycled_by_redfish(tmp_path, rack, guests):  # noqa: F811
    ns = rack
    argv, why = redfish_bmc.find(tmp_path)
    if not argv:
        pytest.skip(why)
    root = tmp_path / "srv"
    fw = tr.stock_firmware(tmp_path)
    c = tr.card(tmp_path, "nodeB", "B")
    tap, mac, guid, _ = tr.NODES["B"]
    ca, cert, key = redfish_bmc.tls(tmp_path, tr.SERVER)
    emu = tmp_path / "emu"
    redfish_bmc.write_config(emu, tr.SERVER, EMU_PORT, cert, key, {USER: PASSWORD, BOARD_USER: BOARD_PASSWORD},
                             [(SYSTEM, "node-b", "Off")],
                             f"SUSHY_EMULATOR_FAKE_SYSTEMS[0]['external_notifier'] = True\n"
                             f"EXTERNAL_NOTIFICATION_URL = 'http://127.0.0.1:{BOARD_PORT}/'\n")
    (tmp_path / "bmc.auth").write_text(f"user={USER}\npassword={PASSWORD}\n")
    jobs = tmp_path / "jobs"
    jobs.write_text(f"{mac} crossflash yes=1 allow_risky=1 bmc=redfish://{tr.SERVER}:{EMU_PORT} bmc_ca={ca.name} "
                    "bmc_auth=bmc.auth\n")
    srv = tr.Server(ns, root, jobs, fw, tmp_path / "serve.log")
    node = tmp_path / "node"
    node.mkdir()
    script = power_on_script(node, Guest(tmp_path, "pxe-tap", cards=[c], netns=ns, tap=tap, mac=mac, spawn=False))
    (tmp_path / "board.py").write_text(BOARD)
    emulator = redfish_bmc.start(argv, ns, emu, tr.SERVER, EMU_PORT)
    board = subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, str(tmp_path / "board.py"), str(BOARD_PORT),
                              str(script), f"https://{tr.SERVER}:{EMU_PORT}/redfish/v1/Systems/{SYSTEM}/Actions/"
                              "ComputerSystem.Reset", str(ca)], stdin=subprocess.PIPE,
                             stdout=open(tmp_path / "board.log", "w"), stderr=subprocess.STDOUT, text=True)
    board.stdin.write(f"{BOARD_USER}:{BOARD_PASSWORD}\n")
    board.stdin.close()
    cycle_log = tmp_path / "cycle.log"
    cycle = None
    try:
        time.sleep(1)
        # the operator powers the node on by its BMC; the fake driver applies it at a read
        redfish(ns, ca, "POST", f"/redfish/v1/Systems/{SYSTEM}/Actions/ComputerSystem.Reset", '{"ResetType": "On"}')
        deadline = time.monotonic() + 60
        while redfish(ns, ca, "GET", f"/redfish/v1/Systems/{SYSTEM}") != "On":
            assert time.monotonic() < deadline, "the emulator never read On"
            time.sleep(1)
        cycle = subprocess.Popen(["ip", "netns", "exec", ns, str(tr.PXE_CYCLE), "--bound", str(tr.NODE_TIMEOUT),
                                  str(root)], stdout=open(cycle_log, "w"), stderr=subprocess.STDOUT)
        wait_console(node, 1, "cxrescue: powering off")
        wait_console(node, 2, "cxrescue: powering off")
        wait_console(node, 3, tr.LOCAL_MARK, timeout=120)
        cycle.wait(timeout=120)
    finally:
        if cycle and cycle.poll() is None:
            cycle.kill()
        board.kill()
        emulator.terminate()
    said = cycle_log.read_text()
    srv.stop()
    assert cycle.returncode == 0, said
    assert "cxrescue: unattended job: job=crossflash" in console(node, 1), console(node, 1)[-2000:]
    assert re.search(r"cxrescue: unattended job: job=verify\b", console(node, 2)), console(node, 2)[-2000:]
    story = ["answers", "its write report is in", "chassis off; powering it on in 10 s", "powered on by its BMC",
             "verified, running", f"verified: running {guid} {tr.STOCK_FW}; powered on again: it boots from its "
             "local disk"]
    mine = [ln for ln in said.splitlines() if ln.startswith(f"pxe-cycle: {mac}: ")]
    assert len(mine) == len(story) and all(w in ln for w, ln in zip(story, mine)), said
    assert "forced off" not in said, said           # the node powered off by itself, each time
    b = c.boot_check()
    assert b["booted"] is True and b["fw_version"] == tr.STOCK_FW, b
    log = (emu / "emulator.log").read_text()
    assert [m for m in re.findall(r'power state set to "(\w+)"', log)] == ["On", "ForceOff", "On", "ForceOff", "On"], log
    for f in [*root.rglob("*"), cycle_log, tmp_path / "serve.log", tmp_path / "board.log"]:
        if f.is_file():
            assert PASSWORD.encode() not in f.read_bytes(), f
