"""Issue 28 item 5: with the cache plugin off (`-p no:cacheprovider`) a failed test's artifacts go to
`<rootdir>/.mobile-agent/artifacts/`, wherever pytest was started from, and that folder carries a
`.gitignore` that ignores all of it, as `.pytest_cache` does."""

from __future__ import annotations

import subprocess

import pytest

pytest_plugins = ["pytester"]

FAILS_WITH_THE_AGENT = "def test_fails(agent):\n    assert False, 'the app is wrong'\n"


@pytest.fixture(autouse=True)
def _isolated(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MOBILE_AGENT_ANDROID_SERIAL", raising=False)
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(pytester.path / "locks"))


def test_without_the_cache_artifacts_go_under_the_rootdir_in_a_folder_git_ignores(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makeini("[pytest]\n")
    suite = pytester.mkdir("suite")
    (suite / "test_app.py").write_text(FAILS_WITH_THE_AGENT)
    monkeypatch.chdir(suite)  # started below the rootdir
    result = pytester.runpytest("-p", "no:randomly", "-p", "no:cacheprovider", "--android-serial", "virtual",
                                "--emulator-controller", "off")
    result.assert_outcomes(failed=1)
    folder = pytester.path / ".mobile-agent"
    assert not (suite / ".mobile-agent").exists()
    written = next((folder / "artifacts").iterdir())
    assert (written / "logcat.txt").exists()
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
    subprocess.run(["git", "init", "-q", str(pytester.path)], check=True)
    ignored = subprocess.run(["git", "-C", str(pytester.path), "status", "--porcelain", "--untracked-files=all"],
                             capture_output=True, text=True, check=True).stdout
    assert ".mobile-agent" not in ignored and "suite/test_app.py" in ignored
