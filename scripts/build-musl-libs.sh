#!/usr/bin/env bash
# scripts/build-musl-libs.sh BUILD_DIR — static musl libraries for the burner.
#
# Produces
#   BUILD_DIR/kheaders/{linux,asm,asm-generic,mtd}   symlinks into Debian's linux-libc-dev;
#                                                    musl-gcc sees no kernel headers, so pass
#                                                    this with -isystem (musl's own come first)
#   BUILD_DIR/sysroot/lib/libz.a, include/{zlib.h,zconf.h}     zlib from `apt-get source zlib`
#   BUILD_DIR/sysroot/lib/libpci.a, include/pci/*.h            libpci from `apt-get source pciutils`
#   BUILD_DIR/sysroot/bin/lspci, share/pci.ids                 static lspci and its ids (for the image)
#   BUILD_DIR/sysroot/.stamp                                   when everything is done
# Sources are fetched and unpacked under BUILD_DIR/src/ (logs: BUILD_DIR/src/*.log).
#
# Each component has its own stamp (sysroot/.done-<name>, holding a fingerprint of this
# script and its settings); a component without a matching stamp (an interrupted earlier
# run, an edited script) is removed and rebuilt from a fresh source tree. Downloaded
# source packages are kept in BUILD_DIR/src/dl-<name> and reused.
# Consumers: musl-gcc -static -isystem BUILD_DIR/sysroot/include ... -LBUILD_DIR/sysroot/lib -lpci -lz
#
# Environment overrides:
#   MUSLCC          compiler (default musl-gcc)
#   LIBS_CFLAGS     optimisation flags (default: -Os -ffunction-sections -fdata-sections, and no
#                   unwind tables: C never unwinds, and they were 5 KB of the static cxflash)
#   ZLIB_CFLAGS     zlib's own defines (default -DDYNAMIC_CRC_TABLE: zlib's crc32.c then builds
#                   its CRC tables at first use, in .bss, instead of storing them: 8 KB less
#                   of the static cxflash, for a few microseconds once per trace)
#   ZLIB_SRC        source package for zlib, may pin a version: zlib=1:1.2.13.dfsg-1
#   PCI_SRC         source package for libpci (default pciutils)
#   PCI_IDSDIR      where libpci looks for pci.ids at run time (default /usr/share/misc)
#   JOBS            parallel make jobs (default: nproc)
set -euo pipefail

BUILD_NAME=musl-libs
# shellcheck source=build-common.sh
. "$(dirname "${BASH_SOURCE[0]}")/build-common.sh"
build_dir_arg "$@"

MUSLCC=${MUSLCC:-musl-gcc}
LIBS_CFLAGS=${LIBS_CFLAGS:--Os -ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables -fno-unwind-tables}
ZLIB_SRC=${ZLIB_SRC:-zlib}
ZLIB_CFLAGS=${ZLIB_CFLAGS:--DDYNAMIC_CRC_TABLE}
PCI_SRC=${PCI_SRC:-pciutils}
PCI_IDSDIR=${PCI_IDSDIR:-/usr/share/misc}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

# --- prerequisites (installed by `make deps` / scripts/deps.sh) ------------------------
command -v "$MUSLCC" >/dev/null 2>&1 || die "$MUSLCC not found (package musl-tools) — run make deps"
[ -f /usr/lib/x86_64-linux-musl/libc.a ] || die "static musl libc missing (package musl-dev) — run make deps"
command -v apt-get >/dev/null 2>&1     || die "apt-get not found — this script expects Debian"
command -v dpkg-source >/dev/null 2>&1 || die "dpkg-source not found (package dpkg-dev), needed by apt-get source — run make deps"
command -v make >/dev/null 2>&1        || die "make not found — run make deps"

mkdir -p "$1"
B=$(cd "$1" && pwd)
SYSROOT=$B/sysroot
SRC=$B/src
KH=$B/kheaders
T0=$SECONDS

# This run will (re)establish the stamp; don't leave a stale one behind if it fails.
rm -f "$SYSROOT/.stamp"
mkdir -p "$SYSROOT/include" "$SYSROOT/lib" "$SRC"

# --- kernel headers --------------------------------------------------------------------
# Cheap, so always rebuilt (atomically) — also repairs a half-made folder.
KSRC_ASM=/usr/include/x86_64-linux-gnu/asm
for d in /usr/include/linux "$KSRC_ASM" /usr/include/asm-generic /usr/include/mtd; do
    [ -d "$d" ] || die "$d missing (package linux-libc-dev) — run make deps"
