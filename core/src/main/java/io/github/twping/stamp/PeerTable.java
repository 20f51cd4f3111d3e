package io.github.twping.stamp;

import java.net.InetSocketAddress;
import java.util.Arrays;

/**
 * The STAMP reflector's sources: open addressing on (address, port, SSID), preallocated, never shrinking. Only sources
 * the allow-list admits are inserted (the reflector checks it before {@link #insert}), so every entry is answered.
 * Each entry keeps its reply address, stateful sequence counter, rate bucket, Direct Measurement counters and the
 * kernel TX stamp of its last stamped reply (Follow-Up Telemetry). Used by the reflector thread only.
 */
final class PeerTable {
    private static final long NS_PER_SECOND = 1_000_000_000L;

    final int capacity;
    final int mask;
    final byte[] addresses;
    final int[] addressLengths;
    final int[] ports;
    final int[] ssids;
    final boolean[] used;
    final InetSocketAddress[] address;
    final long[] counters;
    final double[] tokens;
    final long[] refillNs;
    /** Datagrams received from the session (its Direct Measurement R_RxC). */
    final long[] rxCount;
    /** Replies sent to the session (its Direct Measurement R_TxC). */
    final long[] txCount;
    /** Sequence number of the session's last reply with a kernel TX stamp, or -1 (Follow-Up Telemetry). */
    final long[] lastTxSeq;
    /** The kernel TX stamp of that reply (CLOCK_REALTIME ns, or the NIC's). */
    final long[] lastTxEpochNs;
    final boolean[] lastTxHardware;
    /**
     * The session has sent a Follow-Up Telemetry TLV: its replies from then on are sent with a kernel TX stamp
     * (the only replies that are, RFC 8972 §4.7).
     */
    final boolean[] followUp;
    /** Packet id (TX-stamp id) of the session's last stamped reply, -1 before the first. */
    final long[] lastSentId;
    /** Packet id of the session's last reply whose TX stamp was read, -1 before the first. */
    final long[] lastStampedId;
    /** Datagrams received and replies sent over all sources: the Direct Measurement of sources without an entry. */
    long totalRx;
    long totalTx;
    int size;

    PeerTable(int maxPeers) {
        int c = Integer.highestOneBit(Math.max(2, maxPeers) * 2 - 1);
        capacity = c;
        mask = c - 1;
        addresses = new byte[c * 16];
        addressLengths = new int[c];
        ports = new int[c];
        ssids = new int[c];
        used = new boolean[c];
        address = new InetSocketAddress[c];
        counters = new long[c];
        tokens = new double[c];
        refillNs = new long[c];
        rxCount = new long[c];
        txCount = new long[c];
        lastTxSeq = new long[c];
        lastTxEpochNs = new long[c];
        lastTxHardware = new boolean[c];
        followUp = new boolean[c];
        lastSentId = new long[c];
        lastStampedId = new long[c];
    }

    private int hash(byte[] a, int length, int port, int ssid) {
        int h = port * 31 + ssid;
        for (int i = 0; i < length; i++) {
            h = h * 31 + a[i];
        }
        h ^= h >>> 16;
        return h * 0x9E3779B9;
    }

    int find(byte[] a, int length, int port, int ssid) {
        int i = hash(a, length, port, ssid) & mask;
        for (int probes = 0; probes < capacity && used[i]; probes++) {
            if (ports[i] == port && ssids[i] == ssid && addressLengths[i] == length
                    && Arrays.equals(addresses, i * 16, i * 16 + length, a, 0, length)) {
                return i;
            }
            i = (i + 1) & mask;
        }
        return -1;
    }

    /** Adds an allowed source; -1 when the table is at its limit (half the slots, to keep probes short). */
    int insert(byte[] a, int length, int port, int ssid, InetSocketAddress destination, long nowNs, int rate) {
        if (size >= capacity / 2) {
            return -1;
        }
        int i = hash(a, length, port, ssid) & mask;
        while (used[i]) {
            i = (i + 1) & mask;
        }
        used[i] = true;
        System.arraycopy(a, 0, addresses, i * 16, length);
        addressLengths[i] = length;
        ports[i] = port;
        ssids[i] = ssid;
        address[i] = destination;
        counters[i] = 0;
        tokens[i] = rate;
        refillNs[i] = nowNs;
        rxCount[i] = 0;
        txCount[i] = 0;
        lastTxSeq[i] = -1;
        lastTxEpochNs[i] = 0;
        lastTxHardware[i] = false;
        followUp[i] = false;
        lastSentId[i] = -1;
        lastStampedId[i] = -1;
        size++;
        return i;
    }

    long next(int i) {
        long v = counters[i];
        counters[i] = (v + 1) & 0xFFFF_FFFFL;
        return v;
    }

    /** Token bucket: {@code rate} per second, burst {@code rate}; @return false when over the limit. */
    boolean take(int i, long nowNs, int rate) {
        double t = tokens[i] + (nowNs - refillNs[i]) * (rate / (double) NS_PER_SECOND);
        refillNs[i] = nowNs;
        if (t > rate) {
            t = rate;
        }
        if (t < 1.0) {
            tokens[i] = t;
            return false;
        }
        tokens[i] = t - 1.0;
        return true;
    }
}
