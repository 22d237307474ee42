#!/usr/bin/env bash
# scripts/build-qemu.sh BUILD_DIR — Debian's QEMU 7.2 with the simulated Mellanox card.
#
# Produces
#   BUILD_DIR/qemu/qemu-system-x86_64      x86_64 system emulator (TCG, pc and q35, xHCI/EHCI
#                                          + usb-storage, IDE/AHCI, e1000 + user networking,
#                                          serial, qtest) with the `cxsim-pci` device
#                                          (sim/qemu/cxsim-pci.c + the card model sim/core)
# Run it as
#   BUILD_DIR/qemu/qemu-system-x86_64 -L /usr/share/qemu -L /usr/share/seabios \
#       -L /usr/lib/ipxe/qemu ... -device cxsim-pci,flash=STEM.flash
# (firmware comes from Debian's seabios, ipxe-qemu and qemu-system-data packages).
#
# The source is `apt-get source qemu` (downloaded once into BUILD_DIR/src/dl-qemu, unpacked
# with Debian's patches into BUILD_DIR/src/qemu; logs: BUILD_DIR/src/qemu.log). The device
# and the model core are copied into hw/misc/cxsim/ of that tree, with a meson.build listing
# them and sim/qemu/Kconfig appended to hw/misc/Kconfig.
#
# Cache: the binary is kept outside the clone, keyed by a hash of its inputs (this script,
# sim/qemu/*, sim/core/*, the source package version, the compiler version), in
# ${CXR_CACHE:-/var/cache/cxrescue}/qemu-<hash>/ (or $HOME/.cache/cxrescue if that is not
# writable). A hit copies the binary into place; a miss builds — incrementally when
# BUILD_DIR/src/qemu is a configured tree from the same source and script, otherwise from a
# fresh unpack — and stores the result atomically (temp dir + rename).
#
# Environment overrides:
#   QEMU_SRC   source package, may pin a version: qemu=1:7.2+dfsg-7+deb12u18 (default qemu)
#   CXR_CACHE  cache directory (default /var/cache/cxrescue)
#   JOBS       parallel ninja jobs (default: nproc)
set -euo pipefail

BUILD_NAME=build-qemu
# shellcheck source=build-common.sh
. "$(dirname "${BASH_SOURCE[0]}")/build-common.sh"
build_dir_arg "$@"

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCRIPT=$ROOT/scripts/build-qemu.sh
QEMU_SRC=${QEMU_SRC:-qemu}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
T0=$SECONDS

# The configuration: build-notes.md's minimal options, plus slirp for -netdev user and KVM
# (make run uses it where the CPU has vmx/svm). Every
# device we need (pc/q35, xHCI/EHCI, usb-storage, IDE/AHCI, e1000, serial) is a default
# Kconfig device of x86_64-softmmu; TCG is on by default; qtest is always built in.
CONFIGURE_OPTS=(
    --target-list=x86_64-softmmu
    --without-default-features
    --disable-docs
    --disable-werror
    --disable-install-blobs
    --enable-fdt=system
    --enable-slirp
    --enable-kvm
    --disable-debug-info
)

# --- prerequisites (installed by `make deps` / scripts/deps.sh) ------------------------
command -v apt-get >/dev/null 2>&1     || die "apt-get not found — this script expects Debian"
command -v dpkg-source >/dev/null 2>&1 || die "dpkg-source not found (package dpkg-dev) — run make deps"
for tool in ninja:ninja-build meson:meson pkg-config:pkg-config cc:gcc python3:python3; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || die "${tool%%:*} not found (package ${tool#*:}) — run make deps"
done
for pc in glib-2.0:libglib2.0-dev pixman-1:libpixman-1-dev slirp:libslirp-dev; do
    pkg-config --exists "${pc%%:*}" || die "pkg-config cannot find ${pc%%:*} (package ${pc#*:}) — run make deps"
done
[ -f /usr/include/libfdt.h ] || die "libfdt.h missing (package libfdt-dev) — run make deps"

[ -f "$ROOT/sim/qemu/cxsim-pci.c" ] && [ -f "$ROOT/sim/qemu/Kconfig" ] \
    || die "$ROOT/sim/qemu/{cxsim-pci.c,Kconfig} missing"

mkdir -p "$1"
B=$(cd "$1" && pwd)
SRC=$B/src
DL=$SRC/dl-qemu
TREE=$SRC/qemu
LOGF=$SRC/qemu.log
OUT=$B/qemu/qemu-system-x86_64
mkdir -p "$SRC" "$B/qemu"

