package io.github.twping.stats.owamp;

/**
 * One of the two ordered packet-node lists of docs/STATISTICS.md (FWD keyed by sent seq, BCK by reflected
 * seq). Nodes always hold consecutive sequence numbers, so the list is a growable ring of
 * primitive arrays indexed by {@code seq - headSeq}; nothing is allocated per record.
 */
final class PacketList {
    private long[] schedtime;
    private int[] seen;
    private boolean[] lost;
    private long[] assoc;
    private int mask;
    private int head;
    private int size;
    private long headSeq;

    PacketList(int initialCapacity) {
        int cap = Integer.highestOneBit(Math.max(16, initialCapacity - 1)) << 1;
        allocate(cap);
    }

    private void allocate(int cap) {
        schedtime = new long[cap];
        seen = new int[cap];
        lost = new boolean[cap];
        assoc = new long[cap];
        mask = cap - 1;
    }

    /** Empties the list and starts it with one node. */
    void reset(long seq, long nodeSchedtime) {
        head = 0;
        size = 0;
        headSeq = seq;
        append(nodeSchedtime);
    }

    boolean isEmpty() {
        return size == 0;
    }

    long firstSeq() {
        return headSeq;
    }

    /** Sequence number one past the last node. */
    long endSeq() {
        return headSeq + size;
    }

    /** Appends the node {@code endSeq()}. */
    void append(long nodeSchedtime) {
        if (size == mask + 1) {
            grow();
        }
        int i = (head + size) & mask;
        schedtime[i] = nodeSchedtime;
        seen[i] = 0;
        lost[i] = false;
        assoc[i] = 0;
        size++;
    }

    /** Ring index of the node for {@code seq}, which must lie in {@code [firstSeq, endSeq)}. */
    int index(long seq) {
        return (int) ((head + (seq - headSeq)) & mask);
    }

    int headIndex() {
        return head;
    }

    /** Removes the first node. */
    void removeFirst() {
        head = (head + 1) & mask;
        headSeq++;
        size--;
    }

    long schedtime(int i) {
        return schedtime[i];
    }

    int seen(int i) {
        return seen[i];
    }

    void seen(int i, int v) {
        seen[i] = v;
    }

    boolean lost(int i) {
        return lost[i];
    }

    void lost(int i, boolean v) {
        lost[i] = v;
    }

    long assoc(int i) {
        return assoc[i];
    }

    void assoc(int i, long v) {
        assoc[i] = v;
    }

    private void grow() {
        int oldCap = mask + 1;
        long[] s = schedtime;
        int[] n = seen;
        boolean[] l = lost;
        long[] a = assoc;
        allocate(oldCap * 2);
        for (int k = 0; k < size; k++) {
            int from = (head + k) & (oldCap - 1);
            schedtime[k] = s[from];
            seen[k] = n[from];
            lost[k] = l[from];
            assoc[k] = a[from];
        }
        head = 0;
    }
}
