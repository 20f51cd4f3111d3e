package io.github.twping.stats.owamp;

import java.util.Arrays;

/**
 * The owamp delay histogram (docs/STATISTICS.md): buckets of width {@code bw} (float32 widened to
 * double) indexed by {@code ceil(d/bw)} for non-negative and {@code floor(d/bw)} for negative
 * quotients, three counters per bucket (round trip, forward, backward), remembering creation
 * order for the C hash-table output order.
 */
public final class DelayHistogram {
    /** Counter index: round trip. */
    public static final int RT = 0;
    /** Counter index: forward ("send") delay. */
    public static final int FWD = 1;
    /** Counter index: backward ("reflect") delay. */
    public static final int BCK = 2;
    /** Slots of the C hash table the buckets live in. */
    static final int HASH_SLOTS = 1021;
    /** Bucket count after which the C library allocates another block and warns. */
    static final int ALLOCATION_BLOCK = 2047;

    private final double widthSeconds;
    private int[] bucketIndex = new int[64];
    private int[] counts = new int[64 * 3];
    private int bucketCount;
    // open addressing: key table -> position + 1 (0 = empty)
    private int[] tableKeys = new int[256];
    private int[] tablePos = new int[256];
    private long[] sortScratch = new long[64];
    private int[] ascending = new int[64];
    private boolean ascendingValid;
    private int allocationWarnings;

    /** @param bucketWidth the {@code -b} value as the C float */
    public DelayHistogram(float bucketWidth) {
        this.widthSeconds = bucketWidth;
    }

    /** Bucket width in seconds (the float widened to double). */
    public double widthSeconds() {
        return widthSeconds;
    }

    /** Empties the histogram (keeps its arrays). */
    public void clear() {
        bucketCount = 0;
        Arrays.fill(tablePos, 0);
        ascendingValid = false;
        allocationWarnings = 0;
    }

    /** The bucket index of delay {@code d} seconds (C: {@code (int)} of ceil/floor of {@code d/bw}). */
    public int bucketOf(double d) {
        double q = d / widthSeconds;
        double r = q >= 0 ? Math.ceil(q) : Math.floor(q);
        if (!(r >= Integer.MIN_VALUE && r <= Integer.MAX_VALUE)) {
            return Integer.MIN_VALUE; // x86 cvttsd2si result for out-of-range or NaN
        }
        return (int) r;
    }

    /** Adds one sample of {@code type} for delay {@code d} seconds. */
    public void add(int type, double d) {
        int b = bucketOf(d);
        int pos = find(b);
        if (pos < 0) {
            pos = create(b);
        }
        counts[pos * 3 + type]++;
    }

    /** Number of C "additional memory" warnings due so far (one per extra allocation block). */
    public int allocationWarnings() {
        return allocationWarnings;
    }

    private int find(int b) {
        int m = tableKeys.length - 1;
        int i = mix(b) & m;
        while (true) {
            int p = tablePos[i];
            if (p == 0) {
                return -1;
            }
            if (tableKeys[i] == b) {
                return p - 1;
            }
            i = (i + 1) & m;
        }
    }

    private static int mix(int b) {
        int h = b * 0x9E3779B9;
        return h ^ (h >>> 16);
    }

    private int create(int b) {
        if (bucketCount > 0 && bucketCount % ALLOCATION_BLOCK == 0) {
            allocationWarnings++;
        }
        if (bucketCount == bucketIndex.length) {
            bucketIndex = Arrays.copyOf(bucketIndex, bucketCount * 2);
            counts = Arrays.copyOf(counts, bucketCount * 6);
        }
        if ((bucketCount + 1) * 2 > tableKeys.length) {
            rehash();
        }
        int pos = bucketCount++;
        bucketIndex[pos] = b;
        counts[pos * 3] = 0;
        counts[pos * 3 + 1] = 0;
        counts[pos * 3 + 2] = 0;
        insert(b, pos);
        ascendingValid = false;
        return pos;
    }

    private void insert(int b, int pos) {
        int m = tableKeys.length - 1;
        int i = mix(b) & m;
        while (tablePos[i] != 0) {
            i = (i + 1) & m;
        }
        tableKeys[i] = b;
        tablePos[i] = pos + 1;
    }

    private void rehash() {
        tableKeys = new int[tableKeys.length * 2];
        tablePos = new int[tablePos.length * 2];
        for (int p = 0; p < bucketCount; p++) {
            insert(bucketIndex[p], p);
        }
    }

    /** Number of existing buckets. */
    public int bucketCount() {
        return bucketCount;
    }

    /** Bucket index of the bucket at creation position {@code pos}. */
    public int bucketIndexAt(int pos) {
        return bucketIndex[pos];
    }

    /** Counter {@code type} of the bucket at creation position {@code pos} (unsigned 32-bit in C). */
    public int countAt(int pos, int type) {
        return counts[pos * 3 + type];
    }

    /**
     * Fills {@code out} with creation positions in the C hash-table iteration order: slot
     * ascending (slot = byte sum of the 32-bit index), newest first within a slot.
     *
     * @return the number of positions written ({@link #bucketCount()})
     */
    public int hashOrder(int[] out) {
        long[] keys = scratch();
        for (int p = 0; p < bucketCount; p++) {
            int b = bucketIndex[p];
            int slot = ((b & 0xFF) + ((b >>> 8) & 0xFF) + ((b >>> 16) & 0xFF) + ((b >>> 24) & 0xFF)) % HASH_SLOTS;
            keys[p] = ((long) slot << 32) | (0x7FFF_FFFFL - p);
        }
        Arrays.sort(keys, 0, bucketCount);
        for (int k = 0; k < bucketCount; k++) {
            out[k] = (int) (0x7FFF_FFFFL - (keys[k] & 0xFFFF_FFFFL));
        }
        return bucketCount;
    }

    private long[] scratch() {
        if (sortScratch.length < bucketCount) {
            sortScratch = new long[bucketCount];
        }
        return sortScratch;
    }

    private void sortAscending() {
        if (ascendingValid) {
            return;
        }
        long[] keys = scratch();
        for (int p = 0; p < bucketCount; p++) {
            keys[p] = ((long) bucketIndex[p] << 32) | p;
        }
        Arrays.sort(keys, 0, bucketCount);
        if (ascending.length < bucketCount) {
            ascending = new int[bucketCount];
        }
        for (int k = 0; k < bucketCount; k++) {
            ascending[k] = (int) (keys[k] & 0xFFFF_FFFFL);
        }
        ascendingValid = true;
    }

    /**
     * P(alpha) of docs/STATISTICS.md: {@code b * bw} of the first bucket (ascending index) where the
     * cumulative count of {@code type} reaches {@code alpha * sent}.
     *
     * @return the delay in seconds, or NaN when undefined
     */
    public double percentile(int type, double alpha, long sent) {
        sortAscending();
        double threshold = alpha * (double) sent;
        long cumulative = 0;
        for (int k = 0; k < bucketCount; k++) {
            int p = ascending[k];
            cumulative += Integer.toUnsignedLong(counts[p * 3 + type]);
            if ((double) cumulative >= threshold) {
                return bucketIndex[p] * widthSeconds;
            }
        }
        return Double.NaN;
    }
}
