# SPDX-License-Identifier: GPL-2.0-or-later
"""A node's upload against the real pxe-serve (its in.tftpd and pxe-nodes) in namespaces of the
test's own, then the late second copy of the upload's write request that BusyBox's tftp sends
when the server does not answer within 100 ms: the server refuses it, and every upload the node
checked stays whole: report, log, history and bundle, in uploads/ and once kept; pxe-report
and the node's state still see the report. Then the node's own upload script (the image's
BusyBox and rootfs/overlay/usr/lib/cxrescue/upload in a chroot): a log that grew goes again
as a new version (<name>~1.<ext>), the first stays as it was, and a name another host took
first is skipped. And a bundle sent again after a cut try is kept, and named for a restore,
under its own name. See scripts/pxe-serve's header: every upload name is written once."""
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

import pytest

from conftest import BUILD, ROOT, run
from test_pxe_serve import (G1, M1, NET, SERVER, REPORT, bundle_tar, busybox_with, images, ip,  # noqa: F401
                            quick, rack, serving, wait_until)

WIRE = pathlib.Path(__file__).resolve().parent / "tftp_wire.py"
N1 = M1.replace(":", "-")
STAMP = "20261202T120000Z"
OVERLAY = ROOT / "rootfs" / "overlay" / "usr" / "lib" / "cxrescue"


def wire(node, *args):
    return run(["ip", "netns", "exec", node, sys.executable, WIRE, SERVER, *map(str, args)], timeout=30)


def report_of(job="backup"):
    return {"format": "cxrescue-report-1", "job": job, "started": "2026-12-02T12:00:00Z",
            "ended": "2026-12-02T12:00:30Z", "result": "ok", "log": f"cxrescue-{STAMP}.log", "cards": []}


def test_a_late_write_request_empties_no_upload(rack, images, tmp_path, quick):
    srv, node = rack
    ip("-n", node, "addr", "add", f"{NET}.2/24", "dev", "c0")
    root = tmp_path / "root"
    up, kept = root / "tftp" / "uploads", root / "tftp" / "kept"
    jf = tmp_path / "rack.jobs"
    jf.write_text(f"{M1} backup\n")
    sent = {f"{N1}_{STAMP}-backup.json": (json.dumps(report_of(), indent=1) + "\n").encode(),
            f"{N1}_cxrescue-{STAMP}.log": b"cxrescue: job backup\n" * 41,       # 861 bytes: 2 blocks
            f"{N1}_history-{STAMP}.jsonl": b'{"action": "backup"}\n' * 3}
    bundle = f"{N1}_cx3-HP_0280210019-{G1}-{STAMP}.tar"
    sha = bundle_tar(tmp_path / "bundle.tar")
    sent[bundle] = (tmp_path / "bundle.tar").read_bytes()
    with serving(srv, root, images, jf) as s:
        s.wait_for("serving;")
        late = {}
        for name, data in sent.items():
            (tmp_path / name).write_bytes(data)
            # the upload, and the node's own check: read back, the same bytes
            r = wire(node, "put", tmp_path / name, f"uploads/{name}")
            assert r.returncode == 0, r.stdout + r.stderr
            got = tmp_path / "got"
            assert wire(node, "get", f"uploads/{name}", got).returncode == 0 and got.read_bytes() == data
            # then the late copy of its write request
            late[name] = wire(node, "late", f"uploads/{name}").stdout.strip()
        time.sleep(1)
        # every upload as the node sent it: the late copy was refused, not taken for a new upload
        assert {n: (up / n).read_bytes() for n in sent} == sent, \
            {n: (up / n).stat().st_size for n in sent}
        assert all(a.startswith("error") for a in late.values()), late
        # pxe-nodes keeps the bundle, and the node's state follows its report
        wait_until("the bundle kept", (kept / bundle).exists)
        wait_until("the report read", lambda: json.loads((root / "nodes" / f"{N1}.json").read_text())
                   ["state"] == "local")
        assert wire(node, "late", f"uploads/{bundle}").stdout.startswith("error")
        # a late copy after the bundle's uploads/ name went (GRACE) makes an empty uploads/
        # file: never kept, never used (the restore takes kept/ and its recorded SHA-256)
        wait_until("the uploads/ name to go", lambda: not (up / bundle).exists())
        assert wire(node, "late", f"uploads/{bundle}").stdout.strip() == "ack"
        s.wait_for(f"uploads/{bundle}: a new upload under the name of a kept bundle: not kept, not used")
        assert (kept / bundle).read_bytes() == sent[bundle]
        assert json.loads((root / "kept.json").read_text())[bundle]["sha256"] == sha
        for name, data in sent.items():
            if name != bundle:
                assert (up / name).read_bytes() == data
        assert s.stop() == 0

    r = run([REPORT, "--jobs", jf, "--json", root])
    assert r.returncode == 0, r.stdout + r.stderr
    rows = json.loads(r.stdout)
    assert [(x["node"], x["job"], x["result"], x["report"], x["state"]) for x in rows] == \
        [(M1, "backup", "ok", f"{N1}_{STAMP}-backup.json", "local boot")], rows


