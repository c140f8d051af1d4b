"""What pyproject.toml cannot say: the wheel carries the agent's sources and build definition.

`agent-android/` stays at the top of the source tree (and of the sdist, through MANIFEST.in); the
wheel gets a copy as `pytest_mobile_agent/agent/agent-android/`, where the agent builder
(`python -m pytest_mobile_agent agent build`, the plugin's build on first use) finds it. A release
also carries the built jar, `pytest_mobile_agent/agent/prebuilt/`, as plain package data
(pyproject.toml): the release build stages it there before building (README, "Releasing").
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

AGENT_DIR = "agent-android"
AGENT_FILES = ("VERSION", "build.env", "Version.java.in", "build.sh", "README.md", "src/**/*.java", "stubs/**/*.java")
TARGET = Path("pytest_mobile_agent") / "agent" / AGENT_DIR


class BuildWithAgentSources(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install builds from the source tree itself
            return
        for source in self._agent_files():
            target = Path(self.build_lib) / TARGET / source.relative_to(AGENT_DIR)
            self.mkpath(str(target.parent))
            self.copy_file(str(source), str(target))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = list(super().get_outputs(include_bytecode))
        if not self.editable_mode:
            outputs += [str(Path(self.build_lib) / TARGET / f.relative_to(AGENT_DIR)) for f in self._agent_files()]
        return outputs

    @staticmethod
    def _agent_files() -> list[Path]:
        root = Path(AGENT_DIR)
        return sorted({path for pattern in AGENT_FILES for path in root.glob(pattern) if path.is_file()})


setup(cmdclass={"build_py": BuildWithAgentSources})
