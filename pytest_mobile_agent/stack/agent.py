"""The agent a stack attaches: which jar, whose records, with which deploy options."""

from __future__ import annotations

from collections.abc import Callable

from pytest_mobile_agent.agent import AgentJar, Attached, Deployer, DeployOptions, Records
from pytest_mobile_agent.agent.jar import JAR_ENV
from pytest_mobile_agent.stack.settings import Settings
from pytest_mobile_agent.stack.targets import AndroidTarget, TargetProvider
from pytest_mobile_agent.userfiles import private_dir


def choose_jar(settings: Settings, target: AndroidTarget, announce: Callable[[str], None]) -> AgentJar:
    """`--agent-jar` / MOBILE_AGENT_JAR; the stand-in on a virtual device (ours, or one served and
    named by its serial); else the jar a release wheel bundles when it was built from the package's
    agent sources; else the per-user cached build of those sources, built on first use with the
    Android SDK found (concurrent processes build once, under the builder's lock)."""
    if settings.agent_jar is not None:
        return AgentJar.from_path(settings.agent_jar, origin=f"named by --agent-jar or {JAR_ENV}")
    if target.runs_stand_in:
        return AgentJar.stand_in()
    return AgentJar.locate(announce=announce)


def records_for(provider: TargetProvider, target: AndroidTarget) -> Records:
    """The records of the agents this host started, one per adb server and serial, in the settings'
    directory (default: the per-user cache, shared by every run, worker, checkout and tool of this
    user), or the lab's own for a virtual device started here. The records of served virtual devices
    whose lab is gone are removed first (agent.records.DirRecords.prune_gone_labs)."""
    records = Records.in_dir(private_dir(provider.records_dir()), server=target.server.address,
                             virtual=target.runs_stand_in)
    records.prune_gone_labs()
    return records


def deploy_options(settings: Settings) -> DeployOptions:
    return DeployOptions(force=settings.agent_force, liveness_timeout=settings.agent_liveness,
                         kill_timeout=settings.agent_kill_wait, idle_exit_ms=round(settings.agent_idle_exit * 1000))


def attach(target: AndroidTarget, jar: AgentJar, records: Records, settings: Settings) -> Attached:
    """Reuse, replace or launch the target's agent (agent.Deployer); errors.Conflict when another
    tool holds UI automation and the settings do not force."""
    return Deployer(target.device, jar, records, deploy_options(settings)).attach()
