# SPDX-License-Identifier: BSD-3-Clause
"""The Debian packages of this tree (utils/package) as a Debian user meets
them: tests/package/check-packages (--help says what it checks)."""

import pytest
from conftest import TOP


@pytest.mark.part("package")
def test_packages(request):
    request.config.rpma.stop_boot()
    host = request.config.rpma.place("host").remote
    host.checked([f"{TOP}/tests/package/check-packages"], timeout=1800)
