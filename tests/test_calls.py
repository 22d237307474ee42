# SPDX-License-Identifier: GPL-2.0-or-later
"""scripts/check-calls (make check-calls): no two files of burner/rescue/ call each other in a
loop, and none calls up rescue/'s layers, judged from the calls (a function or variable one
file defines and another names), not from the includes."""
import re
import shutil
import sys

import pytest

from conftest import ROOT, run

SCRIPT = ROOT / "scripts" / "check-calls"


def check(*args):
    return run([sys.executable, SCRIPT] + [str(a) for a in args])


@pytest.fixture
def rescue(tmp_path):
    """A copy of burner/rescue/, to plant calls in."""
    dst = tmp_path / "rescue"
    shutil.copytree(ROOT / "burner" / "rescue", dst)
    return dst


def append(path, text):
    path.write_text(path.read_text() + text)


def test_real_tree_has_no_loop():
    r = check()
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.fullmatch(r"check-calls: \d+ files in burner/rescue, \d+ file-to-file edges, no loop, "
                        r"none up the layers\n", r.stdout), r.stdout
    r = check("--count")
    assert r.returncode == 0
    assert re.fullmatch(r"0 of \d+ files in a loop\n", r.stdout), r.stdout


def test_planted_loop_fails(rescue):
    """A write step that calls back up into a screen closes a loop: the step's record calls the
    screens' burn, which calls the burn step, which calls the record."""
    append(rescue / "step_record.c",
           "\nint planted(struct wizard *w, const struct write_request *rq, struct cx_status *st)\n"
           "{\n\treturn flow_burn(w, rq, st);\n}\n")
    r = check(rescue)
    assert r.returncode == 1, r.stdout
    lines = r.stdout.splitlines()
    assert lines[0] == "%s: a loop of 3 files: flow_update.c step_burn.c step_record.c" % rescue, r.stdout
    assert "    step_record.c -> flow_update.c (flow_burn)" in lines, r.stdout
    assert "    flow_update.c -> step_burn.c (wiz_burn)" in lines, r.stdout
    assert "%s: step_record.c -> flow_update.c (flow_burn): steps (2) calls flows (3): up the order" % rescue \
        in lines, r.stdout
    assert re.fullmatch(r"check-calls: 1 loop\(s\), 3 of \d+ files in them; 1 call\(s\) against the layer order",
                        lines[-1]), r.stdout
    r = check("--count", rescue)
    assert r.returncode == 0 and r.stdout.startswith("3 of "), r.stdout


def test_a_variable_closes_a_loop_too(rescue):
    """The knot issue 28 found began so: a screen defined what the inventory read."""
    append(rescue / "flow_update.c", "\nconst int planted_rule = 1;\n")
    append(rescue / "inventory.c", "\nint planted_read(void)\n{\n\treturn planted_rule;\n}\n")
    r = check(rescue)
    assert r.returncode == 1, r.stdout
    assert "    inventory.c -> flow_update.c (planted_rule)" in r.stdout.splitlines(), r.stdout


@pytest.mark.parametrize("rel,text,what", [
    # a prototype of its own hides the call from the includes; no loop closes
    ("step_upload.c", "\nint flow_power_off(struct wizard *w, bool after_write, struct cx_status *st);\n"
     "int planted(struct wizard *w, struct cx_status *st)\n{\n\treturn flow_power_off(w, false, st);\n}\n",
     "step_upload.c -> flow_power_off.c (flow_power_off): steps (2) calls flows (3): up the order"),
    ("job_write.c", "\nint flow_backup_all(struct wizard *w, bool only_missing, struct cx_status *st);\n"
     "int planted(struct wizard *w, struct cx_status *st)\n{\n\treturn flow_backup_all(w, false, st);\n}\n",
     "job_write.c -> flow_backup.c (flow_backup_all): jobs (3) calls flows (3): across the sibling screens "
     "and jobs"),
])
def test_planted_call_up_fails(rescue, rel, text, what):
    append(rescue / rel, text)
    r = check(rescue)
    assert r.returncode == 1, r.stdout
    lines = r.stdout.splitlines()
    assert lines[0] == "%s: %s" % (rescue, what), r.stdout
    assert re.fullmatch(r"check-calls: 0 loop\(s\), 0 of \d+ files in them; 1 call\(s\) against the layer order",
                        lines[1]) and len(lines) == 2, r.stdout


@pytest.mark.parametrize("text", [
    "\n/* flow_burn(w, rq, st) would close a loop */\n",                  # a comment
    '\nstatic const char *planted = "flow_burn(w, rq, st)";\n',          # a string
    "\nstatic int flow_burn_file(void)\n{\n\treturn 0;\n}\n"             # a static of its own name
    "static int planted(void)\n{\n\treturn flow_burn_file();\n}\n",
    "\nstruct planted { int flow_burn; };\n"                             # a member's name
    "static int planted(struct planted *p)\n{\n\treturn p->flow_burn;\n}\n",
])
def test_names_that_are_not_calls(rescue, text):
    append(rescue / "step_record.c", text)
    r = check(rescue)
    assert r.returncode == 0, r.stdout


def test_the_knot_before(tmp_path):
    """rescue/ as issue 28 found it (two files that called each other, and one that only
    called): the two are a loop, the third is not in it."""
    files = {
        "wizard.c": "int wiz_say(void)\n{\n\treturn 0;\n}\nint run(void)\n{\n\treturn flow_job();\n}\n",
        "unattended.c": "int flow_job(void)\n{\n\treturn wiz_say();\n}\n",
        "upload.c": "static int helper(void);\nint up(void)\n{\n\treturn wiz_say() + helper();\n}\n",
    }
    d = tmp_path / "knot"
    d.mkdir()
    for name, text in files.items():
        (d / name).write_text(text)
    r = check(d)
    assert r.returncode == 1
    assert r.stdout.splitlines()[0] == "%s: a loop of 2 files: unattended.c wizard.c" % d, r.stdout
    assert check("--count", d).stdout == "2 of 3 files in a loop\n"
