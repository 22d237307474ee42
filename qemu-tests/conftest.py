# SPDX-License-Identifier: GPL-2.0-or-later
"""Fixtures every QEMU test file shares."""
import pytest


@pytest.fixture
def guests():
    """The QEMU guests a test starts (append each one): closed at teardown, pass or fail."""
    started = []
    yield started
    for g in started:
        g.close()
