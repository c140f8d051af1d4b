package dev.mobileagent.agent.wrappers;

/**
 * The default display's logical size, density and rotation: DisplayManagerGlobal.getDisplayInfo(0)
 * (hidden, Android 4.2 / API 17 on; no fallback: every release the agent runs on has it, and the
 * DisplayInfo fields logicalWidth, logicalHeight, logicalDensityDpi and rotation with it).
 */
public final class Displays {
    private Displays() {}

    /** {width, height, densityDpi, rotation} in the current orientation. */
    public static int[] info() throws MissingApi {
        Class<?> global = Reflect.type("android.hardware.display.DisplayManagerGlobal");
        Object instance = Reflect.invoke(Reflect.method(global, "getInstance"), null);
        Object info = Reflect.invoke(Reflect.method(global, "getDisplayInfo", int.class), instance, 0);
        if (info == null) throw new MissingApi("DisplayManagerGlobal.getDisplayInfo(0)", null);
        return new int[] {
            (Integer) Reflect.field(info, "logicalWidth"),
            (Integer) Reflect.field(info, "logicalHeight"),
            (Integer) Reflect.field(info, "logicalDensityDpi"),
            (Integer) Reflect.field(info, "rotation"),
        };
    }
}