done
rm -rf "$KH.tmp"
mkdir "$KH.tmp"
ln -s /usr/include/linux       "$KH.tmp/linux"
ln -s "$KSRC_ASM"              "$KH.tmp/asm"
ln -s /usr/include/asm-generic "$KH.tmp/asm-generic"
ln -s /usr/include/mtd         "$KH.tmp/mtd"
rm -rf "$KH"
mv "$KH.tmp" "$KH"
log "kernel headers: $KH -> linux, asm ($KSRC_ASM), asm-generic, mtd"

# --- sources ---------------------------------------------------------------------------
# fetch_source NAME PKG[=VERSION]: download into $SRC/dl-NAME (once), unpack fresh into
# $SRC/NAME with Debian's patches applied. Each component's build sets LOGF (a local that
# the functions it calls see), $SRC/NAME.log: run_logged and apt_source write there.
fetch_source() {
    local name=$1 pkg=$2 dl=$SRC/dl-$1
    apt_source "$pkg" "$dl"
    local dsc
    dsc=$(find "$dl" -maxdepth 1 -name '*.dsc' | head -n 1)
    [ -n "$dsc" ] || die "$name: no .dsc in $dl (remove it and retry)"
    rm -rf "${SRC:?}/$name"
    log "$name: unpacking $(basename "$dsc")"
    # dpkg-source verifies checksums; it cannot verify the uploader's signature without
    # debian-keyring (harmless warning in the log: apt already checked the files against
    # the signed archive index).
    run_logged dpkg-source -x "$dsc" "$SRC/$name"
}

# component_done NAME / mark_done NAME — per-component stamps inside the sysroot. A stamp
# holds a fingerprint of this script and its settings, so editing the script (which is
# what makes the Makefile call it again) or changing an override rebuilds everything.
FINGERPRINT=$( { sha256sum <"${BASH_SOURCE[0]}"
                 printf '%s\n' "$MUSLCC" "$LIBS_CFLAGS" "$ZLIB_CFLAGS" "$ZLIB_SRC" "$PCI_SRC" "$PCI_IDSDIR"
                 "$MUSLCC" -dumpversion; } | sha256sum | cut -d' ' -f1 )
component_done() { [ "$(cat "$SYSROOT/.done-$1" 2>/dev/null)" = "$FINGERPRINT" ]; }
mark_done()      { printf '%s\n' "$FINGERPRINT" >"$SYSROOT/.done-$1"; }

# --- zlib ------------------------------------------------------------------------------
build_zlib() {
    local t=$SECONDS LOGF=$SRC/zlib.log
    rm -f "$SYSROOT/lib/libz.a" "$SYSROOT/include/zlib.h" "$SYSROOT/include/zconf.h" "$LOGF"
    fetch_source zlib "$ZLIB_SRC"
    log "zlib: configure --static && make libz.a (CC=$MUSLCC, $LIBS_CFLAGS $ZLIB_CFLAGS)"
    (
        cd "$SRC/zlib"
        run_logged env CC="$MUSLCC" CFLAGS="$LIBS_CFLAGS $ZLIB_CFLAGS" \
            ./configure --static --prefix="$SYSROOT"
        run_logged make -j"$JOBS" libz.a
        install -m 644 libz.a "$SYSROOT/lib/"
        install -m 644 zlib.h zconf.h "$SYSROOT/include/"
    )
    mark_done zlib
    log "zlib: done in $((SECONDS - t)) s, libz.a $(stat -c %s "$SYSROOT/lib/libz.a") bytes"
}

