# SPDX-License-Identifier: GPL-2.0-or-later
"""The option table (burner/cli/options.c): every option the usage text lists parses, in
flint's spelling and the dashed one, and the table's rules hold; the command flags apply."""
import re

import pytest

from conftest import cx

E_USAGE = 2

# A value each option's kind accepts (the usage names it); parsing is all that is tested.
VALUES = {"G": ["0002c90300c0ffe0"], "G1 G2 G3 G4": ["1", "2", "3", "4"], "M": ["0002c9c0ffe0"],
          "M1 M2": ["0002c9c0ffe0", "0002c9c0ffe1"]}


def usage_options():
    """(letter, name, value words) of every option line of the usage text."""
    text = cx("--help", asan=True).stdout.split("options:\n")[1].split("\n\n")[0]
    rows = []
    for m in re.finditer(r"^  (?:-(\w), )?--([\w-]+)((?: [A-Z]\w*)*)  ", text, re.M):
        value = m.group(3).strip()
        rows.append((m.group(1), m.group(2), VALUES.get(value, [value] if value else [])))
    return rows


def test_usage_lists_every_option_once():
    names = [n for _, n, _ in usage_options()]
    assert len(names) == len(set(names)) == 38, names
    assert {"image", "device", "json", "yes", "vsd", "help", "version", "in-place", "unprotect"} <= set(names)


@pytest.mark.parametrize("sep", ["-", "_"])
def test_every_listed_option_parses_in_both_spellings(sep):
    """`help` after the options: nothing is opened, yet an unknown option is still refused."""
    for letter, name, values in usage_options():
        spellings = [re.sub(r"[-_]", sep, name)] + ([letter] if letter else [])
        for s in spellings:
            for dashes in ("-", "--"):
                r = cx(dashes + s, *values, "help", asan=True)
                assert r.returncode == 0 and "usage: cxflash" in r.stdout, (s, r.stderr)


def test_a_mixed_spelling_is_unknown():
    r = cx("--use_image-guids", "help", asan=True)
    assert r.returncode == E_USAGE and "unknown option '--use_image-guids'" in r.stderr


@pytest.mark.parametrize("args,words", [
    (["--boards"], "option --boards needs 1 value"),
    (["-sysfs", "-x"], "option --sysfs needs 1 value"),
    (["--vsd"], "option --vsd needs a value"),
    (["--guids", "1", "2", "3"], "option --guids needs 4 values"),
    (["--guid", "1", "--guids", "1", "2", "3", "4"], "GUIDs given twice"),
    (["--macs", "0002c9c0ffe0", "0002c9c0ffe1", "--mac", "0002c9c0ffe0"], "MACs given twice"),
    (["--firmware", "a"] * 9, "at most 8 --firmware folders"),
    (["-i", "x", "-d", "01:00.0", "v"], "not both (only burn takes both)"),
    (["-d", "01:00.0", "--striped-image", "v"], "--striped_image is for dump files"),
    (["rescue", "--json"], "rescue has no --json output"),
])
def test_refusals(args, words):
    r = cx(*args, asan=True)
    assert r.returncode == E_USAGE and words in r.stderr and r.stderr.count("\n") == 1, r.stderr


def test_a_vsd_may_start_with_a_dash():
    """-vsd takes the next word as is; the command then needs its image."""
    r = cx("sv", "-vsd", "-rescued", asan=True)
    assert r.returncode == E_USAGE and "sv needs an image" in r.stderr, r.stderr


def test_version():
    r = cx("-version", asan=True)
    assert r.returncode == 0 and r.stdout.startswith("cxflash ")
