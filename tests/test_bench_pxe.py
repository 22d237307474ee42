# SPDX-License-Identifier: GPL-2.0-or-later
"""scripts/bench-pxe, small: three simulated nodes against the real pxe-serve in the bench's
own namespace. Only behaviour is asserted (every upload whole on the server, every node seen
and moved on, the namespace gone afterwards), never timings; those are make bench's. Checked
here with the test's own reading of the server's files, not only the bench's summary."""
import hashlib
import json
import os
import re
import subprocess
import tarfile

import pytest

from conftest import BUILD, ROOT, run

BENCH = ROOT / "scripts" / "bench-pxe"
MENU = """SERIAL 0 115200
DEFAULT cxrescue
LABEL cxrescue
  LINUX /boot/vmlinuz
  INITRD /boot/initrd.gz
  APPEND console=ttyS0,115200n8 quiet cxrescue.media=pxe
  IPAPPEND 2
"""


def busybox_with_tftp():
    bb = BUILD / "busybox" / "busybox"
    if bb.is_file() and os.access(bb, os.X_OK) and "tftp" in run([bb, "--list"]).stdout.split():
        return bb
    return None


@pytest.fixture
def images(tmp_path):
    """images/pxe/ with made-up loader, kernel and initramfs (the transfers are what counts)."""
    pxe = tmp_path / "images" / "pxe"
    (pxe / "boot").mkdir(parents=True)
    (pxe / "pxelinux.cfg").mkdir()
    for name, size in (("pxelinux.0", 42000), ("ldlinux.c32", 9000), ("boot/vmlinuz", 300000),
                       ("boot/initrd.gz", 100000)):
        (pxe / name).write_bytes(os.urandom(size))
    (pxe / "pxelinux.cfg" / "default").write_text(MENU)
    return tmp_path / "images"


def bench(tmp_path, images, *args):
    if os.geteuid() != 0:
        pytest.skip("bench-pxe needs root (a network namespace)")
    bb = busybox_with_tftp()
    if bb is None:
        pytest.skip(f"no BusyBox with tftp at {BUILD}/busybox/busybox (make busybox)")
    env = dict(os.environ, CXR_BUSYBOX=str(bb), CXR_PXE_POLL="0.2")
    p = subprocess.Popen([str(BENCH), str(tmp_path / "build"), str(images), *args], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    out, _ = p.communicate(timeout=120)
    if "skipped:" in out:
        pytest.skip(out.strip())
    # the namespace and every process in it are gone, also when the bench failed
    assert f"cxrbench{p.pid}" not in run(["ip", "netns", "list"]).stdout
    return p.returncode, out


def whole_bundle(path):
    """Our own check: a tar of one folder whose SHA256SUMS lists every other file, right."""
    with tarfile.open(path) as t:
        files = {m.name.split("/", 1)[1]: t.extractfile(m).read() for m in t.getmembers() if m.isfile()}
    sums = dict(reversed(line.split("  ", 1)) for line in files.pop("SHA256SUMS").decode().splitlines())
    return len(files["flash.bin"]) == 2 << 20 and sums == {n: hashlib.sha256(d).hexdigest() for n, d in files.items()}


def newest(folder, stem, ext):
    """The newest version of an upload: the name, or <stem>~N<ext> with the highest N (each
    name is written once, so a node sends a try after a failed one under the next N)."""
    versions = [(int(m.group(1)), p) for p in folder.glob(f"{stem}~*{ext}")
                if (m := re.fullmatch(re.escape(stem) + r"~([1-9][0-9]*)" + re.escape(ext), p.name))]
    return max(versions)[1] if versions else folder / f"{stem}{ext}"


def test_three_nodes_upload_whole(tmp_path, images):
    rc, out = bench(tmp_path, images, "--nodes", "3", "--parallel", "3", "--json", tmp_path / "r.json")
    assert rc == 0, out
    res = json.loads((tmp_path / "r.json").read_text())
    assert res["done"] == 3 and res["problems"] == [], out
    assert res["whole"] == {"bundles": 3, "bundles_kept_sha": 3, "flash": 3, "reports": 3, "logs": 3,
                            "histories": 3, "fetches": 3}, out
    assert res["pxe_report"] == {"exit": 0, "nodes": 3, "ok": 3} and (res["kept"], res["local"]) == (3, 3)
    # each node's bundle, report, log and history, checked by the node: still whole at the end
    assert res["verified_whole"] == [12, 12], out
    assert re.search(r"^  arrived whole \(SHA-256\): +bundles 3/3 ", out, re.M), out

    # the server's files, read here: a whole bundle kept for each node, recorded in kept.json,
    # the node's report, and each node at local boot (its backup job done)
    root = tmp_path / "build" / "bench" / "pxe" / "root"
    kept = json.loads((root / "kept.json").read_text())
    for i in (1, 2, 3):
        mac = f"02-00-00-be-00-{i:02x}"
        tars = list((root / "tftp" / "kept").glob(f"{mac}_cx3-*.tar"))
        assert len(tars) == 1 and whole_bundle(tars[0]), tars
        assert kept[tars[0].name]["sha256"] == hashlib.sha256(tars[0].read_bytes()).hexdigest()
        rep = json.loads(newest(root / "tftp" / "uploads", f"{mac}_20261202T120000Z-backup", ".json").read_text())
        assert rep["format"] == "cxrescue-report-1" and rep["job"] == "backup" and rep["result"] == "ok"
        assert tars[0].name == f"{mac}_{os.path.basename(rep['cards'][0]['backup']['path'])}.tar"
        assert json.loads((root / "nodes" / f"{mac}.json").read_text())["state"] == "local"


def test_a_server_that_does_not_start_is_named_and_cleaned_up(tmp_path, images):
    (images / "pxe" / "pxelinux.cfg" / "default").unlink()     # pxe-serve refuses (exit 4)
    rc, out = bench(tmp_path, images, "--nodes", "2")
    assert rc == 1 and "pxe-serve did not start" in out and "\npxe-serve: " in out, out   # and its reason
    assert not any(tmp_path.joinpath("build", "bench", "pxe", "ram").iterdir())   # the nodes' RAM went
