"""The per-device sandbox file system: an in-memory tree with owners, modes and read-only mounts.

What the driver meets is modelled as on the API 36 emulator: `/data/local/tmp` (shell:shell 0771,
writable by the shell user), `/sdcard` (a symlink to `/storage/emulated/0`, writable through the
sdcard_rw/everybody groups the shell user has), `/data` (system 0771, so the shell user may pass
but not list it), a read-only root with `/system`, `/vendor`, `/product`, `/system_ext`, `/apex`
(EROFS on any write, for root too), `/dev/null`, `/dev/zero`, `/dev/tty`, `/dev/input/event1` (the
virtio touchscreen) and a synthesized `/proc`: `/proc/<pid>/cmdline` (NUL separated, or the name a
process gave itself with `set_name`, NUL padded to its old length), `/proc/<pid>/status` (Name,
State, Tgid, Pid, PPid, Uid, Gid, SigPnd, ShdPnd, SigBlk, SigIgn, SigCgt as 16 hex digits),
`/proc/<pid>/stat`, `/proc/<pid>/comm`, `/proc/<pid>/environ` (NUL separated, readable by the
process's owner only, mode 0400, as the kernel has it), `/proc/self`, and the device-wide files
the device provides (`/proc/version`, `/proc/mounts`, `/proc/uptime`). Files of the system image
carry its build timestamp (2009-01-01 00:00 UTC, what AOSP's build stamps on every file) and
`st_blocks` counts 512-byte units of 4 KiB blocks, as ext4 and f2fs allocate them. The umask of
processes is 0 (a file the shell creates with `>` is 0666), so modes are what the creator asked for.

Errors are OSError with the errno a real kernel gives (ENOENT, EACCES, EROFS, EEXIST, ENOTDIR,
EISDIR, ENOTEMPTY) and strerror's text, which the shell and adbd's sync service print verbatim.
"""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
import stat as stat_module
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from pytest_mobile_agent.virtual.kernel.creds import ROOT, Cred
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.kernel.streams import NullFile, OpenFile, Waiter

READ_ONLY_MOUNTS = ("/system", "/vendor", "/product", "/system_ext", "/apex", "/odm")
SYSTEM_IMAGE_MTIME = 1230768000.0  # 2009-01-01 00:00:00 UTC: the timestamp AOSP builds give image files
BLOCK_SIZE = 4096


def fs_error(code: int, path: str) -> OSError:
    return OSError(code, os.strerror(code), path)


@dataclass
class Node:
    kind: str  # "dir" | "file" | "link" | "chr"
    mode: int  # permission bits (and setgid/sticky)
    uid: int = 0
    gid: int = 0
    mtime: float = field(default_factory=time.time)
    ino: int = 0
    data: bytearray = field(default_factory=bytearray)
    children: dict[str, Node] = field(default_factory=dict)
    target: str = ""
    device: Callable[[Cred], OpenFile] | None = None
    read_only: bool = False
    links: int = 1  # hard links to a file

    def type_bits(self) -> int:
        return {
            "dir": stat_module.S_IFDIR,
            "file": stat_module.S_IFREG,
            "link": stat_module.S_IFLNK,
            "chr": stat_module.S_IFCHR,
        }[self.kind]


@dataclass(frozen=True)
class StatResult:
    mode: int  # type bits | permission bits, as st_mode
    size: int
    mtime: int
    uid: int
    gid: int
    ino: int
    nlink: int
    blocks: int = 0  # st_blocks: 512-byte units

    @property
    def is_dir(self) -> bool:
        return stat_module.S_ISDIR(self.mode)

    @property
    def is_file(self) -> bool:
        return stat_module.S_ISREG(self.mode)


