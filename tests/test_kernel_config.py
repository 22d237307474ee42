# SPDX-License-Identifier: GPL-2.0-or-later
"""The rescue kernel as built by scripts/build-kernel.sh (`make kernel`): its final .config
has what the rescue image needs, and bzImage is an x86 boot image.

Reads CXR_BUILD/kernel/{config,bzImage} (CXR_BUILD defaults to build). Nothing is built
here: a missing kernel is a failure that says to run `make kernel`."""
import os
import pathlib
import re
import struct

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
BUILD = ROOT / os.environ.get("CXR_BUILD", "build")
KDIR = BUILD / "kernel"
CONFIG = KDIR / "config"
BZIMAGE = KDIR / "bzImage"
FRAGMENT = ROOT / "kernel-config" / "cxrescue.config"

# Built in (=y): what the rescue image cannot boot or work without.
REQUIRED_Y = [
    # core
    "64BIT", "X86_64", "PRINTK", "PRINTK_TIME", "MULTIUSER", "FUTEX", "POSIX_TIMERS",
    "FILE_LOCKING", "SHMEM", "BINFMT_ELF", "BINFMT_SCRIPT", "KERNEL_XZ",
    # initramfs
    "BLK_DEV_INITRD", "RD_GZIP", "RD_XZ",
    # pseudo file systems
    "PROC_FS", "SYSFS", "TMPFS", "DEVTMPFS",
    # PCI: sysfs config space and resource0, 4 KiB config space on q35
    "ACPI", "PCI", "PCI_MMCONFIG", "PCI_MSI", "RTC_CLASS", "RTC_DRV_CMOS",
    # consoles and keyboards
    "TTY", "VT", "VT_CONSOLE", "VGA_CONSOLE", "UNIX98_PTYS", "SERIAL_8250",
    "SERIAL_8250_CONSOLE", "INPUT", "KEYBOARD_ATKBD", "SERIO_I8042", "USB_HID", "HID_GENERIC",
    # disks and CDs
    "BLOCK", "MSDOS_PARTITION", "EFI_PARTITION", "SCSI", "BLK_DEV_SD", "BLK_DEV_SR",
    "ATA", "SATA_AHCI", "ATA_PIIX",
    # USB
    "USB", "USB_XHCI_HCD", "USB_XHCI_PCI", "USB_EHCI_HCD", "USB_EHCI_PCI", "USB_OHCI_HCD",
    "USB_OHCI_HCD_PCI", "USB_UHCI_HCD", "USB_STORAGE",
    # virtio
    "VIRTIO_PCI", "VIRTIO_BLK", "VIRTIO_NET",
    # network, NICs (tg3 is CONFIG_TIGON3)
    "NET", "INET", "PACKET", "UNIX", "E1000", "E1000E", "IGB", "IXGBE", "TIGON3", "BNX2",
    # the server and homelab NICs of issue 29 (docs/nics.md; tests/test_nics.py checks each)
    "I40E", "ICE", "IGC", "BNX2X", "BNXT", "R8169", "VMXNET3",
    # their firmware files come from the initramfs's /lib/firmware
    "FW_LOADER",
    # the server's model in /sys/class/dmi/id; firmware that hands over in x2APIC mode
    "DMI", "DMIID", "X86_X2APIC",
    # file systems
    "VFAT_FS", "ISO9660_FS", "JOLIET", "NLS_CODEPAGE_437", "NLS_ISO8859_1", "NLS_UTF8",
    # UEFI boot through the stub
    "EFI", "EFI_STUB",
]

# Off: each of these would break or bloat the rescue image.
REQUIRED_OFF = [
    "MODULES",                # everything built in, no module files in the initramfs
    "IPV6",
    "SECURITY_LOCKDOWN_LSM",  # lockdown forbids sysfs config writes and resource0 mmap
    "SECURITY",
    "IO_STRICT_DEVMEM",
    "LEGACY_PTYS",
    "MOUSE_PS2",
    "CMDLINE_BOOL",           # the command line comes from the boot loader
    "IP_PNP",
    # no Mellanox driver: nothing may claim the card cxflash works on (ConnectX-3 is mlx4)
    "NET_VENDOR_MELLANOX", "MLX4_CORE", "MLX4_EN", "MLX4_INFINIBAND", "MLX5_CORE",
]


def parse_config(text):
    """{NAME: value} for every CONFIG_NAME=value line (without the CONFIG_ prefix);
    '# CONFIG_NAME is not set' lines and absent symbols are both simply missing."""
    values = {}
    for line in text.splitlines():
        m = re.match(r"^CONFIG_([A-Za-z0-9_]+)=(.*)$", line)
        if m:
            values[m.group(1)] = m.group(2)
    return values


_CONFIG = {}


