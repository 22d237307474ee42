# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/tftp_wire.py — a TFTP client written from RFC 1350, small enough to send what a test
needs by hand: an upload, a download, and the late second copy of an upload's write request
that BusyBox's tftp sends when the server has not answered within 100 ms (TFTP_TIMEOUT_MS,
networking/tftp.c in BusyBox 1.35). A test runs it inside a node's network namespace:

    python3 tftp_wire.py SERVER put LOCAL REMOTE
    python3 tftp_wire.py SERVER get REMOTE LOCAL
    python3 tftp_wire.py SERVER late REMOTE

late: the write request of an upload of REMOTE alone, as its delayed copy reaches a busy
server after the upload has finished (and after the node read it back); nothing follows it.

Prints the server's answer in one line ("put ok", "get ok", "ack" when it took a late copy for
a new upload, "error N: MESSAGE", "no answer"); exit 0 when the transfer succeeded (late:
when the server acknowledged it), 1 otherwise, 2 usage."""
import socket
import struct
import sys

RRQ, WRQ, DATA, ACK, ERROR = 1, 2, 3, 4, 5    # RFC 1350 opcodes
BLOCK = 512                                   # RFC 1350: no blksize option asked for
PORT = 69
WAIT = 2.0                                    # s for each answer


def request(op, name):
    return struct.pack("!H", op) + name.encode() + b"\0octet\0"


def answer(sock):
    """(opcode, block or error code, rest, peer), or None after WAIT seconds."""
    try:
        pkt, peer = sock.recvfrom(4 + BLOCK)
    except socket.timeout:
        return None
    op, num = struct.unpack("!HH", pkt[:4])
    return op, num, pkt[4:], peer


def said(a):
    if a is None:
        return "no answer"
    if a[0] == ERROR:
        msg = a[2].rstrip(b"\0").decode(errors="replace")
        return f"error {a[1]}: {msg}"
    return {ACK: "ack", DATA: "data"}.get(a[0], f"opcode {a[0]}")


def late(server, remote):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(WAIT)
    s.sendto(request(WRQ, remote), (server, PORT))
    a = answer(s)
    print(said(a))
    return 0 if a and a[0] == ACK else 1


def put(server, data, remote):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(WAIT)
    s.sendto(request(WRQ, remote), (server, PORT))
    a = answer(s)
    if a is None or a[0] != ACK or a[1] != 0:
        print(said(a))
        return 1
    peer, block, off = a[3], 1, 0
    while True:
        chunk = data[off:off + BLOCK]
        s.sendto(struct.pack("!HH", DATA, block & 0xFFFF) + chunk, peer)
        a = answer(s)
        if a is None or a[0] != ACK or a[1] != block & 0xFFFF:
            print(said(a))
            return 1
        if len(chunk) < BLOCK:
            break
        off, block = off + BLOCK, block + 1
    print("put ok")
    return 0


def get(server, remote):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(WAIT)
    s.sendto(request(RRQ, remote), (server, PORT))
    out, block = b"", 1
    while True:
        a = answer(s)
        if a is None or a[0] != DATA or a[1] != block & 0xFFFF:
            print(said(a))
            return None
        out += a[2]
        s.sendto(struct.pack("!HH", ACK, block & 0xFFFF), a[3])
        if len(a[2]) < BLOCK:
            print("get ok")
            return out
        block += 1


def main(argv):
    if len(argv) == 4 and argv[1] == "put":
        with open(argv[2], "rb") as f:
            return put(argv[0], f.read(), argv[3])
    if len(argv) == 3 and argv[1] == "late":
        return late(argv[0], argv[2])
    if len(argv) == 4 and argv[1] == "get":
        data = get(argv[0], argv[2])
        if data is None:
            return 1
        with open(argv[3], "wb") as f:
            f.write(data)
        return 0
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
