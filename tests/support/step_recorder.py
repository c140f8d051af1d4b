"""A `StepListener` that keeps every step it is told of, for tests that read what a call recorded."""

from __future__ import annotations

from pytest_mobile_agent.mirror.steps import Step


class StepRecorder:
    def __init__(self) -> None:
        self.started: list[Step] = []
        self.ended: list[Step] = []

    def step_started(self, step: Step) -> None:
        self.started.append(step)

    def step_ended(self, step: Step) -> None:
        self.ended.append(step)

    def names(self) -> list[tuple[str, int]]:
        """Each ended step's name and depth, in the order they ended."""
        return [(step.name, step.depth) for step in self.ended]
