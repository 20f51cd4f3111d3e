package io.github.twping.crypto;

import io.github.twping.protocol.Mode;
import java.lang.foreign.MemorySegment;

/**
 * Protection of TWAMP-Test packets for one session, chosen once at set-up by mode (RFC 5357 §4.1.2).
 *
 * <p>All operations work in place on a packet at offset 0 of the given segment, in the layouts of
 * {@code SenderPacket}/{@code AuthSenderPacket} and {@code ReflectorPacket}/{@code AuthReflectorPacket}.
 * They allocate nothing per packet and keep per-instance buffers, so one instance belongs to one thread.
 * An {@code open} that fails (short packet, bad HMAC) returns false and never throws; the packet bytes are
 * then unspecified.
 *
 * <p>Sending is split in two steps so the send timestamp can be taken as late as possible:
 * {@link #prepareSender} writes the sequence number (and in modes A/E encrypts block 0 and, in A, writes the
 * HMAC); {@link #finishSender} writes the timestamp and error estimate and completes the protection.
 */
public interface TestPacketCipher {
    /** Mode bit of Open (unauthenticated control and test). */
    int MODE_OPEN = 1;
    /** Mode bit of Authenticated. */
    int MODE_AUTHENTICATED = 2;
    /** Mode bit of Encrypted. */
    int MODE_ENCRYPTED = 4;
    /** Mode bit of Mixed (encrypted control, open test). */
    int MODE_MIXED = 8;

    /**
     * Returns the cipher for a negotiated mode.
     *
     * @param modeBits one of 1 (Open), 2 (Authenticated), 4 (Encrypted), 8 (Mixed)
     * @param keys     the test keys; required for 2 and 4, ignored (may be null) for 1 and 8
     * @throws IllegalArgumentException for any other mode value or missing keys (a set-up error)
     */
    static TestPacketCipher forMode(int modeBits, TestSessionKeys keys) {
        return switch (modeBits) {
            case MODE_OPEN, MODE_MIXED -> UnauthenticatedTestPacketCipher.INSTANCE;
            case MODE_AUTHENTICATED -> new AuthenticatedTestPacketCipher(requireKeys(keys));
            case MODE_ENCRYPTED -> new EncryptedTestPacketCipher(requireKeys(keys));
            default -> throw new IllegalArgumentException("no TWAMP-Test cipher for mode " + modeBits);
        };
    }

    /** Returns the cipher for a negotiated {@link Mode}; same rules as {@link #forMode(int, TestSessionKeys)}. */
    static TestPacketCipher forMode(Mode mode, TestSessionKeys keys) {
        return forMode(mode.bits(), keys);
    }

    private static TestSessionKeys requireKeys(TestSessionKeys keys) {
        if (keys == null) {
            throw new IllegalArgumentException("authenticated and encrypted modes need test session keys");
        }
        return keys;
    }

    /** Returns the minimum Session-Sender packet length: 14 or 48. */
    int senderLength();

    /** Returns the minimum Session-Reflector packet length: 41 or 112. */
    int reflectorLength();

    /** Sender, step 1: writes the sequence number and MBZ, and protects what does not depend on the time. */
    void prepareSender(MemorySegment packet, long sequenceNumber);

    /** Sender, step 2: writes timestamp and error estimate and completes the protection (after step 1). */
    void finishSender(MemorySegment packet, long timestampNtp, int errorEstimate);

    /** Seals a sender packet in one call: {@link #prepareSender} then {@link #finishSender}. */
    default void sealSender(MemorySegment packet, long sequenceNumber, long timestampNtp, int errorEstimate) {
        prepareSender(packet, sequenceNumber);
        finishSender(packet, timestampNtp, errorEstimate);
    }

    /**
     * Reflector side: decrypts a received sender packet in place and verifies its HMAC.
     *
     * @param length the received datagram length
     * @return true when the packet is long enough and authentic; its fields are then plaintext
     */
    boolean openSender(MemorySegment packet, int length);

    /** Reflector side: protects a reflector packet whose plaintext fields (bytes 0..95 or 0..40) are written. */
    void sealReflector(MemorySegment packet);

    /**
     * Client side: decrypts a received reflector packet in place and verifies its HMAC.
     *
     * @param length the received datagram length
     * @return true when the packet is long enough and authentic; its fields are then plaintext
     */
    boolean openReflector(MemorySegment packet, int length);
}
