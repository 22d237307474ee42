# SPDX-License-Identifier: GPL-2.0-or-later
"""scripts/check-functions (make check-functions): no C function in burner/ or sim/ outside
their tests is over 80 lines, counted from its opening brace's line to its closing brace's."""
import re
import shutil
import sys

import pytest

from conftest import ROOT, make_check_runs, run

SCRIPT = ROOT / "scripts" / "check-functions"


def check(*folders):
    return run([sys.executable, SCRIPT] + list(folders))


def function(name, lines):
    """A C function of `lines` lines, braces included, whose body has braces, a string with
    a brace and a comment with one: none of them may end it early or late."""
    assert lines >= 6
    body = ['\tint n = 0;', '\tconst char *s = "}{";', '\t/* } */', '\tif (n) {', '\t}']
    body += ["\tn++;"] * (lines - 2 - len(body) - 1) + ["\treturn n + (s[0] == '}');"]
    return ["static int %s(void)" % name, "{"] + body + ["}"]


def plant(path, name, lines):
    """Append a function of `lines` lines to path; returns the line of its opening brace."""
    text = path.read_text().rstrip("\n").split("\n")
    at = len(text) + 2 + 1  # a blank line, the header, then the brace
    path.write_text("\n".join(text + [""] + function(name, lines)) + "\n")
    return at


@pytest.fixture
def tree(tmp_path):
    """A copy of burner/ and sim/'s sources, to plant functions in."""
    for top in ("burner", "sim"):
        shutil.copytree(ROOT / top, tmp_path / top, ignore=shutil.ignore_patterns("cxflash", "*.o"))
    return tmp_path


def test_real_tree_passes():
    r = check()
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.fullmatch(r"check-functions: \d+ functions, none over 80 lines\n", r.stdout), r.stdout


def test_make_check_runs_it():
    """make check-functions runs the script, and make check depends on it."""
    assert "check-functions" in make_check_runs(), "make check does not run check-functions"
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^check-functions:\n\t.*scripts/check-functions", makefile, re.M)


def test_81_lines_fail_80_pass(tree):
    """An 81-line function is named, FILE:LINE: NAME is 81 lines, and fails the check; one of
    80 lines beside it is not named."""
    src = tree / "burner" / "util" / "sha256.c"
    plant(src, "just_fits", 80)
    at = plant(src, "one_too_long", 81)
    r = check(tree / "burner", tree / "sim")
    assert r.returncode == 1, r.stdout
    assert "%s:%d: one_too_long is 81 lines\n" % (src, at) in r.stdout
    assert "just_fits" not in r.stdout
    assert re.search(r"^check-functions: \d+ function\(s\) over 80 lines$", r.stdout, re.M)


def test_sim_is_read_too(tree):
    src = tree / "sim" / "core" / "card.c"
    at = plant(src, "long_in_the_model", 120)
    r = check(tree / "burner", tree / "sim")
    assert r.returncode == 1
    assert "%s:%d: long_in_the_model is 120 lines\n" % (src, at) in r.stdout


def test_tests_and_fuzz_are_not_read(tree):
    """Test code may be as long as its story: burner/tests, burner/fuzz and sim/tests are skipped."""
    before = check(tree / "burner", tree / "sim")
    for rel in ("burner/tests/test_crc16.c", "burner/fuzz/fuzz_image.c", "sim/tests/test_card.c"):
        plant(tree / rel, "a_long_test", 200)
    r = check(tree / "burner", tree / "sim")
    assert r.returncode == before.returncode and r.stdout == before.stdout
    assert "a_long_test" not in r.stdout


def test_prototypes_structs_and_tables_are_not_functions(tmp_path):
    """What has braces at the top level but is no function: a struct, an enum, a table."""
    src = tmp_path / "shapes.c"
    rows = ["\t{ %d, %d }," % (i, i) for i in range(100)]
    src.write_text("\n".join(
        ["#include <stdio.h>", "#define BRACE '{'", "int f(int x);",
         "struct s {"] + ["\tint a%d;" % i for i in range(90)] + ["};",
         "enum e {"] + ["\tE%d," % i for i in range(90)] + ["};",
         "static const struct { int a, b; } table[] = {"] + rows + ["};"]
        + function("short_one", 10)) + "\n")
    r = check(tmp_path)
    assert r.returncode == 0, r.stdout
    assert r.stdout == "check-functions: 1 functions, none over 80 lines\n"
