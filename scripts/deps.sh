#!/usr/bin/env bash
# scripts/deps.sh — install the Debian packages cxrescue needs (called by `make deps`).
#
# Idempotent: packages already installed are not reinstalled, a deb-src source is only
# added when none is configured, and `apt-get update` runs at most once, and only when
# something actually needs it (missing packages, a newly added deb-src source, or source
# indexes that were never downloaded). Set CXR_APT_UPDATE=1 to force the update.
#
# Only Debian's archive (deb.debian.org) is used. Must run as root (or via sudo).
set -euo pipefail

# ---------------------------------------------------------------------------------------
# The package list. Append new needs here (one per line, with a comment saying why).
# ---------------------------------------------------------------------------------------
PACKAGES=(
    # --- host toolchain ---------------------------------------------------------------
    build-essential        # gcc, make, libc6-dev for host tools and tests
    dpkg-dev               # dpkg-source, needed by `apt-get source`
    git                    # the repository itself
    ca-certificates        # TLS roots for git/apt over https
    xz-utils               # unpack .tar.xz source tarballs
    bzip2                  # unpack .tar.bz2 source tarballs (zlib's orig tarball)
    # --- the static musl burner (burner/cxflash) --------------------------------------
    musl-tools             # musl-gcc wrapper
    musl-dev               # musl headers and static libc
    linux-libc-dev         # kernel UAPI headers, symlinked into build/kheaders for musl
    # --- host builds / tests ----------------------------------------------------------
    zlib1g-dev             # zlib for the glibc/ASan builds and host tools (mkfs2)
    libcmocka-dev          # unit tests (burner/tests)
    libpci-dev             # libpci for the glibc ASan/test builds of cxflash (the shipped one links our musl libpci.a)
    clang                  # libFuzzer build of the image parser
    libclang-rt-14-dev     # libFuzzer / sanitizer runtimes for clang 14
    llvm                   # llvm-symbolizer, llvm-cov etc.
    valgrind               # memory checks in tests
    python3                # test driver
    python3-pytest         # `make check`
    python3-pytest-xdist   # `make check` runs the tests on two workers: FUSE tests wait on I/O
    groff-base             # groff: make check-man, and the man page's plain-text rendering on the image
    # --- hardware tools ---------------------------------------------------------------
    mstflint               # reference tool for ConnectX flash (comparison/tests)
    # --- cxsim, the card simulator (sim/) ---------------------------------------------
    libfuse3-dev           # FUSE fake sysfs front end of cxsim (sim/cli)
    fuse3                  # fusermount3 and /dev/fuse setup for cxsim serve
    pkg-config             # finds fuse3's flags for the cxsim build
    # --- the rescue image (kernel, BusyBox, initramfs, media) --------------------------
    linux-source-6.1       # the kernel source (scripts/build-kernel.sh)
    flex                   # kernel build (kconfig)
    bison                  # kernel build (kconfig)
    bc                     # kernel build (timeconst)
    libelf-dev             # kernel build (objtool)
    libssl-dev             # kernel build (scripts/sign-file, extract-cert are built unconditionally)
    cpio                   # unpacking an initramfs in tests
    syslinux               # syslinux --install for the FAT partition of the USB image
    syslinux-common        # ldlinux.c32, menu.c32, mbr.bin, pxelinux.0
    isolinux               # isolinux.bin and isohdpfx.bin for the ISO
    pxelinux               # pxelinux.0 for images/pxe/
    syslinux-utils         # isohybrid checks
    xorriso                # builds the ISO
    mtools                 # fills the FAT partition without loop mounts; reads backups in tests
    dosfstools             # mkfs.vfat
    fdisk                  # sfdisk: the USB image's MBR partition table
    grub-efi-amd64-bin     # the UEFI loader's modules (BOOTX64.EFI on the stick and in the ISO)
    grub-common            # grub-mkimage, which builds that loader
    # --- QEMU with the simulated card (scripts/build-qemu.sh, make run, qemu-tests) ---
    libglib2.0-dev         # QEMU build
    libpixman-1-dev        # QEMU build
    libfdt-dev             # QEMU build (--enable-fdt=system)
    ninja-build            # QEMU build
    meson                  # QEMU build
    libslirp-dev           # QEMU build: -netdev user (PXE boot tests with QEMU's TFTP)
    seabios                # guest BIOS (-L /usr/share/seabios)
    ovmf                   # guest UEFI firmware (OVMF_CODE_4M.fd + a copy of OVMF_VARS_4M.fd)
    ipxe-qemu              # PXE option ROMs for e1000 (-L /usr/lib/ipxe/qemu)
    qemu-system-data       # QEMU's own blobs (-L /usr/share/qemu)
    python3-pexpect        # boot tests drive the serial console
    # --- PXE across a rack (scripts/pxe-serve) ----------------------------------------
    dnsmasq-base           # DHCP / proxy-DHCP; the binary only: package dnsmasq would start a DNS service
    tftpd-hpa              # in.tftpd: TFTP with uploads (--create); dnsmasq's TFTP is read-only
    ipmitool               # scripts/pxe-cycle powers nodes on through their BMC (IPMI lanplus)
    openipmi               # ipmi_sim: each rack test node's BMC (QEMU's ipmi-bmc-extern talks to it)
    # sushy-tools' Redfish emulator, the Redfish BMC of tests/test_pxe_redfish.py, runs from a source
    # tree (tests/redfish_bmc.py; sushy-tools is not in Debian 12); what it imports, from Debian:
    python3-flask          # its web application
    python3-requests       # imported by its fake driver
    python3-tenacity       # imported by its memoize.py (state kept between requests)
    python3-bcrypt         # its htpasswd (HTTP Basic authentication)
    python3-webob          # its authentication middleware
    python3-pip            # fetches sushy-tools' wheel from PyPI into the cache (below), installs nothing
)

