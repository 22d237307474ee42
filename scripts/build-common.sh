# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/build-common.sh — sourced, not run: what the build scripts share. The script sets
# BUILD_NAME, the prefix of its messages, then sources this file.
#
#   log MSG...               "BUILD_NAME: MSG" on standard output
#   die MSG...               "BUILD_NAME: error: MSG" on standard error, and exit 1
#   build_dir_arg "$@"       the script's one argument, BUILD_DIR; the usage line and exit 2
#                            without it
#   run_logged CMD...        CMD with its output appended to the file $LOGF; when it fails,
#                            the last lines of that file on standard error, and exit 1
#   apt_source PKG DL        `apt-get source --download-only PKG` into the folder DL, once: a
#                            whole download leaves DL/.complete, and a folder without it is
#                            fetched again from scratch. apt's output goes to $LOGF.
#
# Nothing here changes what a script builds, so the scripts' cache keys and stamps (which
# hash the script itself) leave this file out.

log() { printf '%s: %s\n' "$BUILD_NAME" "$*"; }
die() { printf '%s: error: %s\n' "$BUILD_NAME" "$*" >&2; exit 1; }

build_dir_arg() {
    if [ $# -ne 1 ] || [ -z "$1" ]; then
        echo "usage: $0 BUILD_DIR" >&2
        exit 2
    fi
}

run_logged() {
    if ! "$@" >>"$LOGF" 2>&1; then
        printf '%s: error: command failed: %s\n' "$BUILD_NAME" "$*" >&2
        printf '%s: last lines of %s:\n' "$BUILD_NAME" "$LOGF" >&2
        tail -n 25 "$LOGF" | sed 's/^/    /' >&2
        exit 1
    fi
}

apt_source() {
    local pkg=$1 dl=$2
    local -a aptopts=()
    # As root apt cannot drop to the _apt sandbox user in a root-owned dir; say so
    # explicitly instead of getting a warning. Downloads are still hash-checked.
    [ "$(id -u)" -eq 0 ] && aptopts=(-o APT::Sandbox::User=root)
    [ -f "$dl/.complete" ] && return 0
    rm -rf "$dl"
    mkdir -p "$dl"
    log "apt-get source --download-only $pkg"
    if ! (cd "$dl" && apt-get "${aptopts[@]}" source --download-only "$pkg") >>"$LOGF" 2>&1; then
        tail -n 15 "$LOGF" | sed 's/^/    /' >&2
        if grep -q "deb-src" "$LOGF"; then
            die "apt-get source $pkg: no deb-src source configured — run make deps"
        fi
        die "apt-get source $pkg failed (see $LOGF) — run make deps, check network to deb.debian.org"
    fi
    touch "$dl/.complete"
}
