"""Issue 28 item 12: a failed wait's report is short. The tree is printed once (in the failure's
message, not again in the artifacts section), the keyboard's keys fold into one line, the traceback
stops at the test's own line instead of walking the library's frames, and the artifact keeps the
whole tree. It ran to 244 lines before."""

from __future__ import annotations

import pytest

from pytest_mobile_agent import errors

pytest_plugins = ["pytester"]

SIGN_IN_WITHOUT_THE_PASSWORD = """
def test_signing_in(compose_fixture, screen):
    compose_fixture(tab="Login")
    screen.find(id="username").type_text("ada")
    assert screen.wait_for(id="alert_message", timeout=2).text == "Welcome, ada"
"""


@pytest.fixture(autouse=True)
def _isolated(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MOBILE_AGENT_ANDROID_SERIAL", raising=False)
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(pytester.path / "locks"))


@pytest.mark.parametrize("ci", ["", "true"], ids=["a terminal", "CI (pytest never trims the summary there)"])
def test_a_failed_wait_is_reported_once_short_and_at_the_tests_line(pytester: pytest.Pytester,
                                                                     monkeypatch: pytest.MonkeyPatch, ci: str) -> None:
    monkeypatch.setenv("CI", ci)
    pytester.makepyfile(test_sign_in=SIGN_IN_WITHOUT_THE_PASSWORD)
    result = pytester.runpytest("-p", "no:randomly", "-p", "no:cacheprovider", "--android-serial", "virtual",
                                "--emulator-controller", "off")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert out.count('"Compose fixture" dev.mobileagent.fixture focused') == 1, "the tree is printed once"
    assert "- mobile-agent tree -" not in out
    result.stdout.fnmatch_lines(["E * @*..@* 43 keys: 1 2 3 4 5 6 7 8 9 0 q w e r t y u i o p * space . enter"])
    assert "key_pos_0_0" not in out
    assert "pytest_mobile_agent/" not in out.split("= FAILURES =", 1)[1].split("- mobile-agent", 1)[0], \
        "no frame of the library in the traceback"
    result.stdout.fnmatch_lines(["test_sign_in.py:4: WaitTimeout"])
    assert len(result.outlines) < 120, len(result.outlines)
    written = next((pytester.path / ".mobile-agent" / "artifacts").iterdir())
    whole = (written / "tree.txt").read_text()
    assert "key_pos_0_0" in whole and "key_pos_4_42" in whole, "the artifact keeps every key"


class _Info:
    def __init__(self, value: BaseException) -> None:
        self.value = value


def test_only_our_own_failures_hide_the_librarys_frames() -> None:
    assert errors.hide_our_frames(_Info(errors.WaitTimeout("waiting for x", 1.0))) is True
    assert errors.hide_our_frames(_Info(TypeError("a bug in the library"))) is False
    assert errors.hide_our_frames(None) is False
