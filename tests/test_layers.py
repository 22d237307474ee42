# SPDX-License-Identifier: GPL-2.0-or-later
"""scripts/check-layers (make check-layers): no #include in burner/'s production code goes up
util -> image -> dev -> flash -> ops -> library -> the front ends (cli/, rescue/: siblings),
nor, inside rescue/, up records -> state -> write steps -> screens | jobs (siblings) -> menu."""
import shutil
import sys

import pytest

from conftest import ROOT, make_check_runs, run

SCRIPT = ROOT / "scripts" / "check-layers"


def check(folder=None):
    return run([sys.executable, SCRIPT] + ([folder] if folder else []))


@pytest.fixture
def tree(tmp_path):
    """A copy of burner/'s sources, to plant includes in."""
    dst = tmp_path / "burner"
    shutil.copytree(ROOT / "burner", dst, ignore=shutil.ignore_patterns("cxflash"))
    return dst


def plant(tree, rel, include):
    """Put `#include "include"` after the file's first #include; returns its line number."""
    path = tree / rel
    lines = path.read_text().split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("#include")) + 1
    lines.insert(at, '#include "%s"' % include)
    path.write_text("\n".join(lines))
    return at + 1


def test_real_tree_passes():
    r = check()
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("check-layers: ") and "no include goes up the layer order" in r.stdout
    assert r.stdout.count("\n") == 1


@pytest.mark.parametrize("target,said", [
    ("check-layers", "no include goes up the layer order"),
    ("check-calls", "no loop"),  # scripts/check-calls (tests/test_calls.py): rescue/'s calls
])
def test_make_check_runs_it(target, said):
    """make check-layers runs the script on burner/ (make check-calls, check-calls on burner/rescue),
    and make check depends on it."""
    r = run(["make", "-s", "-C", ROOT, target])
    assert r.returncode == 0, r.stdout + r.stderr
    assert said in r.stdout
    assert target in make_check_runs(), "make check does not run " + target


def test_copy_passes(tree):
    r = check(tree)
    assert r.returncode == 0, r.stdout


def test_back_edges_named(tree):
    """An ops file including cli/common.h and a rescue file including cli/: both named, FILE:LINE."""
    ops_line = plant(tree, "ops/plan.c", "cli/common.h")
    rescue_line = plant(tree, "rescue/prompt.c", "cli/cli.h")
    r = check(tree)
    assert r.returncode == 1, r.stdout
    out = r.stdout.splitlines()
    assert '%s/ops/plan.c:%d: ops (4) includes "cli/common.h" of cli (6): up the order' % (
        tree, ops_line) in out, r.stdout
    assert '%s/rescue/prompt.c:%d: rescue (6) includes "cli/cli.h" of cli (6): across the sibling ' \
        "front ends" % (tree, rescue_line) in out, r.stdout
    assert out[-1] == "check-layers: 2 include(s) against the layer order"
    assert len(out) == 3


@pytest.mark.parametrize("rel,include,what", [
    ("util/json.c", "image/fs2.h", "util (0) includes \"image/fs2.h\" of image (1): up the order"),
    ("image/fs2.c", "dev/chip.h", "image (1) includes \"dev/chip.h\" of dev (2): up the order"),
    ("dev/chip.c", "flash/flash.h", "dev (2) includes \"flash/flash.h\" of flash (3): up the order"),
    ("flash/spi.c", "ops/write_region.h", "flash (3) includes \"ops/write_region.h\" of ops (4): up the order"),
    ("ops/write_region.h", "library/match.h", "ops (4) includes \"library/match.h\" of library (5): up the order"),
    ("library/match.c", "rescue/wizard.h",
     "library (5) includes \"rescue/wizard.h\" of rescue (6): up the order"),
    ("cli/cmd_burn.c", "rescue/flows.h",
     "cli (6) includes \"rescue/flows.h\" of rescue (6): across the sibling front ends"),
    ("rescue/wizard.h", "cli/common.h",
     "rescue (6) includes \"cli/common.h\" of cli (6): across the sibling front ends"),
    ("ops/burn.c", "main.h", "includes \"main.h\", which is in no layer"),
    ("ops/burn.c", "sim_cfg.h", "includes \"sim_cfg.h\", which is in no layer"),
    # rescue/'s own order: up it, or across the screens and the jobs
    ("rescue/prompt.c", "rescue/wizard.h",
     'rescue/records (6.0) includes "rescue/wizard.h" of rescue/state (6.1): up the order'),
    ("rescue/inventory.c", "rescue/step_burn.h",
     'rescue/state (6.1) includes "rescue/step_burn.h" of rescue/steps (6.2): up the order'),
    ("rescue/step_burn.c", "rescue/flows.h",
     'rescue/steps (6.2) includes "rescue/flows.h" of rescue/flows (6.3): up the order'),
    ("rescue/job_run.c", "rescue/menu.h",
     'rescue/jobs (6.3) includes "rescue/menu.h" of rescue/menu (6.4): up the order'),
    ("rescue/flow_update.c", "rescue/jobs.h",
     'rescue/flows (6.3) includes "rescue/jobs.h" of rescue/jobs (6.3): across the sibling screens and jobs'),
    ("rescue/job_write.c", "rescue/flows.h",
     'rescue/jobs (6.3) includes "rescue/flows.h" of rescue/flows (6.3): across the sibling screens and jobs'),
    ("rescue/wizard.c", "rescue/helpers.h", 'includes "rescue/helpers.h", which is in no sub-layer of rescue/'),
])
def test_each_edge(tree, rel, include, what):
    line = plant(tree, rel, include)
    r = check(tree)
    assert r.returncode == 1, r.stdout
    assert "%s/%s:%d: %s" % (tree, rel, line, what) in r.stdout.splitlines(), r.stdout


@pytest.mark.parametrize("rel,include", [
    ("cli/cmd_rescue.c", "rescue/flows.h"),  # the rescue command's entry point starts the wizard
    ("main.c", "rescue/wizard.h"),           # main.c is above every layer
    ("library/match.c", "ops/burn.h"),       # down the order
    ("rescue/wizard.c", "library/boards.h"),
    ("tests/test_burn.c", "cli/common.h"),   # tests and fuzz may reach any layer
    ("fuzz/fuzz_image.c", "rescue/wizard.h"),
    ("rescue/menu.c", "rescue/step_burn.h"),      # rescue/'s top reaches down past the screens
    ("rescue/flow_unbrick.c", "rescue/flows.h"),  # the screens share their header
    ("rescue/job_run.c", "rescue/step_rom.h"),
    ("rescue/step_burn.c", "rescue/step_record.h"),  # steps use steps
    ("rescue/inventory.c", "rescue/pending.h"),
])
def test_allowed(tree, rel, include):
    plant(tree, rel, include)
    r = check(tree)
    assert r.returncode == 0, r.stdout


def test_rescue_file_in_no_sub_layer(tree):
    (tree / "rescue" / "helpers.c").write_text('#include "rescue/wizard.h"\n')
    r = check(tree)
    assert r.returncode == 1
    assert r.stdout.splitlines()[0].startswith("%s/rescue/helpers.c:1: is in no sub-layer of rescue/" % tree), \
        r.stdout


def test_file_in_no_layer(tree):
    (tree / "extra").mkdir()
    (tree / "extra" / "x.c").write_text('#include "util/status.h"\n')
    r = check(tree)
    assert r.returncode == 1
    assert r.stdout.splitlines()[0].startswith("%s/extra/x.c:1: is in no layer" % tree), r.stdout
