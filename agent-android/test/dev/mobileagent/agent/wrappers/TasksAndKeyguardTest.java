package dev.mobileagent.agent.wrappers;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import org.junit.Test;

/** H8: the focused task is display 0's; H3: the keyguard as ITrustManager.isDeviceLocked answers it. */
public class TasksAndKeyguardTest {
    /** A RunningTaskInfo's displayId, as TaskInfo declares it. */
    public static final class TaskOn {
        public final int displayId;

        TaskOn(int displayId) {
            this.displayId = displayId;
        }
    }

    @Test
    public void theFirstTaskOnDisplayZeroIsTakenNotTheMostRecentAnywhere() throws Exception {
        TaskOn cover = new TaskOn(1);
        TaskOn main = new TaskOn(0);
        assertEquals(main, Tasks.firstOnDefaultDisplay(Arrays.asList(cover, main, new TaskOn(0))));
        assertNull(Tasks.firstOnDefaultDisplay(Arrays.asList(cover)));
        assertNull(Tasks.firstOnDefaultDisplay(null));
    }

    /** Android 14+'s isDeviceLocked(int userId, int deviceId). */
    public static final class TrustManager14 {
        public boolean locked;
        public int[] asked;

        public boolean isDeviceLocked(int userId, int deviceId) {
            asked = new int[] {userId, deviceId};
            return locked;
        }
    }

    /** Android 13's isDeviceLocked(int userId). */
    public static final class TrustManager13 {
        public boolean isDeviceLocked(int userId) {
            return userId == 0;
        }
    }

    @Test
    public void theKeyguardIsAskedForUserZeroOnTheDefaultDeviceInEitherShape() throws Exception {
        TrustManager14 t = new TrustManager14();
        assertFalse(Keyguard.over(t).deviceLocked());
        t.locked = true;
        assertTrue(Keyguard.over(t).deviceLocked());
        assertEquals("[0, 0]", Arrays.toString(t.asked));
        assertTrue(Keyguard.over(new TrustManager13()).deviceLocked());
    }
}
