"""Under pytest-xdist the "mobile-agent status" section still appears: each worker sends its
targets' status lines back to the controller process, which prints them per target."""

from __future__ import annotations

import pytest

from tests.unit.plugin.plugin_inner_runs import ISOLATED, isolate

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def _isolated_dirs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(pytester, monkeypatch)


def test_two_workers_status_lines_reach_the_controllers_summary(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.parametrize("n", [1, 2, 3, 4])
        def test_screen(screen, n):
            assert screen.snapshot().node_count > 0
        """
    )
    result = pytester.runpytest_subprocess(*ISOLATED, "-n", "2", "--android-serial", "virtual:2")
    result.assert_outcomes(passed=4)
    section = result.stdout.str().split("mobile-agent status", 1)
    assert len(section) == 2, result.stdout.str()
    lines = section[1].splitlines()
    for serial in ("emulator-5554", "emulator-5556"):
        assert any(line.startswith(f"{serial}: mobile-agent-android ") and "over protocol 1, pid " in line
                   for line in lines), section[1]
    assert sum(line.startswith("input: ") for line in lines) == 2
