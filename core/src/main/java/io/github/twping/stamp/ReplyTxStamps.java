package io.github.twping.stamp;

import java.io.IOException;
import java.util.Arrays;

import io.github.twping.ffm.TxTimestampHandler;
import io.github.twping.ffm.UdpSocket;

/**
 * The kernel TX stamps of the STAMP reflector's replies (RFC 8972 §4.7, Follow-Up Telemetry): only the replies of
 * sessions that sent a Follow-Up Telemetry TLV are stamped ({@link UdpSocket#sendStamped}); each stamped reply's
 * TX-stamp id ({@link UdpSocket#txStampId}) is remembered in a ring with its session and sequence number; the socket's
 * error queue is drained every {@link #DRAIN_EVERY} stamped replies, and on demand before a Follow-Up Telemetry TLV whose session's last reply has no
 * stamp read yet, and each stamp is stored in the session's {@link PeerTable} entry. Reflector thread only.
 */
final class ReplyTxStamps implements TxTimestampHandler {
    private static final int RING = 1024;
    /**
     * Replies sent between two error-queue drains at most: the queue stays short and no ring slot is reused before
     * its stamp was read.
     */
    static final int DRAIN_EVERY = 32;

    private final UdpSocket socket;
    private final PeerTable peers;
    private final boolean enabled;
    /** The socket stamps every send (not only {@link UdpSocket#sendStamped}): every reply queues a stamp. */
    private final boolean everySend;
    private final long[] ringId = new long[RING];
    private final int[] ringPeer = new int[RING];
    private final long[] ringSeq = new long[RING];
    private int sentSinceDrain;
    private long drains;
    private long matched;

    ReplyTxStamps(UdpSocket socket, PeerTable peers) {
        this.socket = socket;
        this.peers = peers;
        this.enabled = socket.capabilities().txTimestamps();
        this.everySend = enabled && !socket.txTimestampsPerSend();
        Arrays.fill(ringId, -1);
    }

    /** @return true when the socket delivers kernel TX stamps */
    boolean enabled() {
        return enabled;
    }

    /**
     * A reply left: stamped with TX-stamp id {@code packetId} and sequence number {@code seq} for session
     * {@code peer}, or not stamped ({@code peer} -1). Counts toward the next drain only the replies that queue a
     * stamp: the stamped ones, or every one on a socket that stamps every send.
     */
    void sent(long packetId, int peer, long seq) throws IOException {
        if (peer >= 0) {
            int slot = (int) (packetId & (RING - 1));
            ringId[slot] = packetId;
            ringPeer[slot] = peer;
            ringSeq[slot] = seq;
        }
        if (enabled && (peer >= 0 || everySend) && ++sentSinceDrain >= DRAIN_EVERY) {
            drain();
        }
    }

    /** Drains now when the last reply to {@code peer} has no stamp read yet (before its Follow-Up Telemetry). */
    void drainFor(int peer) throws IOException {
        if (enabled && peers.lastSentId[peer] >= 0 && peers.lastStampedId[peer] != peers.lastSentId[peer]) {
            drain();
        }
    }

    /** Reads the socket's error queue, up to 32 entries per system call. */
    private void drain() throws IOException {
        socket.pollTxTimestampsBatched(this);
        sentSinceDrain = 0;
        drains++;
    }

    @Override
    public void onTxTimestamp(long packetId, long epochNs, boolean hardware) {
        int slot = (int) (packetId & (RING - 1));
        if (ringId[slot] != packetId) {
            return;
        }
        int peer = ringPeer[slot];
        peers.lastTxSeq[peer] = ringSeq[slot];
        peers.lastTxEpochNs[peer] = epochNs;
        peers.lastTxHardware[peer] = hardware;
        peers.lastStampedId[peer] = packetId;
        ringId[slot] = -1;
        matched++;
    }

    long drains() {
        return drains;
    }

    long matched() {
        return matched;
    }
}
