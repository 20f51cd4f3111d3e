package io.github.twping.stamp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import io.github.twping.protocol.StampLayouts;
import io.github.twping.protocol.TestPacketLayout;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.macs.HMac;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * HMAC-SHA-256 truncated to 16 octets (RFC 8762 §4.4, RFC 8972 §4.8) over a byte range of a packet. Keyed once;
 * preallocated buffers, so computing and verifying allocate nothing. One instance per thread.
 */
public final class StampHmac {
    /** Length of the (truncated) HMAC field. */
    public static final int LENGTH = TestPacketLayout.HMAC_LENGTH;
    private static final int SEQUENCE_LENGTH = TestPacketLayout.SEQUENCE_LENGTH;

    private final HMac mac = new HMac(new SHA256Digest());
    private final byte[] input;
    private final byte[] digest = new byte[32];

    /**
     * @param key      the shared key (any length; RFC 2104 hashes keys longer than the block)
     * @param maxRange the longest range this instance will cover
     */
    public StampHmac(byte[] key, int maxRange) {
        if (key == null || key.length == 0) {
            throw new IllegalArgumentException("an authenticated STAMP session needs a non-empty key");
        }
        mac.init(new KeyParameter(key.clone()));
        input = new byte[maxRange];
    }

    /** Writes the HMAC of {@code packet[from, to)} at {@code packet[at, at + 16)}. */
    public void sign(MemorySegment packet, int from, int to, int at) {
        compute(packet, from, to);
        MemorySegment.copy(digest, 0, packet, ValueLayout.JAVA_BYTE, at, LENGTH);
    }

    /** @return true when {@code packet[at, at + 16)} is the HMAC of {@code packet[from, to)} (constant-time compare). */
    public boolean verify(MemorySegment packet, int from, int to, int at) {
        compute(packet, from, to);
        int diff = 0;
        for (int i = 0; i < LENGTH; i++) {
            diff |= digest[i] ^ packet.get(ValueLayout.JAVA_BYTE, at + i);
        }
        return diff == 0;
    }

    /**
     * HMAC TLV (RFC 8972 §4.8): writes at {@code at} the HMAC of the Sequence Number (octets 0..3) followed by
     * {@code packet[tlvFrom, tlvTo)}, the TLVs that precede the HMAC TLV.
     */
    public void signTlvs(MemorySegment packet, int tlvFrom, int tlvTo, int at) {
        computeTlvs(packet, tlvFrom, tlvTo);
        MemorySegment.copy(digest, 0, packet, ValueLayout.JAVA_BYTE, at, LENGTH);
    }

    /** @return true when the HMAC TLV value at {@code at} matches {@link #signTlvs}'s HMAC (constant-time compare). */
    public boolean verifyTlvs(MemorySegment packet, int tlvFrom, int tlvTo, int at) {
        computeTlvs(packet, tlvFrom, tlvTo);
        int diff = 0;
        for (int i = 0; i < LENGTH; i++) {
            diff |= digest[i] ^ packet.get(ValueLayout.JAVA_BYTE, at + i);
        }
        return diff == 0;
    }

    private void computeTlvs(MemorySegment packet, int tlvFrom, int tlvTo) {
        int length = tlvTo - tlvFrom;
        MemorySegment.copy(packet, ValueLayout.JAVA_BYTE, StampLayouts.SEQUENCE, input, 0, SEQUENCE_LENGTH);
        MemorySegment.copy(packet, ValueLayout.JAVA_BYTE, tlvFrom, input, SEQUENCE_LENGTH, length);
        mac.update(input, 0, SEQUENCE_LENGTH + length);
        mac.doFinal(digest, 0);
    }

    private void compute(MemorySegment packet, int from, int to) {
        int length = to - from;
        MemorySegment.copy(packet, ValueLayout.JAVA_BYTE, from, input, 0, length);
        mac.update(input, 0, length);
        mac.doFinal(digest, 0);
    }
}
