# SPDX-License-Identifier: GPL-2.0-or-later
"""Runs every cmocka unit-test binary (built under ASan/UBSan) and fails with its output."""
import pytest

from conftest import BUILD, run, SANITIZER_MARKS

UNIT = sorted((BUILD / "tests").glob("test_*")) if (BUILD / "tests").exists() else []


@pytest.mark.parametrize("binary", UNIT, ids=[p.name for p in UNIT])
def test_cmocka(binary):
    # The power-cut campaign (test_powercut) runs thousands of cut points under ASan: minutes.
    r = run([binary], timeout=1800)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert "[  PASSED  ]" in out, out
    for mark in SANITIZER_MARKS:
        assert mark not in out, out


def test_unit_binaries_exist():
    assert UNIT, "no cmocka test binaries were built (burner/tests/test_*.c)"