export DEBIAN_FRONTEND=noninteractive
APT_SOURCES_DIR=/etc/apt/sources.list.d
SRC_FILE=$APT_SOURCES_DIR/cxrescue-src.sources
DEBIAN_SOURCES=$APT_SOURCES_DIR/debian.sources

log() { printf 'deps: %s\n' "$*"; }
die() { printf 'deps: error: %s\n' "$*" >&2; exit 1; }

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "must run as root (or have sudo)"
    SUDO=(sudo)
fi

# --- deb-src ---------------------------------------------------------------------------
# True if any enabled deb-src entry exists, one-line (.list) or deb822 (.sources) style.
have_deb_src() {
    local f
    for f in /etc/apt/sources.list "$APT_SOURCES_DIR"/*.list; do
        [ -f "$f" ] || continue
        grep -Eq '^[[:space:]]*deb-src[[:space:]]' "$f" && return 0
    done
    for f in "$APT_SOURCES_DIR"/*.sources; do
        [ -f "$f" ] || continue
        # A stanza counts if its Types: include deb-src and it is not Enabled: no.
        awk '
            function flush() { if (src && !off) found = 1; src = 0; off = 0 }
            /^[[:space:]]*$/ { flush(); next }
            /^[[:space:]]*#/ { next }
            tolower($1) == "types:"   { for (i = 2; i <= NF; i++) if ($i == "deb-src") src = 1 }
            tolower($1) == "enabled:" { if (tolower($2) == "no") off = 1 }
            END { flush(); exit found ? 0 : 1 }
        ' "$f" && return 0
    done
    return 1
}

# Print a deb-src stanza mirroring the deb.debian.org/debian "deb" stanza(s) of
# debian.sources (URIs, Suites, Components, Signed-By). Falls back to bookworm defaults.
make_deb_src_stanza() {
    local uris="" suites="" comps="" signed=""
    if [ -f "$DEBIAN_SOURCES" ]; then
        # Collect from stanzas with Types: deb and a URI of deb.debian.org/debian
        # (not debian-security); merge suites/components of several such stanzas.
        eval "$(awk '
            function flush() {
                if (deb && uri ~ /^https?:\/\/deb\.debian\.org\/debian\/?$/) {
                    U = uri; S = S " " suites; C = C " " comps; if (signed != "") G = signed
                }
                deb = 0; uri = ""; suites = ""; comps = ""; signed = ""
            }
            /^[[:space:]]*$/ { flush(); next }
            /^[[:space:]]*#/ { next }
            { key = tolower($1); val = $0; sub(/^[^:]*:[[:space:]]*/, "", val) }
            key == "types:"      { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
            key == "uris:"       { uri = $2 }
            key == "suites:"     { suites = val }
            key == "components:" { comps = val }
            key == "signed-by:"  { signed = val }
            END {
                flush()
                printf "uris=%c%s%c; suites=%c%s%c; comps=%c%s%c; signed=%c%s%c\n",
                    39, U, 39, 39, S, 39, 39, C, 39, 39, G, 39
            }
        ' "$DEBIAN_SOURCES")"
    fi
    # De-duplicate the merged word lists, keeping order.
    dedup() {
        printf '%s\n' "$1" |
            awk '{ for (i = 1; i <= NF; i++) if (!seen[$i]++) printf "%s%s", (n++ ? " " : ""), $i }'
    }
    suites=$(dedup "$suites"); comps=$(dedup "$comps")
    if [ -z "$uris" ] || [ -z "$suites" ] || [ -z "$comps" ]; then
        log "could not read deb entries from $DEBIAN_SOURCES; using bookworm defaults" >&2
        uris=http://deb.debian.org/debian
        suites="bookworm bookworm-updates"
        comps=main
        signed=/usr/share/keyrings/debian-archive-keyring.gpg
    fi
    printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: %s\n' "$uris" "$suites" "$comps"
    [ -n "$signed" ] && printf 'Signed-By: %s\n' "$signed"
    return 0
}

