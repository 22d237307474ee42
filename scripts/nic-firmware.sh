#!/usr/bin/env bash
# scripts/nic-firmware.sh BUILD_DIR — the NIC firmware files the image carries in
# /lib/firmware (bnx2, bnx2x, r8169), from Debian's firmware packages.
#
# Produces
#   BUILD_DIR/nic-firmware/lib/firmware/...   exactly the files rootfs/nic-firmware.txt lists
#   BUILD_DIR/nic-firmware/copyright          the packages' copyright notices for those files
#                                             (their licences ask that the notice go with
#                                             them): the header, the "Files:" paragraphs of
#                                             the folders shipped and the licences they name
#   BUILD_DIR/nic-firmware/.stamp             written last: the tree is whole and checked
#
# The packages (firmware-bnx2, firmware-bnx2x, firmware-realtek) are in Debian's
# non-free-firmware component, which the machine's own apt sources need not enable. So
# apt-get runs on a private sources list and private indexes, inside
# BUILD_DIR/nic-firmware/apt/, and the system's apt configuration is not touched:
#   apt-get -o Dir::Etc::sourcelist=/dev/null -o Dir::Etc::sourceparts=DIR/sources
#           -o Dir::State::Lists=DIR/lists -o Dir::Cache=DIR/cache update
#   apt-get ... download PACKAGE=VERSION
# apt checks each .deb against the signed indexes (Debian's archive key); this script then
# checks it against the SHA-256 pinned in rootfs/nic-firmware.txt, unpacks it with dpkg-deb
# into a scratch folder, and copies out only the listed files, each checked against its
# own pinned SHA-256. Anything that differs stops the build. Nothing fetched is committed
# (.gitignore: /build/).
#
# A tree already whole (its stamp newer than this script and the list, every file with its
# hash) is kept as it is: no network; so are .debs already there with their pinned hash.
# CXR_NIC_FIRMWARE=off builds an image without the files (the drivers are still there; bnx2
# and bnx2x ports then stay down, docs/nics.md). NIC_FIRMWARE_LIST=FILE reads another list
# (tests).
set -euo pipefail

SELF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/nic-firmware.sh
ROOT=${SELF%/scripts/nic-firmware.sh}
BUILD_NAME=nic-firmware
# shellcheck source=build-common.sh
. "$ROOT/scripts/build-common.sh"
build_dir_arg "$@"
LIST=${NIC_FIRMWARE_LIST:-$ROOT/rootfs/nic-firmware.txt}
SUITE=bookworm
MIRROR=http://deb.debian.org/debian
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

mkdir -p "$1"
B=$(cd "$1" && pwd)
OUT=$B/nic-firmware
FW=$OUT/lib/firmware
APT=$OUT/apt
LOGF=$OUT/fetch.log
STAMP=$OUT/.stamp

[ -f "$LIST" ] || die "$LIST missing"
mkdir -p "$OUT"

if [ "${CXR_NIC_FIRMWARE:-}" = off ]; then
    rm -rf "$FW"
    mkdir -p "$FW"
    echo "No NIC firmware files on this image (built with CXR_NIC_FIRMWARE=off)." >"$OUT/copyright"
    touch "$STAMP"
    log "CXR_NIC_FIRMWARE=off: no NIC firmware files on the image"
    exit 0
fi

