"""`dumpsys [SERVICE]`: `dumpsys window` (mCurrentFocus, mFocusedApp), `dumpsys activity activities`
(mResumedActivity), `dumpsys package PKG` (programs/packages.py), and the dumps people query with
`dumpsys display` and `dumpsys power`, in the layouts of frameworks/base (API 36):

* DisplayManagerService.dumpInternal: `DISPLAY MANAGER (dumpsys display)`, the `  mViewports=[...]`
  line of DisplayViewport.toString() (`type=INTERNAL, valid=true, isActive=true, displayId=0, ...,
  orientation=R, logicalFrame=Rect(0, 0 - W, H), physicalFrame=..., deviceWidth=W,
  deviceHeight=H`), then the display device (DisplayDeviceInfo: `1080 x 2400`, `density 420`) and
  the logical display (DisplayInfo: `real W x H`, `rotation R`, `density D`). adbutils' rotation()
  takes the first `orientation=N`; its _DISPLAY_RE reads valid, orientation, deviceWidth and
  deviceHeight from the viewport.
* PowerManagerService.dumpInternal: `POWER MANAGER (dumpsys power)`, `  mWakefulness=Awake`,
  `  mHoldingDisplaySuspendBlocker=true` (what adbutils' is_screen_on() looks for), the wake locks
  and suspend blockers, and `Display Power: state=ON` (the DisplayPowerCallbacks' toString).

The sizes and density are the display's, overrides (`wm size`, `wm density`) in the logical
display as WindowManager applies them; the emulator's screen stays awake (the AVD runs with `stay
awake` and a screen-off timeout of 2147483647 ms, as settings report) until a power key turns it
off (android/power.py): then `mWakefulness=Asleep` and `Display Power: state=OFF`. `dumpsys window`
ends with KeyguardController.dump's `mKeyguardShowing=`; `dumpsys battery|location|wifi` are in
programs/sensors.py and programs/devicestate.py.
"""

from __future__ import annotations

from pytest_mobile_agent.virtual.android.framework import Framework
from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.programs.devicestate import dumpsys_wifi
from pytest_mobile_agent.virtual.programs.packages import dumpsys_package
from pytest_mobile_agent.virtual.programs.perfdumps import dumpsys_gfxinfo, dumpsys_meminfo
from pytest_mobile_agent.virtual.programs.sensors import dumpsys_battery, dumpsys_location

UNIQUE_ID = "local:4619827259835644672"  # the emulator's built-in display (SurfaceFlinger's physical id)


def _rect(width: int, height: int) -> str:
    return f"Rect(0, 0 - {width}, {height})"


