"""ipmi_bmc.py — one BMC for the rack tests: OpenIPMI's ipmi_sim (Debian package openipmi),
as tests/test_pxe_serve.py (pxe-cycle without QEMU) and qemu-tests/test_rack.py (a QEMU node's
BMC, wired to its ipmi-bmc-extern device) start it.

write_config() lays out FOLDER/lan.conf (IPMI over LAN on ADDR:PORT, one admin user; the VM
interface on 127.0.0.1:SERIAL_PORT, where QEMU's ipmi-bmc-extern connects; a power-on runs
STARTCMD, whose end is the power-off) and FOLDER/bmc.emu (one management controller), and
FOLDER/state/ for what ipmi_sim keeps. start() runs it in network namespace NS, its output in
FOLDER/sim.log. Nothing here imports conftest: qemu-tests/ imports this file by path."""
import subprocess


def write_config(folder, name, addr, port, serial_port, startcmd, user, password, kill_wait=2):
    folder.mkdir(exist_ok=True)
    (folder / "state").mkdir(exist_ok=True)
    (folder / "lan.conf").write_text(f"""name "{name}"
set_working_mc 0x20
  startlan 1
    addr {addr} {port}
    priv_limit admin
    allowed_auths_callback none md2 md5 straight
    allowed_auths_user none md2 md5 straight
    allowed_auths_operator none md2 md5 straight
    allowed_auths_admin none md2 md5 straight
    guid a123456789abcdefa123456789abcdef
  endlan
  serial 15 127.0.0.1 {serial_port} codec VM
  startcmd "{startcmd}"
  startnow false
  poweroff_wait 2
  kill_wait {kill_wait}
  user 2 true "{user}" "{password}" admin 10 none md2 md5 straight
""")
    (folder / "bmc.emu").write_text("mc_setbmc 0x20\n"
                                    "mc_add 0x20 0 no-device-sdrs 0x23 9 8 0x9f 0x1291 0xf02 persist_sdr\n"
                                    "mc_enable 0x20\n")


def start(ns, folder):
    return subprocess.Popen(["ip", "netns", "exec", ns, "ipmi_sim", "-c", str(folder / "lan.conf"),
                             "-f", str(folder / "bmc.emu"), "-s", str(folder / "state"), "-n"],
                            stdout=open(folder / "sim.log", "w"), stderr=subprocess.STDOUT)
