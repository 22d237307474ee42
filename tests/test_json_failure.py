# SPDX-License-Identifier: GPL-2.0-or-later
"""`cxflash --json` on failure (issue 17, point 3): stdout is exactly one JSON object,
{"error", "code", "exit_code", "card_state"}, beside the usual one `cxflash: ...` line on
stderr. exit_code is the process's exit code, code its name (cx_code_name, cxflash(1)
EXIT STATUS), error the stderr line's text, card_state the card's state (ops/card_state.h):
"untouched" for a command on a card that wrote nothing, what the write left after a
failed one, null for a command on a file or none. A successful burn, restore or sg on a
card carries "card_state" in its own JSON. Cards are served over FUSE (`cxsim serve`);
images are small, and --no-backup keeps FUSE time down (backups are not what is tested)."""
import json
import pathlib

import pytest

from conftest import CXFLASH, cx, run, sha256
from cxsim_helpers import bdf, cxsim  # noqa: F401 (fixture)
from test_cxflash_faults import NEW_FW, OLD_FW, SLOT1, Card, first_programmed

KEYS = {"error", "code", "exit_code", "card_state"}
# cxflash(1) EXIT STATUS (burner/util/status.h) and their cx_code_name words.
CODES = {2: "usage", 4: "bad-image", 14: "flash", 15: "write-protected", 17: "mismatch"}


def failure(r, exit_code, card_state, *words, report=False):
    """The one object on stdout, agreeing with the exit code and the stderr line. report: a
    command whose own JSON report says the failure (v): those keys beside the report's, and
    its error is the stderr line's end (the line names the command's failure first)."""
    assert r.returncode == exit_code, (r.returncode, r.stdout, r.stderr)
    text = r.stdout.strip()
    obj, end = json.JSONDecoder().raw_decode(text)
    assert text[end:].strip() == "", f"more than one JSON object on stdout: {r.stdout!r}"
    assert r.stdout.count("\n") == 1, r.stdout          # one line, nothing else printed
    assert isinstance(obj, dict), obj
    assert KEYS <= set(obj) if report else set(obj) == KEYS, obj
    assert obj["exit_code"] == r.returncode
    assert obj["code"] == CODES[exit_code]
    assert obj["card_state"] == card_state, obj
    errors = [line for line in r.stderr.splitlines() if line.startswith("cxflash: ")]
    assert len(errors) == 1, r.stderr
    if report:
        assert errors[0].endswith(obj["error"]), (errors, obj["error"])
    else:
        assert errors == [f"cxflash: {obj['error']}"], r.stderr
    for w in words:
        assert w in obj["error"], (w, obj["error"])
    return obj


def burn_json(s, cwd, img, *extra):
    return run([CXFLASH, "--sysfs", s.dir, "-d", bdf(0), "--json", "-i", img, "-y",
                "--no-backup", *extra, "burn"], cwd=cwd)


def nothing_written(s):
    k = s.card_stats()["counters"]
    assert k["erases"] == 0 and k["bytes_programmed"] == 0, k


def test_burn_refused_by_a_guard(cxsim, images, tmp_path):
    card = Card(cxsim, images, "guard")
    pro = images.make("--chip cx3pro --ddr 1 --ddr-size 0x100 --no-rom --fw 2.42.5100")
    s = cxsim.serve(card.stem)
    failure(burn_json(s, tmp_path, pro), 17, "untouched", "ConnectX-3 Pro")
    nothing_written(s)
    assert s.stop() == 0
    card.assert_boots()


def test_burn_refused_on_a_write_protected_part(cxsim, images, tmp_path):
    card = Card(cxsim, images, "wp")
    card.fault("--write-protect", "on")
    new, _ = card.image()
    s = cxsim.serve(card.stem)
    failure(burn_json(s, tmp_path, new), 15, "untouched", "write-protected")
    nothing_written(s)
    assert s.stop() == 0
    card.assert_boots()