def node_root(tmp_path, bb, mac, data_files):
    """A chroot as a PXE-booted node has it after its job: the image's BusyBox and node scripts,
    /run/cxrescue/net as net_up leaves it, the data folder in RAM with data_files."""
    t = tmp_path / "node"
    for d in ("bin", "dev", "tmp", "run/cxrescue", "usr/lib/cxrescue"):
        (t / d).mkdir(parents=True)
    shutil.copy2(bb, t / "bin" / "busybox")
    for applet in run([bb, "--list"]).stdout.split():
        if applet != "busybox":
            (t / "bin" / applet).symlink_to("busybox")
    for f in OVERLAY.iterdir():
        shutil.copy2(f, t / "usr" / "lib" / "cxrescue" / f.name)
    os.mknod(t / "dev" / "null", 0o666 | 0o020000, os.makedev(1, 3))
    (t / "run" / "cxrescue" / "net").write_text(
        f"CXR_IFACE=c0\nCXR_NODE={mac.replace(':', '-')}\nCXR_SERVER={SERVER}\nCXR_BOOTSTAMP={STAMP}\n")
    (t / "run" / "cxrescue" / "data").write_text("CXR_DATA=/data\nCXR_DATA_KIND=ram\nCXR_DATA_DEV=\n")
    for name, data in data_files.items():
        (t / "data" / name).parent.mkdir(parents=True, exist_ok=True)
        (t / "data" / name).write_bytes(data)
    return t


def flush(node, t):
    """/init's `upload flush` after the job, in the node's chroot and namespace."""
    return run(["ip", "netns", "exec", node, shutil.which("chroot", path="/usr/sbin:/sbin:/usr/bin") or "chroot",
                t, "/bin/sh", "/usr/lib/cxrescue/upload", "flush"], env={"PATH": "/bin"}, timeout=120)