def display_dump(framework: Framework) -> str:
    display = framework.display
    width, height = display.physical_width, display.physical_height
    rotation = display.rotation
    logical_w, logical_h = display.size
    if rotation % 2:
        logical_w, logical_h = logical_h, logical_w
    density = display.density
    viewport = (
        f"DisplayViewport{{type=INTERNAL, valid=true, isActive=true, displayId=0, uniqueId='{UNIQUE_ID}', "
        f"physicalPort=0, orientation={rotation}, logicalFrame={_rect(logical_w, logical_h)}, "
        f"physicalFrame={_rect(logical_w, logical_h)}, deviceWidth={width}, deviceHeight={height}}}"
    )
    info = (
        f'DisplayInfo{{"Built-in Screen", displayId 0, displayGroupId 0, FLAG_SECURE, FLAG_SUPPORTS_PROTECTED_BUFFERS, '
        f"FLAG_TRUSTED, real {logical_w} x {logical_h}, largest app {logical_w} x {logical_h}, smallest app "
        f"{min(logical_w, logical_h)} x {min(logical_w, logical_h)}, appVsyncOff 1000000, presDeadline 16666666, "
        f"mode 1, defaultMode 1, modes [{{id=1, width={width}, height={height}, fps=60.0}}], "
        f"rotation {rotation}, state ON, committedState ON, type INTERNAL, uniqueId \"{UNIQUE_ID}\", "
        f"app {logical_w} x {logical_h}, density {density} ({density}.0 x {density}.0) dpi, layerStack 0}}"
    )
    lines = [
        "DISPLAY MANAGER (dumpsys display)",
        "  mOnlyCode=false",
        "  mSafeMode=false",
        "  mPendingTraversal=false",
        f"  mViewports=[{viewport}]",
        "  mDefaultDisplayDefaultColorMode=0",
        "  mWifiDisplayScanRequestCount=0",
        f"  mStableDisplaySize=Point({width}, {height})",
        "",
        "Display Adapters: size=2",
        "  LocalDisplayAdapter",
        "  VirtualDisplayAdapter",
        "",
        "Display Devices: size=1",
        f'  DisplayDeviceInfo{{"Built-in Screen": uniqueId="{UNIQUE_ID}", {width} x {height}, modeId 1, '
        f"renderFrameRate 60.0, defaultModeId 1, supportedModes [{{id=1, width={width}, height={height}, fps=60.0}}], "
        f"density {display.physical_density}, {display.physical_density}.0 x {display.physical_density}.0 dpi, "
        "appVsyncOff 1000000, presDeadline 16666666, touch INTERNAL, rotation 0, type INTERNAL, "
        "address {port=0, model=0x0}, state ON, committedState ON, FLAG_ALLOWED_TO_BE_DEFAULT_DISPLAY, "
        "FLAG_ROTATES_WITH_CONTENT, FLAG_SECURE, FLAG_SUPPORTS_PROTECTED_BUFFERS, FLAG_TRUSTED}",
        "    mAdapter=LocalDisplayAdapter",
        f"    mUniqueId={UNIQUE_ID}",
        "    mDisplayToken=android.os.BinderProxy@5d1a7c2",
        "    mCurrentLayerStack=0",
        "    mCurrentOrientation=0",
        f"    mCurrentDisplayRect={_rect(width, height)}",
        "",
        "Logical Displays: size=1",
        "  Display 0:",
        "    mDisplayId=0",
        "    mIsEnabled=true",
        "    mLayerStack=0",
        "    mHasContent=true",
        "    mPrimaryDisplayDevice=Built-in Screen",
        f"    mBaseDisplayInfo={info}",
        f"    mOverrideDisplayInfo={info}",
        "",
    ]
    return "\n".join(lines) + "\n"


def power_dump(framework: Framework) -> str:
    awake = framework.state.power.awake
    battery = framework.state.battery.info
    # BatteryManager's BATTERY_PLUGGED_AC 1, _USB 2, _WIRELESS 4
    plug_type = 1 if battery.ac else 2 if battery.usb else 4 if battery.wireless else 0
    lines = [
        "POWER MANAGER (dumpsys power)",
        "",
        "Power Manager State:",
        "  mDirty=0x0",
        f"  mWakefulness={'Awake' if awake else 'Asleep'}",
        "  mWakefulnessChanging=false",
        f"  mIsPowered={'true' if plug_type else 'false'}",
        f"  mPlugType={plug_type}",
        f"  mBatteryLevel={battery.level}",
        "  mDockState=0",
        "  mStayOn=false",
        "  mProximityPositive=false",
        "  mBootCompleted=true",
        "  mSystemReady=true",
        "  mHalAutoSuspendModeEnabled=false",
        "  mHalInteractiveModeEnabled=true",
        "  mWakeLockSummary=0x0",
        "  mUserActivitySummary=0x1",
        "  mRequestWaitForNegativeProximity=false",
        "  mSandmanScheduled=false",
        "  mBatteryLevelLow=false",
        "  mLightDeviceIdleMode=false",
        "  mDeviceIdleMode=false",
        "  mScreenBrightnessBoostInProgress=false",
        "  mHoldingWakeLockSuspendBlocker=false",
        f"  mHoldingDisplaySuspendBlocker={'true' if awake else 'false'}",
        "",
        "Settings and Configuration:",
        "  mDecoupleHalAutoSuspendModeFromDisplayConfig=false",
        "  mDecoupleHalInteractiveModeFromDisplayConfig=true",
        "  mStayOnWhilePluggedInSetting=0",
        "  mScreenOffTimeoutSetting=2147483647",
        "  mMaximumScreenOffTimeoutFromDeviceAdmin=9223372036854775807 (enforced=false)",
        "",
        "Screen off timeout: 2147483647 ms",
        "Screen dim duration: 7000 ms",
        "",
        "Wake Locks: size=0",
        "",
        "Suspend Blockers: size=4",
        "  PowerManagerService.WakeLocks: ref count=0",
        "  PowerManagerService.Display: ref count=1",
        "  PowerManagerService.Broadcasts: ref count=0",
        "  PowerManagerService.WirelessChargerDetector: ref count=0",
        "",
        f"Display Power: state={'ON' if awake else 'OFF'}",
        "",
    ]
    return "\n".join(lines) + "\n"


