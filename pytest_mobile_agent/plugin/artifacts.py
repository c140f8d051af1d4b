"""What a failing device test leaves behind: a screenshot, the tree dump and the logcat lines of its
run (and, when it used the app under test, the crashes of its run in the device's crash buffer,
`logcat -b crash`; when it attached web pages, each page's url, console messages and HTML),
attached to its report (sections, and pytest-html extras when pytest-html runs) and written
under the pytest cache (`.pytest_cache/d/mobile-agent/artifacts/<test>/`), or with the cache plugin
off under `<rootdir>/.mobile-agent/artifacts/<test>/`, which holds a `.gitignore` of `*`.
"""

from __future__ import annotations

import base64
import logging
import os
import re
import shlex
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_mobile_agent.errors import MobileAgentError, NoMatch, WaitTimeout
from pytest_mobile_agent.plugin.run import ArtifactSources, TargetRecord, current_run
from pytest_mobile_agent.plugin.web_evidence import web_page_producers
from pytest_mobile_agent.session import Session
from pytest_mobile_agent.userfiles import private_dir, write_private

log = logging.getLogger("pytest_mobile_agent.plugin.artifacts")

OWN_FOLDER = ".mobile-agent"
GITIGNORE = b"# Created by pytest-mobile-agent: failed tests' artifacts, never to commit.\n*\n"
MAX_LOGCAT_LINES = 2000
REPORT_LINES = 60  # of a text artifact in the report; the file holds all of it
TREE = "tree.txt"


__all__ = ["ArtifactSources", "artifact_dir", "collect", "collect_target", "logcat_text"]


RUN_ID_KEY = pytest.StashKey[str]()
RUN_ID_INPUT = "mobile_agent_run_id"
"""The key of the run id in an xdist worker's `workerinput`: the controller's id, so every worker of a
run writes into the same run's folders."""
RUN_MARK = ".mobile-agent-run"


def run_id(config: pytest.Config) -> str:
    """This run's id (`20261206-051702-4242`: when it started and the controller's pid), shared by its
    xdist workers."""
    if RUN_ID_KEY not in config.stash:
        workerinput = getattr(config, "workerinput", None)
        given = workerinput.get(RUN_ID_INPUT) if workerinput else None
        config.stash[RUN_ID_KEY] = str(given) if given else f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
    return config.stash[RUN_ID_KEY]


def named_artifacts_root(config: pytest.Config) -> Path | None:
    """`--android-artifacts DIR` (MOBILE_AGENT_ARTIFACTS, ini android_artifacts), or None."""
    from pytest_mobile_agent.plugin.options import raw_value

    named = raw_value(config, "android_artifacts")
    return Path(str(named)).expanduser().resolve() if named else None


def artifact_dir(config: pytest.Config, nodeid: str) -> Path:
    """Where a test's artifacts go: `--android-artifacts DIR` gives `DIR/<run id>/<test>/`, one folder
    per run; else `.pytest_cache/d/mobile-agent/artifacts/<test>/`, or with the cache plugin off (`-p
    no:cacheprovider`) `<rootdir>/.mobile-agent/artifacts/<test>/`, a folder that ignores itself, whose
    files of an earlier run are removed when this run first writes there, so a run's files never sit
    beside another's."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", nodeid).strip("_")[:150] or "test"
    named = named_artifacts_root(config)
    if named is not None:
        return private_dir(private_dir(private_dir(named) / run_id(config)) / name)
    if getattr(config, "cache", None) is not None:
        base = Path(str(config.cache.mkdir("mobile-agent")))
    else:
        base = _own_folder(config.rootpath / OWN_FOLDER)
    folder = private_dir(private_dir(base / "artifacts") / name)  # screenshots and logs of the user's app
    _claim(folder, run_id(config))
    return folder


def _claim(folder: Path, run: str) -> None:
    """Make the folder this run's: the files an earlier run left there are removed first."""
    mark = folder / RUN_MARK
    try:
        if mark.read_text() == run:
            return
    except OSError:
        pass
    for entry in folder.iterdir():
        if entry.is_file() or entry.is_symlink():
            entry.unlink(missing_ok=True)
        elif entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
    write_private(mark, run.encode("ascii"))


def report_path(config: pytest.Config, path: Path, report: str | None = None) -> str:
    """How a report names a file it carries, so the report travels with its folder: relative to
    `--android-artifacts` when named, else to the report's own folder (`report`: the JUnit XML's or the
    HTML report's path), else absolute."""
    named = named_artifacts_root(config)
    base = named if named is not None else (Path(report).expanduser().resolve().parent if report else None)
    if base is None:
        return str(path)
    try:
        return os.path.relpath(path.resolve(), base)
    except ValueError:  # another drive (Windows)
        return str(path)


def _own_folder(path: Path) -> Path:
    """The folder, private, with a `.gitignore` that ignores all of it (as pytest writes one into
    .pytest_cache: _pytest/cacheprovider.py, `Cache._ensure_supporting_files`)."""
    folder = private_dir(path)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        write_private(ignore, GITIGNORE)
    return folder


