"""Two devices in one test (issue 26, item 2): `@pytest.mark.devices(N)` gives `screens` and
`devices`, each target with its own session and lock; the locks are taken in one global order, so
two workers that want the same targets never deadlock; under xdist a worker takes a group of
targets from the comma list (gwN the items N, N + W, ...).
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_mobile_agent.adb import AdbServer
from pytest_mobile_agent.stack.opener import lock_order, locks_held
from pytest_mobile_agent.stack.settings import Settings
from pytest_mobile_agent.stack.targets import AndroidTarget, TargetProvider
from pytest_mobile_agent.virtual import VirtualLab

pytest_plugins = ["pytester"]


@pytest.fixture
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("MOBILE_AGENT_JAR", "MOBILE_AGENT_RECORDS", "MOBILE_AGENT_ANDROID_SERIAL", "ADB_SERVER_SOCKET",
                 "ANDROID_ADB_SERVER_PORT", "MOBILE_AGENT_EMULATOR_CONTROLLER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(tmp_path / "locks"))
    return tmp_path


# --- the groups and the lock order, without pytest --------------------------------------------------


def test_each_worker_takes_its_own_items_first_then_the_others_in_the_lists_order() -> None:
    items = ("a", "b", "c", "d")

    def order(index: int, workers: int) -> list[str]:
        provider = TargetProvider(Settings.for_target(items[0], serials=items), index=index, workers=workers)
        provider._target = AndroidTarget(items[index % len(items)], AdbServer())  # no server needed
        return provider._group_order()

    assert order(0, 2) == ["a", "c", "b", "d"]
    assert order(1, 2) == ["b", "d", "c", "a"]
    assert order(0, 1) == ["a", "b", "c", "d"]
    assert order(2, 4)[0] == "c", "a worker's own target first, as it drives it alone"
    assert order(5, 3) == ["b", "c", "d", "a"], "more workers than items: the index wraps round the list"


def test_the_locks_are_taken_in_one_order_whatever_the_tests_order(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(tmp_path))
    a, b = AndroidTarget("emulator-5554", AdbServer(port=5037)), AndroidTarget("emulator-5556", AdbServer(port=5037))
    assert [lock.serial for lock in lock_order([b, a])] == [lock.serial for lock in lock_order([a, b])]


def test_two_holders_wanting_the_same_targets_in_opposite_orders_never_deadlock(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(tmp_path))
    a, b = AndroidTarget("emulator-5554", AdbServer(port=5037)), AndroidTarget("emulator-5556", AdbServer(port=5037))
    held: list[tuple[str, float, float]] = []
    errors: list[BaseException] = []
    go = threading.Barrier(2)

    def hold(name: str, targets: list[AndroidTarget]) -> None:
        try:
            go.wait()
            for _ in range(5):
                with locks_held(targets, name, wait=10.0):
                    started = time.monotonic()
                    time.sleep(0.02)
                    held.append((name, started, time.monotonic()))
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)

    threads = [threading.Thread(target=hold, args=("ab", [a, b])), threading.Thread(target=hold, args=("ba", [b, a]))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads), "deadlocked"
    assert not errors, errors
    spans = sorted(held, key=lambda h: h[1])
    assert len(spans) == 10
    assert all(first[2] <= second[1] for first, second in itertools.pairwise(spans)), "never both at once"


# --- the fixtures on a lab of two -------------------------------------------------------------------------

TWO_PHONES = """
import pytest

@pytest.mark.devices(2)
def test_two_phones(screens, devices, compose_fixture_factory):
    alice, bob = devices
    assert alice.serial != bob.serial
    assert [d.screen for d in devices] == screens and screens[0] is not screens[1]
    for device in devices:
        device.adb.shell("am start -W -S -n dev.mobileagent.fixture/.MainActivity --es tab Login")
    screens[0].wait_for(id="username", timeout=10).tap()
    screens[0].type_text("alice")
    screens[1].wait_for(id="username", timeout=10)
    assert screens[0].find(id="username").text == "alice"
    assert screens[1].find(id="username").text != "alice", "each screen is its own device's"
    alice.rotate("landscape")
    assert alice.orientation == "landscape" and bob.orientation == "portrait"
    for device in devices:
        device.adb.shell("am force-stop dev.mobileagent.fixture")

@pytest.fixture
def compose_fixture_factory():
    return None

@pytest.mark.devices(2)
def test_the_rotation_came_back(devices):
    assert [d.orientation for d in devices] == ["portrait", "portrait"]
"""


def test_two_phones_get_a_screen_and_a_device_each_with_their_own_session(pytester: pytest.Pytester,
                                                                          clean_env: Path) -> None:
    pytester.makepyfile(test_two=TWO_PHONES)
    result = pytester.runpytest("-p", "no:randomly", "-p", "no:xdist", "--android-serial", "virtual:2")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=2)
    text = result.stdout.str()
    for serial in ("emulator-5554", "emulator-5556"):
        assert f"device state of {serial}:" in text, text


MISUSES = """
import pytest

@pytest.mark.devices(3)
def test_three(screens):
    pass