# The list: debs[PACKAGE]="VERSION SHA256"; files: "PACKAGE PATH SHA256" lines.
declare -A debs=()
files=()
n=0
while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    case $line in '' | '#'*) continue ;; esac
    read -r kind a b c extra <<<"$line"
    [ -z "${extra:-}" ] && [ -n "${c:-}" ] && [[ $c =~ ^[0-9a-f]{64}$ ]] ||
        die "$LIST:$n: neither 'deb PACKAGE VERSION SHA256' nor 'file PACKAGE PATH SHA256': $line"
    case $kind in
    deb) debs[$a]="$b $c" ;;
    file)
        case $b in /* | *..* | *[!A-Za-z0-9._/-]*) die "$LIST:$n: not a plain relative path: $b" ;; esac
        files+=("$a $b $c") ;;
    *) die "$LIST:$n: unknown kind '$kind'" ;;
    esac
done <"$LIST"
[ ${#files[@]} -gt 0 ] || die "$LIST lists no file"
for f in "${files[@]}"; do
    read -r pkg _ _ <<<"$f"
    [ -n "${debs[$pkg]:-}" ] || die "$LIST: a file of $pkg, but no 'deb $pkg ...' line"
done

# sha_ok FILE SHA256: the file is there and has that hash.
sha_ok() { [ -f "$1" ] && [ "$(sha256sum <"$1" | cut -d' ' -f1)" = "$2" ]; }

tree_ok() {
    local f pkg path sum
    [ -f "$STAMP" ] && [ "$STAMP" -nt "$LIST" ] && [ "$STAMP" -nt "$SELF" ] && [ -s "$OUT/copyright" ] || return 1
    for f in "${files[@]}"; do
        read -r pkg path sum <<<"$f"
        sha_ok "$FW/$path" "$sum" || return 1
    done
    # Nothing more than the list (a file left from an older list would go on the image).
    [ "$(find "$FW" -type f | wc -l)" -eq ${#files[@]} ]
}
if tree_ok; then
    log "up to date: ${#files[@]} files in $FW"
    exit 0
fi

for tool in apt-get dpkg-deb sha256sum; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool not found"
done
[ -f "$KEYRING" ] || die "$KEYRING missing (package debian-archive-keyring)"

rm -f "$STAMP" "$LOGF"
mkdir -p "$APT/sources" "$APT/lists/partial" "$APT/cache/archives/partial" "$APT/debs"
printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: non-free-firmware\nSigned-By: %s\n' \
    "$MIRROR" "$SUITE" "$KEYRING" >"$APT/sources/cxrescue-nic-firmware.sources"
aptopts=(-o Dir::Etc::sourcelist=/dev/null -o Dir::Etc::sourceparts="$APT/sources"
         -o Dir::State::Lists="$APT/lists" -o Dir::Cache="$APT/cache"
         -o Dir::State::status=/dev/null)
# As root apt cannot drop to its _apt sandbox user in a root-owned folder (as apt_source).
[ "$(id -u)" -eq 0 ] && aptopts+=(-o APT::Sandbox::User=root)

# The .debs already there with their pinned hash are not fetched again.
need=()
for pkg in $(printf '%s\n' "${!debs[@]}" | sort); do
    read -r ver sum <<<"${debs[$pkg]}"
    sha_ok "$APT/debs/${pkg}_${ver}_all.deb" "$sum" || need+=("$pkg=$ver")
done
if [ ${#need[@]} -gt 0 ]; then
    log "apt-get update ($MIRROR $SUITE non-free-firmware, private lists in $APT)"
    run_logged apt-get "${aptopts[@]}" update
    log "apt-get download ${need[*]}"
    (cd "$APT/debs" && apt-get "${aptopts[@]}" download "${need[@]}") >>"$LOGF" 2>&1 ||
        { tail -n 15 "$LOGF" | sed 's/^/    /' >&2; die "apt-get download ${need[*]} failed (see $LOGF): the version pinned in $LIST may have left the archive"; }
fi

rm -rf "$FW" "$OUT/x"
mkdir -p "$FW"
for pkg in $(printf '%s\n' "${!debs[@]}" | sort); do
    read -r ver sum <<<"${debs[$pkg]}"
    deb=$APT/debs/${pkg}_${ver}_all.deb
    sha_ok "$deb" "$sum" || die "$deb: not the SHA-256 pinned in $LIST ($sum)"
    mkdir -p "$OUT/x/$pkg"
    run_logged dpkg-deb -x "$deb" "$OUT/x/$pkg"
done
bytes=0
for f in "${files[@]}"; do
    read -r pkg path sum <<<"$f"
    src=$OUT/x/$pkg/lib/firmware/$path
    [ -f "$src" ] || die "$pkg has no lib/firmware/$path"
    sha_ok "$src" "$sum" || die "$pkg: lib/firmware/$path is not the SHA-256 pinned in $LIST"
    mkdir -p "$(dirname "$FW/$path")"
    cp "$src" "$FW/$path"
    chmod 644 "$FW/$path"
    bytes=$((bytes + $(stat -c %s "$src")))
done
# The copyright notices (Debian's machine-readable format, paragraphs apart by blank lines):
# the first paragraph, each "Files:" paragraph naming a shipped folder, and the standalone
# "License:" paragraphs of the licences those name. Each package's file, once.
folders=$(for f in "${files[@]}"; do read -r _ path _ <<<"$f"; echo "${path%%/*}"; done | sort -u | tr '\n' ' ')
{
    printf 'The copyright notices of the NIC firmware files in /lib/firmware (%s), from the\n' "${folders% }"
    printf 'copyright files of Debian'"'"'s packages'
    for pkg in $(printf '%s\n' "${!debs[@]}" | sort); do read -r ver _ <<<"${debs[$pkg]}"; printf ' %s %s' "$pkg" "$ver"; done
    printf '.\n\n'
} >"$OUT/copyright.head"
for pkg in $(printf '%s\n' "${!debs[@]}" | sort); do
    cat "$OUT/x/$pkg/usr/share/doc/$pkg/copyright"
    echo
done | awk -v folders="$folders" '
    BEGIN { RS = ""; ORS = "\n\n"; n = split(folders, f, " "); for (i = 1; i <= n; i++) want[f[i]] = 1 }
    seen[$0]++ { next }
    NR == 1 { sub(/\nFiles-Excluded:.*/, ""); print; next }
    /^Files:/ {
        split($0, lines, "\n"); k = split(lines[1], g, /[ \t]+/)
        for (i = 2; i <= k; i++) {
            d = g[i]; sub(/\/.*/, "", d)
            if (d in want) {
                print
                if (match($0, /\nLicense: [^\n]+/)) lic[substr($0, RSTART + 10, RLENGTH - 10)] = 1
                next
            }
        }
        next
    }
    /^License: / { keep[++m] = $0 }
    END {
        for (i = 1; i <= m; i++) {
            split(keep[i], lines, "\n"); name = lines[1]; sub(/^License: /, "", name)
            if ((name in lic) && lines[2] != "") print keep[i]
        }
    }
' >"$OUT/copyright.tmp"
grep -q '^Files:' "$OUT/copyright.tmp" || die "no copyright paragraph for $folders in the packages' copyright files"
cat "$OUT/copyright.head" "$OUT/copyright.tmp" >"$OUT/copyright"
rm -f "$OUT/copyright.head" "$OUT/copyright.tmp"
rm -rf "$OUT/x"
touch "$STAMP"
log "${#files[@]} files from ${#debs[@]} packages, $bytes bytes, in $FW"