def collect(item: pytest.Item, report: pytest.TestReport, failure: BaseException | None = None,
            screenshot: bool = True) -> None:
    """Attach the artifacts of a failed test to its report, for each of its targets: every artifact is
    written whole; the report shows each once: not the first target's tree when the failure's message
    has shown it (NoMatch, WaitTimeout), and the logcat's last lines."""
    run = current_run(item)
    if run is None:
        return
    targets = [target for target in run.targets if target.artifacts.device is not None]
    if not targets:
        return
    try:
        directory = artifact_dir(item.config, item.nodeid)
    except (MobileAgentError, OSError) as exc:
        report.sections.append(("mobile-agent artifacts", f"not written: {exc}"))
        return
    attached: list[str] = []
    for target in targets:
        attached += collect_target(directory, target, report, failure if target.index == 0 else None, screenshot,
                                   several=len(targets) > 1)
    if attached:
        report.sections.append(("mobile-agent artifacts", "\n".join(attached)))


def collect_target(directory: Path, target: TargetRecord, report: pytest.TestReport,
                   failure: BaseException | None = None, screenshot: bool = True, several: bool = False) -> list[str]:
    """One target's screenshot, tree, logcat and crashes, written to `directory` (named for the target
    when the test has several) and shown in the report; returns the paths written."""
    sources = target.artifacts
    sources.screenshot_wanted = screenshot
    suffix = f" ({target.serial})" if several else ""
    attached: list[str] = []
    for name, produce in _producers(sources):
        stem, extension = name.rsplit(".", 1)
        try:
            produced = produce()
        except (MobileAgentError, OSError, ValueError) as exc:
            report.sections.append((f"mobile-agent {name}{suffix}", f"could not be captured: {exc}"))
            continue
        if produced is None:
            continue
        path = directory / f"{target.file_stem(stem)}.{extension}"
        try:
            write_private(path, produced if isinstance(produced, bytes) else produced.encode("utf-8"))
        except (MobileAgentError, OSError) as exc:
            report.sections.append((f"mobile-agent {name}{suffix}", f"not written: {exc}"))
            continue
        if isinstance(produced, bytes):
            _html_image(report, produced)
        elif not (name == TREE and _shows_the_tree(failure)) and extension != "html":
            report.sections.append((f"mobile-agent {stem}{suffix}", _shown(produced, path)))
        sources.written.append(path)
        attached.append(str(path))
    return attached


def _shows_the_tree(failure: BaseException | None) -> bool:
    """Whether the failure's message has shown the tree already (NoMatch, WaitTimeout)."""
    return isinstance(failure, (NoMatch, WaitTimeout)) and bool(failure.tree)


def _shown(text: str, path: Path) -> str:
    """What the report shows of a text artifact: its last REPORT_LINES lines."""
    lines = text.splitlines()
    if len(lines) <= REPORT_LINES:
        return text
    return f"... {len(lines) - REPORT_LINES} earlier lines in {path}\n" + "\n".join(lines[-REPORT_LINES:]) + "\n"


def _producers(sources: ArtifactSources) -> list[tuple[str, Callable[[], bytes | str | None]]]:
    producers: list[tuple[str, Callable[[], bytes | str | None]]] = []
    session, screen, app = sources.session, sources.screen, sources.app
    if session is not None and sources.screenshot_wanted:
        producers.append(("screenshot.png", lambda: _screenshot(session)))
    if screen is not None:
        producers.append((TREE, lambda: str(screen.dump())))
    producers.append(("logcat.txt", lambda: logcat_text(sources)))
    if app is not None:
        producers.append(("crash.txt", lambda: app.crash_log(sources.crash_after) or None))
    if sources.web is not None:
        producers += web_page_producers(sources.web)
    return producers


def _screenshot(session: Session) -> bytes | None:
    data = session.screenshot().data
    return data if isinstance(data, bytes) else None


def logcat_text(sources: ArtifactSources) -> str:
    """The logcat lines of the test's run (its last MAX_LOGCAT_LINES), read once."""
    if sources.device is None:
        return ""
    if sources.logcat_read is None:
        since = f" -t {shlex.quote(sources.logcat_since)}" if sources.logcat_since else ""
        output = sources.device.shell(f"logcat -d -v threadtime{since}").text()
        lines = output.splitlines()[-MAX_LOGCAT_LINES:]
        sources.logcat_read = "\n".join(lines) + ("\n" if lines else "")
    return sources.logcat_read


def _html_image(report: pytest.TestReport, png: bytes) -> None:
    """pytest-html shows `report.extras`; without it the list is inert."""
    try:
        from pytest_html import extras  # type: ignore[import-not-found]
    except ImportError:
        return
    picture = extras.png(base64.b64encode(png).decode("ascii"))
    report.extras = [*getattr(report, "extras", []), picture]  # type: ignore[attr-defined]
