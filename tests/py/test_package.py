# SPDX-License-Identifier: BSD-3-Clause
"""The Debian packages of this tree (utils/package), checked as a Debian
user meets them: installed over the distribution's librpma in a fresh
root, a program built on Debian's run on ours with a device, fio's jobs
and example 17 through the pair runner, then removed again
(tests/package/check-packages --help)."""

import pytest
from conftest import TOP


@pytest.mark.part("package")
def test_packages(request):
    request.config.rpma.stop_boot()
    host = request.config.rpma.place("host").remote
    proc = host.call([f"{TOP}/tests/package/check-packages"], timeout=1800)
    assert proc.status == 0, proc.output
