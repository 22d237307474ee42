# SPDX-License-Identifier: GPL-2.0-or-later
"""rootfs/overlay/usr/lib/cxrescue/consoles.sh, and cad.sh's look for cxflash commands, under the
image's own BusyBox sh, on the host: which console= ports get a front end (a serial port whose
UART type is 0, PORT_UNKNOWN, gets none), where the job runs, the end of a front end that keeps
failing at once (each start writes a new log to the stick), and which cxflash processes make
Ctrl-Alt-Del wait. The boots themselves: qemu-tests/test_consoles.py."""
import os
import pathlib
import subprocess
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
BUSYBOX = ROOT / os.environ.get("CXR_BUILD", "build") / "busybox" / "busybox"
CONSOLES = ROOT / "rootfs" / "overlay" / "usr" / "lib" / "cxrescue" / "consoles.sh"


@pytest.fixture(autouse=True)
def built():
    assert BUSYBOX.exists(), f"{BUSYBOX} is missing: run make busybox"


def sh(script, **env):
    """script after consoles.sh, in BusyBox's sh; say() prints to stdout here."""
    r = subprocess.run([str(BUSYBOX), "sh", "-c", f". {CONSOLES}\nsay() {{ echo \"say: $*\"; }}\n{script}"],
                       capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", **env}, timeout=30)
    assert r.stderr == "", r.stderr
    return r


def test_ports_without_a_uart_get_no_front_end(tmp_path):
    for name, kind in (("ttyS0", "0"), ("ttyS1", "4"), ("ttyS2", "0")):   # 4: PORT_16550A
        (tmp_path / "class" / "tty" / name).mkdir(parents=True)
        (tmp_path / "class" / "tty" / name / "type").write_text(kind + "\n")
    r = sh("console_ttys() { echo /dev/tty1 /dev/ttyS1 /dev/ttyS0; }\n"
           "consoles_setup; consoles_report; echo \"ttys=$CXR_TTYS dead=$CXR_DEAD job=$(job_tty)\"",
           CXR_SYSFS=str(tmp_path))
    out = r.stdout.splitlines()
    assert out[0] == "say: ttyS0: no UART behind this port (/sys/class/tty/ttyS0/type is 0): no front end there"
    # the job: the last console that works, not the last console= (ttyS0, /dev/console)
    assert out[-1] == "ttys= /dev/tty1 /dev/ttyS1 dead= ttyS0 job=/dev/ttyS1", out
    # every console= dead: the screen still gets the wizard
    r = sh("console_ttys() { echo /dev/ttyS0 /dev/ttyS2; }\nconsoles_setup; echo \"$CXR_TTYS|$CXR_DEAD\"",
           CXR_SYSFS=str(tmp_path))
    assert r.stdout.splitlines()[-1] in ("/dev/tty1| ttyS0 ttyS2", "/dev/console| ttyS0 ttyS2"), r.stdout


def test_a_front_end_that_keeps_failing_at_once_is_not_started_again():
    # five quick ends in a row: the fifth is the last; a long run in between starts the count again
    r = sh("now=$(uptime_s); n=0\n"
           "for i in 1 2 3 4; do front_again /dev/ttyS1 1 $now && n=$((n + 1)); done\n"
           "front_again /dev/ttyS1 1 $((now - 100)) && n=$((n + 1))\n"
           "for i in 1 2 3 4; do front_again /dev/ttyS1 1 $now && n=$((n + 1)); done\n"
           "front_again /dev/ttyS1 5 $now || echo stopped after $n")
    assert r.stdout.splitlines() == [
        "say: ttyS1: the front end ended 5 times in a row within 30 s (status 5): not started there again; "
        "the other consoles and the shell (Alt-F2) stay",
        "stopped after 9"], r.stdout


def test_ctrl_alt_del_sees_a_cxflash_command_but_not_the_wizard(tmp_path):
    """cad.sh's cad_other_cxflash: a cxflash command (from a shell, which takes no session lock)
    is named, so that Ctrl-Alt-Del is refused; `cxflash rescue` (the wizard) is not."""
    fake = tmp_path / "cxflash"
    fake.symlink_to("/bin/sleep")
    cad = CONSOLES.parent / "cad.sh"
    wizard = tmp_path / "w" / "cxflash"       # runs as "/bin/sh .../cxflash rescue job=backup"
    wizard.parent.mkdir()
    wizard.write_text("#!/bin/sh\nsleep 30\n")
    wizard.chmod(0o755)
    procs = [subprocess.Popen([str(fake), "30"]), subprocess.Popen([str(wizard), "rescue", "job=backup"])]
    time.sleep(0.3)
    assert procs[1].poll() is None
    try:
        r = subprocess.run([str(BUSYBOX), "sh", "-c", f". {cad}; cad_other_cxflash"],
                           capture_output=True, text=True, timeout=30)
    finally:
        for p in procs:
            p.kill()
            p.wait()
    assert f"pid {procs[0].pid}: {fake} 30" in r.stdout.splitlines(), r.stdout
    assert f"pid {procs[1].pid}:" not in r.stdout, r.stdout
