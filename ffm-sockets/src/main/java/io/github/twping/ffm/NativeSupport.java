package io.github.twping.ffm;

import java.util.Locale;

/**
 * Whether the FFM implementation can run here: Linux on x86-64 or aarch64, native access granted, libc linked.
 */
final class NativeSupport {
    private static final String UNAVAILABLE_REASON = probe();

    private NativeSupport() {
    }

    private static String probe() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (!os.startsWith("linux")) {
            return "not Linux (" + os + ")";
        }
        if (!arch.equals("amd64") && !arch.equals("x86_64") && !arch.equals("aarch64")) {
            return "unsupported architecture " + arch;
        }
        try {
            Libc.probe();
            return null;
        } catch (ExceptionInInitializerError e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            return "libc binding failed: " + cause;
        } catch (LinkageError | IllegalStateException | IllegalCallerException e) {
            return "libc binding failed: " + e;
        }
    }

    /** True when the libc downcalls are linked and usable. */
    static boolean isAvailable() {
        return UNAVAILABLE_REASON == null;
    }

    /** Why the FFM implementation is unavailable, or null when it is available. */
    static String unavailableReason() {
        return UNAVAILABLE_REASON;
    }
}
