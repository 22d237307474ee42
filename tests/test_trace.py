# SPDX-License-Identifier: GPL-2.0-or-later
"""Traces (docs/traces.md): cxflash sessions on a served cxsim card
recorded with --record, then replayed two ways that share no code: `cxsim replay` makes
the recording's accesses to a fresh model of the same card and compares every read;
`cxflash --replay` runs the same command with no card and compares every write. A third
reader, tests/trace_codec.py, finds accesses by meaning and edits traces.

COST: each session runs once through FUSE (~10k config accesses/s); the cards are
W25Q80 (1 MiB, the smallest part) with 3 KiB images, and the writes skip their backup, so
most tests take seconds. test_restore needs a backup first and its restore reads the flash
twice: ~4 million accesses, several minutes (like tests/test_cxflash_restore.py)."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import CXFLASH, MKFS2, ROOT, run
from cxsim_helpers import CXSIM, bdf, cxsim  # noqa: F401 (fixture)
import trace_codec

SMALL = "--ddr 2 --ddr-size 0x1000"
PART = "W25Q80"
GUID, MAC = "0002c90300c0ffe0", "0002c9c0ffe0"
SLOW = 600
REPLAY_DIFFERS = 3   # cxsim replay: a read differs
EREPLAY = 18         # cxflash: --replay diverged


def cxflash(*args, cwd=None):
    return subprocess.run([str(CXFLASH), *map(str, args)], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=SLOW, cwd=cwd)


def snapshot(stem, name):
    """A copy of a card as it is on disk (the server saves it when it stops)."""
    copy = stem.with_name(name)
    for ext in (".conf", ".flash"):
        shutil.copy(stem.with_suffix(ext), copy.with_suffix(ext))
    return copy


def sim_replay(trace, stem, *args):
    return run([CXSIM, "replay", trace, stem, *args])


def record(cxsim, stem, trace, *args):
    """Serve stem, run cxflash with --record, stop the server (which saves the card)."""
    s = cxsim.serve(stem)
    r = cxflash("--sysfs", s.dir, "-d", bdf(0), "--record", trace, *args)
    assert s.stop() == 0
    return r


def check_both_replays(trace, fresh, recorded, *args):
    """cxsim against the fresh model: every read as recorded; cxflash with no card: the
    same result, the same standard output."""
    r = sim_replay(trace, fresh)
    assert r.returncode == 0 and "every read as recorded" in r.stdout, r.stdout + r.stderr
    assert "cut short" not in r.stdout
    again = cxflash("-d", bdf(0), "--replay", trace, *args)
    assert again.returncode == recorded.returncode, again.stderr
    assert again.stdout == recorded.stdout


def card(cxsim, images, name="card", fw="2.40.7000", extra=()):
    img = images.make(f"--chip cx3 {SMALL} --fw {fw}")
    return cxsim.create(name, "--chip", "cx3", "--flash", PART, "--image", img, "--guid", GUID,
                        "--mac", MAC, *extra)


@pytest.mark.parametrize("command", [["q"], ["v"], ["probe"]])
def test_reads_replay_on_model_and_without_card(cxsim, images, tmp_path, command):
    stem = card(cxsim, images)
    fresh = snapshot(stem, "fresh")
    trace = tmp_path / "t.trace"
    r = record(cxsim, stem, trace, *command)
    assert r.returncode == 0, r.stderr
    check_both_replays(trace, fresh, r, *command)
    header, recs = trace_codec.parse(trace.read_bytes())
    assert header["kernel"] == os.uname().release and header["bdf"] == bdf(0)
    assert header["device"] == "1003" and header["vendor"] == "15b3"
    assert header["lockdown"] and header["command"].endswith(" ".join(command))
    notes = [x["text"] for x in recs if x["kind"] == "note"]
    assert notes[0].startswith("open bdf=" + bdf(0)) and notes[-1] == "end"
    assert any(n.startswith("ident ") and "chip=cx3" in n and "size=1048576" in n for n in notes)


def test_burn_and_recovery_burn_and_sg(cxsim, images, tmp_path):
    stem = card(cxsim, images)
    new = images.make(f"--chip cx3 {SMALL} --fw 2.42.5000 --seed 4")
    livefish = cxsim.create("livefish", "--chip", "cx3", "--flash", PART, "--empty")
    sessions = [
        (stem, ["-i", new, "-y", "--no-backup", "burn"]),
        (stem, ["-y", "--no-backup", "sg", "--guid", "0002c90300c0ff00", "--mac", "0002c9c0ff00"]),
        (livefish, ["-i", new, "-y", "--no-backup", "--guid", "0002c90300001230", "--mac", "0002c9001230",
                    "burn"]),
    ]
    for i, (st, args) in enumerate(sessions):
        fresh = snapshot(st, f"fresh{i}")
        trace = tmp_path / f"s{i}.trace"
        r = record(cxsim, st, trace, *args)
        assert r.returncode == 0, f"{args}: {r.stderr}"
        check_both_replays(trace, fresh, r, *args)
    assert cxsim.boot_check(livefish)["guids"]["node"] == "0002c90300001230"
    assert cxsim.boot_check(stem)["guids"]["node"] == "0002c90300c0ff00"


def test_restore(cxsim, images, tmp_path):
    """On an SST25VF080B: its 18 ms sector erase ends within cxflash's poll budget in model
    time (a W25Q's 45 ms does not: cxsim serve --wall-clock would make the model's answers
    depend on FUSE's timing, and no replay could match them)."""
    img = images.make(f"--chip cx3 {SMALL} --fw 2.40.7000")
    stem = cxsim.create("card", "--chip", "cx3", "--flash", "SST25VF080B", "--image", img, "--guid", GUID,
                        "--mac", MAC)
    s = cxsim.serve(stem)
    r = cxflash("--sysfs", s.dir, "--json", "-d", bdf(0), "backup", tmp_path / "backups")
    assert r.returncode == 0, r.stderr
    bundle = next((tmp_path / "backups").iterdir())
    new = images.make(f"--chip cx3 {SMALL} --fw 2.42.5000 --seed 4")
    r = cxflash("--sysfs", s.dir, "-d", bdf(0), "-i", new, "-y", "--no-backup", "burn")
    assert r.returncode == 0, r.stderr
    assert s.stop() == 0
    fresh = snapshot(stem, "fresh")
    trace = tmp_path / "restore.trace"
    r = record(cxsim, stem, trace, "-y", "--no-backup", "restore", bundle)
    assert r.returncode == 0, r.stderr
    assert cxsim.boot_check(stem)["fw_version"] == "2.40.7000"
    check_both_replays(trace, fresh, r, "-y", "--no-backup", "restore", bundle)


@pytest.fixture
def q_trace(cxsim, images, tmp_path):
    stem = card(cxsim, images)
    trace = tmp_path / "q.trace"
    assert record(cxsim, stem, trace, "q").returncode == 0
    return stem, trace


def test_model_with_another_revision_names_the_access(q_trace, cxsim, images):
    stem, trace = q_trace
    other = card(cxsim, images, name="rev0", extra=("--rev", "0"))
    _, recs = trace_codec.parse(trace.read_bytes())
    hw_id = trace_codec.window_reads(recs, 0xF0014)[0]   # the first read of the HW ID register
    r = sim_replay(trace, other)
    assert r.returncode == REPLAY_DIFFERS, r.stdout + r.stderr
    assert r.stdout.startswith(f"access {hw_id['n']} (config read 0x5c, during '")
    assert f"recorded 0x{hw_id['val']:08x}, model 0x{hw_id['val'] & 0xFF00FFFF:08x}" in r.stdout
    assert " q'" in r.stdout


def test_edited_read_stops_cxflash_before_a_differing_write(q_trace):
    stem, trace = q_trace
    header, recs = trace_codec.parse(trace.read_bytes())
    # The first flash dword that holds the FS2 magic "MTFW" (fs2-format.md §1): answer 0
    # instead, and cxflash looks for the image elsewhere, so its next addresses differ.
    magic = next(x for x in recs if x["kind"] == "cfg_read" and x["val"] in (0x4D544657, 0x5746544D))
    magic["val"] = 0
    edited = trace.with_name("edited.trace")
    edited.write_bytes(trace_codec.encode(header, recs))
    r = cxflash("-d", bdf(0), "--replay", edited, "q")
    assert r.returncode == EREPLAY, r.stdout + r.stderr
    assert r.stderr.count("\n") == 1 and "nothing reached a card" in r.stderr
    n = int(r.stderr.split("access ")[1].split()[0])
    assert n > magic["n"]
    first = next(x for x in recs if x.get("n") == n)
    assert f"the recording has {first['kind'].replace('cfg_', 'config ')} 0x{first['off']:x}" in r.stderr
    # The unedited trace, rewritten without the format's shortcuts, still replays.
    plain = trace.with_name("plain.trace")
    plain.write_bytes(trace_codec.encode(header, [dict(x) for x in trace_codec.parse(trace.read_bytes())[1]]))
    assert cxflash("-d", bdf(0), "--replay", plain, "q").returncode == 0
    assert sim_replay(plain, stem).returncode == 0


def test_a_trace_cut_short_replays_its_prefix(q_trace, tmp_path):
    stem, trace = q_trace
    data = trace.read_bytes()
    cut = tmp_path / "cut.trace"
    cut.write_bytes(data[:len(data) // 2])
    r = sim_replay(cut, stem)
    assert r.returncode == 0 and "cut short" in r.stdout, r.stdout + r.stderr
    r = cxflash("-d", bdf(0), "--replay", cut, "q")
    assert r.returncode == EREPLAY and "its end (cut short)" in r.stderr, r.stderr


def test_bad_traces_and_options(tmp_path):
    junk = tmp_path / "junk.trace"
    junk.write_bytes(b"not a trace at all\n")
    r = cxflash("-d", bdf(0), "--replay", junk, "q")
    assert r.returncode == 4 and "not a cxflash trace" in r.stderr, r.stderr
    r = sim_replay(junk, tmp_path / "none")
    assert r.returncode == 1 and "not a cxflash trace" in r.stderr
    r = sim_replay(junk, tmp_path / "none", "--clock", "sometimes")
    assert r.returncode == 2 and "--clock accesses|recorded" in r.stderr
    r = cxflash("--replay", junk, "list")
    assert r.returncode == 2 and "needs -d BDF" in r.stderr
    r = cxflash("-d", bdf(0), "--replay", junk, "--record", tmp_path / "x", "q")
    assert r.returncode == 2 and "not both" in r.stderr
    r = cxflash("-d", bdf(0), "--record", tmp_path / "no" / "such" / "dir", "q")
    assert r.returncode == 3 and "cannot create the trace" in r.stderr


# --- the committed recordings (tests/traces/) -------------------------------------------

TRACES = ROOT / "tests" / "traces"
sys.path.insert(0, str(TRACES))
import sessions  # noqa: E402

REGENERATE = ("cxflash's register sequence for this session is not the committed one. If the "
              "change is intended, record the traces again with 'make test-traces' (root, FUSE) "
              "and commit tests/traces/ with the change, so that a reviewer sees the new sequence "
              "(scripts/make-test-traces; sessions.py says how each is made)")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """The images and cards of sessions.py, made as the traces were."""
    work = tmp_path_factory.mktemp("trace-inputs")
    for name, opts in sessions.IMAGES.items():
        assert run([MKFS2, "-o", work / f"{name}.bin", *opts]).returncode == 0
    for name, opts in sessions.CARDS.items():
        r = run([CXSIM, "create", work / name, *opts], cwd=work)
        assert r.returncode == 0, r.stderr
    return work


@pytest.mark.parametrize("name", sorted(sessions.SESSIONS))
def test_committed_trace_replays(inputs, name):
    card, args = sessions.SESSIONS[name]
    trace = TRACES / f"{name}.trace"
    assert trace.exists(), f"{trace} is missing: {REGENERATE}"
    header, _ = trace_codec.parse(trace.read_bytes())
    assert header["command"] == f"cxflash --sysfs sys -d {bdf(0)} --record {name}.trace " + " ".join(args)
    r = cxflash("-d", bdf(0), "--replay", trace, *args, cwd=inputs)
    assert r.returncode == 0, f"{r.stderr.strip()}\n{REGENERATE}"
    assert r.stdout == (TRACES / f"{name}.out").read_text(), REGENERATE
    r = sim_replay(trace, inputs / card)
    assert r.returncode == 0 and "every read as recorded" in r.stdout, \
        f"the model answers this recording differently (sim/core changed?): {r.stdout}{r.stderr}"
