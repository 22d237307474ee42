# SPDX-License-Identifier: GPL-2.0-or-later
"""scripts/bmc_redfish.py — a BMC's power through DMTF Redfish, for scripts/pxe-cycle (which
imports it; it is not run on its own). Python's standard library only.

    power(bmc, what)    what: "status" (True when the system is on), "on" or "off" (forced)

bmc is pxe-cycle's dict: host, port (443 unless given), system (the Id of a member of
/redfish/v1/Systems, or None: then there must be exactly one), user, password, ca (a PEM file
of the CA that signed the BMC's certificate, or None), fingerprint (the SHA-256 of the BMC's
certificate, 64 hex digits, or None). What it learns (the system's URI, its Reset action) it
keeps in bmc["redfish"].

The calls (DMTF DSP0266, the Redfish specification; DSP2046, the schema guide, ComputerSystem):
  GET  /redfish/v1/Systems               the members; the one named, or the only one
  GET  <system>                          PowerState: On, Off, PoweringOn, PoweringOff, Paused;
                                         Actions["#ComputerSystem.Reset"]: target, and
                                         ResetType@Redfish.AllowableValues when the BMC lists them
  POST <target> {"ResetType": "ForceOff"}   "off"; "On" (else "ForceOn") for "on". A ResetType
                                         the BMC does not list is never sent: the node is named.
"on" returns once PowerState reads On (asked every 2 s, for at most ON_BOUND s): a BMC
takes the action at once (HTTP 200, 202 or 204) and powers on a moment later (sushy-tools'
fake driver waits 1 to 11 s, fakedriver.py set_power_state).

Every request is HTTPS with HTTP Basic authentication (DSP0266: a service supports Basic
authentication, over TLS). The certificate is checked before any request is sent:
  - bmc_ca=FILE: verified against that CA, host name or IP address included (Python's ssl);
  - bmc_fingerprint=SHA256: the certificate's SHA-256 must be that one (no CA, no name check:
    the pin is the trust);
  - neither: the host's own CAs (Debian's ca-certificates). A BMC's self-signed certificate
    fails, in one line that names both ways and the SHA-256 the BMC showed (read in a second
    handshake that sends nothing). There is no way to skip the check, and no plain HTTP:
    Basic authentication there would put the password on the wire.
The password goes only into the Authorization header of a connection whose certificate
passed: never on a command line, never into a message of this file.
"""
import base64
import hashlib
import http.client
import json
import re
import socket
import ssl
import time

PORT = 443
TIMEOUT = 20           # s per request
ON_BOUND = 60          # s from the On action to PowerState On
ON_EVERY = 2.0         # s between two looks at PowerState after the On
ON_STATES = ("On", "PoweringOn", "PoweringOff", "Paused")   # all but Off: the chassis has power
RESET = "#ComputerSystem.Reset"
WANTED = {"on": ("On", "ForceOn"), "off": ("ForceOff",)}   # in order of preference
HEX64 = re.compile(r"^[0-9a-f]{64}$")


class Error(Exception):
    """A BMC that could not be asked or refused: kind is "refused", "unreachable" or
    "untrusted" (its certificate)."""

    def __init__(self, kind, text):
        super().__init__(text)
        self.kind = kind


def pin(text):
    """A fingerprint as the user may write it (AB:CD:..., as `openssl x509 -fingerprint
    -sha256` prints it, or plain hex) in 64 lower-case hex digits, or None."""
    h = text.replace(":", "").lower()
    return h if HEX64.match(h) else None


def sha256_colons(der):
    return ":".join(f"{b:02X}" for b in hashlib.sha256(der).digest())


def context(bmc):
    if bmc.get("fingerprint"):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE      # the pin below is the check, before any byte is sent
        return ctx
    try:
        return ssl.create_default_context(cafile=bmc.get("ca"))
    except FileNotFoundError:
        raise Error("untrusted", f"cannot be checked: bmc_ca={bmc['ca']}: no such file; nothing was sent") from None
    except (OSError, ssl.SSLError) as e:
        raise Error("untrusted", f"cannot be checked: bmc_ca={bmc['ca']}: not a PEM certificate file ({e}); "
                    "nothing was sent") from None


