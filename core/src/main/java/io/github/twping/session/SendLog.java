package io.github.twping.session;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.Arrays;

/**
 * What the sender did with each sequence number, handed to the receiver without locks: one writer per
 * field (single producer, single consumer), in a ring allocated once per session.
 *
 * <p>The sender fills the slot of sequence number {@code s} and then publishes {@code published = s + 1}
 * with release semantics; the receiver reads {@code published} with acquire semantics before it looks at
 * a slot. The receiver owns the {@code hit} flags and the TX timestamps, and publishes how far it has
 * flushed so that the sender never overwrites a slot that is still pending (back-pressure instead of loss
 * of bookkeeping when more than {@code capacity} packets are in flight).
 */
final class SendLog {
    static final byte STATE_SENT = 1;
    static final byte STATE_SKIPPED = 2;

    private static final VarHandle PUBLISHED;
    private static final VarHandle FLUSHED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            PUBLISHED = lookup.findVarHandle(SendLog.class, "published", long.class);
            FLUSHED = lookup.findVarHandle(SendLog.class, "flushed", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int mask;
    private final long[] scheduledNtp;
    private final long[] sendNtp;
    private final long[] txId;
    private final byte[] state;
    private final boolean[] hit;
    private final long[] txStampId;
    private final long[] txStampEpochNs;
    private final boolean[] txStampHardware;

    @SuppressWarnings("unused") // accessed through PUBLISHED
    private long published;
    @SuppressWarnings("unused") // accessed through FLUSHED
    private long flushed;
    private volatile boolean senderFinished;

    /**
     * @param packetCount packets in the session; the ring holds min(packetCount, maxCapacity) rounded up to a
     *                    power of two
     * @param maxCapacity upper bound of the ring size
     */
    SendLog(long packetCount, int maxCapacity) {
        long wanted = Math.max(16, Math.min(packetCount, maxCapacity));
        int capacity = Integer.highestOneBit((int) Math.min(wanted, 1 << 30));
        if (capacity < wanted) {
            capacity <<= 1;
        }
        mask = capacity - 1;
        scheduledNtp = new long[capacity];
        sendNtp = new long[capacity];
        txId = new long[capacity];
        state = new byte[capacity];
        hit = new boolean[capacity];
        txStampId = new long[capacity];
        txStampEpochNs = new long[capacity];
        txStampHardware = new boolean[capacity];
        Arrays.fill(txStampId, -1);
    }

    int capacity() {
        return mask + 1;
    }

    // ---- sender side -------------------------------------------------------------------------------------

    /**
     * Waits (parking briefly) until the slot for {@code seq} is free, or the receiver stopped.
     *
     * @return false if the receiver has stopped and the sender should end
     */
    boolean awaitSlot(long seq, BooleanSupplier receiverRunning) {
        while (!slotFree(seq)) {
            if (!receiverRunning.getAsBoolean()) {
                return false;
            }
            LockSupport.parkNanos(20_000);
        }
        return true;
    }

    /** @return true when the slot for {@code seq} is free: the receiver has flushed what it held before */
    boolean slotFree(long seq) {
        return seq - (long) FLUSHED.getAcquire(this) <= mask;
    }

    void publishSent(long seq, long scheduled, long sendTimeNtp, long packetId) {
        int i = (int) seq & mask;
        scheduledNtp[i] = scheduled;
        sendNtp[i] = sendTimeNtp;
        txId[i] = packetId;
        state[i] = STATE_SENT;
        hit[i] = false;
        PUBLISHED.setRelease(this, seq + 1);
    }

    void publishSkipped(long seq, long scheduled) {
        int i = (int) seq & mask;
        scheduledNtp[i] = scheduled;
        sendNtp[i] = scheduled;
        txId[i] = -1;
        state[i] = STATE_SKIPPED;
        hit[i] = true;
        PUBLISHED.setRelease(this, seq + 1);
    }

    void senderFinished() {
        senderFinished = true;
    }

    // ---- receiver side -----------------------------------------------------------------------------------

    /** @return how many sequence numbers the sender has handled (sent or skipped). */
    long published() {
        return (long) PUBLISHED.getAcquire(this);
    }

    boolean isSenderFinished() {
        return senderFinished;
    }

    void publishFlushed(long count) {
        FLUSHED.setRelease(this, count);
    }

    byte state(long seq) {
        return state[(int) seq & mask];
    }

    long scheduledNtp(long seq) {
        return scheduledNtp[(int) seq & mask];
    }

    long sendNtp(long seq) {
        return sendNtp[(int) seq & mask];
    }

    boolean hit(long seq) {
        return hit[(int) seq & mask];
    }

    void markHit(long seq) {
        hit[(int) seq & mask] = true;
    }

    /** Stores a TX timestamp delivered by the kernel for socket packet id {@code packetId}. */
    void txTimestamp(long packetId, long epochNs, boolean hardware) {
        int i = (int) packetId & mask;
        txStampId[i] = packetId;
        txStampEpochNs[i] = epochNs;
        txStampHardware[i] = hardware;
    }

    /** @return true when the TX timestamp of {@code seq} (see {@link #txTimestampEpochNs}) came from the card. */
    boolean txTimestampHardware(long seq) {
        long id = txId[(int) seq & mask];
        if (id < 0) {
            return false;
        }
        int i = (int) id & mask;
        return txStampId[i] == id && txStampHardware[i];
    }

    /** @return the kernel TX timestamp (epoch ns) of the packet sent for {@code seq}, or 0 if none arrived. */
    long txTimestampEpochNs(long seq) {
        long id = txId[(int) seq & mask];
        if (id < 0) {
            return 0;
        }
        int i = (int) id & mask;
        return txStampId[i] == id ? txStampEpochNs[i] : 0;
    }
}