need_update=0
[ "${CXR_APT_UPDATE:-0}" = 1 ] && need_update=1

if have_deb_src; then
    log "deb-src source already configured; leaving apt sources alone"
else
    log "no deb-src source configured; writing $SRC_FILE:"
    stanza=$(make_deb_src_stanza)
    printf '%s\n' "$stanza" | sed 's/^/    /'
    # shellcheck disable=SC2016  # literal backquotes in the comment line
    printf '# Added by cxrescue scripts/deps.sh so that `apt-get source` works.\n%s\n' \
        "$stanza" | "${SUDO[@]}" tee "$SRC_FILE" >/dev/null
    need_update=1
fi

# deb-src configured but its Sources indexes never downloaded -> apt-get source would fail.
# shellcheck disable=SC2016  # $(FILENAME) is apt's format placeholder, not a shell expansion
if [ -z "$(apt-get indextargets 'Created-By: Sources' --format '$(FILENAME)' 2>/dev/null)" ]; then
    log "source package indexes not downloaded yet"
    need_update=1
fi

# --- packages --------------------------------------------------------------------------
missing=()
for p in "${PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
    [ "${status:0:2}" = ii ] || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
    log "missing packages: ${missing[*]}"
    need_update=1
else
    log "all ${#PACKAGES[@]} packages already installed"
fi

if [ "$need_update" = 1 ]; then
    log "apt-get update"
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
fi

if [ ${#missing[@]} -gt 0 ]; then
    # tftpd-hpa's postinst starts its system service, which would serve /srv/tftp on port 69
    # of every interface and keep scripts/pxe-serve from starting. Debian's policy-rc.d
    # convention: while /usr/sbin/policy-rc.d exits 101, invoke-rc.d and deb-systemd-invoke
    # start no service. Ours lives only for this install; one already there is left alone.
    policy=/usr/sbin/policy-rc.d
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\n# cxrescue scripts/deps.sh: start no service during its apt-get install\nexit 101\n' |
            "${SUDO[@]}" tee "$policy" >/dev/null
        "${SUDO[@]}" chmod 755 "$policy"
        trap '"${SUDO[@]}" rm -f "$policy"' EXIT
    fi
    log "apt-get install ${missing[*]}"
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y --no-install-recommends "${missing[@]}"
fi

# --- the Redfish emulator ------------------------------------------------------------------
# sushy-tools (OpenStack's Redfish emulator, the BMC of tests/test_pxe_redfish.py) is not in
# Debian 12. Its pure-Python wheel comes from PyPI, unpacked into the cache beside the kernel's,
# where tests/redfish_bmc.py looks; nothing is installed, nothing goes into the clone, and what it
# imports are the Debian packages above. Not pinned: the tests were run against sushy-tools'
# git HEAD 2b51921 (2026). Where PyPI does not answer, make deps goes on, and the test says
# how else to give it the emulator (CXR_SUSHY_TOOLS) when it skips.
sushy_dir=${CXR_CACHE:-/var/cache/cxrescue}/sushy-tools
if [ "${CXR_CACHE:-}" != off ] && ! command -v sushy-emulator >/dev/null 2>&1 &&
    [ ! -d "$sushy_dir/sushy_tools" ]; then
    wheel_dir=$(mktemp -d)
    if timeout 120 /usr/bin/python3 -m pip download --quiet --no-deps --only-binary=:all: \
        -d "$wheel_dir" sushy-tools >/dev/null 2>&1 &&
        "${SUDO[@]}" mkdir -p "$sushy_dir" &&
        "${SUDO[@]}" /usr/bin/python3 -m zipfile -e "$wheel_dir"/sushy_tools-*.whl "$sushy_dir"; then
        log "sushy-tools: $(basename "$wheel_dir"/sushy_tools-*.whl) unpacked in $sushy_dir"
    else
        log "sushy-tools: not fetched from PyPI; the Redfish tests take CXR_SUSHY_TOOLS=DIR instead, or skip saying why"
    fi
    rm -rf "$wheel_dir"
fi

log "done"
