"""The request workers of the agent double: at most 8 threads, a request none can take at once
refused, as the Java agent's `server/Server.java` pool is (`ThreadPoolExecutor(1, workers, 30 s,
SynchronousQueue)`: a task goes to an idle worker, else to a new thread while fewer than
`ServerConfig.workers` (8) run, else it is rejected and `server/Connection.java` answers `busy`)."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

WORKERS = 8  # ServerConfig.workers
KEEP_ALIVE_S = 30.0  # a worker past the first idle this long ends (the pool's keep-alive)
BUSY_MESSAGE = "every worker is busy"  # server/Connection.java's words

Task = Callable[[], None]


class Workers:
    """A bounded pool: `offer` hands a task to a worker now or returns False (the caller answers
    `busy`); nothing is ever queued behind busy workers."""

    def __init__(self, name: str, limit: int = WORKERS, keep_alive: float = KEEP_ALIVE_S) -> None:
        self.name = name
        self.limit = limit
        self.keep_alive = keep_alive
        self._cond = threading.Condition()
        self._handoff: deque[Task] = deque()
        self._threads = 0
        self._idle = 0
        self._stopped = False

    @property
    def running(self) -> int:
        with self._cond:
            return self._threads

    def offer(self, task: Task) -> bool:
        with self._cond:
            if self._stopped:
                return False
            if self._idle > len(self._handoff):  # a worker waits for a task (SynchronousQueue.offer)
                self._handoff.append(task)
                self._cond.notify()
                return True
            if self._threads >= self.limit:
                return False
            self._threads += 1
            core = self._threads == 1
        threading.Thread(target=self._work, args=(task, core), daemon=True, name=f"{self.name}-worker").start()
        return True

    def stop(self) -> None:
        """Idle workers end at once, busy ones after their task; no task is taken after this."""
        with self._cond:
            self._stopped = True
            self._cond.notify_all()

    def _work(self, task: Task | None, core: bool) -> None:
        while task is not None:
            task()
            task = self._next(core)

    def _next(self, core: bool) -> Task | None:
        with self._cond:
            self._idle += 1
            try:
                while not self._handoff and not self._stopped:
                    if not self._cond.wait(None if core else self.keep_alive) and not self._handoff:
                        break  # idle past the keep-alive
                if self._handoff and not self._stopped:
                    return self._handoff.popleft()
                self._threads -= 1
                return None
            finally:
                self._idle -= 1
