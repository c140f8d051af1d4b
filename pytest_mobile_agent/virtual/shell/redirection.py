"""Redirections (`<`, `>`, `>>`, `>|`, `<>`, `<&`, `>&`, here-documents) on the shell's process's
fds: for one command (saved and restored) or for good (`exec`, a child's own)."""

from __future__ import annotations

import errno
import os

from pytest_mobile_agent.virtual.kernel.creds import cred_of
from pytest_mobile_agent.virtual.kernel.fs import BytesFile
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.kernel.streams import OpenFile
from pytest_mobile_agent.virtual.shell import syntax
from pytest_mobile_agent.virtual.shell.expansion import Expansion

Saved = list[tuple[int, OpenFile | None]]


class Redirection(Expansion):
    """The redirections of one shell."""

    def apply_redirects(self, redirects: tuple[syntax.Redirect, ...], *, permanent: bool) -> Saved | None:
        """Apply to this process's fds; the saved fds to restore (empty when permanent), None on error."""
        saved: list[tuple[int, OpenFile | None]] = []
        proc = self.proc
        for redirect in redirects:
            target = self.expand_string(redirect.target)
            if not permanent:
                with proc.kernel.lock:
                    old = proc.fds.get(redirect.fd)
                    saved.append((redirect.fd, old.dup() if old is not None else None))
            try:
                file = self._open_redirect(redirect, target)
            except OSError as exc:
                verb = "can't open" if redirect.op in ("<", "<&") else "can't create"
                if redirect.op in ("<&", ">&"):
                    self.err(f"{self.state.name}: {target}: bad file descriptor\n")
                else:
                    self.err(f"{self.state.name}: {verb} {target}: {exc.strerror or exc}\n")
                self.restore(saved)
                return None
            if file is None:
                proc.close_fd(redirect.fd)
            else:
                proc.set_fd(redirect.fd, file)
        return saved

    def _open_redirect(self, redirect: syntax.Redirect, target: str) -> OpenFile | None:
        op = redirect.op
        if op == "<<":
            body = redirect.heredoc.body if redirect.heredoc is not None else None
            text = self.expand_string(body) if body is not None else ""
            return BytesFile(text.encode(), "pipe:[heredoc]")
        if op in ("<&", ">&"):
            if target == "-":
                return None
            if not is_decimal(target):
                raise OSError(errno.EBADF, "Bad file descriptor")
            return self.proc.fd(int(target)).dup()
        cred = cred_of(self.proc)
        path = self.system.fs.normalize(target, self.proc.cwd) if target else target
        if not target:
            raise OSError(errno.ENOENT, os.strerror(errno.ENOENT))
        fs = self.system.fs
        if op == "<":
            return fs.open(path, cred, read=True)
        if op in (">", ">|"):
            return fs.open(path, cred, read=False, write=True, create=True, truncate=True)
        if op == ">>":
            return fs.open(path, cred, read=False, write=True, create=True, append=True)
        return fs.open(path, cred, read=True, write=True, create=True)

    def restore(self, saved: Saved) -> None:
        for fd, file in reversed(saved):
            if file is None:
                self.proc.close_fd(fd)
            else:
                self.proc.set_fd(fd, file)
