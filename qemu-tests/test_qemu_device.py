# SPDX-License-Identifier: GPL-2.0-or-later
"""The cxsim-pci QEMU device (sim/qemu/cxsim-pci.c) without a guest: QEMU's qtest
accelerator, config space through the 0xcf8/0xcfc ports, MMIO with readl/writel.

What it checks: the card's IDs as its .conf says (recovery ID for a blank or corrupt
flash), the 0x58/0x5c crspace window, BAR0 decoding crspace as big-endian dwords, the
model's clock following QEMU's virtual clock, and flash changes written through to the
backing file as they happen (QEMU killed with SIGKILL, then the file compared); on the
ConnectX-4, 4 Lx and 5 the recovery ID, the VSEC in QEMU's capability list with its
registers answered by the model (hw-access.md §2.4), and BAR0 reading all-ones.

QEMU comes from $CXR_QEMU or BUILD/qemu/qemu-system-x86_64 (`make qemu`); cxsim and
mkfs2 from BUILD/host (`make build/host/cxsim build/host/mkfs2`); BUILD is $CXR_BUILD or
build. CXR_NO_QEMU=1 skips these tests; otherwise a missing binary is a failure."""
import os
import pathlib
import signal
import subprocess
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
BUILD = ROOT / os.environ.get("CXR_BUILD", "build")
QEMU = pathlib.Path(os.environ.get("CXR_QEMU", BUILD / "qemu" / "qemu-system-x86_64"))
CXSIM = BUILD / "host" / "cxsim"
MKFS2 = BUILD / "host" / "mkfs2"
MKFS3 = BUILD / "host" / "mkfs3"
FIRMWARE = ["-L", "/usr/share/qemu", "-L", "/usr/share/seabios", "-L", "/usr/lib/ipxe/qemu"]

SLOT = 5                                # -device ...,addr=5: bus 0, device 5, function 0
CFG = 0x80000000 | SLOT << 11           # 0xcf8 address of its config space
BAR0 = 0xE0000000                       # where the tests put BAR0
SMALL = "--ddr 2 --ddr-size 0x1000"     # a small image (mkfs2)

HW_ID = 0xF0014
SEM_GPIO = 0xF03FC
GW_CMD, GW_ADDR, GW_DATA0 = 0xF0400, 0xF0404, 0xF0410
# Gateway command words, hw-access.md §3.2 (the same words as sim/tests/test_card.c).
CMD_JEDEC = 0x409F2215
CMD_RDSR = 0x40052215
CMD_WREN = 0x40062004
CMD_SE64 = 0x40D8200C
CMD_PP16 = 0x4002241C                   # page program, 16 data bytes, CS released
W25Q16_JEDEC = 0xEF4015
TIMEOUT = 30


def bswap32(v):
    return int.from_bytes(v.to_bytes(4, "little"), "big")


@pytest.fixture(scope="module", autouse=True)
def binaries():
    if os.environ.get("CXR_NO_QEMU") == "1":
        pytest.skip("CXR_NO_QEMU=1: QEMU device tests not run")
    if not QEMU.exists():
        pytest.fail(f"{QEMU} is missing: run 'make qemu' (or set CXR_QEMU, or CXR_NO_QEMU=1 to skip)")
    missing = [str(p) for p in (CXSIM, MKFS2) if not p.exists()]
    if missing:
        pytest.fail(f"{', '.join(missing)} missing: run 'make build/host/cxsim build/host/mkfs2'")


def run(argv, **kw):
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120, **kw)


def create(tmp_path, name, *args, image_opts=None):
    """A card made by `cxsim create`; image_opts: put an mkfs2 image with these options in it."""
    stem = tmp_path / name
    extra = []
    if image_opts is not None:
        img = tmp_path / f"{name}.img"
        r = run([MKFS2, "-o", img, *image_opts.split()])
        assert r.returncode == 0, f"mkfs2 {image_opts}: {r.stderr}"
        extra = ["--image", img]
    r = run([CXSIM, "create", stem, *args, *extra])
    assert r.returncode == 0, f"cxsim create {args}: {r.stderr}"
    return stem


