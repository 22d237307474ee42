#!/usr/bin/env bash
# scripts/build-kernel.sh BUILD_DIR — the rescue kernel and the initramfs archiver.
#
# Produces
#   BUILD_DIR/kernel/bzImage        x86-64 bzImage (xz), everything built in, EFI stub
#   BUILD_DIR/kernel/config         its final .config
#   BUILD_DIR/kernel/gen_init_cpio  the kernel's usr/gen_init_cpio.c built with the host gcc;
#                                   builds the initramfs from a list file, without root
#   BUILD_DIR/kernel/System.map     the kernel's symbols (tests/test_nics.py: drivers built in)
#   BUILD_DIR/kernel/modules.builtin.modinfo
#                                   the built-in drivers' MODULE_INFO strings, NUL-separated;
#                                   its "DRIVER.firmware=FILE" entries are the firmware files
#                                   the drivers ask for (scripts/nic-firmware.sh)
#
# How: Debian's linux-source-6.1 (/usr/src/linux-source-6.1.tar.xz) is unpacked fresh into
# BUILD_DIR/src/linux (kept afterwards; log: BUILD_DIR/src/kernel.log), then
#   make tinyconfig; scripts/kconfig/merge_config.sh -m .config kernel-config/*.config;
#   make olddefconfig
# and every "CONFIG_X=..." / "# CONFIG_X is not set" line of the fragment(s) must have
# survived olddefconfig (else: stop, listing them), then make bzImage.
#
# Cache: the five files are kept outside the clone in $CXR_CACHE (default
# /var/cache/cxrescue, else $HOME/.cache/cxrescue when that is not writable) as
# kernel-<key>/, where <key> hashes this script, the fragments, the installed
# linux-source-6.1 package version, and the host gcc and binutils versions. An entry is
# stored atomically (temporary folder + rename) and checked against its SHA256SUMS before
# use; a hit installs the files without unpacking or building anything.
#
# Reproducible: KBUILD_BUILD_TIMESTAMP is the date of the source package's newest
# changelog entry, KBUILD_BUILD_USER/HOST are "cxrescue", KBUILD_BUILD_VERSION is 1.
#
# Environment overrides:
#   CXR_CACHE          cache folder (see above); CXR_CACHE=off builds without the cache
#   KERNEL_FRAGMENTS   space-separated fragment files (default: kernel-config/*.config, sorted)
#   JOBS               parallel make jobs (default: nproc)
set -euo pipefail

BUILD_NAME=kernel
# shellcheck source=build-common.sh
. "$(dirname "${BASH_SOURCE[0]}")/build-common.sh"
build_dir_arg "$@"

KPKG=linux-source-6.1
KTAR=/usr/src/$KPKG.tar.xz
KCC=gcc
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
SELF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
ROOT=$(cd "$(dirname "$SELF")/.." && pwd)
T0=$EPOCHREALTIME

# Seconds since $1 (an $EPOCHREALTIME), one decimal.
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

# The parent make's settings must not reach the kernel's make: variables given on its
# command line (B=..., V=...) travel in MAKEFLAGS, and so does its jobserver.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS
unset O KBUILD_OUTPUT CROSS_COMPILE LLVM CC KCFLAGS KCPPFLAGS KAFLAGS KBUILD_EXTMOD \
      CFLAGS CPPFLAGS LDFLAGS INSTALL_PATH
export ARCH=x86_64 LC_ALL=C TZ=UTC

# --- prerequisites (installed by `make deps` / scripts/deps.sh) ------------------------
KVER=$(dpkg-query -W -f='${db:Status-Status} ${Version}' "$KPKG" 2>/dev/null || true)
case $KVER in
    "installed "*) KVER=${KVER#installed } ;;
    *) die "$KPKG is not installed — run make deps" ;;
esac
[ -f "$KTAR" ] || die "$KTAR missing (package $KPKG) — run make deps"
for tool in make "$KCC" ld tar xz flex bison bc perl sha256sum flock; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool not found — run make deps"
done
[ -f /usr/include/gelf.h ] || die "libelf headers missing (package libelf-dev, objtool needs them) — run make deps"
[ -f /usr/include/openssl/opensslv.h ] || die "OpenSSL headers missing (package libssl-dev) — run make deps"

if [ -n "${KERNEL_FRAGMENTS:-}" ]; then
    read -r -a FRAGS <<<"$KERNEL_FRAGMENTS"