def shown_fingerprint(bmc):
    """The SHA-256 of the certificate the BMC shows: a handshake only, nothing sent."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    try:
        with socket.create_connection((bmc["host"], bmc["port"] or PORT), TIMEOUT) as s, \
                ctx.wrap_socket(s, server_hostname=bmc["host"]) as t:
            return sha256_colons(t.getpeercert(binary_form=True))
    except (OSError, ssl.SSLError):
        return None


def untrusted(bmc, e):
    why = getattr(e, "verify_message", None) or str(e)
    if bmc.get("ca"):
        return Error("untrusted", f"shows a TLS certificate that bmc_ca={bmc['ca']} does not pass ({why}); "
                     "nothing was sent")
    seen = shown_fingerprint(bmc)
    return Error("untrusted", f"shows a TLS certificate this host does not trust ({why}): give its CA "
                 "(bmc_ca=FILE) or pin it (bmc_fingerprint=SHA256"
                 + (f"; it shows SHA-256 {seen}: check that at the BMC itself" if seen else "")
                 + "); nothing was sent")


def connect(bmc):
    """An HTTPS connection whose certificate passed (CA or pin); nothing sent on it yet."""
    conn = http.client.HTTPSConnection(bmc["host"], bmc["port"] or PORT, timeout=TIMEOUT,
                                       context=context(bmc))
    try:
        conn.connect()
    except ssl.SSLCertVerificationError as e:
        conn.close()
        raise untrusted(bmc, e) from None
    except (OSError, ssl.SSLError) as e:
        conn.close()
        raise Error("unreachable", f"does not answer on HTTPS port {bmc['port'] or PORT} ({e})") from None
    if bmc.get("fingerprint"):
        der = conn.sock.getpeercert(binary_form=True)
        if hashlib.sha256(der).hexdigest() != bmc["fingerprint"]:
            conn.close()
            raise Error("untrusted", f"shows a TLS certificate of SHA-256 {sha256_colons(der)}, not the "
                        "one of bmc_fingerprint=; nothing was sent")
    return conn


def call(bmc, method, path, body=None):
    """One request; the JSON answer (or {} for none). Raises Error."""
    conn = connect(bmc)
    auth = base64.b64encode(f"{bmc['user']}:{bmc['password']}".encode()).decode()
    headers = {"Authorization": f"Basic {auth}", "Accept": "application/json", "OData-Version": "4.0"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    try:
        conn.request(method, path, body=data, headers=headers)
        r = conn.getresponse()
        text = r.read()
    except (OSError, http.client.HTTPException) as e:
        raise Error("unreachable", f"gave no answer to {method} {path} ({e})") from None
    finally:
        conn.close()
    if r.status in (401, 403):
        raise Error("refused", f"refused user {bmc['user']} (HTTP {r.status} to {method} {path})")
    try:
        answer = json.loads(text) if text.strip() else {}
    except ValueError:
        answer = None
    if r.status < 300 and (isinstance(answer, dict) or method == "POST"):
        return answer if isinstance(answer, dict) else {}   # an action's answer body is optional
    why = message(answer)
    raise Error("refused" if 400 <= r.status < 500 else "unreachable",
                f"answered {method} {path} with HTTP {r.status}" + (f" ({why})" if why else
                                                                    "" if r.status >= 300 else " (not JSON)"))


def message(answer):
    """The first message of a Redfish error answer (DSP0266, Error responses), or ""."""
    err = answer.get("error") if isinstance(answer, dict) else None
    if not isinstance(err, dict):
        return ""
    info = err.get("@Message.ExtendedInfo") or []
    first = info[0] if info and isinstance(info[0], dict) else {}
    return first.get("Message") or err.get("message") or ""


def system(bmc):
    """The system's URI: the member of /redfish/v1/Systems named by its Id, or the only one."""
    known = bmc.setdefault("redfish", {})
    if "uri" not in known:
        members = [m.get("@odata.id", "") for m in call(bmc, "GET", "/redfish/v1/Systems").get("Members", [])
                   if isinstance(m, dict)]
        ids = [m.rstrip("/").rsplit("/", 1)[-1] for m in members]
        if bmc.get("system"):
            if bmc["system"] not in ids:
                raise Error("refused", f"has no system {bmc['system']} (its systems: {', '.join(ids) or 'none'})")
            known["uri"] = members[ids.index(bmc["system"])]
        elif len(members) == 1:
            known["uri"] = members[0]
        else:
            raise Error("refused", f"has {len(members)} systems ({', '.join(ids) or 'none'}): name one, "
                        "bmc=redfish://HOST[:PORT]/ID")
    return known["uri"]


def power_state(bmc):
    """(PowerState, the Reset action's target, its allowed ResetTypes or None)."""
    uri = system(bmc)
    s = call(bmc, "GET", uri)
    state = s.get("PowerState")
    if state not in ("Off", *ON_STATES):
        raise Error("unreachable", f"{uri}: a PowerState this pxe-cycle cannot read: {state!r}")
    action = (s.get("Actions") or {}).get(RESET) or {}
    return state, action.get("target"), action.get("ResetType@Redfish.AllowableValues")


def reset(bmc, what):
    """POST the Reset action with the first ResetType of WANTED[what] that the BMC allows."""
    _, target, allowed = power_state(bmc)
    if not target:
        raise Error("refused", f"{system(bmc)} has no {RESET} action")
    kinds = [k for k in WANTED[what] if allowed is None or k in allowed]
    if not kinds:
        raise Error("refused", f"does not offer {' or '.join(WANTED[what])} (ResetType@Redfish.AllowableValues: "
                    f"{', '.join(map(str, allowed)) or 'none'})")
    call(bmc, "POST", target, {"ResetType": kinds[0]})
    return kinds[0]


def power(bmc, what):
    """"status": True when on; "on": True once on (raises when it does not come on);
    "off": the ResetType sent (ForceOff): the caller asks "status" until it reads off."""
    if what == "status":
        return power_state(bmc)[0] != "Off"
    if what == "off":
        return reset(bmc, "off")
    sent, deadline = reset(bmc, "on"), time.monotonic() + ON_BOUND
    while True:
        state = power_state(bmc)[0]
        if state == "On":
            return True
        if time.monotonic() > deadline:
            raise Error("unreachable", f"took {sent} but its PowerState is {state} {ON_BOUND} s later")
        time.sleep(ON_EVERY)