class RegularFile(OpenFile):
    """An open regular file: reads never block; writes at the offset or appended."""

    def __init__(self, node: Node, path: str, *, read: bool, write: bool, append: bool) -> None:
        super().__init__()
        self.node = node
        self.path = path
        self._read = read
        self._write = write
        self._append = append
        self.offset = 0

    def readable(self) -> bool:
        return self._read

    def writable(self) -> bool:
        return self._write

    def read(self, n: int, waiter: Waiter, deadline: float | None) -> bytes | None:
        if not self._read:
            raise OSError(errno.EBADF, "Bad file descriptor")
        data = bytes(self.node.data[self.offset : self.offset + n])
        self.offset += len(data)
        return data

    def write(self, data: bytes, waiter: Waiter) -> None:
        if not self._write:
            raise OSError(errno.EBADF, "Bad file descriptor")
        if self._append:
            self.offset = len(self.node.data)
        end = self.offset + len(data)
        if self.offset > len(self.node.data):
            self.node.data += b"\0" * (self.offset - len(self.node.data))
        self.node.data[self.offset : end] = data
        self.offset = end
        self.node.mtime = time.time()


class BytesFile(OpenFile):
    """A read-only snapshot (procfs files are generated when opened)."""

    def __init__(self, data: bytes, path: str) -> None:
        super().__init__()
        self.data = data
        self.path = path
        self.offset = 0

    def writable(self) -> bool:
        return False

    def read(self, n: int, waiter: Waiter, deadline: float | None) -> bytes | None:
        chunk = self.data[self.offset : self.offset + n]
        self.offset += len(chunk)
        return chunk

    def write(self, data: bytes, waiter: Waiter) -> None:
        raise OSError(errno.EACCES, "Permission denied")


class ZeroFile(NullFile):
    path = "/dev/zero"

    def read(self, n: int, waiter: Waiter, deadline: float | None) -> bytes | None:
        return b"\0" * n


# procfs: pid -> {"cmdline": bytes, "status": bytes, "stat": bytes}; None for no such process
ProcProvider = Callable[[int], "dict[str, bytes] | None"]
ProcGlobals = Callable[[], "dict[str, bytes]"]  # /proc/version, /proc/net/unix...: path under /proc -> contents
PidLister = Callable[[], "list[int]"]
TtyOpener = Callable[[Cred], OpenFile]


