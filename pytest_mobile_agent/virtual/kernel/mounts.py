"""The mount table of the virtual device, as an API 36 emulator's /proc/mounts lists it (the
system-as-root image on dm-0, the dynamic partitions on dm-1..3, userdata on dm-5, the FUSE view of
shared storage), with the sizes `df` reports (1 KiB blocks: total, used).

`/proc/mounts`, `mount` and `df` all read this table; the file system's own read-only mounts
(virtual/kernel/fs.py READ_ONLY_MOUNTS) are the same directories.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mount:
    device: str
    directory: str
    kind: str
    options: str
    blocks: int = 0  # 1 KiB blocks; 0 for synthetic file systems (df leaves them out without -a)
    used: int = 0

    @property
    def available(self) -> int:
        return self.blocks - self.used


MOUNTS: tuple[Mount, ...] = (
    Mount("/dev/block/dm-0", "/", "ext4", "ro,seclabel,relatime", 2853652, 2838028),
    Mount("tmpfs", "/dev", "tmpfs", "rw,seclabel,nosuid,relatime,size=1000452k,nr_inodes=250113,mode=755",
          1000452, 636),
    Mount("devpts", "/dev/pts", "devpts", "rw,seclabel,relatime,mode=600,ptmxmode=000"),
    Mount("proc", "/proc", "proc", "rw,relatime,gid=3009,hidepid=invisible"),
    Mount("sysfs", "/sys", "sysfs", "rw,seclabel,relatime"),
    Mount("tmpfs", "/mnt", "tmpfs",
          "rw,seclabel,nosuid,nodev,noexec,relatime,size=1000452k,nr_inodes=250113,mode=755,gid=1000", 1000452, 0),
    Mount("/dev/block/dm-1", "/system_ext", "ext4", "ro,seclabel,relatime", 342160, 340904),
    Mount("/dev/block/dm-2", "/product", "ext4", "ro,seclabel,relatime", 1249052, 1245480),
    Mount("/dev/block/dm-3", "/vendor", "ext4", "ro,seclabel,relatime", 173636, 172820),
    Mount("tmpfs", "/apex", "tmpfs", "rw,seclabel,nosuid,nodev,noexec,relatime,size=1000452k,nr_inodes=250113,mode=755",
          1000452, 0),
    Mount("/dev/block/dm-5", "/data", "ext4", "rw,seclabel,nosuid,nodev,noatime,resgid=1065,errors=panic",
          6102624, 1912504),
    Mount("/dev/fuse", "/storage/emulated", "fuse",
          "rw,lazytime,nosuid,nodev,noexec,noatime,user_id=0,group_id=0,allow_other", 6102624, 1912504),
)


def proc_mounts() -> bytes:
    """/proc/mounts: `DEVICE DIR TYPE OPTIONS 0 0` lines."""
    return "".join(f"{m.device} {m.directory} {m.kind} {m.options} 0 0\n" for m in MOUNTS).encode()


def mount_of(path: str) -> Mount:
    """The mount a canonical device path lives on (the longest directory that holds it)."""
    best = MOUNTS[0]
    for mount in MOUNTS:
        inside = path == mount.directory or path.startswith(mount.directory.rstrip("/") + "/")
        if inside and len(mount.directory) > len(best.directory):
            best = mount
    return best
