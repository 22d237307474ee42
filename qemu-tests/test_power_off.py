# SPDX-License-Identifier: GPL-2.0-or-later
"""A board that cannot power itself off (issue 29, point 4): QEMU's pc machine with
-no-acpi under SeaBIOS, so the kernel has no power-off handler and would turn the
power-off into a halt (kernel/reboot.c). /init (power-off.sh) must not halt it: every
console says that the board did not power off and must be switched off by hand, the
stick's history records it, and the machine keeps running (the message comes again).
One boot, no card: the wizard's menu "Power off" is all it takes; a watcher started from the
wizard's shell reports what the screen (tty1, read through /dev/vcs1) shows.
"""
import json
import os
import re

import pytest

import qemu_harness as qh
from qemu_harness import Guest, guests  # noqa: F401 (a fixture)

pytestmark = pytest.mark.skipif(os.environ.get("CXR_NO_QEMU") == "1",
                                reason="CXR_NO_QEMU=1: boot tests switched off")

NOT_OFF = re.escape("cxrescue: THIS BOARD DID NOT POWER OFF: this board has no power-off")
BY_HAND = re.escape("cxrescue: switch it off at its power switch, or pull its power cord(s), NOW")


@pytest.fixture(autouse=True)
def built():
    gone = qh.missing()
    assert gone is None, gone


def test_a_board_without_acpi_power_off_says_so_records_it_and_stays_on(tmp_path, guests):
    g = Guest(tmp_path, "usb-xhci", extra_args=["-no-acpi"])
    guests.append(g)
    g.front_end()
    # The screen (tty1) is told too: a watcher that outlives the wizard reads it (/dev/vcs1).
    g.shell()
    _, rc = g.run("(setsid sh -c 'until grep -q \"DID NOT POWER OFF\" /dev/vcs1; do sleep 1; done; "
                  "echo TTY1-SAYS-IT-TOO >/dev/ttyS0' </dev/null >/dev/null 2>&1 &)")
    assert rc == 0
    g.leave_shell()
    g.choose("poweroff")
    g.expect(NOT_OFF, timeout=120)
    g.expect(BY_HAND)
    # The history line is written (and synced, and the stick unmounted) before the message.
    text = (qh.mtools_read(g.stick, "/cxrescue/history.jsonl") or b"").decode()
    lines = [json.loads(x) for x in text.splitlines() if '"power-off"' in x]
    assert len(lines) == 1, f"history.jsonl:\n{text}"
    assert lines[0]["result"] == "failed" and "left on" in lines[0]["message"], lines[0]
    g.expect("TTY1-SAYS-IT-TOO")
    # Not halted: userspace still runs, and says it again 30 s later.
    g.expect(NOT_OFF, timeout=120)
    assert g.p.isalive(), "QEMU ended: the board powered off after all"
    console = g.log_path.read_text(errors="replace")
    assert "System halted" not in console and "Power down" not in console, g.tail()
    assert "cxrescue: powering off" not in console, "it said it powers off, and did not"