# --- libpci (pciutils) -----------------------------------------------------------------
# libpci's Linux back end includes <asm/byteorder.h> (lib/sysdep.h, not installed), so
# its build needs the kernel headers; the installed pci/*.h do not.
build_libpci() {
    local t=$SECONDS LOGF=$SRC/pciutils.log
    rm -rf "$SYSROOT/include/pci" "$SYSROOT/lib/libpci.a" "$SYSROOT/lib/pkgconfig/libpci.pc" "$LOGF"
    fetch_source pciutils "$PCI_SRC"
    # musl fix: lib/pread.h only trusts glibc to have pread()/pwrite(); on anything else
    # it falls back to lseek()+read() glue and defines PCI_HAVE_DO_READ, which makes the
    # sysfs back end's pci_read_vpd() a stub that always fails. musl has pread/pwrite,
    # so take the "libc has it" branch for non-glibc Linux too.
    local pread_h=$SRC/pciutils/lib/pread.h
    local old='#if defined(__GLIBC__) && __GLIBC__ == 2 && __GLIBC_MINOR__ > 0'
    local new='#if (defined(__GLIBC__) && __GLIBC__ == 2 && __GLIBC_MINOR__ > 0) || (defined(__linux__) && !defined(__GLIBC__))'
    grep -qxF "$old" "$pread_h" \
        || die "pciutils: lib/pread.h changed upstream; review the musl pread patch in $0"
    awk -v old="$old" -v new="$new" '$0 == old { $0 = new } { print }' "$pread_h" >"$pread_h.new"
    mv "$pread_h.new" "$pread_h"
    log "pciutils: patched lib/pread.h to use musl's pread()/pwrite() (keeps pci_read_vpd working)"
    # Only the sysfs back end: cxflash and lspci reach cards through /sys/bus/pci alone
    # (dev/pci_enum.c sets PCI_ACCESS_SYS_BUS_PCI). /proc/bus/pci, I/O ports, /dev/mem
    # and dump files were 9 KB of the static cxflash that nothing calls.
    local cfg_h=$SRC/pciutils/lib/config.h pm
    run_logged make -C "$SRC/pciutils" CC="$MUSLCC" \
        ZLIB=no DNS=no SHARED=no LIBKMOD=no HWDB=no IDSDIR="$PCI_IDSDIR" lib/config.h
    grep -qxF '#define PCI_HAVE_PM_LINUX_SYSFS' "$cfg_h" \
        || die "pciutils: lib/config.h has no sysfs back end; review the back-end trim in $0"
    for pm in LINUX_PROC MMIO_CONF INTEL_CONF DUMP; do
        sed -i "/^#define PCI_HAVE_PM_${pm}\$/d" "$cfg_h"
    done
    [ "$(grep -c '^#define PCI_HAVE_PM_' "$cfg_h")" = 1 ] \
        || die "pciutils: lib/config.h still names other back ends than sysfs; review the trim in $0"
    log "pciutils: lib/config.h trimmed to the sysfs back end"
    log "pciutils: make install-lib (CC=$MUSLCC ZLIB=no DNS=no SHARED=no LIBKMOD=no HWDB=no, ids in $PCI_IDSDIR)"
    run_logged make -C "$SRC/pciutils" -j"$JOBS" \
        CC="$MUSLCC" OPT="$LIBS_CFLAGS -isystem $KH" \
        ZLIB=no DNS=no SHARED=no LIBKMOD=no HWDB=no \
        DESTDIR="$SYSROOT" PREFIX=/ INCDIR=/include LIBDIR=/lib IDSDIR="$PCI_IDSDIR" \
        install-lib
    # lspci for the rescue image (it names the card from the image's trimmed pci.ids).
    run_logged make -C "$SRC/pciutils" -j"$JOBS" \
        CC="$MUSLCC" OPT="$LIBS_CFLAGS -isystem $KH" LDFLAGS="-static -Wl,--gc-sections -s" \
        ZLIB=no DNS=no SHARED=no LIBKMOD=no HWDB=no IDSDIR="$PCI_IDSDIR" lspci
    install -D -m 755 "$SRC/pciutils/lspci" "$SYSROOT/bin/lspci"
    # The full pci.ids of the same source; the image build trims it to what it needs.
    install -D -m 644 "$SRC/pciutils/pci.ids" "$SYSROOT/share/pci.ids"
    if [ ! -f "$SYSROOT/include/pci/pci.h" ] || [ ! -f "$SYSROOT/lib/libpci.a" ]; then
        die "pciutils: install-lib did not produce pci/pci.h and libpci.a (see $LOGF)"
    fi
    # Make the installed pkg-config file point at the sysroot rather than "/".
    sed -i "s|^prefix=.*|prefix=$SYSROOT|; s|^includedir=.*|includedir=\${prefix}/include|; s|^libdir=.*|libdir=\${prefix}/lib|" \
        "$SYSROOT/lib/pkgconfig/libpci.pc"
    # The pread patch must have taken effect: the sysfs back end calls pread().
    nm "$SRC/pciutils/lib/sysfs.o" | grep -qE '^ +U pread$' \
        || die "pciutils: sysfs.o does not use pread() — the musl pread patch did not apply"
    mark_done pciutils
    log "pciutils: done in $((SECONDS - t)) s, libpci.a $(stat -c %s "$SYSROOT/lib/libpci.a") bytes"
}

if component_done zlib; then log "zlib: already built"; else build_zlib; fi
if component_done pciutils; then log "pciutils: already built"; else build_libpci; fi

touch "$SYSROOT/.stamp"
log "sysroot ready: $SYSROOT ($((SECONDS - T0)) s)"
