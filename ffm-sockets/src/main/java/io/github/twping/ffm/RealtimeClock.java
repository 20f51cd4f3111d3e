package io.github.twping.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Instant;

/**
 * The realtime (wall) clock in epoch nanoseconds without allocating: {@code clock_gettime(CLOCK_REALTIME)}
 * through the vDSO, into a per-thread 16-byte {@code timespec}. {@code Instant.now()} allocates on paths where
 * the JIT cannot prove the object does not escape (measured: 24 bytes per reading in the reflector and the
 * client's sender loop); this does not. Falls back to {@code Instant.now()} when native access is unavailable.
 *
 * <p>Same clock as the kernel's software timestamps ({@code SO_TIMESTAMPING}), so user-space and kernel
 * stamps can be compared directly.
 */
public final class RealtimeClock {
    private static final boolean NATIVE = NativeSupport.isAvailable();
    private static final ThreadLocal<MemorySegment> TIMESPEC =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(16, 8));

    private RealtimeClock() {
    }

    /** @return the current time in nanoseconds since 1970-01-01 UTC. */
    public static long epochNs() {
        if (NATIVE) {
            return Libc.realtimeEpochNs(TIMESPEC.get());
        }
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /**
     * Gives the calling thread its {@code timespec} now, before its per-packet work: a thread's first reading takes
     * {@link ThreadLocal}'s miss path, which the start-up warm-up's threads took long before C2 compiled the clock,
     * so on a session's own thread it was an unstable_if trap ({@code -Xlog:deoptimization}: in
     * {@code ThreadLocalMap.getEntry} and the clock methods that inlined it) during the first packets of the session.
     * Call it first on a reflector's or a session's thread.
     */
    public static void bindThread() {
        epochNs();
    }

    /**
     * Links {@code clock_gettime} (a downcall shape of its own, about 7 ms of linking) on a daemon thread of its own
     * that ends when it is linked, so that a program can overlap it with other start-up work: twping's control
     * connection, before its start time is read (docs/CLIENT.md, "Start-up"). A reading while the linking is under
     * way waits for it (class initialisation), never links twice.
     *
     * @return the thread (started; it ends once the clock is linked and read)
     */
    public static Thread linkInBackground() {
        return Thread.ofPlatform().daemon().name("clock-link").start(RealtimeClock::epochNs);
    }

    /** @return whether readings come from {@code clock_gettime} (true) or {@code Instant.now()} (false). */
    public static boolean isNative() {
        return NATIVE;
    }
}
