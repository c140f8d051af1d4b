"""The Android tools of the virtual device, in the image's order, one module per family:

* `getprop [NAME [DEFAULT]]`, `setprop NAME VALUE` (root, or `debug.`/`persist.` names):
  programs/properties.py.
* `wm density [N|reset]` ("Physical density: 420", then "Override density: N" when set),
  `wm size [WxH|reset]` ("Physical size: 1080x2400").
* `am start [-W] [-S] [-a ACTION] [-d URI] [-n] PKG/ACT [--es K V] [--ei K N] [--ez K B]` prints
  `Stopping: PKG` with -S, then `Starting: Intent { cmp=PKG/.ACT (has extras) }`, with -W the
  `Status/LaunchState/Activity/TotalTime/WaitTime/Complete` block; `am force-stop PKG`; `am crash
  PKG|PID` (the app dies of a
  shell-induced crash, its FATAL EXCEPTION in the crash buffer); `cmd activity|package|window ...` are
  the same as am, pm and wm.
* `pm list packages [-3] [FILTER]` (`package:NAME` lines), `pm path PKG`; installing and managing
  apps (`pm install/uninstall/clear/grant`, `dumpsys package PKG`): programs/packages.py.
* `getevent [-l] [-t] [-q] [-c N] [DEVICE]`: the display's input events, written through C stdio
  as getevent does (line buffered on a pty, 4096-byte blocks on a pipe), after the `add device`
  lines for /dev/input/event0 (qwerty2) and /dev/input/event1 (virtio_input_multi_touch_1).
* `uiautomator events` takes the UI-automation slot for as long as it runs (printing the
  accessibility events of window changes); when another client holds it, it prints the platform's
  `java.lang.IllegalStateException: UiAutomationService ...already registered!` with its stack to
  stderr (and logcat's AndroidRuntime FATAL EXCEPTION) and dies as RuntimeInit's KillApplicationHandler
  makes it, by SIGKILL (status 137). `uiautomator dump [FILE]` takes the slot for the dump.
* `su [WHO [COMMAND...]]` as AOSP's su: WHO a uid or name (`0`, `root`, `2000,2000`), the command
  (default /system/bin/sh) exec'd in the same process with the new uid, PATH reset, USER and LOGNAME
  set; "su: invalid uid/gid 'X'", "su: failed to exec X: No such file or directory", and
  "su: not allowed" for callers other than root and the shell user.
* `app_process [VM options] DIR [--nice-name=N] MAIN [ARGS...]`: ART starts (in at most 50 ms,
  at once when its parent has exited) with SigBlk 0x80001204, CLASSPATH from the environment, and
  calls `app_process_mains[MAIN](proc, ARGS)`; a class it cannot find (no registered main, or a
  CLASSPATH entry that is not a readable
  file) fails as ART does: `java.lang.ClassNotFoundException: Didn't find class "MAIN" on path:
  DexPathList[...]` on stderr, `E AppRuntime: ERROR: could not find class 'MAIN'` in logcat,
  status 1. The environment stays out of /proc/<pid>/cmdline (only argv is there).
* `screencap [-p] [FILE]`: a PNG of display.render() (raw RGBA with the 16-byte header without
  -p and a file name that is not .png).
* `screenrecord [--time-limit T] [--size WxH] [--bit-rate R] [--output-format mp4|webm] FILE`
  records the display as it changes until the limit (180 s by default, 0 for none), SIGINT or
  SIGHUP: programs/screenrecord.py.
* `logcat -d` prints logcat's buffer (android/logcat.py), `logcat -c` clears it, plain `logcat`
  follows it until killed; `-b crash` gives AndroidRuntime's FATAL EXCEPTION lines (nothing at all
  when no app died, as an empty crash buffer prints).
* `input tap X Y`, `input swipe X1 Y1 X2 Y2 [MS]`, `input keyevent K`, `input text T` drive the
  display (touches are injected as InputManager.injectInputEvent injects them: they reach the UI
  model and no input device, so getevent shows none of them; keys and text go to the content
  provider's `key(code)` / `text(s)` when it has them; HOME, 3, brings the launcher to the front).
* `dumpsys window` (mCurrentFocus, mFocusedApp), `dumpsys activity activities` (mResumedActivity),
  `settings get|put|list NAMESPACE [KEY [VALUE]]`.
* the device state's commands: `svc wifi|data`, `appops`, `cmd location|connectivity|wifi|phone|
  uimode|statusbar|notification`, `dumpsys battery|location|wifi` (programs/devicestate.py,
  programs/sensors.py), `wm user-rotation`, `wm dismiss-keyguard`, and the power keys of
  `input keyevent`.
"""

from __future__ import annotations

from pytest_mobile_agent.virtual.android.framework import FrameworkProgram
from pytest_mobile_agent.virtual.programs import (
    activity,
    automation,
    cmd,
    devicestate,
    dumpsys,
    input,
    logcat,
    packages,
    processes,
    properties,
    runtime,
    screenrecord,
    sensors,
    settings,
    window,
)

TOOLS: dict[str, FrameworkProgram] = {
    "getprop": properties.getprop, "setprop": properties.setprop, "wm": window.wm, "am": activity.am,
    "pm": packages.pm_, "cmd": cmd.cmd, "getevent": input.getevent, "uiautomator": automation.uiautomator,
    "su": processes.su, "app_process": runtime.app_process, "app_process64": runtime.app_process,
    "screencap": window.screencap, "logcat": logcat.logcat, "input": input.input_, "dumpsys": dumpsys.dumpsys,
    "settings": settings.settings_, "screenrecord": screenrecord.screenrecord,
    "svc": devicestate.svc, "appops": sensors.appops,
}
