package io.github.twping.agent;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A soft ceiling on the agent's old generation (docs/PERFORMANCE.md, "Fleet and daemon memory"). The launcher runs
 * the agent on the Serial collector with an 8 MB young generation; the objects of a 10 s session outlive a few young
 * collections and are promoted, so the old generation gains the garbage of every round of sessions (about 11 MB a
 * round with 100 targets). Serial collects its old generation only when it can no longer grow within
 * {@code -Xmx}: the agent's heap grew by about 1 MB/s towards its 512 MB maximum and kept every page it touched.
 *
 * <p>This ceiling asks for a full collection ({@link System#gc()}) when the old generation's use passes
 * {@link #limitFor(long)} of what the last full collection left live: a quarter more, at least
 * {@link #FLOOR_BYTES}. The old generation then shrinks back ({@code -XX:MaxHeapFreeRatio}), and the limit follows
 * the live data, so a larger fleet gets a larger limit and never an {@link OutOfMemoryError} from it. Checked every
 * half second by one virtual thread (a read of the pool's use); never on a per-packet path. With 100 targets a round
 * of sessions promotes more than a quarter of the live data, so that is one full collection (40-60 ms) per round of
 * 10-14 s; half as much again (the first form) took one every 15-26 s and let the heap peak 5 MB higher
 * (docs/notes/2026-12-05-agent-memory-2.md).
 */
public final class HeapCeiling implements AutoCloseable {
    /** The least limit (before the first full collection too). */
    public static final long FLOOR_BYTES = 16L << 20;
    /** How often the old generation's use is read. */
    static final long PERIOD_NS = TimeUnit.MILLISECONDS.toNanos(500);
    /** The Serial collector's old generation, the only one this ceiling watches. */
    static final String SERIAL_OLD_POOL = "Tenured Gen";

    private final LongSupplier used;
    private final LongSupplier liveAfterLastFull;
    private final Runnable collect;
    private long limit = FLOOR_BYTES;
    private long collections;
    private volatile Thread thread;

    HeapCeiling(LongSupplier used, LongSupplier liveAfterLastFull, Runnable collect) {
        this.used = used;
        this.liveAfterLastFull = liveAfterLastFull;
        this.collect = collect;
    }

    /**
     * Starts watching the Serial collector's old generation; does nothing (and returns a ceiling that watches
     * nothing) under another collector, which sizes its old generation itself.
     */
    public static HeapCeiling start() {
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP && SERIAL_OLD_POOL.equals(pool.getName()) && pool.isValid()) {
                HeapCeiling c = new HeapCeiling(() -> pool.getUsage().getUsed(), () -> {
                    MemoryUsage after = pool.getCollectionUsage();
                    return after == null ? -1 : after.getUsed();
                }, System::gc);
                Thread t = Thread.ofVirtual().name("agent-heap-ceiling").unstarted(c::watch);
                c.thread = t;
                t.start();
                return c;
            }
        }
        return new HeapCeiling(() -> 0, () -> -1, () -> { });
    }

    /** @return the limit after a full collection left {@code liveBytes} live (negative: none yet) */
    static long limitFor(long liveBytes) {
        return Math.max(FLOOR_BYTES, liveBytes + (liveBytes >> 2));
    }

    /**
     * One check: a full collection when the old generation's use is above the limit, then the limit from what it
     * left live.
     *
     * @return true when it asked for a collection
     */
    boolean check() {
        if (used.getAsLong() <= limit) {
            return false;
        }
        collect.run();
        collections++;
        limit = limitFor(liveAfterLastFull.getAsLong());
        return true;
    }

    /** @return the current limit in bytes */
    long limit() {
        return limit;
    }

    /** @return the collections this ceiling asked for */
    long collections() {
        return collections;
    }

    private void watch() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                TimeUnit.NANOSECONDS.sleep(PERIOD_NS);   // a period, not a synchronisation
                check();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops watching. */
    @Override
    public void close() {
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }
}
