package io.github.twping.testsupport;

import java.time.Duration;

/**
 * The budget of an allocation test that measures a per-packet path in windows until one window allocates nothing:
 * windows are measured until then or until a deadline, never a fixed number of them. How many operations the JIT
 * needs before C2 has compiled a path depends on the load, on the compile queue and on what ran before in the same
 * JVM (a neighbour's classes and type profiles can make C2 throw its code away and compile it again); until then
 * the FFM downcalls allocate (40 B each: docs/notes/2026-12-05-allocation-order.md). A fixed budget of 40 windows
 * failed so beside other tests. A path that allocates once compiled still fails, after the deadline, with the
 * figures of its first and last windows.
 *
 * <pre>{@code
 * AllocationWindows windows = new AllocationWindows("datagrams", 2_000);
 * while (windows.more()) {
 *     long allocated = ...;                 // the bytes one window of 2,000 allocated
 *     windows.record(allocated);
 * }
 * windows.assertOneAllocatedNothing();
 * }</pre>
 */
public final class AllocationWindows {
    /** How long windows are measured at most: under the tests' default timeout of 120 s. */
    public static final Duration DEFAULT_LIMIT = Duration.ofSeconds(60);
    /** Windows measured at most, whatever the time (a bound on the loop of its own). */
    public static final int MAX_WINDOWS = 100_000;
    /** Windows whose figures the failure message shows, from the start and from the end. */
    private static final int SHOWN = 8;

    private final String what;
    private final int perWindow;
    private final long startNs = System.nanoTime();
    private final long limitNs;
    private final long[] first = new long[SHOWN];
    private final long[] last = new long[SHOWN];
    private int windows;
    private long best = Long.MAX_VALUE;

    /** @param what the operations, plural ("datagrams"); @param perWindow how many a window has */
    public AllocationWindows(String what, int perWindow) {
        this(what, perWindow, DEFAULT_LIMIT);
    }

    public AllocationWindows(String what, int perWindow, Duration limit) {
        this.what = what;
        this.perWindow = perWindow;
        this.limitNs = limit.toNanos();
    }

    /** @return true while no window allocated nothing yet and neither the deadline nor {@link #MAX_WINDOWS} passed */
    public boolean more() {
        return best != 0 && windows < MAX_WINDOWS && System.nanoTime() - startNs < limitNs;
    }

    /** Records the bytes one window allocated. */
    public void record(long bytes) {
        if (windows < SHOWN) {
            first[windows] = bytes;
        }
        last[windows % SHOWN] = bytes;
        windows++;
        best = Math.min(best, bytes);
    }

    /** @return the windows recorded so far */
    public int windows() {
        return windows;
    }

    /** Fails unless a window allocated nothing, naming the bytes per operation of the first and last windows. */
    public void assertOneAllocatedNothing() {
        if (best != 0) {
            throw new AssertionError("no window of " + perWindow + " " + what + " allocated 0 bytes in " + windows
                    + " windows (" + (System.nanoTime() - startNs) / 1_000_000 + " ms); the best allocated " + best
                    + " bytes; bytes per " + singular() + ", first windows: " + perOperation(first, 0,
                    Math.min(windows, SHOWN)) + ", last windows: " + lastPerOperation());
        }
    }

    private String singular() {
        return what.endsWith("s") ? what.substring(0, what.length() - 1) : what;
    }

    private String lastPerOperation() {
        int n = Math.min(windows, SHOWN);
        long[] ordered = new long[n];
        for (int i = 0; i < n; i++) {
            ordered[i] = last[(windows - n + i) % SHOWN];
        }
        return perOperation(ordered, 0, n);
    }

    private String perOperation(long[] bytes, int from, int to) {
        StringBuilder s = new StringBuilder();
        for (int i = from; i < to; i++) {
            s.append(i == from ? "" : " ").append(String.format(java.util.Locale.ROOT, "%.1f",
                    (double) bytes[i] / perWindow));
        }
        return s.toString();
    }
}
