# SPDX-License-Identifier: GPL-2.0-or-later
"""cxflash sends only what mstflint sends, on ConnectX-4 Lx (FS3) and ConnectX-5 (FS4) cards
in recovery mode and with their firmware running (test_sequence.py does the same for a
ConnectX-3).

These chips are reached through the VSEC gateway (hw-access.md §2.4), not the 0x58/0x5c
window, so the crspace writes are decoded from the VSEC registers in the `cxsim serve --log`
config log: a data dword written to VSEC+0x14, then an address written to VSEC+0x10 with
bit 31 (the flag) set, writes that dword to that address of the space selected last in
VSEC+0x04's low 16 bits. Everything else written to config space is compared by what it
is: the space selected, the semaphore (taken with a ticket from the counter, whose value
differs by session, or released with 0), any other config offset by value.

With the firmware running both tools reach the flash through ICMD (hw-access.md §3.14):
writes to the ICMD space (3) are decoded into commands: the mailbox dwords written at
0x100000 and up, then the control word at 0x0 with the go bit: an access register is named
by its register ID and method (GET, SET) from the operation TLV's second dword. The
control words themselves (opcode, go) are compared by value; the SEMAPHORE space's
dwords (space 0xa) by address, a value being "ours" (mstflint's pid, cxflash's ticket) or 0.

What "the same register" means is test_sequence.py's: a gateway command word by its whole
value (on these chips bit 31, the gateway's lock, is part of every word, hw-access.md
§3.13); the gateway's address and data registers by address; every other crspace register
by address and value."""
import pytest

from conftest import BUILD, CXFLASH, run
from cxsim_helpers import bdf, cxsim  # noqa: F401 (fixture)

MKFS3 = BUILD / "host" / "mkfs3"
VSEC = 0xC0                               # where cxsim puts the capability (sim/core/pcicfg.c)
V_CTRL, V_SEM, V_ADDR, V_DATA = 0x04, 0x0C, 0x10, 0x14   # hw-access.md §2.4
V_FLAG = 1 << 31                          # VSEC address bit 31: a write, §2.4
AS_CR_SPACE = 0x2                         # §2.4
AS_ICMD, AS_SEMAPHORE = 0x3, 0xA          # §2.4, §3.14
ICMD_CTRL, ICMD_MBOX, ICMD_GO = 0x0, 0x100000, 0x1   # §3.14
GW_CMD = 0xF0400                          # gateway command word (and lock), §3.1, §3.13
GW_BY_ADDRESS = {0xF0404, 0xF0410, 0xF0414, 0xF0418, 0xF041C}
READ_GEN5 = 0xC003041D                    # 16-byte READ: the lock bit, no FLASH_ENABLE (§3.13)
RDSR_GEN5 = 0xC0050215                    # read status register, 4-byte data phase
SLOT_LOG = 20
GUID, MAC = "248a0703005a1b20", "248a075a1b20"
CHIPS = {"cx4lx": ("14.32.1010", "14.32.1020"), "cx5": ("16.35.4030", "16.35.4040")}

BOOT_REASON = ("the boot address of the new image's slot, then the flash-reset-on-warm-reboot "
               "bit: mstflint 4.21's failsafe burn of a recovery-mode card leaves the register as "
               "it was (\"Failed to update FW boot address\": it asks the firmware, "
               "Fs3Operations::bootAddrUpdate), its -nofs burn writes these very values "
               "(mf_update_boot_addr, mf_set_reset_flash_on_warm_reboot in mflash/mflash.c; "
               "hw-access.md §3.13); a warm reset then boots the new image")
# cr writes (addr, value) cxflash's failsafe burn makes that mstflint's failsafe burn does not,
# each also sent by mstflint's -nofs burn of the same image to the same slot (checked).
BOOT_WRITES = {
    "cx4lx": {("cr", (0xF0000, (1 << SLOT_LOG) << 8)), ("cr", (0xF0204, 0x2))},
    "cx5": {("cr", (0xF00C0, 1 << SLOT_LOG)), ("cr", (0xF0204, 0x2))},
}


