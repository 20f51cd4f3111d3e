package io.github.twping.session;

import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.ThreadTuning;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Gives the JVM's JIT compiler threads the scheduler's longest slice (100 ms; Linux 6.12 and later, EEVDF), so
 * that any other thread woken on the CPU a compilation occupies preempts it at once. With equal slices the
 * scheduler protects the running thread until its slice ends or the next tick (1.5 ms by default on two CPUs), so a
 * compilation kept a reflector on the same host from its CPU for 1-2 ms after our send: the forward leg's largest
 * delays against the C twampd (docs/notes/2026-12-05-jit-slice.md). A woken thread with a shorter slice than the
 * running one cancels that protection, and with the later virtual deadline of a long slice the compiler loses the
 * pick. A short slice does the opposite: it wins the pick more often (tried first; measured in the note). The
 * compilers keep their share of the CPU when no one else wants it. Threads the JVM starts later are not covered.
 */
public final class JitSlices {
    /** System property: the compiler threads' slice in ns (default the longest, 100 ms); 0 leaves them alone. */
    public static final String PROPERTY = "twping.jit.sliceNs";
    /** The names of HotSpot's compiler threads, as the kernel keeps them (15 characters at most). */
    static final String[] COMPILER_THREADS = {"C1 CompilerThre", "C2 CompilerThre"};

    /** A call within this long of the last scan does nothing (the agent starts sessions at high rates), ns. */
    static final long RESCAN_AFTER_NS = 10_000_000_000L;
    private static final AtomicLong LAST_SCAN_NS = new AtomicLong(System.nanoTime() - RESCAN_AFTER_NS);

    private JitSlices() {
    }

    /** Lets the next {@link #apply()} scan again at once (tests). */
    static void rescanNow() {
        LAST_SCAN_NS.set(System.nanoTime() - RESCAN_AFTER_NS);
    }

    /**
     * Sets the slice of every compiler thread running now, from {@value #PROPERTY} (default
     * {@link ThreadTuning#MAX_SLICE_NS}); quietly does nothing where the call is unavailable.
     *
     * At most one scan of the threads per {@link #RESCAN_AFTER_NS}: a later call within that time returns 0.
     *
     * @return how many threads got the slice
     */
    public static int apply() {
        long sliceNs = Long.getLong(PROPERTY, ThreadTuning.MAX_SLICE_NS);
        if (sliceNs <= 0 || !ThreadTuning.available()) {
            return 0;
        }
        long now = System.nanoTime();
        long last = LAST_SCAN_NS.get();
        if (now - last < RESCAN_AFTER_NS || !LAST_SCAN_NS.compareAndSet(last, now)) {
            return 0;
        }
        int set = 0;
        for (int tid : ThreadTuning.threadIdsNamed(COMPILER_THREADS)) {
            try {
                ThreadTuning.threadSliceNs(tid, sliceNs);
                set++;
            } catch (SocketException | IllegalStateException e) {
                // ended meanwhile (ESRCH), a kernel without the call, or a policy set from outside: left as it is
            }
        }
        return set;
    }
}