@pytest.mark.devices(0)
def test_none(screens):
    pass

@pytest.mark.devices(2)
def test_both_kinds(screen, screens, device_control, devices):
    assert screen is screens[0] and device_control is devices[0], "the single-target fixtures are the first target's"
"""


def test_more_devices_than_named_skip_with_the_reason_a_bad_count_fails_and_both_kinds_of_fixtures_agree(
        pytester: pytest.Pytester, clean_env: Path) -> None:
    pytester.makepyfile(test_misuse=MISUSES)
    result = pytester.runpytest("-p", "no:randomly", "-p", "no:xdist", "-rs", "--android-serial",
                                           "virtual:2")
    result.assert_outcomes(passed=1, skipped=1, errors=1)
    result.stdout.fnmatch_lines(["*@pytest.mark.devices(N) takes a whole number N >= 1, not 0*"])
    result.stdout.fnmatch_lines(
        ["*SKIPPED*@pytest.mark.devices(3): the test needs 3 Android targets and --android-serial names 2*virtual:3*"])


def test_more_devices_than_named_fail_under_require_device(pytester: pytest.Pytester, clean_env: Path) -> None:
    pytester.makepyfile(test_misuse=MISUSES)
    result = pytester.runpytest("-p", "no:randomly", "-p", "no:xdist", "--android-require-device",
                                           "--android-serial", "virtual:2", "-k", "three")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*--android-require-device: @pytest.mark.devices(3): the test needs 3*"])


# --- two workers, four targets -----------------------------------------------------------------------------


@pytest.fixture
def lab_of_four(clean_env: Path) -> Iterator[VirtualLab]:
    with VirtualLab.start(4) as lab:
        yield lab


GROUP_SUITE = """
import json, os, pathlib, time
import pytest

def _note(devices, started):
    with pathlib.Path({out!r}).open("a") as f:
        f.write(json.dumps({{"worker": os.environ.get("PYTEST_XDIST_WORKER", ""), "count": len(devices),
                             "serials": [d.serial for d in devices], "start": started, "end": time.time()}}) + "\\n")

@pytest.mark.devices({count})
@pytest.mark.parametrize("run", range(3))
def test_group(devices, run):
    started = time.time()
    time.sleep(0.2)
    _note(devices, started)
"""


def _run_groups(pytester: pytest.Pytester, lab: VirtualLab, out: Path, count: int) -> list[dict[str, object]]:
    for index in range(2):
        pytester.makepyfile(**{f"test_group_{index}": GROUP_SUITE.format(out=str(out), count=count)})
    targets = ",".join(f"tcp:127.0.0.1:{lab.adb_port}/{serial}" for serial in lab.serials)
    result = pytester.runpytest_subprocess("-n", "2", "--dist", "loadfile", "-p", "no:randomly", "--android-serial",
                                           targets, "--quiet-wait", "5", "--emulator-controller", "off",
                                           "--lock-wait", "120", timeout=300)
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    return [json.loads(line) for line in out.read_text().splitlines()]


def test_two_workers_with_four_targets_each_take_a_pair_of_their_own(
        pytester: pytest.Pytester, lab_of_four: VirtualLab, clean_env: Path) -> None:
    rows = _run_groups(pytester, lab_of_four, clean_env / "pairs.jsonl", 2)
    pairs = {row["worker"]: tuple(row["serials"]) for row in rows}  # type: ignore[arg-type]
    assert set(pairs) == {"gw0", "gw1"}, rows
    assert pairs["gw0"] == ("emulator-5554", "emulator-5558") and pairs["gw1"] == ("emulator-5556", "emulator-5560")
    kept = all(tuple(row["serials"]) == pairs[str(row["worker"])] for row in rows)  # type: ignore[arg-type]
    assert kept, "a worker keeps its pair"


def test_under_virtual_4_the_two_workers_take_pairs_the_same_way(pytester: pytest.Pytester, clean_env: Path) -> None:
    out = clean_env / "virtual.jsonl"
    for index in range(2):
        pytester.makepyfile(**{f"test_group_{index}": GROUP_SUITE.format(out=str(out), count=2)})
    result = pytester.runpytest_subprocess("-n", "2", "--dist", "loadfile", "-p", "no:randomly", "--android-serial",
                                           "virtual:4", "--emulator-controller", "off", timeout=300)
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    pairs = {row["worker"]: tuple(row["serials"]) for row in rows}
    assert pairs == {"gw0": ("emulator-5554", "emulator-5558"), "gw1": ("emulator-5556", "emulator-5560")}


def test_two_workers_that_each_need_all_four_targets_take_turns_and_never_deadlock(
        pytester: pytest.Pytester, lab_of_four: VirtualLab, clean_env: Path) -> None:
    rows = _run_groups(pytester, lab_of_four, clean_env / "all.jsonl", 4)
    assert len(rows) == 6 and {row["worker"] for row in rows} == {"gw0", "gw1"}
    spans = sorted((float(row["start"]), float(row["end"])) for row in rows)  # type: ignore[arg-type]
    assert all(first[1] <= second[0] for first, second in itertools.pairwise(spans)), "one holder of all four at a time"
