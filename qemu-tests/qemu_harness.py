# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot the real rescue media in QEMU and talk to the guest over its serial console.

A Guest is one QEMU (TCG unless the CPU has vmx/svm) started with pexpect, booting one
medium — "usb-xhci", "usb-ehci", "cd", "iso-usb", "pxe" (QEMU's own TFTP) or "pxe-tap"
(an e1000 on a tap of a network namespace, for a real DHCP/TFTP server) — from legacy BIOS (SeaBIOS) or
UEFI (OVMF, Debian's ovmf package: its code and a fresh copy of its empty vars file, so no
Secure Boot keys), or UEFI with Secure Boot on ("uefi-sb": OVMF's Secure Boot build on a
q35 machine with SMM, and the vars file with Microsoft's keys enrolled, as on a stock PC),
with zero or more simulated cards (the cxsim-pci device around a `cxsim create` backing file). Harness rules from
build-notes.md: -no-reboot, and never trust QEMU's exit status alone (a panic also
exits 0): look for console markers. Every console byte goes to a log file beside the
test's temporary files, named in any failure message.
"""
import os
import pathlib
import re
import shutil
import subprocess
import time

import pexpect
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
BUILD = ROOT / os.environ.get("CXR_BUILD", "build")
IMAGES = ROOT / os.environ.get("CXR_IMAGES", "images")
QEMU = pathlib.Path(os.environ.get("CXR_QEMU", BUILD / "qemu" / "qemu-system-x86_64"))
CXSIM = BUILD / "host" / "cxsim"
MKFS2 = BUILD / "host" / "mkfs2"
BIOS_DIRS = ("/usr/share/qemu", "/usr/share/seabios", "/usr/lib/ipxe/qemu")
OVMF_CODE = pathlib.Path(os.environ.get("CXR_OVMF_CODE", "/usr/share/OVMF/OVMF_CODE_4M.fd"))
OVMF_VARS = pathlib.Path(os.environ.get("CXR_OVMF_VARS", "/usr/share/OVMF/OVMF_VARS_4M.fd"))
OVMF_SB_CODE = pathlib.Path("/usr/share/OVMF/OVMF_CODE_4M.secboot.fd")
OVMF_SB_VARS = pathlib.Path("/usr/share/OVMF/OVMF_VARS_4M.ms.fd")
FIRMWARES = ("bios", "uefi", "uefi-sb")

# The wizard's main menu (burner/rescue/menu.c, menu_once): its title, then the question.
MENU = re.compile(r"== cxrescue: what next\? ==.*?Choose 1-11 \[\d+\]: ", re.S)
CHOICE = {"backup": "1", "update": "2", "burn": "3", "restore": "4", "unbrick": "5", "ids": "6",
          "boot_rom": "7", "settings": "8", "list": "9", "shell": "10", "poweroff": "11"}
SHELL_MARK = "__CXR_SHELL__# "        # a prompt the harness sets in the guest's shell
PANIC = re.compile(r"Kernel panic|end Kernel panic|BUG: |Oops: ")
BOOT_TIMEOUT = int(os.environ.get("CXR_BOOT_TIMEOUT", "180"))


def starved_timer_check(console):
    """Why a boot died of the kernel's timer check, when it did: the host, not the image.
    Linux 6.1's check_timer() (arch/x86/kernel/apic/io_apic.c, timer_irq_works) waits
    40e9/HZ TSC cycles for 5 jiffies; on TCG the TSC is the host's, so at HZ 250 the guest
    has about 60 ms of host time to take 5 ticks, and a vCPU thread starved by other work
    misses them (docs/testing.md, "A loaded machine")."""
    if "IO-APIC + timer doesn't work" not in console:
        return ""
    return (f"; the guest kernel's timer check starved on a loaded host (load average "
            f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs): run the QEMU tests on an idle machine")


def missing(firmware="bios"):
    """What is not built or installed, as a sentence, or None."""
    need = [QEMU, CXSIM, MKFS2, IMAGES / "cxrescue-usb.img", IMAGES / "cxrescue.iso",
            IMAGES / "pxe" / "pxelinux.0"]
    gone = [str(p) for p in need if not p.exists()]
    if gone:
        return f"not built: {', '.join(gone)} (run make images qemu cxsim mkfs2)"
    if firmware.startswith("uefi"):
        files = (OVMF_CODE, OVMF_VARS) if firmware == "uefi" else (OVMF_SB_CODE, OVMF_SB_VARS)
        gone = [str(p) for p in files if not p.exists()]
        if gone:
            return f"not installed: {', '.join(gone)} (run make deps: package ovmf)"
    return None


def accel():
    with open("/proc/cpuinfo") as f:
        flags = f.read()
    return "kvm" if re.search(r"\b(vmx|svm)\b", flags) else "tcg"


class Card:
    """A simulated card: STEM.conf + STEM.flash made by `cxsim create`."""

    def __init__(self, folder, name, *create_args, image_opts=None):
        self.stem = pathlib.Path(folder) / name
        args = list(create_args)
        if image_opts is not None:
            img = self.stem.with_suffix(".img.bin")
            r = subprocess.run([str(MKFS2), "-o", str(img)] + image_opts.split(),
                               capture_output=True, text=True)
            assert r.returncode == 0, f"mkfs2 {image_opts}: {r.stderr}"
            args += ["--image", str(img)]
        r = subprocess.run([str(CXSIM), "create", str(self.stem)] + [str(a) for a in args],
                           capture_output=True, text=True)
        assert r.returncode == 0, f"cxsim create {args}: {r.stderr}"

    @property
    def flash(self):
        return self.stem.with_suffix(".flash")

    def boot_check(self):
        import json
        r = subprocess.run([str(CXSIM), "boot-check", str(self.stem), "--json"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)


class Guest:
    def __init__(self, tmp, media, cards=(), memory=512, firmware="bios", stick_files=(), stick=None,
                 append="", netns=None, tap=None, mac=None, name=None, spawn=True, nic="e1000",
                 stick_ro=False, serial=("-serial", "stdio"), extra_args=()):
        """stick_files: (host file, path on the stick) pairs copied onto the stick's FAT
        before QEMU starts, as a user drops firmware into cxrescue/firmware/.
        stick: boot this stick image (a previous guest's .stick, with its backups and
        history) instead of a fresh copy. append: words added to the default boot entry's
        kernel command line (the stick's syslinux.cfg), e.g. "cxrescue.job=update".
        pxe-tap: QEMU runs in network namespace netns, its e1000 (MAC mac) on the tap
        interface tap there. name: the console log's name, for several guests in one test.
        spawn=False: only the command line (argv), for a guest someone else starts (a BMC).
        nic: the QEMU NIC model a PXE boot goes through (e1000, e1000e, vmxnet3, virtio-net-pci).
        stick_ro: the stick is a read-only drive (a write-protected stick).
        serial: the QEMU options that put the console the harness reads on stdio (COM1 by
        default; another port, e.g. COM2 alone, for the console tests).
        extra_args: more QEMU arguments (other disks beside the boot medium, a second NIC, a
        QMP socket or a monitor, -no-acpi for a board that cannot power off), after the boot
        medium's."""
        assert firmware in FIRMWARES, firmware
        self.stick_files = stick_files
        self.reuse_stick = stick
        self.append = append
        self.tmp = pathlib.Path(tmp)
        self.media = media
        self.firmware = firmware
        self.log_path = self.tmp / f"console-{name or media + '-' + firmware}.log"
        self.stick = None
        self.netns, self.tap, self.mac, self.nic = netns, tap, mac, nic
        self.stick_ro = stick_ro
        argv = [str(QEMU)]
        for d in BIOS_DIRS:
            argv += ["-L", d]
        # OVMF's Secure Boot build keeps its variables safe in SMM, which needs q35.
        machine = "q35,smm=on" if firmware == "uefi-sb" else "pc"
        argv += ["-machine", machine, "-accel", accel(), "-m", str(memory),
                 "-display", "none", *serial, "-monitor", "none", "-no-reboot"]
        argv += self._firmware_args(firmware)
        argv += self._media_args(media)
        argv += list(extra_args)
        for c in cards:
            argv += ["-device", f"cxsim-pci,flash={c.flash}"]
        if media == "pxe-tap":
            argv = ["ip", "netns", "exec", netns] + argv   # ip execs QEMU: the pid is QEMU's
        self.argv = argv
        if not spawn:
            return
        self.log = open(self.log_path, "w", encoding="utf-8", errors="replace")
        self.p = pexpect.spawn(argv[0], argv[1:], encoding="utf-8", codec_errors="replace",
                               timeout=BOOT_TIMEOUT, dimensions=(50, 200))
        self.p.logfile_read = self.log
        self.started = time.monotonic()

    def _firmware_args(self, firmware):
        if firmware == "bios":
            return []            # QEMU's default: SeaBIOS
        code, store = (OVMF_CODE, OVMF_VARS) if firmware == "uefi" else (OVMF_SB_CODE, OVMF_SB_VARS)
        # OVMF keeps its variables (boot entries) in the second flash: a private copy per guest.
        vars_copy = self.tmp / f"ovmf-vars-{self.media}.fd"
        shutil.copyfile(store, vars_copy)
        args = ["-drive", f"if=pflash,format=raw,unit=0,readonly=on,file={code}",
                "-drive", f"if=pflash,format=raw,unit=1,file={vars_copy}"]
        if firmware == "uefi-sb":
            args += ["-global", "driver=cfi.pflash01,property=secure,value=on"]
        return args

    def _media_args(self, media):
        usb_img = IMAGES / "cxrescue-usb.img"
        iso = IMAGES / "cxrescue.iso"
        if media in ("usb-xhci", "usb-ehci", "iso-usb"):
            # A copy: the guest writes backups and logs to the stick.
            src = iso if media == "iso-usb" else usb_img
            if self.reuse_stick:
                self.stick = pathlib.Path(self.reuse_stick)
            else:
                self.stick = self.tmp / f"stick-{media}.img"
                shutil.copyfile(src, self.stick)
            if self.append:
                set_append(self.stick, self.append)
            for host, there in self.stick_files:
                r = subprocess.run(["mcopy", "-o", "-i", f"{self.stick}@@1M", str(host), f"::{there}"],
                                   capture_output=True, text=True)
                assert r.returncode == 0, f"mcopy {host} to the stick: {r.stderr}"
            hc = "qemu-xhci" if media != "usb-ehci" else "usb-ehci"
            return ["-device", f"{hc},id=hc",
                    "-drive", f"if=none,id=stick,format=raw,file={self.stick}" + (",readonly=on" if self.stick_ro else ""),
                    "-device", "usb-storage,bus=hc.0,drive=stick,bootindex=1"]
        if media == "cd":
            return ["-drive", f"if=ide,media=cdrom,readonly=on,format=raw,file={iso}", "-boot", "d"]
        if media == "pxe":
            return ["-netdev", f"user,id=n0,tftp={IMAGES / 'pxe'},bootfile=pxelinux.0",
                    "-device", f"{self.nic},netdev=n0,bootindex=1", "-boot", "n"]
        if media == "pxe-tap":
            return ["-netdev", f"tap,id=n0,ifname={self.tap},script=no,downscript=no",
                    "-device", f"{self.nic},netdev=n0,mac={self.mac},bootindex=1", "-boot", "n"]
        raise ValueError(media)

    # --- console -------------------------------------------------------------------
    def expect(self, pattern, timeout=None):
        """Wait for a pattern; a kernel panic or QEMU's exit fails at once, naming the log."""
        i = self.p.expect([pattern, PANIC, pexpect.EOF, pexpect.TIMEOUT],
                          timeout=timeout or BOOT_TIMEOUT)
        if i == 0:
            return self.p.match
        what = ["", "a kernel panic", "QEMU exited", "timeout"][i]
        raise AssertionError(f"{self.media}/{self.firmware}: {what} while waiting for {pattern!r}; "
                             f"console log: {self.log_path}{starved_timer_check(self.tail())}\n{self.tail()}")

    def tail(self, n=25):
        self.log.flush()
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])

    def send(self, text):
        self.p.send(text)

    def front_end(self, timeout=None):
        """Wait for the wizard's main menu; return everything printed before it."""
        self.expect(MENU, timeout=timeout)
        return self.p.before

    def choose(self, what):
        """A main-menu choice by name (CHOICE)."""
        self.p.sendline(CHOICE[what])

    def answer(self, pattern, text, timeout=None):
        """Wait for a question, then type a line."""
        self.expect(pattern, timeout=timeout)
        self.p.sendline(text)

    def shell(self):
        """From the wizard's menu into its shell, with a prompt the harness knows."""
        self.choose("shell")
        self.expect(r"# ")
        self.p.sendline(f"PS1='{SHELL_MARK.replace('#', '#')}'")
        self.expect(re.escape(SHELL_MARK))
        self.expect(re.escape(SHELL_MARK))

    def run(self, cmd, timeout=120):
        """Run a command in the guest's shell; return (output, status)."""
        self.p.sendline(f"{cmd}; echo __RC=$?")
        self.expect(r"__RC=(\d+)\s", timeout=timeout)
        out = self.p.before
        rc = int(self.p.match.group(1))
        self.expect(re.escape(SHELL_MARK))
        # Drop the echoed command line.
        lines = out.replace("\r", "").split("\n")
        return "\n".join(lines[1:]).strip("\n"), rc

    def leave_shell(self):
        self.p.sendline("exit")
        self.expect(MENU)

    def power_off(self, timeout=60):
        """The menu's power off; QEMU must end, after the guest said it powers off."""
        self.choose("poweroff")
        return self.wait_power_off(timeout)

    def wait_power_off(self, timeout=60):
        """The guest powers off by itself (a job, or the cold-restart screen answered)."""
        self.expect("cxrescue: powering off", timeout=timeout)
        self.p.expect(pexpect.EOF, timeout=timeout)
        self.p.close()
        return self.p.exitstatus

    def power_cut(self):
        """Pull the plug: QEMU is killed at once (the card's file keeps what was written)."""
        self.p.kill(9)
        self.p.close(force=True)

    def close(self):
        if self.p.isalive():
            self.p.terminate(force=True)
        self.log.close()