def test_the_node_sends_a_grown_log_as_a_new_version(rack, images, tmp_path, quick):
    srv, node = rack
    bb = busybox_with("tftp")
    if bb is None:
        pytest.skip(f"no BusyBox with tftp under {BUILD} (make builds it)")
    ip("-n", node, "addr", "add", f"{NET}.2/24", "dev", "c0")
    root = tmp_path / "root"
    up = root / "tftp" / "uploads"
    jf = tmp_path / "rack.jobs"
    jf.write_text(f"{M1} backup\n")
    rep = (json.dumps(report_of(), indent=1) + "\n").encode()
    log = b"cxrescue: job backup\n" * 100                       # 2100 bytes: 2 blocks of 1468
    hist = b'{"action": "backup"}\n'
    t = node_root(tmp_path, bb, M1, {f"reports/{STAMP}-backup.json": rep, f"logs/cxrescue-{STAMP}.log": log,
                                     "history.jsonl": hist})
    planted = tmp_path / "planted"
    planted.write_bytes(b"another host's\n")
    # no server yet: the try fails and never reached it, so the name stays for the next one
    r = flush(node, t)
    assert r.returncode == 1 and f"uploads/{N1}_{STAMP}-backup.json: try 1 of 1 failed" in r.stdout, r.stdout
    with serving(srv, root, images, jf) as s:
        s.wait_for("serving;")
        # another host took the history's name first: the node skips it, not counted as a try
        assert wire(node, "put", planted, f"uploads/{N1}_history-{STAMP}.jsonl").returncode == 0
        r = flush(node, t)
        assert r.returncode == 0, r.stdout + r.stderr
        assert f"uploads/{N1}_history-{STAMP}.jsonl: the server has that name already: sending the next version" \
            in r.stdout, r.stdout
        assert (up / f"{N1}_{STAMP}-backup.json").read_bytes() == rep
        assert (up / f"{N1}_cxrescue-{STAMP}.log").read_bytes() == log
        assert (up / f"{N1}_history-{STAMP}~1.jsonl").read_bytes() == hist
        assert (up / f"{N1}_history-{STAMP}.jsonl").read_bytes() == planted.read_bytes()

        # the log grows; the next flush sends it again as version 1, and only it
        (t / "data" / "logs" / f"cxrescue-{STAMP}.log").write_bytes(log + b"cxrescue: powering off\n")
        r = flush(node, t)
        assert r.returncode == 0, r.stdout + r.stderr
        sent = [ln for ln in r.stdout.splitlines() if ": on the server (" in ln]
        assert sent == [f"cxrescue: upload: uploads/{N1}_cxrescue-{STAMP}~1.log: on the server "
                        f"({len(log) + 23} bytes, SHA-256 checked)"], r.stdout
        assert (up / f"{N1}_cxrescue-{STAMP}~1.log").read_bytes() == log + b"cxrescue: powering off\n"
        assert (up / f"{N1}_cxrescue-{STAMP}.log").read_bytes() == log     # the first, as it was
        # and the late copy of that upload's request changes nothing
        assert wire(node, "late", f"uploads/{N1}_cxrescue-{STAMP}~1.log").stdout.startswith("error")
        assert (up / f"{N1}_cxrescue-{STAMP}~1.log").read_bytes() == log + b"cxrescue: powering off\n"
        assert s.stop() == 0


def test_a_bundle_sent_again_is_kept_under_its_own_name(tmp_path):
    """A cut first try and a whole second one (<bundle>~1.tar): the restore entry and kept/
    use the bundle's own name, with the whole one's SHA-256; the cut one is never used."""
    nodes = ROOT / "scripts" / "pxe-nodes"
    root = tmp_path / "root"
    up = root / "tftp" / "uploads"
    up.mkdir(parents=True)
    (root / "tftp" / "pxelinux.cfg").mkdir()
    (root / "tftp" / "pxelinux.cfg" / "default").write_text("DEFAULT x\nLABEL x\n  LINUX /boot/vmlinuz\n")
    name = f"{N1}_cx3-HP_0280210019-{G1}-{STAMP}"
    sha = bundle_tar(up / f"{name}~1.tar")
    (up / f"{name}.tar").write_bytes((up / f"{name}~1.tar").read_bytes()[:1468])
    old = time.time() - 10                                  # settled: nobody is writing them
    for f in up.iterdir():
        os.utime(f, (old, old))
    r = run([nodes, "bundle", root, N1, "latest"])
    assert (r.returncode, r.stdout) == (0, f"{name}.tar {sha}\n"), r.stdout + r.stderr
    spec = tmp_path / "spec"
    spec.write_text("")
    r = run([nodes, "setup", root, spec])
    assert r.returncode == 0, r.stderr
    kept = root / "tftp" / "kept" / f"{name}.tar"
    assert hashlib.sha256(kept.read_bytes()).hexdigest() == sha
    assert json.loads((root / "kept.json").read_text())[f"{name}.tar"]["sha256"] == sha
    assert not (root / "tftp" / "kept" / f"{name}~1.tar").exists()
    r = run([nodes, "bundle", root, N1, "latest"])
    assert (r.returncode, r.stdout) == (0, f"{name}.tar {sha}\n"), r.stdout + r.stderr
