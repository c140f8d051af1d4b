package dev.mobileagent.agent.wrappers;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/** The reflection every hidden-API call goes through: one place that turns failures into MissingApi. */
final class Reflect {
    private Reflect() {}

    static Method method(Class<?> c, String name, Class<?>... params) throws MissingApi {
        try {
            Method m = c.getDeclaredMethod(name, params);
            m.setAccessible(true);
            return m;
        } catch (NoSuchMethodException | SecurityException e) {
            throw new MissingApi(c.getName() + "." + name, e);
        }
    }

    static Method optional(Class<?> c, String name, Class<?>... params) {
        try {
            Method m = c.getDeclaredMethod(name, params);
            m.setAccessible(true);
            return m;
        } catch (NoSuchMethodException | SecurityException e) {
            return null;
        }
    }

    static Class<?> type(String name) throws MissingApi {
        try {
            return Class.forName(name);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new MissingApi(name, e);
        }
    }

    /** Invokes; an exception the callee threw comes out as itself (unchecked) or wrapped in a RuntimeException. */
    static Object invoke(Method m, Object target, Object... args) throws MissingApi {
        try {
            return m.invoke(target, args);
        } catch (IllegalAccessException | IllegalArgumentException e) {
            throw new MissingApi(m.getDeclaringClass().getName() + "." + m.getName(), e);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) throw (RuntimeException) cause;
            if (cause instanceof Error) throw (Error) cause;
            throw new RuntimeException(cause);
        }
    }

    /** A field declared by the target's class or one of its superclasses (TaskInfo's, of a RunningTaskInfo). */
    static Object field(Object target, String name) throws MissingApi {
        for (Class<?> c = target.getClass(); c != null; c = c.getSuperclass()) {
            try {
                java.lang.reflect.Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(target);
            } catch (NoSuchFieldException e) {
                // a superclass may declare it
            } catch (IllegalAccessException | SecurityException e) {
                throw new MissingApi(c.getName() + "." + name, e);
            }
        }
        throw new MissingApi(target.getClass().getName() + "." + name, null);
    }
}