else
    FRAGS=()
    while IFS= read -r f; do FRAGS+=("$f"); done < <(printf '%s\n' "$ROOT"/kernel-config/*.config | sort)
fi
[ ${#FRAGS[@]} -gt 0 ] || die "no kernel config fragment given"
for i in "${!FRAGS[@]}"; do
    [ -f "${FRAGS[$i]}" ] || die "config fragment ${FRAGS[$i]} not found"
    FRAGS[$i]=$(cd "$(dirname "${FRAGS[$i]}")" && pwd)/$(basename "${FRAGS[$i]}")
done

mkdir -p "$1"
B=$(cd "$1" && pwd)
OUT=$B/kernel
SRC=$B/src
TREE=$SRC/linux
LOGF=$SRC/kernel.log
mkdir -p "$OUT" "$SRC"

# --- cache key -------------------------------------------------------------------------
INPUTS=$( echo "cxrescue kernel cache v1"
          echo "script $(sha256sum <"$SELF" | cut -d' ' -f1)"
          for f in "${FRAGS[@]}"; do
              echo "fragment $(basename "$f") $(sha256sum <"$f" | cut -d' ' -f1)"
          done
          echo "source $KPKG $KVER"
          echo "gcc $("$KCC" --version | sed -n 1p)"
          echo "binutils $(ld --version | sed -n 1p)" )
KEY=$(printf '%s\n' "$INPUTS" | sha256sum | cut -c1-20)

CACHE=
pick_cache() {
    local c
    [ "${CXR_CACHE:-}" = off ] && return 0
    for c in "${CXR_CACHE:-/var/cache/cxrescue}" "${HOME:-/nonexistent}/.cache/cxrescue"; do
        if mkdir -p "$c" 2>/dev/null && [ -w "$c" ] && [ -x "$c" ]; then
            CACHE=$(cd "$c" && pwd)
            return 0
        fi
        log "cache folder $c is not writable"
    done
    log "no writable cache folder: building without the cache"
}
pick_cache

FILES=(bzImage config gen_init_cpio System.map modules.builtin.modinfo)

# install_from DIR: copy the five files into BUILD_DIR/kernel (each via a temporary
# name + rename, so a reader never sees a half-written file).
install_from() {
    local f
    for f in "${FILES[@]}"; do
        cp "$1/$f" "$OUT/.$f.tmp"
        mv -f "$OUT/.$f.tmp" "$OUT/$f"
    done
    chmod 755 "$OUT/gen_init_cpio"
    chmod 644 "$OUT/bzImage" "$OUT/config" "$OUT/System.map" "$OUT/modules.builtin.modinfo"
}

report() {
    log "bzImage: $OUT/bzImage, $(stat -c %s "$OUT/bzImage") bytes ($(awk -v s="$(stat -c %s "$OUT/bzImage")" 'BEGIN { printf "%.2f", s / 1048576 }') MiB)"
}

if [ -n "$CACHE" ]; then
    ENTRY=$CACHE/kernel-$KEY
    if [ -d "$ENTRY" ]; then
        if (cd "$ENTRY" && sha256sum --quiet --strict -c SHA256SUMS) >/dev/null 2>&1; then
            install_from "$ENTRY"
            log "cache hit: $ENTRY -> $OUT (${FILES[*]}) in $(since "$T0") s"
            report
            exit 0
        fi
        log "cache entry $ENTRY is damaged: removing it and rebuilding"
        rm -rf "$ENTRY"
    fi
    log "cache miss: key $KEY (entry $ENTRY)"
fi

# --- build -----------------------------------------------------------------------------
# One build per BUILD_DIR at a time.
exec 9>"$SRC/.kernel.lock"
flock -n 9 || die "another build-kernel.sh is running for $B"

rm -f "$LOGF" "${FILES[@]/#/$OUT/}"
printf '%s\n' "$INPUTS" >"$LOGF"

# Fixed build identity (reproducible builds): the source package's own date.
CHANGELOG=/usr/share/doc/$KPKG/changelog.Debian.gz
PKGDATE=
if [ -f "$CHANGELOG" ]; then
    PKGDATE=$(zcat "$CHANGELOG" | sed -n 's/^ -- .*>  \(.*\)$/\1/p;T;q') || true  # zcat: SIGPIPE
fi
if [ -n "$PKGDATE" ] && date -d "$PKGDATE" >/dev/null 2>&1; then
    EPOCH=$(date -d "$PKGDATE" +%s)
else
    EPOCH=$(stat -c %Y "$KTAR")   # dpkg keeps the packaged mtime
fi
export KBUILD_BUILD_TIMESTAMP
KBUILD_BUILD_TIMESTAMP=$(date -u -d "@$EPOCH" '+%a %b %e %H:%M:%S UTC %Y')
export KBUILD_BUILD_USER=cxrescue KBUILD_BUILD_HOST=cxrescue KBUILD_BUILD_VERSION=1
export SOURCE_DATE_EPOCH=$EPOCH

t=$EPOCHREALTIME
rm -rf "$TREE"
mkdir -p "$TREE"
log "unpacking $KTAR ($KPKG $KVER) into $TREE"
run_logged tar -xJf "$KTAR" -C "$TREE" --strip-components=1
[ -f "$TREE/Makefile" ] && [ -f "$TREE/usr/gen_init_cpio.c" ] || die "$KTAR did not unpack into a kernel tree"
log "unpacked in $(since "$t") s"

t=$EPOCHREALTIME
log "config: tinyconfig + $(printf '%s ' "${FRAGS[@]#"$ROOT"/}")+ olddefconfig"
run_logged make -C "$TREE" tinyconfig
run_logged env -C "$TREE" scripts/kconfig/merge_config.sh -m .config "${FRAGS[@]}"
run_logged make -C "$TREE" olddefconfig

# Every line of the fragments must have survived olddefconfig (later fragments override
# earlier ones, as in merge_config.sh). "is not set" is satisfied by a symbol that is off
# or absent (invisible); anything else must appear with exactly the fragment's value.
declare -A want=() have=()
for f in "${FRAGS[@]}"; do
    n=0
    while IFS= read -r line || [ -n "$line" ]; do
        n=$((n + 1))
        if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
            want[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
        elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
            want[${BASH_REMATCH[1]}]=n
        elif [[ $line =~ CONFIG_ && ! $line =~ ^[[:space:]]*# ]] || [[ $line =~ ^#[[:space:]]*CONFIG_ ]]; then
            die "$f:$n: neither CONFIG_X=value nor '# CONFIG_X is not set': $line"
        fi
    done <"$f"
done
while IFS= read -r line; do
    if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
        have[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
    fi
done <"$TREE/.config"
lost=()
for sym in $(printf '%s\n' "${!want[@]}" | sort); do
    w=${want[$sym]} h=${have[$sym]:-n}
    if [ "$w" = n ]; then
        [ "$h" = n ] || lost+=("$sym: wanted not set, got $h")
    elif [ "$h" != "$w" ]; then
        [ -n "${have[$sym]:-}" ] || h="not set or unknown"
        lost+=("$sym: wanted $w, got $h")
    fi
done
if [ ${#lost[@]} -gt 0 ]; then
    printf 'kernel: error: %d fragment line(s) did not survive olddefconfig (a missing dependency, a\n' "${#lost[@]}" >&2
    printf 'kernel: error: select/default from another option, or a symbol this kernel does not have):\n' >&2
    printf '    %s\n' "${lost[@]}" >&2
    die "fix the fragment(s); the merged config is $TREE/.config"
fi
log "config: all ${#want[@]} fragment settings survived olddefconfig ($(since "$t") s)"

t=$EPOCHREALTIME
log "make -j$JOBS bzImage (log: $LOGF; about 8 minutes on 2 cores)"
run_logged make -C "$TREE" -j"$JOBS" bzImage
BZ=$TREE/arch/x86/boot/bzImage
[ -f "$BZ" ] || die "make bzImage produced no $BZ"
[ "$(dd if="$BZ" bs=1 skip=514 count=4 status=none)" = HdrS ] \
    || die "$BZ has no x86 boot header (HdrS at 0x202)"
log "bzImage built in $(since "$t") s"

t=$EPOCHREALTIME
run_logged "$KCC" -O2 -Wall -o "$SRC/gen_init_cpio" "$TREE/usr/gen_init_cpio.c"
# A smoke test: a one-directory archive must come out as newc ("070701").
printf 'dir /dev 0755 0 0\n' >"$SRC/gen_init_cpio.list"
[ "$("$SRC/gen_init_cpio" -t 0 "$SRC/gen_init_cpio.list" 2>>"$LOGF" | head -c 6)" = 070701 ] \
    || die "gen_init_cpio does not produce a newc archive (see $LOGF)"
log "gen_init_cpio built in $(since "$t") s"

STAGE=$SRC/kernel-out
rm -rf "$STAGE"
mkdir -p "$STAGE"
cp "$BZ" "$STAGE/bzImage"
cp "$TREE/.config" "$STAGE/config"
cp "$SRC/gen_init_cpio" "$STAGE/gen_init_cpio"
cp "$TREE/System.map" "$STAGE/System.map"
cp "$TREE/modules.builtin.modinfo" "$STAGE/modules.builtin.modinfo"
(cd "$STAGE" && sha256sum "${FILES[@]}" >SHA256SUMS)
install_from "$STAGE"

if [ -n "$CACHE" ]; then
    tmp=$(mktemp -d "$CACHE/.kernel-$KEY.XXXXXX")
    cp -p "$STAGE"/* "$tmp/"
    printf '%s\n' "$INPUTS" >"$tmp/inputs"
    chmod 755 "$tmp"
    if mv -T "$tmp" "$ENTRY" 2>/dev/null; then
        log "cached as $ENTRY"
    else
        rm -rf "$tmp"
        log "cache entry $ENTRY appeared meanwhile (a parallel build); kept it"
    fi
fi
rm -rf "$STAGE"

log "done in $(since "$T0") s"
report