def parse_log(path, dev):
    """(gateway words, gateway registers, other crspace writes (addr, value), other config
    writes) of one session, each a set; what goes to spaces other than CR_SPACE joins the
    config set: ICMD commands as ("reg", id, method) and ("icmd ctrl", value), semaphore
    dwords as ("sem", addr, "ours" or 0), anything else as ("space", space, addr, value)."""
    words, gw_regs, cr, cfg = set(), set(), set(), set()
    space, data, mbox = None, None, {}
    for line in path.read_text().splitlines():
        _, who, kind, op, off, size, val = line.split()
        if who != dev or kind != "cfg" or op != "w":
            continue
        off, val = int(off, 16) - VSEC, int(val, 16)
        if off == V_CTRL:
            space = val & 0xFFFF
            cfg.add(("select", space))
        elif off == V_SEM:
            cfg.add(("semaphore", "ticket" if val else 0))
        elif off == V_DATA:
            data = val
        elif off == V_ADDR:
            if not val & V_FLAG:
                continue                    # a read's address
            addr = val & 0x3FFFFFFF
            assert data is not None, f"VSEC write without data: {line}"
            if space == AS_ICMD and addr >= ICMD_MBOX:
                mbox[addr - ICMD_MBOX] = data
            elif space == AS_ICMD and addr == ICMD_CTRL:
                cfg.add(("icmd ctrl", data))
                if data & ICMD_GO:          # the command: the operation TLV's register and method
                    cfg.add(("reg", mbox.get(4, 0) >> 16, mbox.get(4, 0) >> 8 & 0x7F))
                    mbox = {}
            elif space == AS_SEMAPHORE:
                cfg.add(("sem", addr, "ours" if data else 0))
            elif space != AS_CR_SPACE:
                cfg.add(("space", space, addr, data))
            elif addr == GW_CMD:
                words.add(data)
            elif addr in GW_BY_ADDRESS:
                gw_regs.add(addr)
            else:
                cr.add((addr, data))
        else:
            cfg.add((off + VSEC, val))
    return words, gw_regs, cr, cfg


def image(tmp_path, chip, fw, psid, name):
    out = tmp_path / name
    r = run([MKFS3, "--chip", chip, "-o", out, "--slot-log", str(SLOT_LOG), "--no-rom", "--fw", fw,
             "--psid", psid, "--guid", GUID, "--mac", MAC])
    assert r.returncode == 0, r.stderr
    return out


def session(cxsim, stem, tool, argv):
    log = cxsim.folder / f"{stem.name}.log"
    s = cxsim.serve(stem, log=log)
    if tool == "mstflint":
        r = s.mstflint("-d", bdf(0), *argv)
    else:
        r = s.cxflash("-d", bdf(0), *argv)     # in model time, as mstflint under the shim
    assert r.returncode == 0, f"{tool} {argv}: exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    assert s.stop() == 0
    return parse_log(log, bdf(0))


def copy_card(cxsim, stem, name):
    dst = cxsim.folder / name
    for ext in (".conf", ".flash"):
        dst.with_suffix(ext).write_bytes(stem.with_suffix(ext).read_bytes())
    return dst


def as_set(got):
    return {(k, i) for k, s in zip(("gw", "gwreg", "cr", "cfg"), got) for i in s}


def fmt(x):
    kind, item = x
    if kind == "gw":
        return f"gateway word 0x{item:08x}"
    if kind == "gwreg":
        return f"gateway register 0x{item:05x}"
    if kind == "cr":
        return f"cr 0x{item[0]:05x} = 0x{item[1]:08x}"
    return f"config {item}"