SERVICE_DUMPS = {"display": display_dump, "power": power_dump}
#: the dumps that take arguments (`dumpsys battery set level 5`)
SERVICE_COMMANDS = {"battery": dumpsys_battery, "location": dumpsys_location, "wifi": dumpsys_wifi,
                    "gfxinfo": dumpsys_gfxinfo, "meminfo": dumpsys_meminfo}  # the last two: programs/perfdumps.py


def _focused_activity(framework: Framework) -> str:
    """The focused window's activity: a dialog activity over the app (the permission prompt, which
    the app's request started in its task), else the resumed one."""
    over = getattr(framework.display.content, "focused_activity", None)
    dialog = over() if callable(over) else None
    return dialog or framework.activity.foreground() or ""


def dumpsys(framework: Framework, proc: pm.Process) -> int:
    args = proc.argv[1:]
    if args and args[0] == "package":
        return dumpsys_package(framework, proc, args[1:])
    if args and args[0] in SERVICE_COMMANDS:
        return SERVICE_COMMANDS[args[0]](framework, proc, args[1:])
    if args and args[0] in SERVICE_DUMPS:
        proc.stdout.write(SERVICE_DUMPS[args[0]](framework))
        return 0
    if args and args[0] == "window":
        focus = _focused_activity(framework)
        package, _, activity = focus.partition("/")
        full = package + activity if activity.startswith(".") else activity
        proc.stdout.write(
            "WINDOW MANAGER WINDOWS (dumpsys window windows)\n"
            f"  mCurrentFocus=Window{{1a2b3c4 u0 {package}/{full}}}\n"
            f"  mFocusedApp=ActivityRecord{{5d6e7f8 u0 {package}/{activity} t12}}\n"
            "  KeyguardController:\n"
            f"    mKeyguardShowing={'true' if framework.state.power.keyguard_showing else 'false'}\n"
            "    mAodShowing=false\n"
        )
        return 0
    if args and args[0] == "activity" and "activities" in args[1:]:
        focus = framework.activity.foreground() or ""
        package = focus.split("/", 1)[0]
        proc.stdout.write(
            "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n"
            f"  ResumedActivity: ActivityRecord{{5d6e7f8 u0 {focus} t12}}\n"
            f"  mResumedActivity: ActivityRecord{{5d6e7f8 u0 {focus} t12}}\n"
            f"  topResumedActivity=ActivityRecord{{5d6e7f8 u0 {focus} t12}}\n"
            f"  mFocusedApp=ActivityRecord{{5d6e7f8 u0 {focus} t12}} package={package}\n"
        )
        return 0
    if not args:
        proc.stdout.write("Currently running services:\n  activity\n  battery\n  display\n  gfxinfo\n  location\n"
                          "  meminfo\n  package\n  power\n  wifi\n  window\n")
        return 0
    proc.stderr.write(f"Can't find service: {args[0]}\n")
    return 0
