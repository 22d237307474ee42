"""redfish_bmc.py — a Redfish BMC for the rack tests: OpenStack sushy-tools' emulator
(sushy-emulator, what OpenStack Ironic's CI drives), with its fake driver, over HTTPS with
HTTP Basic authentication, as tests/test_pxe_redfish.py starts it. Its code is never part of
this tree: find() looks, in order, for
  - an installed `sushy-emulator`;
  - CXR_SUSHY_TOOLS=DIR: a source tree (DIR/sushy_tools/) or a git directory (its HEAD is
    taken out with `git archive` into the test's folder);
  - $CXR_CACHE/sushy-tools (default /var/cache/cxrescue), the wheel `make deps` unpacks there
    where PyPI answers;
  - /work/.mirror/openstack+sushy-tools/repo, a git directory, when present;
and its Python dependencies (Debian's python3-flask, -requests, -tenacity, -bcrypt, -webob).

tls() makes a throwaway CA and a BMC certificate it signed, for an IP address (openssl);
write_config() lays out the emulator's config (a Python file, read with Flask's from_pyfile):
the address, the certificate and key, the htpasswd file (bcrypt, the only hash sushy-tools
takes, auth_basic.py), the fake systems (fakedriver.py: a power state per system, changed
1 to 11 s after a Reset action), and INFO logging, so that its log has every request line and
every Reset action with its ResetType (main.py system_reset_action). start() runs it in a
network namespace, its output in FOLDER/emulator.log."""
import os
import pathlib
import shutil
import subprocess
import sys
import time

MIRROR = pathlib.Path("/work/.mirror/openstack+sushy-tools/repo")
CACHED = pathlib.Path(os.environ.get("CXR_CACHE") or "/var/cache/cxrescue") / "sushy-tools"   # scripts/deps.sh
DEPS = ("flask", "requests", "tenacity", "bcrypt", "webob")


def find(workdir):
    """(argv prefix that runs the emulator, None) or (None, why it cannot run here)."""
    exe = shutil.which("sushy-emulator")
    if exe:
        return [exe], None
    missing = [m for m in DEPS if subprocess.run([sys.executable, "-c", f"import {m}"],
                                                 capture_output=True).returncode]
    if missing:
        return None, (f"sushy-tools' emulator needs Python modules {', '.join(missing)} (Debian's "
                      "python3-flask python3-requests python3-tenacity python3-bcrypt python3-webob: make deps)")
    src = os.environ.get("CXR_SUSHY_TOOLS")
    for found in (CACHED / "sushy_tools", MIRROR):
        if not src and found.is_dir():
            src = str(found.parent if found.name == "sushy_tools" else found)
    if not src:
        return None, ("no sushy-emulator installed (pip install sushy-tools) and no source: set "
                      "CXR_SUSHY_TOOLS=DIR (a sushy-tools source tree or git directory)")
    src = pathlib.Path(src)
    if not src.is_dir():
        return None, f"CXR_SUSHY_TOOLS={src}: no such directory"
    if not (src / "sushy_tools").is_dir():
        out = workdir / "sushy-tools"
        out.mkdir(exist_ok=True)
        arc = subprocess.run(f"git --git-dir='{src}' archive HEAD sushy_tools | tar -x -C '{out}'",
                             shell=True, capture_output=True, text=True)
        if arc.returncode or not (out / "sushy_tools").is_dir():
            return None, f"CXR_SUSHY_TOOLS={src}: neither a sushy-tools tree nor a git directory of one " \
                         f"({(arc.stderr.strip().splitlines() or ['no sushy_tools/ in it'])[0]})"
        src = out
    return ["env", f"PYTHONPATH={src}", sys.executable, "-m", "sushy_tools.emulator.main"], None


def openssl(*args):
    r = subprocess.run(["openssl", *map(str, args)], capture_output=True, text=True)
    assert r.returncode == 0, f"openssl {' '.join(map(str, args))}: {r.stderr}"


def tls(folder, addr, name="bmc"):
    """FOLDER/NAME-ca.pem (a throwaway CA), FOLDER/NAME.pem and NAME.key (for IP addr, signed by
    it). Returns (ca, cert, key)."""
    ca, ca_key = folder / f"{name}-ca.pem", folder / f"{name}-ca.key"
    cert, key, csr, ext = (folder / f"{name}{x}" for x in (".pem", ".key", ".csr", ".ext"))
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *ec, "-keyout", ca_key, "-out", ca, "-days", "2", "-subj", f"/CN={name} test CA")
    openssl("req", *ec, "-keyout", key, "-out", csr, "-subj", f"/CN={addr}")
    ext.write_text(f"subjectAltName=IP:{addr}\nbasicConstraints=CA:FALSE\n")
    openssl("x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert,
            "-days", "2", "-extfile", ext)
    return ca, cert, key


def write_config(folder, addr, port, cert, key, users, systems, extra=""):
    """users: {name: password}; systems: [(uuid, name, power_state)]; extra: more lines."""
    import bcrypt       # python3-bcrypt, which the emulator needs anyway
    folder.mkdir(exist_ok=True)
    (folder / "htpasswd").write_text("".join(
        f"{u}:{bcrypt.hashpw(p.encode(), bcrypt.gensalt(4)).decode()}\n" for u, p in users.items()))
    fake = [{"uuid": u, "name": n, "power_state": s, "nics": []} for u, n, s in systems]
    (folder / "emulator.conf").write_text(f"""import logging
logging.basicConfig(level=logging.INFO)
SUSHY_EMULATOR_LISTEN_IP = {addr!r}
SUSHY_EMULATOR_LISTEN_PORT = {port}
SUSHY_EMULATOR_SSL_CERT = {str(cert)!r}
SUSHY_EMULATOR_SSL_KEY = {str(key)!r}
SUSHY_EMULATOR_AUTH_FILE = {str(folder / "htpasswd")!r}
SUSHY_EMULATOR_FAKE_DRIVER = True
SUSHY_EMULATOR_NO_MEMOIZE = True
SUSHY_EMULATOR_FAKE_SYSTEMS = {fake!r}
{extra}""")


def start(argv, ns, folder, addr, port):
    """The emulator in namespace ns; returns once its port takes a connection."""
    log = folder / "emulator.log"
    p = subprocess.Popen(["ip", "netns", "exec", ns, *argv, "--config", str(folder / "emulator.conf")],
                         stdout=open(log, "w"), stderr=subprocess.STDOUT, cwd=folder)
    deadline = time.monotonic() + 30
    while "Running on" not in log.read_text():
        assert p.poll() is None and time.monotonic() < deadline, f"sushy-emulator did not start: {log.read_text()}"
        time.sleep(0.2)
    return p