class Qtest:
    """One QEMU under the qtest accelerator, spoken to over stdio."""

    def __init__(self, flash, props=""):
        self.argv = [str(QEMU), *FIRMWARE, "-machine", "pc", "-accel", "qtest", "-nodefaults",
                     "-display", "none", "-qtest", "stdio",
                     "-device", f"cxsim-pci,addr={SLOT},flash={flash}{props}"]
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)

    def cmd(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        while True:
            reply = self.proc.stdout.readline()
            if not reply:
                self.proc.wait(timeout=TIMEOUT)
                raise AssertionError(f"QEMU exited {self.proc.returncode} on '{line}': "
                                     f"{self.proc.stderr.read()}")
            if reply.startswith("OK") or reply.startswith("FAIL") or reply.startswith("ERR"):
                break                   # skip asynchronous lines ("IRQ ...")
        assert reply.startswith("OK"), f"qtest '{line}': {reply.strip()}"
        return reply.split()[1:]

    def value(self, line):
        return int(self.cmd(line)[0], 16)

    # PCI config space, configuration mechanism #1.
    def cfg_read(self, off, size=4):
        self.cmd(f"outl 0xcf8 {CFG | (off & 0xFC):#x}")
        port = 0xCFC + (off & 3)
        op = {1: "inb", 2: "inw", 4: "inl"}[size]
        return self.value(f"{op} {port:#x}")

    def cfg_write(self, off, val, size=4):
        self.cmd(f"outl 0xcf8 {CFG | (off & 0xFC):#x}")
        port = 0xCFC + (off & 3)
        op = {1: "outb", 2: "outw", 4: "outl"}[size]
        self.cmd(f"{op} {port:#x} {val:#x}")

    # crspace through the 0x58/0x5c window (hw-access.md §2.3).
    def cr_read(self, addr):
        self.cfg_write(0x58, addr)
        return self.cfg_read(0x5C)

    def cr_write(self, addr, val):
        self.cfg_write(0x58, addr)
        self.cfg_write(0x5C, val)

    # crspace through BAR0: big-endian dwords (§2.2).
    def bar_read(self, addr):
        return bswap32(self.value(f"readl {BAR0 + addr:#x}"))

    def bar_write(self, addr, val):
        self.cmd(f"writel {BAR0 + addr:#x} {bswap32(val):#x}")

    def map_bar0(self):
        self.cfg_write(0x10, BAR0)
        self.cfg_write(0x14, 0)
        self.cfg_write(0x04, 0x0002, 2)  # COMMAND: memory space decode on

    def clock_step(self, ns):
        self.cmd(f"clock_step {ns}")

    def kill(self):
        """SIGKILL: no exit path runs, as when the power goes."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=TIMEOUT)
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                f.close()
            except OSError:
                pass


@pytest.fixture
def qemus():
    started = []

    def start(flash, props=""):
        q = Qtest(flash, props)
        started.append(q)
        return q

    yield start
    for q in started:
        q.kill()


def realize_error(flash, props=""):
    """QEMU must refuse the device at start-up: its exit status and message."""
    argv = [QEMU, *FIRMWARE, "-machine", "pc", "-accel", "qtest", "-nodefaults", "-display",
            "none", "-qtest", "null", "-device", f"cxsim-pci,flash={flash}{props}"]
    r = run(argv)
    assert r.returncode != 0, f"QEMU accepted cxsim-pci,flash={flash}{props}"
    return r.stderr


# --- identity ----------------------------------------------------------------------------

@pytest.mark.parametrize("chip,devid,hwid", [("cx2", 0x673C, 0x00B00190),
                                             ("cx3", 0x1003, 0x000101F5),
                                             ("cx3pro", 0x1007, 0x000001F7)])
def test_ids_as_the_conf_says(tmp_path, qemus, chip, devid, hwid):
    extra = "--old-guids" if chip == "cx2" else ""
    stem = create(tmp_path, "card", "--chip", chip, "--subsys", "103c:18d6",
                  image_opts=f"--chip {chip} {SMALL} {extra}")
    conf = dict(l.split("=", 1) for l in stem.with_suffix(".conf").read_text().splitlines()
                if "=" in l and not l.startswith("#"))
    q = qemus(stem.with_suffix(".flash"))
    assert q.cfg_read(0x00, 2) == 0x15B3
    assert q.cfg_read(0x02, 2) == devid == int(conf["pci_device"], 16)
    assert q.cfg_read(0x08, 4) >> 8 == 0x028000                   # network controller
    assert q.cfg_read(0x08, 1) == int(conf["hw_rev"], 16)
    assert q.cfg_read(0x2C, 2) == 0x103C == int(conf["subsys_vendor"], 16)
    assert q.cfg_read(0x2E, 2) == 0x18D6 == int(conf["subsys_device"], 16)
    assert q.cr_read(HW_ID) == hwid
    assert q.cfg_read(0x58) == HW_ID                               # the window reads back


@pytest.mark.parametrize("how", ["empty", "corrupt"])
def test_no_valid_image_shows_the_recovery_id(tmp_path, qemus, how):
    if how == "empty":
        stem = create(tmp_path, "card", "--chip", "cx3", "--empty")
    else:
        stem = create(tmp_path, "card", "--chip", "cx3", "--corrupt",
                      image_opts=f"--chip cx3 {SMALL}")
    q = qemus(stem.with_suffix(".flash"))
    assert q.cfg_read(0x00, 4) == 0x01F6 << 16 | 0x15B3           # livefish ID, hw-access.md §1.1
    assert q.cfg_read(0x08, 4) >> 8 == 0x050000                   # memory controller
    assert q.cr_read(0x41270) > 0xFFF00000                        # recovery-mode register, §1.3
    assert q.cr_read(HW_ID) == 0x000101F5


# The VSEC (hw-access.md §2.4): header at the capability, then its registers.
VSEC_ID, VSEC_LEN = 0x09, 0x18
VSEC_CTRL, VSEC_COUNTER, VSEC_SEM, VSEC_ADDR, VSEC_DATA = 0x4, 0x8, 0xC, 0x10, 0x14
SPACE_CR = 2                            # CR_SPACE
STATUS_OK = 1 << 29                     # CTRL 31:29: the space is supported
FLAG = 1 << 31                          # ADDR 31: a read is done / a write is asked for
GEN5 = {"cx4": 0x209, "cx4lx": 0x20B, "cx5": 0x20D}   # recovery ID = HW ID, hw-access.md §1.1


def capabilities(q):
    """{id: offset} of the config space's capability list, walked as a driver does."""
    assert q.cfg_read(0x06, 2) & 0x10                             # status: capability list
    caps, at = {}, q.cfg_read(0x34, 1)
    while at and len(caps) < 48:
        caps[q.cfg_read(at, 1)] = at
        at = q.cfg_read(at + 1, 1)
    return caps


def vsec_cr_read(q, vsec, addr):
    q.cfg_write(vsec + VSEC_ADDR, addr)                           # bit 31 clear: a read
    assert q.cfg_read(vsec + VSEC_ADDR) & FLAG                    # done at once in the model
    return q.cfg_read(vsec + VSEC_DATA)


@pytest.mark.parametrize("chip", GEN5)
def test_5th_gen_recovery_card_has_the_vsec(tmp_path, qemus, chip):
    stem = create(tmp_path, "card", "--chip", chip)
    q = qemus(stem.with_suffix(".flash"))
    assert q.cfg_read(0x00, 4) == GEN5[chip] << 16 | 0x15B3
    assert q.cfg_read(0x08, 4) >> 8 == 0x050000                   # memory controller
    vsec = capabilities(q)[VSEC_ID]
    assert vsec == 0xC0                                           # where the model has it
    hdr = q.cfg_read(vsec)
    assert hdr & 0xFF == VSEC_ID and hdr >> 16 & 0xFF == VSEC_LEN and hdr >> 24 == 0   # functional
    q.cfg_write(vsec + VSEC_CTRL, SPACE_CR)
    assert q.cfg_read(vsec + VSEC_CTRL) == STATUS_OK | SPACE_CR
    assert q.cfg_read(vsec + VSEC_CTRL, 2) == SPACE_CR            # narrower reads go there too
    ticket = q.cfg_read(vsec + VSEC_COUNTER)
    assert ticket and q.cfg_read(vsec + VSEC_COUNTER) == ticket + 1
    q.cfg_write(vsec + VSEC_SEM, ticket)
    assert q.cfg_read(vsec + VSEC_SEM) == ticket                  # the semaphore is ours
    hw = vsec_cr_read(q, vsec, HW_ID)
    assert hw & 0xFFFF == GEN5[chip] and hw == q.cr_read(HW_ID)   # the same crspace as the window
    q.cfg_write(vsec + VSEC_SEM, 0)
    assert q.cfg_read(vsec + VSEC_SEM) == 0


def test_5th_gen_with_an_image_and_a_model_override(tmp_path, qemus):
    """A ConnectX-4 Lx holding a valid FS3 image runs its firmware (its PCI ID 0x1015), and
    strapped into recovery mode (cxsim --recovery) shows its recovery ID; model=cx5 on that
    card is a ConnectX-5 (the FS3 image does not boot it: recovery), model=cx3 is refused."""
    assert MKFS3.exists(), f"{MKFS3} is missing: run 'make build/host/mkfs3'"
    img = tmp_path / "hp.bin"
    r = run([MKFS3, "--chip", "cx4lx", "--psid", "HP_2420110034", "-o", img])
    assert r.returncode == 0, r.stderr
    q = qemus(create(tmp_path, "running", "--chip", "cx4lx", "--image", img).with_suffix(".flash"))
    assert q.cfg_read(0x02, 2) == 0x1015
    q.kill()
    stem = create(tmp_path, "card", "--chip", "cx4lx", "--image", img, "--recovery")
    flash = stem.with_suffix(".flash")
    q = qemus(flash)
    assert q.cfg_read(0x02, 2) == 0x20B
    q.kill()
    q = qemus(flash, ",model=cx5")
    assert q.cfg_read(0x02, 2) == 0x20D and q.cr_read(HW_ID) & 0xFFFF == 0x20D
    q.kill()
    assert "cxsim create STEM --chip cx3" in realize_error(flash, ",model=cx3")


def test_5th_gen_bar0_is_not_crspace(tmp_path, qemus):
    """BAR0 of a ConnectX-4 and later is the init segment, not crspace (hw-access.md §2.1),
    which the model lacks: 1 MiB 64-bit prefetchable, reading all-ones, bar0=on or not."""
    stem = create(tmp_path, "card", "--chip", "cx4lx")
    q = qemus(stem.with_suffix(".flash"), ",bar0=on")
    q.cfg_write(0x10, 0xFFFFFFFF)
    assert q.cfg_read(0x10) == 0xFFF0000C                         # 1 MiB, 64-bit, prefetchable
    q.map_bar0()
    assert q.value(f"readl {BAR0 + HW_ID:#x}") == 0xFFFFFFFF
    assert q.cr_read(HW_ID) & 0xFFFF == 0x20B


def test_property_overrides(tmp_path, qemus):
    stem = create(tmp_path, "card", "--chip", "cx3", image_opts=f"--chip cx3 {SMALL}")
    q = qemus(stem.with_suffix(".flash"), ",subsys=15b3:0022,model=cx3pro")
    assert q.cfg_read(0x2C, 4) == 0x0022 << 16 | 0x15B3
    assert q.cr_read(HW_ID) == 0x000001F7


def test_bad_backing_files_are_refused(tmp_path):
    assert "cannot open" in realize_error(tmp_path / "nothing.flash")
    assert "STEM.flash" in realize_error(tmp_path / "card.bin")
    assert "flash=" in realize_error("").lower() or "required" in realize_error("")
    stem = create(tmp_path, "card", "--empty")
    flash = stem.with_suffix(".flash")
    assert "expected cx2" in realize_error(flash, ",model=cx9")
    assert "VVVV:DDDD" in realize_error(flash, ",subsys=15b3")
    assert "unknown flash part" in realize_error(flash, ",part=NOPE")
    with open(flash, "r+b") as f:
        f.truncate(4096)
    assert "not" in realize_error(flash) and "bytes" in realize_error(flash)


# --- BAR0 ---------------------------------------------------------------------------------

def test_bar0_is_1mib_64bit_and_big_endian(tmp_path, qemus):
    stem = create(tmp_path, "card", "--chip", "cx3", image_opts=f"--chip cx3 {SMALL}")
    q = qemus(stem.with_suffix(".flash"))
    q.cfg_write(0x10, 0xFFFFFFFF)
    assert q.cfg_read(0x10) == 0xFFF00004                         # 1 MiB, 64-bit memory
    q.map_bar0()
    assert q.cfg_read(0x10) == BAR0 | 0x4
    raw = q.value(f"readl {BAR0 + HW_ID:#x}")
    assert raw == bswap32(0x000101F5) == 0xF5010100              # big-endian dword
    # Writes reach the same registers as the window: the boot address, §4.4.
    q.bar_write(0xF0000, 0x01000000)
    assert q.cr_read(0xF0000) == 0x01000000
    # A 64-bit access is two big-endian dwords, the lower address first in memory.
    qword = q.value(f"readq {BAR0 + 0xF0010:#x}").to_bytes(8, "little")
    assert qword == (0).to_bytes(4, "big") + (0x000101F5).to_bytes(4, "big")
    q.cr_write(0xF0000, 0x00800000)
    assert q.bar_read(0xF0000) == 0x00800000
    # A read-to-lock semaphore taken through the BAR is taken for the window too.
    assert q.bar_read(SEM_GPIO) == 0
    assert q.cr_read(SEM_GPIO) == 1
    # Memory decode off: the BAR is not mapped.
    q.cfg_write(0x04, 0, 2)
    assert q.value(f"readl {BAR0 + HW_ID:#x}") != 0xF5010100


def test_bar0_off_reads_all_ones(tmp_path, qemus):
    stem = create(tmp_path, "card", "--chip", "cx3", image_opts=f"--chip cx3 {SMALL}")
    q = qemus(stem.with_suffix(".flash"), ",bar0=off")
    q.map_bar0()
    assert q.value(f"readl {BAR0 + HW_ID:#x}") == 0xFFFFFFFF      # mstflint: use config cycles
    assert q.cr_read(HW_ID) == 0x000101F5


# --- the gateway, the clock, write-through ----------------------------------------------

def gw(q, cmd, addr=0, data=None, bar=False):
    w = q.bar_write if bar else q.cr_write
    for i, d in enumerate(data or []):
        w(GW_DATA0 + 4 * i, d)
    w(GW_ADDR, addr)
    w(GW_CMD, cmd)


def gw_data0(q, bar=False):
    return (q.bar_read if bar else q.cr_read)(GW_DATA0)


def wip(q, bar=False):
    gw(q, CMD_RDSR, bar=bar)
    return gw_data0(q, bar) >> 24 & 1


def test_flash_changes_reach_the_file_before_qemu_dies(tmp_path, qemus):
    stem = create(tmp_path, "card", "--chip", "cx3", image_opts=f"--chip cx3 {SMALL}")
    flash = stem.with_suffix(".flash")
    before = flash.read_bytes()
    assert before[:0x10000].count(0xFF) < 0x10000                 # sector 0 holds the image
    q = qemus(flash)
    assert q.cr_read(SEM_GPIO) == 0                               # take the gateway semaphore

    # Read-only: JEDEC ID through the window.
    gw(q, CMD_JEDEC)
    assert gw_data0(q) >> 8 == W25Q16_JEDEC
    assert flash.read_bytes() == before

    # Erase sector 0 through the window; the model's clock follows QEMU's virtual clock.
    gw(q, CMD_WREN)
    gw(q, CMD_SE64, 0)
    for _ in range(5):
        assert wip(q) == 1                                        # a 64 KiB erase takes ~150 ms
    assert flash.read_bytes() == before                           # nothing erased yet
    q.clock_step(2_000_000_000)                                   # the guest sleeps 2 s
    assert wip(q) == 0
    after_erase = b"\xff" * 0x10000 + before[0x10000:]

    # Program 16 bytes at 0x100 through BAR0.
    q.map_bar0()
    data = [0x01234567, 0x89ABCDEF, 0x00112233, 0x44556677]
    gw(q, CMD_WREN, bar=True)
    gw(q, CMD_PP16, 0x100, data, bar=True)
    q.clock_step(10_000_000)
    assert wip(q, bar=True) == 0
    q.cr_write(SEM_GPIO, 0)

    q.kill()                                                      # SIGKILL: no exit handler
    got = flash.read_bytes()
    expect = bytearray(after_erase)
    expect[0x100:0x110] = b"".join(d.to_bytes(4, "big") for d in data)
    assert len(got) == len(before)
    assert got[:0x10000] == bytes(expect[:0x10000])
    assert got[0x10000:] == before[0x10000:]                      # nothing else touched

    # The next QEMU (a cold start) sees the erased image: recovery ID.
    q2 = qemus(flash)
    assert q2.cfg_read(0x02, 2) == 0x01F6


def test_interrupted_erase_leaves_what_a_power_cut_leaves(tmp_path, qemus):
    stem = create(tmp_path, "card", "--chip", "cx3", image_opts=f"--chip cx3 {SMALL}")
    flash = stem.with_suffix(".flash")
    before = flash.read_bytes()
    q = qemus(flash)
    gw(q, CMD_WREN)
    gw(q, CMD_SE64, 0)
    q.clock_step(1_000_000)                                       # 1 ms into a ~150 ms erase
    assert wip(q) == 1
    q.kill()
    # Killed mid-erase: an operation in flight is lost as a whole, so the file holds the
    # old contents (what a cut at the erase's start leaves; sim/qemu/README.md).
    assert flash.read_bytes() == before


def test_second_qemu_on_the_same_card_is_refused(tmp_path, qemus):
    stem = create(tmp_path, "card", "--empty")
    q = qemus(stem.with_suffix(".flash"))
    assert q.cfg_read(0x00, 2) == 0x15B3
    assert "in use" in realize_error(stem.with_suffix(".flash"))


# --- the binary as a whole ---------------------------------------------------------------

@pytest.mark.parametrize("machine", ["pc", "q35"])
def test_boots_to_seabios_with_the_card(tmp_path, machine):
    """A plain machine (TCG) runs SeaBIOS, which assigns BAR0; `info pci` shows the card."""
    stem = create(tmp_path, "card", "--chip", "cx3", image_opts=f"--chip cx3 {SMALL}")
    argv = [QEMU, *FIRMWARE, "-machine", machine, "-accel", "tcg", "-display", "none",
            "-nodefaults", "-monitor", "stdio", "-device",
            f"cxsim-pci,flash={stem.with_suffix('.flash')}"]
    proc = subprocess.Popen([str(a) for a in argv], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(3)                                             # SeaBIOS runs its PCI setup
        out, err = proc.communicate("info pci\nquit\n", timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "Vendor Device 15b3:1003" in out or "PCI device 15b3:1003" in out, out + err
    card = out[out.index("15b3:1003"):]
    assert "BAR0: 64 bit memory at 0x" in card and "[0x" in card, card
    bar = card.split("BAR0: 64 bit memory at ")[1].split()[0]
    assert int(bar, 16) != 0xFFFFFFFFFFFFFFFF and int(bar, 16) % 0x100000 == 0, card