class FileSystem:
    """One device's files. Paths are absolute (callers join with their cwd)."""

    def __init__(self) -> None:
        self._ino = 1
        self.root = self._node("dir", 0o755, read_only=True)
        self.proc_provider: ProcProvider = lambda pid: None
        self.proc_globals: ProcGlobals = dict
        self.proc_owner: Callable[[int], int] = lambda pid: 0
        self.pid_lister: PidLister = lambda: []
        self.tty_opener: TtyOpener | None = None
        self._build()

    # --- construction -------------------------------------------------------------------------------

    def _node(self, kind: str, mode: int, uid: int = 0, gid: int = 0, **kw: object) -> Node:
        self._ino += 1
        return Node(kind, mode, uid, gid, ino=self._ino, **kw)  # type: ignore[arg-type]

    def _put(self, path: str, node: Node) -> Node:
        parent, name = posixpath.split(path)
        self._dir_at(parent).children[name] = node
        return node

    def _dir_at(self, path: str) -> Node:
        node = self.root
        for part in [p for p in path.split("/") if p]:
            node = node.children[part]
        return node

    def mkdir_system(self, path: str, mode: int = 0o755, uid: int = 0, gid: int = 0, *,
                     read_only: bool = False) -> Node:
        node = self._node("dir", mode, uid, gid, read_only=read_only)
        if read_only:
            node.mtime = SYSTEM_IMAGE_MTIME
        return self._put(path, node)

    def remove_system(self, path: str) -> None:
        """Remove a file or a whole directory as the system does (no permission check); a path
        that names nothing is no error."""
        parent, name = posixpath.split(path)
        with contextlib.suppress(KeyError):
            del self._dir_at(parent).children[name]

    def add_file(self, path: str, data: bytes, mode: int = 0o644, uid: int = 0, gid: int = 0) -> Node:
        """Install a file as the system image has it (no permission check)."""
        node = self._node("file", mode, uid, gid, data=bytearray(data))
        node.read_only = self._under_read_only(path)
        if node.read_only:
            node.mtime = SYSTEM_IMAGE_MTIME
        return self._put(path, node)

    def add_symlink(self, path: str, target: str, uid: int = 0, gid: int = 0) -> Node:
        """Install a symbolic link as the system image has it (no permission check)."""
        read_only = self._under_read_only(path)
        # fs_config gives the image's links 0755 ("lrwxr-xr-x ... ls -> toybox"), as it does its binaries
        node = self._node("link", 0o755 if read_only else 0o777, uid, gid, target=target, read_only=read_only)
        if read_only:
            node.mtime = SYSTEM_IMAGE_MTIME
        return self._put(path, node)

    def add_device(self, path: str, opener: Callable[[Cred], OpenFile], mode: int = 0o666, uid: int = 0,
                   gid: int = 0) -> Node:
        return self._put(path, self._node("chr", mode, uid, gid, device=opener))

    def _build(self) -> None:
        ro = True
        for path in READ_ONLY_MOUNTS:
            self.mkdir_system(path, 0o755, read_only=ro)
        for sub in ("bin", "xbin", "lib64", "framework", "etc", "app", "priv-app", "fonts"):
            self.mkdir_system(f"/system/{sub}", 0o755, 0, 2000 if sub == "bin" else 0, read_only=ro)
        for sub in ("bin", "etc", "lib64"):
            self.mkdir_system(f"/vendor/{sub}", 0o755, 0, 2000 if sub == "bin" else 0, read_only=ro)
        self.add_file("/system/build.prop", b"# the virtual device's build properties\n")
        self.add_symlink("/system/bin/sh", "mksh", 0, 2000)
        self.mkdir_system("/data", 0o771, 1000, 1000)
        self.mkdir_system("/data/local", 0o751, 0, 0)
        self.mkdir_system("/data/local/tmp", 0o771, 2000, 2000)
        self.mkdir_system("/data/app", 0o771, 1000, 1000)
        self.mkdir_system("/data/data", 0o771, 1000, 1000)
        self.mkdir_system("/storage", 0o755, 0, 0)
        self.mkdir_system("/storage/emulated", 0o771, 0, 9997)
        self.mkdir_system("/storage/emulated/0", 0o2770, 0, 9997)
        for sub in ("Android", "DCIM", "Download", "Pictures", "Movies", "Music", "Documents"):
            self.mkdir_system(f"/storage/emulated/0/{sub}", 0o2770, 0, 9997)
        self.mkdir_system("/storage/self", 0o755, 0, 0)
        self._put("/storage/self/primary", self._node("link", 0o777, target="/storage/emulated/0"))
        self._put("/sdcard", self._node("link", 0o777, target="/storage/self/primary", read_only=True))
        self.mkdir_system("/dev", 0o755, 0, 0)
        self.mkdir_system("/dev/input", 0o755, 0, 0)
        self.mkdir_system("/dev/pts", 0o755, 0, 0)
        self.add_device("/dev/null", lambda cred: NullFile())
        self.add_device("/dev/zero", lambda cred: ZeroFile())
        self.add_device("/dev/tty", self._open_tty)
        self.add_device("/dev/input/event0", lambda cred: NullFile(), 0o660, 0, 1004)
        self.add_device("/dev/input/event1", lambda cred: NullFile(), 0o660, 0, 1004)
        self.mkdir_system("/proc", 0o555, 0, 0)
        self.mkdir_system("/mnt", 0o755, 0, 1000)
        self.mkdir_system("/sys", 0o755, 0, 0)
        self.mkdir_system("/etc", 0o755, 0, 0, read_only=ro)
        self.mkdir_system("/acct", 0o555, 0, 0)
        self.root.read_only = True

    def _open_tty(self, cred: Cred) -> OpenFile:
        if self.tty_opener is None:
            raise fs_error(errno.ENXIO, "/dev/tty")
        return self.tty_opener(cred)

    # --- resolution ------------------------------------------------------------------------------------

    @staticmethod
    def normalize(path: str, cwd: str = "/") -> str:
        joined = posixpath.join(cwd, path) if not path.startswith("/") else path
        norm = posixpath.normpath(joined)
        return "/" + norm.lstrip("/") if norm != "/" else "/"

    def _under_read_only(self, path: str) -> bool:
        return any(path == m or path.startswith(m + "/") for m in READ_ONLY_MOUNTS)

    def _can(self, node: Node, cred: Cred, want: int) -> bool:
        """want: 4 read, 2 write, 1 execute/search."""
        if cred.root:
            return not (want & 1) or node.kind == "dir" or bool(node.mode & 0o111)
        if node.uid == cred.uid:
            bits = (node.mode >> 6) & 7
        elif node.gid in cred.groups:
            bits = (node.mode >> 3) & 7
        else:
            bits = node.mode & 7
        return (bits & want) == want

    def _resolve(self, path: str, cred: Cred, *, follow: bool = True, depth: int = 0) -> tuple[Node, str]:
        """The node at path and its canonical path; OSError as the kernel would."""
        if depth > 8:
            raise fs_error(errno.ELOOP, path)
        path = self.normalize(path)
        if path == "/proc" or path.startswith("/proc/"):
            return self._resolve_proc(path, cred, follow=follow, depth=depth)
        node = self.root
        parts = [p for p in path.split("/") if p]
        walked = ""
        for index, part in enumerate(parts):
            if node.kind != "dir":
                raise fs_error(errno.ENOTDIR, path)
            if not self._can(node, cred, 1):
                raise fs_error(errno.EACCES, path)
            child = node.children.get(part)
            if child is None:
                raise fs_error(errno.ENOENT, path)
            walked += "/" + part
            last = index == len(parts) - 1
            if child.kind == "link" and (follow or not last):
                rest = "/".join(parts[index + 1 :])
                target = self.normalize(child.target, posixpath.dirname(walked) or "/")
                destination = posixpath.join(target, rest) if rest else target
                return self._resolve(destination, cred, follow=follow, depth=depth + 1)
            node = child
        return node, path

    def _resolve_proc(self, path: str, cred: Cred, *, follow: bool, depth: int) -> tuple[Node, str]:
        parts = [p for p in path.split("/") if p][1:]
        globals_ = self.proc_globals()
        if not parts:
            node = self._node("dir", 0o555)
            for pid in self.pid_lister():
                node.children[str(pid)] = self._node("dir", 0o555)
            node.children["self"] = self._node("link", 0o777, target=str(cred.pid))
            for name, data in globals_.items():
                top, nested, _ = name.partition("/")
                node.children[top] = self._node("dir", 0o555) if nested else self._proc_file(name, data, 0)
            return node, "/proc"
        head = parts[0]
        joined = "/".join(parts)
        if joined in globals_:
            return self._proc_file(parts[-1], globals_[joined], 0), path
        inside = sorted(name[len(joined) + 1:] for name in globals_ if name.startswith(joined + "/"))
        if inside:  # /proc/net: a directory of the device-wide files under it
            node = self._node("dir", 0o555)
            for name in inside:
                node.children[name] = self._proc_file(name, globals_[f"{joined}/{name}"], 0)
            return node, path
        if head in globals_:
            raise fs_error(errno.ENOTDIR, path)
        if head == "self":
            if not follow and len(parts) == 1:
                return self._node("link", 0o777, target=str(cred.pid)), path
            return self._resolve("/proc/" + "/".join([str(cred.pid), *parts[1:]]), cred, follow=follow, depth=depth + 1)
        files = self.proc_provider(int(head)) if is_decimal(head) else None
        if files is None:
            raise fs_error(errno.ENOENT, path)
        owner = self.proc_owner(int(head))
        if len(parts) == 1:
            node = self._node("dir", 0o555, owner, owner)
            for name in files:
                node.children[name] = self._proc_file(name, files[name], owner)
            return node, path
        if len(parts) == 2 and parts[1] in files:
            return self._proc_file(parts[1], files[parts[1]], owner), path
        raise fs_error(errno.ENOENT if len(parts) == 2 else errno.ENOTDIR, path)

    def _proc_file(self, name: str, data: bytes, owner: int) -> Node:
        """A procfs file: world readable, but environ only for its owner (mode 0400)."""
        mode = 0o400 if name == "environ" else 0o444
        return self._node("file", mode, owner, owner, data=bytearray(data))

    def _parent(self, path: str, cred: Cred) -> tuple[Node, str, str]:
        path = self.normalize(path)
        parent_path, name = posixpath.split(path)
        if not name:
            raise fs_error(errno.EEXIST, path)
        parent, canonical = self._resolve(parent_path, cred)
        if parent.kind != "dir":
            raise fs_error(errno.ENOTDIR, path)
        return parent, name, posixpath.join(canonical, name)

    def _check_write_dir(self, parent: Node, cred: Cred, path: str) -> None:
        if parent.read_only:
            raise fs_error(errno.EROFS, path)
        if not self._can(parent, cred, 3):
            raise fs_error(errno.EACCES, path)

    # --- operations ---------------------------------------------------------------------------------

    def exists(self, path: str, cred: Cred = ROOT) -> bool:
        try:
            self._resolve(path, cred)
            return True
        except OSError:
            return False

    def realpath(self, path: str, cred: Cred) -> str:
        """The path with every symbolic link resolved."""
        return self._resolve(path, cred)[1]

    def lexists(self, path: str, cred: Cred = ROOT) -> bool:
        """Whether the path names anything, a dangling link included."""
        try:
            self._resolve(path, cred, follow=False)
            return True
        except OSError:
            return False

    def stat(self, path: str, cred: Cred, *, follow: bool = True) -> StatResult:
        node, _ = self._resolve(path, cred, follow=follow)
        size = {"link": len(node.target), "file": len(node.data), "dir": BLOCK_SIZE}.get(node.kind, 0)
        nlink = 2 + sum(1 for c in node.children.values() if c.kind == "dir") if node.kind == "dir" else node.links
        blocks = -(-size // BLOCK_SIZE) * (BLOCK_SIZE // 512) if node.kind in ("file", "dir") else 0
        return StatResult(node.type_bits() | node.mode, size, int(node.mtime), node.uid, node.gid, node.ino, nlink,
                          blocks)

    def listdir(self, path: str, cred: Cred) -> list[str]:
        node, _ = self._resolve(path, cred)
        if node.kind != "dir":
            raise fs_error(errno.ENOTDIR, path)
        if not self._can(node, cred, 4):
            raise fs_error(errno.EACCES, path)
        return sorted(node.children)

    def readlink(self, path: str, cred: Cred) -> str:
        node, _ = self._resolve(path, cred, follow=False)
        if node.kind != "link":
            raise fs_error(errno.EINVAL, path)
        return node.target

    def open(self, path: str, cred: Cred, *, read: bool = True, write: bool = False, append: bool = False,
             create: bool = False, truncate: bool = False, exclusive: bool = False, mode: int = 0o666) -> OpenFile:
        """open(2) with the usual flag semantics."""
        path = self.normalize(path)
        created = False
        try:
            node, canonical = self._resolve(path, cred)
            if exclusive and create:
                raise fs_error(errno.EEXIST, path)
        except OSError as exc:
            if exc.errno != errno.ENOENT or not create:
                raise
            parent, name, canonical = self._parent(path, cred)
            self._check_write_dir(parent, cred, path)
            node = self._node("file", mode & 0o7777, cred.uid, parent.gid if parent.mode & 0o2000 else cred.uid)
            parent.children[name] = node
            parent.mtime = time.time()
            created = True
        if node.kind == "chr":
            want = (4 if read else 0) | (2 if write else 0)
            if not self._can(node, cred, want):
                raise fs_error(errno.EACCES, path)
            assert node.device is not None
            return node.device(cred)
        if node.kind == "dir":
            if write:
                raise fs_error(errno.EISDIR, path)
            raise fs_error(errno.EISDIR, path)
        want = (4 if read else 0) | (2 if write else 0)
        if write and (node.read_only or self._under_read_only(canonical)):
            raise fs_error(errno.EROFS, path)
        if not created and not self._can(node, cred, want):
            raise fs_error(errno.EACCES, path)
        if truncate and write:
            node.data.clear()
            node.mtime = time.time()
        return RegularFile(node, canonical, read=read, write=write, append=append)

    def write_error(self, path: str, cred: Cred) -> int | None:
        """The errno a write-open of path (creating it when missing) would fail with, or None;
        nothing is created."""
        try:
            node, canonical = self._resolve(path, cred)
        except OSError as exc:
            if exc.errno != errno.ENOENT:
                return exc.errno
            try:
                parent, _, _ = self._parent(path, cred)
            except OSError as missing:
                return missing.errno
            if parent.read_only:
                return errno.EROFS
            return None if self._can(parent, cred, 3) else errno.EACCES
        if node.kind == "dir":
            return errno.EISDIR
        if node.kind == "file" and (node.read_only or self._under_read_only(canonical)):
            return errno.EROFS
        return None if self._can(node, cred, 2) else errno.EACCES

    def read_file(self, path: str, cred: Cred) -> bytes:
        file = self.open(path, cred)
        if isinstance(file, RegularFile):
            return bytes(file.node.data)
        if isinstance(file, BytesFile):
            return file.data
        return b""

    def write_file(self, path: str, data: bytes, cred: Cred, mode: int = 0o666) -> None:
        file = self.open(path, cred, read=False, write=True, create=True, truncate=True, mode=mode)
        if isinstance(file, RegularFile):
            file.node.data[:] = data

    def node_of(self, path: str, cred: Cred) -> Node:
        return self._resolve(path, cred)[0]

    def mkdir(self, path: str, cred: Cred, mode: int = 0o777, *, parents: bool = False) -> None:
        path = self.normalize(path)
        if parents:
            current = ""
            for part in [p for p in path.split("/") if p]:
                current += "/" + part
                try:
                    node, _ = self._resolve(current, cred)
                except OSError as exc:
                    if exc.errno != errno.ENOENT:
                        raise
                    self.mkdir(current, cred, mode)
                    continue
                if node.kind != "dir":
                    raise fs_error(errno.ENOTDIR if current != path else errno.EEXIST, current)
            return
        parent, name, _ = self._parent(path, cred)
        if name in parent.children:
            raise fs_error(errno.EEXIST, path)
        self._check_write_dir(parent, cred, path)
        parent.children[name] = self._node("dir", mode & 0o7777, cred.uid, cred.uid)
        parent.mtime = time.time()

    def unlink(self, path: str, cred: Cred) -> None:
        parent, name, _ = self._parent(path, cred)
        node = parent.children.get(name)
        if node is None:
            raise fs_error(errno.ENOENT, path)
        if node.kind == "dir":
            raise fs_error(errno.EISDIR, path)
        self._check_write_dir(parent, cred, path)
        if parent.mode & 0o1000 and not cred.root and cred.uid not in (node.uid, parent.uid):
            raise fs_error(errno.EPERM, path)
        del parent.children[name]
        node.links -= 1
        parent.mtime = time.time()

    def link(self, existing: str, path: str, cred: Cred) -> None:
        """link(2): a second name for a file (EPERM for a directory, EXDEV across mounts)."""
        node, canonical = self._resolve(existing, cred, follow=False)
        parent, name, new_canonical = self._parent(path, cred)
        if name in parent.children:
            raise fs_error(errno.EEXIST, path)
        if node.kind == "dir":
            raise fs_error(errno.EPERM, path)
        self._check_write_dir(parent, cred, path)
        if self._mount_of(canonical) != self._mount_of(new_canonical):
            raise fs_error(errno.EXDEV, path)
        parent.children[name] = node
        node.links += 1
        parent.mtime = time.time()

    def rename(self, source: str, target: str, cred: Cred) -> None:
        """rename(2) within the device: replaces a file target, or an empty directory."""
        old_parent, old_name, old_canonical = self._parent(source, cred)
        node = old_parent.children.get(old_name)
        if node is None:
            raise fs_error(errno.ENOENT, source)
        new_parent, new_name, new_canonical = self._parent(target, cred)
        self._check_write_dir(old_parent, cred, source)
        self._check_write_dir(new_parent, cred, target)
        if old_parent.mode & 0o1000 and not cred.root and cred.uid not in (node.uid, old_parent.uid):
            raise fs_error(errno.EPERM, source)
        if self._mount_of(old_canonical) != self._mount_of(new_canonical):
            raise fs_error(errno.EXDEV, target)
        if node.kind == "dir" and (new_canonical + "/").startswith(old_canonical + "/"):
            raise fs_error(errno.EINVAL, target)
        existing = new_parent.children.get(new_name)
        if existing is node:
            return
        if existing is not None:
            if existing.kind == "dir" and node.kind != "dir":
                raise fs_error(errno.EISDIR, target)
            if node.kind == "dir" and existing.kind != "dir":
                raise fs_error(errno.ENOTDIR, target)
            if existing.kind == "dir" and existing.children:
                raise fs_error(errno.ENOTEMPTY, target)
            existing.links -= 1
        del old_parent.children[old_name]
        new_parent.children[new_name] = node
        old_parent.mtime = new_parent.mtime = time.time()

    def _mount_of(self, canonical: str) -> str:
        """The mount a canonical path is on, as EXDEV sees it."""
        for mount in (*READ_ONLY_MOUNTS, "/data", "/storage", "/sdcard", "/dev", "/proc"):
            if canonical == mount or canonical.startswith(mount + "/"):
                return mount
        return "/"

    def symlink(self, target: str, path: str, cred: Cred) -> None:
        parent, name, _ = self._parent(path, cred)
        if name in parent.children:
            raise fs_error(errno.EEXIST, path)
        self._check_write_dir(parent, cred, path)
        parent.children[name] = self._node("link", 0o777, cred.uid, cred.uid, target=target)

    def rmdir(self, path: str, cred: Cred) -> None:
        parent, name, _ = self._parent(path, cred)
        node = parent.children.get(name)
        if node is None:
            raise fs_error(errno.ENOENT, path)
        if node.kind != "dir":
            raise fs_error(errno.ENOTDIR, path)
        if node.children:
            raise fs_error(errno.ENOTEMPTY, path)
        self._check_write_dir(parent, cred, path)
        del parent.children[name]

    def chmod(self, path: str, mode: int, cred: Cred) -> None:
        node, canonical = self._resolve(path, cred)
        if node.read_only or self._under_read_only(canonical):
            raise fs_error(errno.EROFS, path)
        if not cred.root and cred.uid != node.uid:
            raise fs_error(errno.EPERM, path)
        node.mode = mode & 0o7777

    def set_mtime(self, path: str, mtime: float, cred: Cred) -> None:
        """utime(2) with a time: the owner or root only."""
        node, canonical = self._resolve(path, cred)
        if node.read_only or self._under_read_only(canonical):
            raise fs_error(errno.EROFS, path)
        if not cred.root and cred.uid != node.uid:
            raise fs_error(errno.EPERM, path)
        node.mtime = mtime
