"""The emulator controller's token never on a command line, never echoed (issue 13, item 6).

`--emulator-controller`'s help suggested `http://127.0.0.1:8554?token=...`, which `ps` shows to every
local user, and the URL's token was silently ignored (only MOBILE_AGENT_EMULATOR_TOKEN is read); a
malformed URL echoed the token in the usage error and in the `Settings` repr. Now a URL carrying a
token (a query, user info, a fragment) is refused with an error that names the variable, and no
message or repr holds the token.
"""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.cli.main import main as cli
from pytest_mobile_agent.emulator.endpoint import parse_url, redact_url
from pytest_mobile_agent.plugin.options import settings_from_config

pytest_plugins = ["pytester"]

SECRET = "s3cr3t-7f1e0c9b2d"
ISOLATED = ("-p", "no:randomly", "-p", "no:cacheprovider")
CARRYING = [
    f"http://127.0.0.1:8554?token={SECRET}",
    f"http://127.0.0.1:8554/?grpc.token={SECRET}",
    f"http://me:{SECRET}@127.0.0.1:8554",
    f"http://127.0.0.1:8554#{SECRET}",
    f"127.0.0.1:8554?token={SECRET}",
    f"http://127.0.0.1:notaport?token={SECRET}",  # malformed too: the old usage error echoed it
    f"ftp://[::1?token={SECRET}",
]


@pytest.fixture(autouse=True)
def _isolated(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MOBILE_AGENT_ANDROID_SERIAL", "MOBILE_AGENT_REQUIRE_DEVICE", "MOBILE_AGENT_EMULATOR_CONTROLLER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(pytester.path / "locks"))
    monkeypatch.setenv("MOBILE_AGENT_RECORDS", str(pytester.path / "records"))


@pytest.mark.parametrize("url", CARRYING)
def test_a_controller_url_carrying_a_token_is_refused_naming_the_variable_and_never_echoed(
        pytester: pytest.Pytester, url: str) -> None:
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest(*ISOLATED, "--emulator-controller", url)
    output = "\n".join(result.outlines + result.errlines)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, output
    assert "MOBILE_AGENT_EMULATOR_TOKEN" in output
    assert SECRET not in output


@pytest.mark.parametrize("url", CARRYING)
def test_the_settings_never_hold_a_token_and_the_usage_error_scrubs_it(pytester: pytest.Pytester, url: str) -> None:
    config = pytester.parseconfig("--emulator-controller", url)
    with pytest.raises(pytest.UsageError) as refused:
        settings_from_config(config)
    assert SECRET not in str(refused.value) and SECRET not in repr(refused.value)
    assert "MOBILE_AGENT_EMULATOR_TOKEN" in str(refused.value)


def test_the_environment_variable_url_is_held_to_the_same_rule(pytester: pytest.Pytester,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOBILE_AGENT_EMULATOR_CONTROLLER", CARRYING[0])
    with pytest.raises(pytest.UsageError) as refused:
        settings_from_config(pytester.parseconfig())
    assert SECRET not in str(refused.value)


def test_a_plain_url_is_kept_and_the_help_suggests_no_token_in_argv(pytester: pytest.Pytester) -> None:
    settings = settings_from_config(pytester.parseconfig("--emulator-controller", "http://127.0.0.1:8554"))
    assert settings.emulator_controller == "http://127.0.0.1:8554"
    assert parse_url("127.0.0.1:8554") == ("127.0.0.1", 8554)
    assert parse_url("http://[::1]:8554") == ("::1", 8554)
    help_text = "\n".join(pytester.runpytest(*ISOLATED, "--help").outlines)
    assert "token=" not in help_text
    assert "MOBILE_AGENT_EMULATOR_TOKEN" in " ".join(help_text.split())


@pytest.mark.parametrize("url", CARRYING)
def test_parse_url_and_redact_url_scrub_the_token(url: str) -> None:
    with pytest.raises(errors.InvalidArgument) as refused:
        parse_url(url)
    assert SECRET not in str(refused.value) and SECRET not in repr(refused.value)
    assert SECRET not in redact_url(url)


@pytest.mark.parametrize("command", ["doctor", "inspect"])
@pytest.mark.parametrize("url", CARRYING[:3])
def test_the_doctor_and_the_inspector_refuse_it_too_before_starting_anything(command: str, url: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = cli([command, "--android-serial", "virtual", "--emulator-controller", url])
    assert status == 2
    assert "MOBILE_AGENT_EMULATOR_TOKEN" in err.getvalue()
    assert SECRET not in out.getvalue() + err.getvalue()
