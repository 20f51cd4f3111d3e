package io.github.twping.crypto;

import io.github.twping.protocol.Mode;
import io.github.twping.protocol.TestPacketLayout;
import java.lang.foreign.MemorySegment;

/**
 * Protection of TWAMP-Test packets for one session, chosen once at set-up by {@link Mode} (RFC 5357 §4.1.2).
 *
 * <p>A cipher writes no field: the flyweights ({@code SenderPacket}, {@code ReflectorPacket}) write the
 * plaintext, the cipher only encrypts/decrypts and HMACs the byte ranges that
 * {@link TestPacketLayout#protection(Mode)} names for its mode, in place on a packet at offset 0 of the given
 * segment. It allocates nothing per packet and keeps per-instance buffers, so one instance belongs to one thread.
 * An {@code open} that fails (short packet, bad HMAC) returns false and never throws; the packet bytes are then
 * unspecified.
 *
 * <p>Sending is split in two steps so the send timestamp can be taken as late as possible: after the
 * sequence number and MBZ are written, {@link #sealSenderHead} protects the blocks before the timestamp's block
 * (modes A/E: encrypts block 0; A also writes the HMAC); after the timestamp and error estimate are written,
 * {@link #sealSenderTail} completes the protection (E: block 1 and the HMAC).
 */
public interface TestPacketCipher {

    /**
     * Returns the cipher for a negotiated mode.
     *
     * @param keys the test keys; required for {@link Mode#AUTHENTICATED} and {@link Mode#ENCRYPTED}, ignored
     *             (may be null) for Open and Mixed
     * @throws IllegalArgumentException when a keyed mode has no keys (a set-up error)
     */
    static TestPacketCipher forMode(Mode mode, TestSessionKeys keys) {
        if (!mode.authenticatedTestPackets()) {
            return UnauthenticatedTestPacketCipher.INSTANCE;
        }
        if (keys == null) {
            throw new IllegalArgumentException("authenticated and encrypted modes need test session keys");
        }
        return new KeyedTestPacketCipher(keys, TestPacketLayout.senderFor(mode), TestPacketLayout.reflectorFor(mode),
                mode);
    }

    /** Returns the Session-Sender layout this cipher protects. */
    TestPacketLayout senderLayout();

    /** Returns the Session-Reflector layout this cipher protects. */
    TestPacketLayout reflectorLayout();

    /** Sender, step 1 (sequence number and MBZ written): protects what does not depend on the time. */
    void sealSenderHead(MemorySegment packet);

    /** Sender, step 2 (timestamp and error estimate written, after step 1): completes the protection. */
    void sealSenderTail(MemorySegment packet);

    /**
     * Reflector side: decrypts a received sender packet in place and verifies its HMAC.
     *
     * @param length the received datagram length
     * @return true when the packet is long enough and authentic; its fields are then plaintext
     */
    boolean openSender(MemorySegment packet, int length);

    /** Reflector side: protects a reflector packet whose plaintext fields are written. */
    void sealReflector(MemorySegment packet);

    /**
     * Client side: decrypts a received reflector packet in place and verifies its HMAC.
     *
     * @param length the received datagram length
     * @return true when the packet is long enough and authentic; its fields are then plaintext
     */
    boolean openReflector(MemorySegment packet, int length);

    /** {@link #lastRejection}: the reply failed its HMAC (or was too short for the cipher). */
    int REJECTED_HMAC = 1;
    /** {@link #lastRejection}: an authentic reply of another session (STAMP: a Micro-session ID not ours). */
    int REJECTED_FOREIGN = 2;

    /** @return why the last {@link #openReflector} returned false: {@link #REJECTED_HMAC} unless said otherwise */
    default int lastRejection() {
        return REJECTED_HMAC;
    }

    /**
     * @return replies accepted although their TLV area did not parse (STAMP: a TLV running past the datagram, or
     *         stray octets after the last TLV); 0 where the format has no TLVs
     */
    default long malformedReplies() {
        return 0;
    }

    /** @return accepted replies whose reflector timestamps were in the PTP format (STAMP: Z set); 0 otherwise */
    default long ptpReplies() {
        return 0;
    }
}
