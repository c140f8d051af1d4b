"""A test's web evidence: Playwright's own trace of each attached socket (`context.tracing`), kept with
the test's step trace under `--android-trace` and named in it (`web_traces`, docs/trace-format.md), and a
failing test's web artifacts: each attached page's url, title and console messages (`web-N.txt`) and
its HTML (`web-N.html`).

Playwright's traces are written into a private temporary folder when the web content closes (in the
test's teardown, under the automation lock) and moved beside the step trace when it is kept, else
deleted; the step trace links them, and `playwright show-trace FILE` opens one.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_mobile_agent.errors import MobileAgentError
from pytest_mobile_agent.plugin.run import OFF, TargetRecord, TestRun, run_of
from pytest_mobile_agent.web.content import AttachedPage, WebContent

log = logging.getLogger("pytest_mobile_agent.plugin.web_evidence")
TRACE_PREFIX = "mobile-agent-web-trace-"


def web_opened(item: pytest.Item, target: TargetRecord, web: WebContent) -> None:
    """A target's web content opened: its pages go with the artifacts, and Playwright traces them when
    the step trace may be kept."""
    target.artifacts.web = web
    if run_of(item).evidence.policy.trace != OFF:
        web.trace_dir = Path(tempfile.mkdtemp(prefix=TRACE_PREFIX))


def body_ended(run: TestRun) -> None:
    """The test's body is over: Playwright's traces are written now, while the pages' sockets are still
    there (the teardown of a fixture such as `compose_fixture` stops the app before the web content
    closes)."""
    for target in run.targets:
        if target.artifacts.web is not None:
            target.artifacts.web.stop_tracing()


def finish(run: TestRun, failed: bool, directory: Callable[[], Path]) -> None:
    """After the teardown closed the web content: each Playwright trace moved into the test's
    `directory` (the step trace's) when that is kept (named in `evidence.written` and
    `evidence.web_traces`), else deleted."""
    evidence = run.evidence
    keep = evidence.policy.keeps(evidence.policy.trace, failed)
    for target in run.targets:
        web = target.artifacts.web
        if web is None or web.trace_dir is None:
            continue
        try:
            for written in web.trace_files if keep else []:
                stem = target.file_stem(written.stem)
                path = directory() / evidence.name(stem, "zip")
                shutil.move(str(written), path)
                evidence.written[stem] = path
                evidence.web_traces.append({"file": path.name, "socket": written.stem.removeprefix("playwright-"),
                                            "target": target.label})
        except (MobileAgentError, OSError) as exc:
            evidence.missing.append(("playwright trace", str(exc)))
        finally:
            shutil.rmtree(web.trace_dir, ignore_errors=True)


def web_page_producers(web: WebContent) -> list[tuple[str, Callable[[], bytes | str | None]]]:
    """The failure artifacts of each attached page, for plugin/artifacts.py."""
    producers: list[tuple[str, Callable[[], bytes | str | None]]] = []
    for number, attached in enumerate(web.pages, start=1):
        producers.append((f"web-{number}.txt", lambda attached=attached: page_summary(attached)))  # type: ignore[misc]
        producers.append((f"web-{number}.html", lambda attached=attached: page_html(attached)))  # type: ignore[misc]
    return producers


def page_summary(attached: AttachedPage) -> str:
    page = attached.page
    if page.is_closed():
        return f"{attached.socket} ({attached.package}): the page had closed\n" + _console(attached)
    try:
        title = page.title()
    except Exception as exc:  # noqa: BLE001 - Playwright's error: the page went away meanwhile
        title = f"(not read: {exc})"
    return f"url: {page.url}\ntitle: {title}\nsocket: {attached.socket} ({attached.package})\n" + _console(attached)


def _console(attached: AttachedPage) -> str:
    lines = attached.console or ["(no console message)"]
    return "console:\n" + "".join(f"  {line}\n" for line in lines)


def page_html(attached: AttachedPage) -> str | None:
    if attached.page.is_closed():
        return None
    try:
        return attached.page.content()
    except Exception as exc:  # noqa: BLE001 - Playwright's error: the page went away meanwhile
        log.info("web: no HTML of %s: %s", attached.page.url, exc)
        return None