# --- which source: the version apt would fetch (local package lists, no download) ------
# apt-get source takes the newest version in the deb-src lists unless QEMU_SRC pins one.
SRC_PKG=${QEMU_SRC%%=*}
QEMU_VERSION=
if [[ $QEMU_SRC == *=* ]]; then
    QEMU_VERSION=${QEMU_SRC#*=}
else
    for v in $(apt-cache showsrc --only-source "$SRC_PKG" 2>/dev/null | awk '/^Version:/ { print $2 }'); do
        if [ -z "$QEMU_VERSION" ] || dpkg --compare-versions "$v" gt "$QEMU_VERSION"; then
            QEMU_VERSION=$v
        fi
    done
fi
QEMU_VERSION=${QEMU_VERSION#*:}        # the epoch is not part of the file names
if [ -n "$QEMU_VERSION" ]; then
    DSC_NAME=${SRC_PKG}_${QEMU_VERSION}.dsc
else
    # No deb-src lists: fall back to a download made earlier, if any.
    DSC_NAME=$(find "$DL" -maxdepth 1 -name '*.dsc' -printf '%f\n' 2>/dev/null | head -n 1)
    [ -n "$DSC_NAME" ] || die "apt-cache showsrc $SRC_PKG found nothing: no deb-src configured? — run make deps"
    QEMU_VERSION=${DSC_NAME%.dsc}
    QEMU_VERSION=${QEMU_VERSION#*_}
fi

# --- the cache key ----------------------------------------------------------------------
hash_inputs() {
    {
        printf 'script\n'; sha256sum <"$SCRIPT"
        (cd "$ROOT" && find sim/qemu sim/core -type f ! -name '*~' -print0 | LC_ALL=C sort -z \
            | xargs -0 sha256sum)
        printf 'qemu %s\n' "$QEMU_VERSION"
        cc --version | head -n 1
    } | sha256sum | cut -c1-16
}
KEY=$(hash_inputs)

pick_cache() {
    local d
    for d in "${CXR_CACHE:-/var/cache/cxrescue}" "${HOME:-/root}/.cache/cxrescue"; do
        if mkdir -p "$d" 2>/dev/null && [ -w "$d" ]; then
            printf '%s\n' "$d"
            return 0
        fi
    done
    return 1
}
CACHE=$(pick_cache) || die "no writable cache directory (tried ${CXR_CACHE:-/var/cache/cxrescue}, \$HOME/.cache/cxrescue)"
ENTRY=$CACHE/qemu-$KEY

# The binary must run here (its shared libraries present) and carry the device.
binary_ok() {
    local devices
    devices=$("$1" -machine none -device help 2>/dev/null) && [[ $devices == *'"cxsim-pci"'* ]]
}

# Put a binary in place atomically.
install_out() {
    cp "$1" "$OUT.tmp.$$"
    chmod 755 "$OUT.tmp.$$"
    mv -f "$OUT.tmp.$$" "$OUT"
    printf '%s\n' "$KEY" >"$B/qemu/.key"
}

if [ -x "$OUT" ] && [ "$(cat "$B/qemu/.key" 2>/dev/null)" = "$KEY" ] && binary_ok "$OUT"; then
    log "up to date: $OUT (qemu $QEMU_VERSION, key $KEY) in $((SECONDS - T0)) s"
    exit 0
fi
if [ -f "$ENTRY/qemu-system-x86_64" ]; then
    if binary_ok "$ENTRY/qemu-system-x86_64"; then
        install_out "$ENTRY/qemu-system-x86_64"
        log "cache hit: $ENTRY -> $OUT ($(stat -c %s "$OUT") bytes) in $((SECONDS - T0)) s"
        exit 0
    fi
    log "cache entry $ENTRY does not run here; rebuilding it"
    rm -rf "$ENTRY"
fi
log "cache miss (key $KEY, qemu $QEMU_VERSION): building"

# --- source -----------------------------------------------------------------------------
fetch() {
    # A download of another version than DSC_NAME's is made again.
    [ -f "$DL/$DSC_NAME" ] || rm -f "$DL/.complete"
    apt_source "$QEMU_SRC" "$DL"
    [ -f "$DL/$DSC_NAME" ] || die "apt-get source fetched no $DSC_NAME (see $LOGF)"
}


# Copy the device and the model core into the tree; only changed files are touched, so
# ninja rebuilds only what changed.
sync_sources() {
    local dst=$TREE/hw/misc/cxsim f name list=()
    for f in "$ROOT"/sim/qemu/*.c "$ROOT"/sim/core/*.c "$ROOT"/sim/core/*.h; do
        name=$(basename "$f")
        cmp -s "$f" "$dst/$name" || cp "$f" "$dst/$name"
        case $name in *.c) list+=("$name") ;; esac
    done
    # Copies of files that no longer exist in the clone go.
    for f in "$dst"/*.[ch]; do
        [ -e "$f" ] || continue
        name=$(basename "$f")
        [ -e "$ROOT/sim/qemu/$name" ] || [ -e "$ROOT/sim/core/$name" ] || rm -f "$f"
    done
    {
        printf '# generated by scripts/build-qemu.sh: the cxsim-pci device and the card model\n'
        printf "softmmu_ss.add(when: 'CONFIG_CXSIM_PCI', if_true: files(\n"
        printf "  '%s',\n" "${list[@]}"
        printf '))\n'
    } >"$dst/meson.build.new"
    if cmp -s "$dst/meson.build.new" "$dst/meson.build"; then
        rm -f "$dst/meson.build.new"
    else
        mv -f "$dst/meson.build.new" "$dst/meson.build"
    fi
}


unpack() {
    local t=$SECONDS
    fetch
    rm -rf "$TREE"
    log "unpacking $DSC_NAME (Debian patches applied)"
    # dpkg-source cannot verify the uploader's signature without debian-keyring (a harmless
    # warning in the log): apt already checked the files against the signed archive index.
    run_logged dpkg-source -x "$DL/$DSC_NAME" "$TREE"
    # Glue: hw/misc/cxsim/ (generated meson.build, filled by sync_sources), the Kconfig entry.
    local mb=$TREE/hw/misc/meson.build kc=$TREE/hw/misc/Kconfig
    grep -q "^softmmu_ss.add(when: 'CONFIG_EDU'" "$mb" \
        || die "hw/misc/meson.build changed upstream (no CONFIG_EDU line); review the glue in $0"
    grep -q '^config EDU$' "$kc" || die "hw/misc/Kconfig changed upstream; review the glue in $0"
    mkdir -p "$TREE/hw/misc/cxsim"
    printf "\n# cxrescue: the simulated ConnectX card (scripts/build-qemu.sh)\nsubdir('cxsim')\n" >>"$mb"
    cat "$ROOT/sim/qemu/Kconfig" >>"$kc"
    sync_sources
    log "configure ${CONFIGURE_OPTS[*]}"
    mkdir -p "$TREE/build"
    (cd "$TREE/build" && run_logged ../configure "${CONFIGURE_OPTS[@]}")
    printf '%s\n' "$TREE_ID" >"$TREE/.cxr-tree"
    log "source ready in $((SECONDS - t)) s"
}

# The tree's identity: a configured tree is reused (incremental build) only when it came
# from the same source package, glue (the text of unpack) and configure options.
TREE_ID=$( { printf '%s\n' "$QEMU_VERSION" "${CONFIGURE_OPTS[@]}"; declare -f unpack
             sha256sum <"$ROOT/sim/qemu/Kconfig"; } | sha256sum | cut -c1-16)
if [ "$(cat "$TREE/.cxr-tree" 2>/dev/null)" = "$TREE_ID" ] && [ -f "$TREE/build/build.ninja" ]; then
    log "reusing the configured tree $TREE (incremental build)"
else
    : >"$LOGF"
    unpack
fi
sync_sources

t=$SECONDS
log "ninja -j$JOBS qemu-system-x86_64 (log: $LOGF)"
run_logged ninja -C "$TREE/build" -j"$JOBS" qemu-system-x86_64
BIN=$TREE/build/qemu-system-x86_64
binary_ok "$BIN" || die "$BIN does not list the cxsim-pci device (see $LOGF)"
log "compiled in $((SECONDS - t)) s"

# --- store in the cache (atomically), then put in place ---------------------------------
TMP=$(mktemp -d "$CACHE/.qemu-$KEY.XXXXXX")
cp "$BIN" "$TMP/qemu-system-x86_64"
strip "$TMP/qemu-system-x86_64" 2>/dev/null || true
printf 'qemu %s\nkey %s\nbuilt %s\nconfigure %s\n' "$QEMU_VERSION" "$KEY" "$(date -u +%FT%TZ)" \
    "${CONFIGURE_OPTS[*]}" >"$TMP/INFO"
chmod 755 "$TMP" "$TMP/qemu-system-x86_64"
if ! mv -T "$TMP" "$ENTRY" 2>/dev/null; then
    rm -rf "$TMP" # another build stored the same key first: keep that one
fi
# Keep the three newest entries: older keys are older sources of this clone or another.
find "$CACHE" -maxdepth 1 -name 'qemu-*' -type d -printf '%T@ %p\n' | sort -rn | tail -n +4 \
    | cut -d' ' -f2- | while read -r old; do rm -rf "$old"; done
install_out "$ENTRY/qemu-system-x86_64"
log "built and cached: $ENTRY -> $OUT ($(stat -c %s "$OUT") bytes) in $((SECONDS - T0)) s"
