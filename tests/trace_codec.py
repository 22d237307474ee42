# SPDX-License-Identifier: GPL-2.0-or-later
"""A third reader (and a writer) of cxflash's trace format, written from docs/traces.md
for the tests: it finds accesses by meaning (the read of
a register, a flash dword) independently of cxflash and cxsim, and writes edited traces.

The writer uses none of the format's shortcuts (every offset and value explicit,
times as deltas), which the format allows: a reader that only understands cxflash's own
choices fails on an edited trace."""
import gzip
import zlib

KINDS = ["cfg_read", "cfg_write", "mem_read", "mem_write", "sleep", "note"]
MAGIC = b"CXTRACE 1\n"


def _varint(buf, i):
    v = shift = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def _put_varint(v):
    out = bytearray()
    while True:
        out.append((v & 0x7F) | (0x80 if v > 0x7F else 0))
        v >>= 7
        if not v:
            return bytes(out)


def decompress(data):
    """What zlib gives of a possibly cut-short gzip stream."""
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    return d.decompress(data)


def parse(data):
    """(header dict, [record dict]) of a trace's bytes (compressed or not)."""
    raw = decompress(data) if data[:2] == b"\x1f\x8b" else data
    assert raw.startswith(MAGIC), "not a cxflash trace"
    end = raw.index(b"\n\n", len(MAGIC) - 1) if not raw[len(MAGIC):].startswith(b"\n") else len(MAGIC) - 1
    header = dict(line.split("=", 1) for line in raw[len(MAGIC):end + 1].decode().splitlines() if line)
    i, recs, t = end + 2, [], 0
    last_off, last_val = [0, 0], [0] * 6
    n_access = 0
    while i < len(raw):
        try:
            rec, i, t = _record(raw, i, t, last_off, last_val)
        except IndexError:
            break  # cut short inside a record
        if rec["kind"] in KINDS[:4]:
            n_access += 1
            rec["n"] = n_access
        recs.append(rec)
    return header, recs


def _record(raw, i, t, last_off, last_val):
    tag = raw[i]
    i += 1
    kind = KINDS[tag & 7]
    rec = {"kind": kind, "failed": bool(tag & 8)}
    if tag & 0x80:
        dt, i = _varint(raw, i)
        t += dt
    rec["t"] = t
    if kind == "note":
        n, i = _varint(raw, i)
        rec["text"] = raw[i:i + n].decode()
        if len(rec["text"]) != n:
            raise IndexError
        return rec, i + n, t
    if kind != "sleep":
        space = kind.startswith("mem")
        if not tag & 0x10:
            z, i = _varint(raw, i)
            last_off[space] += -((z + 1) >> 1) if z & 1 else z >> 1
            last_off[space] &= 0xFFFFFFFF
        rec["off"] = last_off[space]
    mode = (tag >> 5) & 3
    if mode == 1:
        rec["val"], i = _varint(raw, i)
    elif mode == 2:
        if i + 4 > len(raw):
            raise IndexError
        rec["val"] = int.from_bytes(raw[i:i + 4], "little")
        i += 4
    else:
        rec["val"] = last_val[tag & 7]
    last_val[tag & 7] = rec["val"]
    return rec, i, t


def encode(header, recs):
    """A gzip trace of these records, every field explicit."""
    out = bytearray(MAGIC + "".join(f"{k}={v}\n" for k, v in header.items()).encode() + b"\n")
    last_off, t = [0, 0], 0
    for r in recs:
        kind = KINDS.index(r["kind"])
        dt = r["t"] - t
        t = r["t"]
        body = _put_varint(dt) if dt else b""
        tag = kind | (0x80 if dt else 0)
        if r["kind"] == "note":
            text = r["text"].encode()
            out += bytes([tag]) + body + _put_varint(len(text)) + text
            continue
        if r["kind"] != "sleep":
            space = r["kind"].startswith("mem")
            d = r["off"] - last_off[space]
            body += _put_varint(d << 1 if d >= 0 else ((-d) << 1) - 1)
            last_off[space] = r["off"]
        tag |= 0x08 if r["failed"] else 0
        tag |= 2 << 5
        out += bytes([tag]) + body + r["val"].to_bytes(4, "little")
    return gzip.compress(bytes(out))


def window_reads(recs, addr):
    """The config reads of 0x5c that read crspace addr through the 0x58/0x5c window
    (hw-access.md §2.3: write the address to 0x58, read the data at 0x5c)."""
    found, cur = [], None
    for r in recs:
        if r["kind"] == "cfg_write" and r["off"] == 0x58:
            cur = r["val"]
        elif r["kind"] == "cfg_read" and r["off"] == 0x5C and cur == addr:
            found.append(r)
    return found