# operation: (mstflint's arguments, cxflash's)
OPS = {
    "q": (["q"], ["q"]),
    "v": (["v"], ["v"]),
    "burn": (["-i", "{new}", "-allow_psid_change", "-y", "burn"],
             ["-i", "{new}", "--allow_psid_change", "-y", "--no-backup", "burn"]),
}


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("op", OPS)
def test_cxflash_sends_only_what_mstflint_sends(cxsim, tmp_path, chip, op):
    old_fw, new_fw = CHIPS[chip]
    oem = image(tmp_path, chip, old_fw, "HP_2420110034", "oem.bin")
    new = image(tmp_path, chip, new_fw, "MT_2420110034", "new.bin")
    stem = cxsim.create("card", "--chip", chip, "--image", oem, "--recovery")
    m_args, c_args = ([a.format(new=new) for a in args] for args in OPS[op])
    got = {t: as_set(session(cxsim, copy_card(cxsim, stem, f"{t}-card"), t, a))
           for t, a in (("mstflint", m_args), ("cxflash", c_args))}
    for tool in got:    # the decoding works: each session read the flash through the gateway
        assert ("gw", READ_GEN5) in got[tool], f"{tool} {op}: no READ command word decoded"
    # flash_open's RDSR (test_sequence.py's RDSR_REASON): mstflint sends it in every burn
    allowed = BOOT_WRITES[chip] if op == "burn" else {("gw", RDSR_GEN5)}
    extra = [fmt(x) for x in sorted(got["cxflash"] - got["mstflint"], key=str) if x not in allowed]
    print(f"{chip} {op}: cxflash {len(got['cxflash'])} distinct writes, mstflint {len(got['mstflint'])}")
    assert not extra, f"{chip} {op}: cxflash sends what mstflint 4.21 does not: {', '.join(extra)}"
    if op == "burn":
        assert allowed <= got["cxflash"] - got["mstflint"], "an exception no longer needed"
        # ... and mstflint's -nofs burn of the same image to the same slot sends them
        nofs = as_set(session(cxsim, copy_card(cxsim, stem, "nofs-card"), "mstflint",
                              ["-i", str(new), "-nofs", "-allow_psid_change", "-y", "burn"]))
        assert allowed <= nofs, f"{BOOT_REASON}: not sent by mstflint -nofs: {allowed - nofs}"
        assert ("gw", RDSR_GEN5) in got["mstflint"]
    else:
        assert allowed <= got["cxflash"] - got["mstflint"], "an exception no longer needed"


REG_NAMES = {0x9010: "MFPA", 0x9011: "MFBA", 0x9012: "MFBE", 0x9020: "MGIR"}   # hw-access.md §3.14


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("op", OPS)
def test_running_card_cxflash_sends_only_what_mstflint_sends(cxsim, tmp_path, chip, op):
    """The firmware runs: both tools ask it for the flash; cxflash's commands (register and
    method), control words, semaphores and crspace writes are a subset of mstflint's, and
    neither touches the flash gateway."""
    old_fw, new_fw = CHIPS[chip]
    oem = image(tmp_path, chip, old_fw, "HP_2420110034", "oem.bin")
    new = image(tmp_path, chip, new_fw, "MT_2420110034", "new.bin")
    stem = cxsim.create("card", "--chip", chip, "--image", oem)
    m_args, c_args = ([a.format(new=new) for a in args] for args in OPS[op])
    got = {t: as_set(session(cxsim, copy_card(cxsim, stem, f"{t}-card"), t, a))
           for t, a in (("mstflint", m_args), ("cxflash", c_args))}
    regs = {t: {x[1][1:] for x in got[t] if x[0] == "cfg" and x[1][0] == "reg"} for t in got}
    for tool in got:    # the decoding works: each session read the flash through MFBA GET
        assert (0x9011, 1) in regs[tool], f"{tool} {op}: no MFBA GET decoded"
        assert not any(k in ("gw", "gwreg") for k, _ in got[tool]), f"{tool} {op}: the gateway was used"
    if op == "burn":
        assert (0x9011, 2) in regs["cxflash"], "the burn wrote nothing through MFBA"
    extra = [fmt(x) for x in sorted(got["cxflash"] - got["mstflint"], key=str)]
    print(f"{chip} {op} (running): cxflash registers "
          f"{sorted((REG_NAMES.get(r, hex(r)), m) for r, m in regs['cxflash'])}, "
          f"mstflint {sorted((REG_NAMES.get(r, hex(r)), m) for r, m in regs['mstflint'])}")
    assert not extra, f"{chip} {op}: cxflash sends what mstflint 4.21 does not: {', '.join(extra)}"
