"""What an API 36 emulator runs and has logged once it finished booting: init's resident processes
(fixed low pids, with the memory and wait channel `ps` shows of them), adbd among them (pid 412,
the parent of the shells), and a few of logcat's boot lines."""

from __future__ import annotations

from pytest_mobile_agent.virtual.android.logcat import Logcat
from pytest_mobile_agent.virtual.kernel.process import Process, ProcessTable

ADBD_PID = 412

SYSTEM_PROCESSES: tuple[tuple[int, int, int, list[str]], ...] = (
    (1, 0, 0, ["/system/bin/init", "second_stage"]),
    (2, 0, 0, ["[kthreadd]"]),
    (160, 1, 0, ["/system/bin/ueventd"]),
    (280, 1, 1036, ["/system/bin/logd"]),
    (281, 1, 1000, ["/system/bin/servicemanager"]),
    (282, 1, 1000, ["/system/bin/hwservicemanager"]),
    (300, 1, 0, ["/system/bin/vold", "--blkid_context=u:r:blkid:s0"]),
    (350, 1, 0, ["zygote64"]),
    (351, 1, 0, ["zygote"]),
    (380, 1, 1000, ["/system/bin/surfaceflinger"]),
    (ADBD_PID, 1, 2000, ["/apex/com.android.adbd/bin/adbd", "--root_seclabel=u:r:su:s0"]),
    (620, 350, 1000, ["system_server"]),
    (780, 350, 10069, ["com.android.systemui"]),
    (810, 350, 1001, ["com.android.phone"]),
    (905, 350, 10089, ["com.google.android.inputmethod.latin"]),
    (1010, 350, 10112, ["com.google.android.apps.nexuslauncher"]),
)


# (VSZ KiB, RSS KiB, WCHAN) of the resident processes, of the kind an API 36 emulator's ps shows.
SYSTEM_MEMORY: dict[int, tuple[int, int, str]] = {
    1: (10943540, 12808, "do_epoll_wait"), 2: (0, 0, "kthreadd"),
    160: (10874532, 4172, "do_epoll_wait"), 280: (10912604, 8936, "__do_sys_rt_sigtimedwait"),
    281: (10881808, 5400, "do_epoll_wait"), 282: (10882968, 5828, "do_epoll_wait"),
    300: (10939720, 9012, "do_epoll_wait"), 350: (14876176, 138404, "do_sys_poll"),
    351: (1741208, 118756, "do_sys_poll"), 380: (11296928, 30912, "do_epoll_wait"),
    ADBD_PID: (10920476, 7744, "do_epoll_wait"), 620: (17362312, 395220, "do_epoll_wait"),
    780: (15502224, 213456, "do_epoll_wait"), 810: (15047688, 138972, "do_epoll_wait"),
    905: (14985152, 152060, "do_epoll_wait"), 1010: (15254764, 187212, "do_epoll_wait"),
}


BOOT_LOG: tuple[tuple[int, str, str, str], ...] = (
    (350, "D", "AndroidRuntime", ">>>>>> START com.android.internal.os.ZygoteInit uid 0 <<<<<<"),
    (620, "I", "SystemServer", "InitBeforeStartServices"),
    (620, "I", "SystemServiceManager", "Starting com.android.server.display.DisplayManagerService"),
    (620, "I", "ActivityManager", "System now ready"),
    (620, "I", "ActivityManager", "Start proc 780:com.android.systemui/u0a69 for service "
     "{com.android.systemui/com.android.systemui.SystemUIService}"),
    (620, "I", "ActivityManager", "Start proc 1010:com.google.android.apps.nexuslauncher/u0a112 for top-activity "
     "{com.google.android.apps.nexuslauncher/com.google.android.apps.nexuslauncher.NexusLauncherActivity}"),
    (620, "I", "ActivityTaskManager", "Displayed com.google.android.apps.nexuslauncher/.NexusLauncherActivity "
     "for user 0: +2s114ms"),
    (620, "I", "ActivityManager", "Finished processing BOOT_COMPLETED for u0"),
)


def boot(processes: ProcessTable, logcat: Logcat) -> Process:
    """Start the resident processes and log the boot; adbd's process."""
    for pid, ppid, uid, argv in SYSTEM_PROCESSES:
        processes.add_system(pid, ppid, argv, uid, memory=SYSTEM_MEMORY.get(pid))
    for pid, priority, tag, message in BOOT_LOG:
        logcat.log(tag, message, priority, pid)
    adbd = processes.get(ADBD_PID)
    assert adbd is not None
    return adbd
