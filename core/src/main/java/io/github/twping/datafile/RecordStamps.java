package io.github.twping.datafile;

/**
 * The client's stamps of each reply record that the data file cannot hold, for the per-packet delay breakdown
 * (docs/STATISTICS.md, delay breakdown): the packet's scheduled send time, the user-space stamp written into the
 * packet (as the reflector echoed it), the kernel's TX stamp of the packet when one arrived in time, and the moment
 * the receiver thread's receive call returned with the reply. The kernel's RX stamp is the record's t4 when its
 * {@link RecordSources} entry says so.
 *
 * <p>Four {@code long} and one {@code byte} per record index of the data file, in arrays allocated once per session
 * (the receiver writes entry {@code i} before it appends record {@code i}; nothing is allocated per packet). Readers
 * on other threads read only entries below the writer's {@link SessionDataWriter#visibleRecords()}, published with
 * release semantics after the entries, as for {@link RecordSources}. Lost records, records beyond the capacity and
 * re-read files have no entry ({@link #recorded} false).
 */
public final class RecordStamps {
    /** Largest table: 2 Mi records (66 MiB); later records have no entry. */
    public static final int MAX_CAPACITY = 1 << 21;

    private static final byte RECORDED = 1;
    private static final byte TX_HARDWARE = 1 << 1;

    private final long[] scheduledNtp;
    private final long[] userSendNtp;
    private final long[] kernelTxNtp;
    private final long[] receiptNtp;
    private final byte[] flags;

    /** @param capacity records to keep (capped at {@link #MAX_CAPACITY}) */
    public RecordStamps(long capacity) {
        int n = (int) Math.max(0, Math.min(capacity, MAX_CAPACITY));
        scheduledNtp = new long[n];
        userSendNtp = new long[n];
        kernelTxNtp = new long[n];
        receiptNtp = new long[n];
        flags = new byte[n];
    }

    /** Records beyond the packet count a table keeps room for: duplicates (an eighth of the packets) and this many. */
    static final int SLACK_RECORDS = 64;

    /**
     * A table for a session of {@code packetCount} packets, with room for duplicates: an eighth more and
     * {@link #SLACK_RECORDS} (33 bytes a record; an agent keeps one table per target between sessions, so a
     * 100-packet session's table is 5.8 KB, not the 37 KB of {@link RecordSources}' 1024 spare records).
     */
    public static RecordStamps forPacketCount(long packetCount) {
        return new RecordStamps(sizeFor(packetCount));
    }

    private static long sizeFor(long packetCount) {
        return packetCount + (packetCount >> 3) + SLACK_RECORDS;
    }

    /**
     * Stores the entry of reply record {@code index} (ignored beyond the capacity).
     *
     * @param scheduled   the packet's scheduled send time (NTP)
     * @param userSend    the user-space send stamp written into the packet (NTP)
     * @param kernelTx    the kernel's TX stamp of the packet (NTP), 0 when none had arrived
     * @param txHardware  the TX stamp came from the network card
     * @param receipt     when the receive call that delivered the reply returned (NTP, user space)
     */
    public void set(long index, long scheduled, long userSend, long kernelTx, boolean txHardware, long receipt) {
        if (index >= 0 && index < flags.length) {
            int i = (int) index;
            scheduledNtp[i] = scheduled;
            userSendNtp[i] = userSend;
            kernelTxNtp[i] = kernelTx;
            receiptNtp[i] = receipt;
            flags[i] = (byte) (RECORDED | (txHardware ? TX_HARDWARE : 0));
        }
    }

    /** @return true when record {@code index} has an entry */
    public boolean recorded(long index) {
        return index >= 0 && index < flags.length && (flags[(int) index] & RECORDED) != 0;
    }

    /** @return the packet's scheduled send time (NTP); 0 without an entry */
    public long scheduledNtp(long index) {
        return recorded(index) ? scheduledNtp[(int) index] : 0;
    }

    /** @return the user-space send stamp written into the packet (NTP); 0 without an entry */
    public long userSendNtp(long index) {
        return recorded(index) ? userSendNtp[(int) index] : 0;
    }

    /** @return the kernel's TX stamp of the packet (NTP); 0 when none (or no entry) */
    public long kernelTxNtp(long index) {
        return recorded(index) ? kernelTxNtp[(int) index] : 0;
    }

    /** @return true when the kernel TX stamp came from the network card */
    public boolean kernelTxHardware(long index) {
        return recorded(index) && (flags[(int) index] & TX_HARDWARE) != 0;
    }

    /** @return when the receiver's receive call returned with the reply (NTP); 0 without an entry */
    public long receiptNtp(long index) {
        return recorded(index) ? receiptNtp[(int) index] : 0;
    }

    /** @return the capacity in records */
    public int capacity() {
        return flags.length;
    }

    /**
     * @return true when this table holds every record of a session of {@code packetCount} packets as
     *         {@link #forPacketCount} would, so that it can be {@link #clear}ed and used again
     */
    public boolean holds(long packetCount) {
        return flags.length >= Math.min(sizeFor(packetCount), MAX_CAPACITY);
    }

    /** Forgets every entry (for the next session; not while a receiver writes). */
    public void clear() {
        java.util.Arrays.fill(flags, (byte) 0);
    }
}
