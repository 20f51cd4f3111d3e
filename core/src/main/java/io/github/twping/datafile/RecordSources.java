package io.github.twping.datafile;

import java.util.Arrays;

/**
 * What the session data file cannot hold, per record: where the client's two timestamps came from (t1, the
 * send time, and t4, the reply's arrival) and the DSCP the reply arrived with. One {@code short} per record
 * index of the data file, in an array allocated once per session; the receiver fills entry {@code i} before
 * it appends record {@code i}, and readers on other threads read only entries below the writer's
 * {@link SessionDataWriter#visibleRecords()} (published with release semantics after the entries).
 *
 * <p>Records beyond the capacity, lost records and re-read files without this side table have
 * {@link #UNKNOWN} sources.
 */
public final class RecordSources {
    /** Source code: not known (lost packet, re-read file, beyond the capacity). */
    public static final int UNKNOWN = 0;
    /** Source code: {@code CLOCK_REALTIME} read in user space. */
    public static final int USER = 1;
    /** Source code: the kernel's software timestamp. */
    public static final int KERNEL_SOFTWARE = 2;
    /** Source code: the network card's hardware timestamp. */
    public static final int KERNEL_HARDWARE = 3;
    /** Largest table: 16 Mi records (32 MiB); later records have unknown sources. */
    public static final int MAX_CAPACITY = 1 << 24;

    private static final int DSCP_VALID = 1 << 4;
    private static final int DSCP_SHIFT = 5;
    private static final int ECN_SHIFT = 11;

    private final short[] entries;

    /** @param capacity records to keep (capped at {@link #MAX_CAPACITY}) */
    public RecordSources(long capacity) {
        entries = new short[(int) Math.max(0, Math.min(capacity, MAX_CAPACITY))];
    }

    /** A table for a session of {@code packetCount} packets, with room for duplicates. */
    public static RecordSources forPacketCount(long packetCount) {
        return new RecordSources(packetCount + (packetCount >> 3) + 1024);
    }

    /** @return the packed entry: t1 source, t4 source and the reply's TOS byte (negative when unknown). */
    public static short pack(int sendSource, int receiveSource, int tos) {
        int v = (sendSource & 3) | (receiveSource & 3) << 2;
        if (tos >= 0) {
            v |= DSCP_VALID | ((tos >> 2) & 0x3F) << DSCP_SHIFT | (tos & 3) << ECN_SHIFT;
        }
        return (short) v;
    }

    /** Stores the entry of record {@code index} (ignored beyond the capacity). */
    public void set(long index, short packed) {
        if (index >= 0 && index < entries.length) {
            entries[(int) index] = packed;
        }
    }

    /** @return the packed entry of record {@code index}, 0 (all unknown) beyond the capacity. */
    public short get(long index) {
        return index >= 0 && index < entries.length ? entries[(int) index] : 0;
    }

    /** @return the capacity in records */
    public int capacity() {
        return entries.length;
    }

    /** Clears every entry. */
    public void clear() {
        Arrays.fill(entries, (short) 0);
    }

    /** @return the t1 (send) source code of a packed entry */
    public static int sendSource(short packed) {
        return packed & 3;
    }

    /** @return the t4 (reply arrival) source code of a packed entry */
    public static int receiveSource(short packed) {
        return (packed >> 2) & 3;
    }

    /** @return the DSCP the reply arrived with, or -1 when unknown */
    public static int replyDscp(short packed) {
        return (packed & DSCP_VALID) != 0 ? (packed >> DSCP_SHIFT) & 0x3F : -1;
    }

    /** @return the ECN codepoint the reply arrived with (the TOS byte's low two bits), or -1 when unknown */
    public static int replyEcn(short packed) {
        return (packed & DSCP_VALID) != 0 ? (packed >> ECN_SHIFT) & 3 : -1;
    }

    /** @return the stable name of a source code: {@code unknown}, {@code user}, {@code kernel_software}, {@code kernel_hardware} */
    public static String name(int source) {
        return switch (source & 3) {
            case USER -> "user";
            case KERNEL_SOFTWARE -> "kernel_software";
            case KERNEL_HARDWARE -> "kernel_hardware";
            default -> "unknown";
        };
    }
}