def test_burn_failing_in_the_body_says_the_old_image_boots(cxsim, images, tmp_path):
    """A byte of the new slot that stays 0xFF: the flash changed, the failsafe order kept the
    old image, and the object says so (the state observed on the card, ops/write_procedure.h)."""
    card = Card(cxsim, images, "stuck")
    new, m = card.image()
    card.fault("--stuck-bits", hex(SLOT1 + first_programmed(new, m)))
    s = cxsim.serve(card.stem)
    failure(burn_json(s, tmp_path, new), 14, "old-image-boots", "verify failed", "running image is intact")
    assert s.card_stats()["counters"]["bytes_programmed"] > 0
    assert s.stop() == 0
    card.assert_boots()


def test_burn_success_says_the_new_image_boots(cxsim, images, tmp_path):
    card = Card(cxsim, images, "ok")
    new, _ = card.image()
    s = cxsim.serve(card.stem)
    r = burn_json(s, tmp_path, new)
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["result"] == "burned" and j["from"] == OLD_FW and j["to"] == NEW_FW
    assert j["card_state"] == "new-image-boots"
    assert "error" not in j and "cxflash: " not in r.stderr, r.stderr
    assert s.stop() == 0
    card.assert_boots(NEW_FW, slot=1)


def damaged_bundle(folder):
    """A bundle folder whose flash.bin no longer matches its SHA256SUMS line."""
    b = pathlib.Path(folder) / "cx3-MT_1090120019-0002c90300c0ffe0-20260101T000000Z"
    b.mkdir()
    (b / "flash.bin").write_bytes(b"\xff" * 4096)
    (b / "identity.json").write_text("{}\n")
    (b / "SHA256SUMS").write_text(f"{'0' * 64}  flash.bin\n{sha256(b / 'identity.json')}  identity.json\n")
    return b


def test_restore_of_a_damaged_bundle(cxsim, images, tmp_path):
    card = Card(cxsim, images, "restore")
    bundle = damaged_bundle(tmp_path)
    s = cxsim.serve(card.stem)
    r = run([CXFLASH, "--sysfs", s.dir, "-d", bdf(0), "--json", "-y", "--no-backup",
             "restore", bundle], cwd=tmp_path)
    failure(r, 4, "untouched", "flash.bin does not match its SHA-256")
    nothing_written(s)
    assert s.stop() == 0
    card.assert_boots()


@pytest.mark.parametrize("asan", [False, True])
def test_verify_of_a_corrupt_file(images, asan):
    """A section whose CRC is wrong: v's own report, with the failure's keys in it."""
    img, m = images.make("--chip cx3 --ddr 1 --ddr-size 0x100 --no-rom", with_map=True)
    buf = bytearray(img.read_bytes())
    off, size = m["sect_DDR_0"]
    buf[off + 8] ^= 0x01                                 # a data byte: the section's CRC fails
    img.write_bytes(bytes(buf))
    j = failure(cx("-i", img, "--json", "v", asan=asan), 4, None, "wrong CRC", report=True)
    assert j["verdict"] == "failed" and any(i["result"] == "wrong CRC" for i in j["items"]), j


def test_verify_of_a_file_that_is_no_image(tmp_path):
    """Nothing to report (no FS2 magic): the failure object alone."""
    f = tmp_path / "noise.bin"
    f.write_bytes(bytes(range(256)) * 12)
    failure(cx("-i", f, "--json", "v"), 4, None, "no FS2 magic")


@pytest.mark.parametrize("args", [
    ["--json", "--no-such-option", "v"],
    ["--json", "-i"],
    ["--json"],
    ["--json", "no-such-command"],
    ["-d", "0000:01:00.0", "--json", "--no-such-option", "burn"],
])
def test_usage_errors(args):
    """A bad option, a missing value, no command or an unknown one, once --json was read:
    the object too. Nothing was opened, so no card was touched (-d given: "untouched")."""
    failure(cx(*args), 2, "untouched" if "-d" in args else None)