def mtools_read(image, path, offset="1M"):
    """A file from the FAT partition of a stick image, or None."""
    r = subprocess.run(["mtype", "-i", f"{image}@@{offset}", f"::{path}"], capture_output=True)
    return r.stdout if r.returncode == 0 else None


def mtools_copy_out(image, path, dest, offset="1M"):
    """Copy a folder from the FAT partition of a stick image to dest (recursively)."""
    r = subprocess.run(["mcopy", "-s", "-n", "-i", f"{image}@@{offset}", f"::{path}", str(dest)],
                       capture_output=True, text=True)
    assert r.returncode == 0, f"mcopy {path}: {r.stderr}"


def set_append(image, words, offset="1M"):
    """The stick's default entry (the first APPEND of syslinux.cfg) with words added to
    its kernel command line; the stick's later boots keep them until set again."""
    cfg = mtools_read(image, "/syslinux/syslinux.cfg", offset)
    assert cfg is not None, "no /syslinux/syslinux.cfg on the stick"
    text = cfg.decode()
    first = re.search(r"^(\s*APPEND .*?cxrescue\.media=usb)(.*)$", text, re.M)
    assert first, text
    text = text[:first.start()] + first.group(1) + (" " + words if words else "") + text[first.end():]
    tmp = pathlib.Path(str(image) + ".syslinux.cfg")
    tmp.write_text(text)
    r = subprocess.run(["mcopy", "-o", "-i", f"{image}@@{offset}", str(tmp), "::/syslinux/syslinux.cfg"],
                       capture_output=True, text=True)
    tmp.unlink()
    assert r.returncode == 0, r.stderr


# Here, not in a conftest.py: tests/ has its own conftest module that its files import by
# name, and one pytest run over both folders could load only one module called "conftest".
@pytest.fixture
def guests():
    """The QEMU guests a test starts (append each one): closed at teardown, pass or fail."""
    started = []
    yield started
    for g in started:
        g.close()