def load_config():
    """The built config, parsed once. Called inside each test (not a fixture), so that a
    missing build shows as failed tests rather than setup errors."""
    if not CONFIG.is_file():
        pytest.fail(f"{CONFIG} not found: build the kernel first with `make kernel` "
                    f"(scripts/build-kernel.sh {BUILD})", pytrace=False)
    if "values" not in _CONFIG:
        text = CONFIG.read_text()
        # A real kernel .config from the build, not some other file.
        assert "# Automatically generated file; DO NOT EDIT." in text[:200], \
            f"{CONFIG} does not look like a kernel .config"
        _CONFIG["values"] = parse_config(text)
    return _CONFIG["values"]


def load_bzimage():
    if not BZIMAGE.is_file():
        pytest.fail(f"{BZIMAGE} not found: build the kernel first with `make kernel` "
                    f"(scripts/build-kernel.sh {BUILD})", pytrace=False)
    return BZIMAGE.read_bytes()


@pytest.mark.parametrize("name", REQUIRED_Y)
def test_built_in(name):
    config = load_config()
    assert config.get(name) == "y", \
        f"CONFIG_{name} is {config.get(name, 'not set')}, must be y"


@pytest.mark.parametrize("name", REQUIRED_OFF)
def test_off(name):
    config = load_config()
    assert config.get(name) in (None, "n"), f"CONFIG_{name}={config[name]}, must be off"


def test_no_module_is_configured():
    """MODULES=n leaves no '=m' options behind; check anyway: a module would be missing."""
    config = load_config()
    mods = sorted(k for k, v in config.items() if v == "m")
    assert mods == [], f"options configured as modules: {mods}"


def test_not_built_in_command_line():
    config = load_config()
    assert config.get("CMDLINE", '""') == '""'


def test_fragment_survived():
    """Every line of the fragment is in the built config (the build script checks this
    too; this catches a config installed from an older fragment)."""
    config = load_config()
    lost = []
    for line in FRAGMENT.read_text().splitlines():
        m = re.match(r"^CONFIG_([A-Za-z0-9_]+)=(.*)$", line)
        n = re.match(r"^# CONFIG_([A-Za-z0-9_]+) is not set$", line)
        if m and config.get(m.group(1)) != m.group(2):
            lost.append(f"{line} (built: {config.get(m.group(1), 'not set')})")
        if n and config.get(n.group(1)) not in (None, "n"):
            lost.append(f"{line} (built: {config[n.group(1)]})")
    assert lost == [], "fragment settings missing from the built config " \
        "(stale build? run `make kernel`):\n" + "\n".join(lost)


def test_bzimage_is_x86_boot_image():
    data = load_bzimage()
    assert len(data) > 0x300, f"{BZIMAGE} is only {len(data)} bytes"
    assert data[0x1FE:0x200] == b"\x55\xaa", "no boot sector signature 0x55AA at 0x1FE"
    assert data[0x202:0x206] == b"HdrS", "no x86 boot protocol header magic 'HdrS' at 0x202"
    version, = struct.unpack_from("<H", data, 0x206)
    assert version >= 0x020C, f"boot protocol {version:#06x} is older than 2.12"
    loadflags = data[0x211]
    assert loadflags & 0x01, "LOADED_HIGH not set: not a bzImage (zImage?)"
    xloadflags, = struct.unpack_from("<H", data, 0x236)
    assert xloadflags & 0x01, "XLF_KERNEL_64 not set: not a 64-bit kernel"
    # Keep it a small rescue kernel (about 2.5 MB with xz); a jump means a config slip.
    assert len(data) < 4 * 1024 * 1024, f"bzImage is {len(data)} bytes, expected < 4 MiB"


def test_bzimage_has_efi_stub():
    """With EFI_STUB the image is also a PE/COFF executable: 'MZ' at 0, 'PE\\0\\0' at the
    offset stored at 0x3c."""
    data = load_bzimage()
    assert data[:2] == b"MZ", "no MZ header: the EFI stub is missing"
    pe, = struct.unpack_from("<I", data, 0x3C)
    assert data[pe:pe + 4] == b"PE\0\0", f"no PE signature at {pe:#x}"


def test_no_mellanox_driver_is_in_the_kernel():
    """mlx4 (ConnectX-2/3) or mlx5 in the kernel would claim the card and reset it under
    cxflash: no MLX option at all in the config, and no mlx4_/mlx5_ function in System.map."""
    config = load_config()
    on = sorted(k for k, v in config.items() if k.startswith(("MLX4", "MLX5", "MLXSW")) and v in ("y", "m"))
    assert on == [], f"Mellanox drivers configured: {on}"
    smap = KDIR / "System.map"
    if not smap.is_file():
        pytest.fail(f"{smap} not found: build the kernel first with `make kernel`", pytrace=False)
    syms = [w[2] for w in (line.split() for line in smap.read_text().splitlines())
            if len(w) == 3 and w[2].startswith(("mlx4_", "mlx5_"))]
    assert syms == [], f"Mellanox driver functions in the kernel: {syms[:5]}"
