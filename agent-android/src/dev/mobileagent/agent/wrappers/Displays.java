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
        Object info = defaultDisplayInfo();
        return new int[] {
            (Integer) Reflect.field(info, "logicalWidth"),
            (Integer) Reflect.field(info, "logicalHeight"),
            (Integer) Reflect.field(info, "logicalDensityDpi"),
            (Integer) Reflect.field(info, "rotation"),
        };
    }

    private static Object defaultDisplayInfo() throws MissingApi {
        Class<?> global = Reflect.type("android.hardware.display.DisplayManagerGlobal");
        Object instance = Reflect.invoke(Reflect.method(global, "getInstance"), null);
        Object info = Reflect.invoke(Reflect.method(global, "getDisplayInfo", int.class), instance, 0);
        if (info == null) throw new MissingApi("DisplayManagerGlobal.getDisplayInfo(0)", null);
        return info;
    }

    /**
     * The physical display id of display 0, for {@code screencap -d} (which otherwise captures "the
     * first display found", not always the default one on foldables and multi-display devices): the
     * hidden DisplayInfo.address (Android 10 / API 29 on), a DisplayAddress.Physical whose
     * getPhysicalDisplayId() is public (API 29). Null below Android 10, for a display without a
     * physical address (a virtual one), or where any step is missing: screencap then takes its default.
     */
    public static Long physicalId() {
        try {
            Object address = Reflect.field(defaultDisplayInfo(), "address");
            if (address == null) return null;
            java.lang.reflect.Method id = Reflect.optional(address.getClass(), "getPhysicalDisplayId");
            if (id == null) return null;
            Object value = Reflect.invoke(id, address);
            return value instanceof Long ? (Long) value : null;
        } catch (MissingApi | RuntimeException e) {
            return null;
        }
    }
}
