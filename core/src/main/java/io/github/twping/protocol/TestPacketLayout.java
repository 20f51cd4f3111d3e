package io.github.twping.protocol;

import java.util.Arrays;

/**
 * The one description of a TWAMP-Test packet layout: where each field sits, how long the packet is at least,
 * which bytes must be zero, and which byte ranges each {@link Mode} encrypts and covers with the HMAC.
 *
 * <p>Every piece of code that touches test packets takes its offsets from here: the flyweights
 * ({@link SenderPacket}, {@link ReflectorPacket}), the reflector's reply builder, the client's reply parsing and
 * the test-packet ciphers (which only protect the ranges of {@link #protection(Mode)}). A new wire format
 * (STAMP, RFC 8762 §4.2/§4.3, in {@link StampLayouts}; TWAMP-Light, RFC 5357 Appendix I, is the unauthenticated
 * and authenticated layouts below) is one more constant built with {@link #builder(String, Role)}; a field a layout
 * lacks has offset {@link #ABSENT}. The TLVs that follow a STAMP base packet are described by
 * {@link StampTlvLayout} and read by {@link StampTlvFlyweight}.
 *
 * <p>MBZ ranges are not listed: they are derived as every byte before {@link #length()} that no field and no
 * HMAC occupies, so a layout cannot forget one. Instances are immutable constants (no per-packet objects).
 */
public final class TestPacketLayout {
    /** Offset of a field the layout does not have. */
    public static final int ABSENT = -1;
    /** Bytes of a sequence number. */
    public static final int SEQUENCE_LENGTH = 4;
    /** Bytes of a timestamp (NTP 32.32). */
    public static final int TIMESTAMP_LENGTH = 8;
    /** Bytes of an error estimate (RFC 4656 §4.1.2). */
    public static final int ERROR_ESTIMATE_LENGTH = 2;
    /** Bytes of the Sender TTL. */
    public static final int TTL_LENGTH = 1;
    /** Bytes of the STAMP Session-Sender Identifier (RFC 8972 §3). */
    public static final int SSID_LENGTH = 2;
    /** Bytes of the (truncated) HMAC field. */
    public static final int HMAC_LENGTH = 16;
    /** The AES block size; encrypted ranges are whole blocks. */
    public static final int BLOCK = 16;

    /** Which side of the session sends packets in this layout. */
    public enum Role {
        /** Session-Sender packets (client to reflector). */
        SENDER,
        /** Session-Reflector packets (reflector to client). */
        REFLECTOR
    }

    /**
     * Unauthenticated Session-Sender packet, modes Open and Mixed (RFC 5357 §4.1.2):
     * {@code 0 seq(4) | 4 timestamp(8) | 12 error estimate(2) | 14 padding}.
     */
    public static final TestPacketLayout UNAUTHENTICATED_SENDER = builder("unauthenticated sender", Role.SENDER)
            .sequence(0).timestamp(4).errorEstimate(12).length(14).build();

    /**
     * Authenticated/encrypted Session-Sender packet, modes Authenticated and Encrypted (RFC 5357 §4.1.2):
     * {@code 0 seq(4) | 4 MBZ(12) | 16 timestamp(8) | 24 error estimate(2) | 26 MBZ(6) | 32 HMAC(16) | 48 padding}.
     * Authenticated encrypts and HMACs block 0; Encrypted encrypts and HMACs bytes 0..31.
     */
    public static final TestPacketLayout AUTHENTICATED_SENDER = builder("authenticated sender", Role.SENDER)
            .sequence(0).timestamp(16).errorEstimate(24).hmac(32).length(48)
            .protect(Mode.AUTHENTICATED, 0, BLOCK, 0, BLOCK)
            .protect(Mode.ENCRYPTED, 0, 32, 0, 32)
            .build();

    /**
     * Unauthenticated Session-Reflector packet, modes Open and Mixed (RFC 5357 §4.2.1):
     * {@code 0 seq(4) | 4 timestamp(8) | 12 error estimate(2) | 14 MBZ(2) | 16 receive timestamp(8) |
     * 24 sender seq(4) | 28 sender timestamp(8) | 36 sender error estimate(2) | 38 MBZ(2) | 40 sender TTL(1) |
     * 41 padding}.
     */
    public static final TestPacketLayout UNAUTHENTICATED_REFLECTOR =
            builder("unauthenticated reflector", Role.REFLECTOR)
            .sequence(0).timestamp(4).errorEstimate(12).receiveTimestamp(16).senderSequence(24).senderTimestamp(28)
            .senderErrorEstimate(36).senderTtl(40).length(41).build();

    /**
     * Authenticated/encrypted Session-Reflector packet, modes Authenticated and Encrypted (RFC 5357 §4.2.1):
     * {@code 0 seq(4) | 4 MBZ(12) | 16 timestamp(8) | 24 error estimate(2) | 26 MBZ(6) | 32 receive timestamp(8) |
     * 40 MBZ(8) | 48 sender seq(4) | 52 MBZ(12) | 64 sender timestamp(8) | 72 sender error estimate(2) | 74 MBZ(6) |
     * 80 sender TTL(1) | 81 MBZ(15) | 96 HMAC(16) | 112 padding}.
     * Authenticated encrypts and HMACs block 0; Encrypted encrypts and HMACs bytes 0..95.
     */
    public static final TestPacketLayout AUTHENTICATED_REFLECTOR = builder("authenticated reflector", Role.REFLECTOR)
            .sequence(0).timestamp(16).errorEstimate(24).receiveTimestamp(32).senderSequence(48).senderTimestamp(64)
            .senderErrorEstimate(72).senderTtl(80).hmac(96).length(112)
            .protect(Mode.AUTHENTICATED, 0, BLOCK, 0, BLOCK)
            .protect(Mode.ENCRYPTED, 0, 96, 0, 96)
            .build();

    /**
     * The byte ranges one mode protects in one layout: {@code [encryptedFrom, encryptedTo)} is AES-CBC
     * encrypted with a zero IV (a single block is plain ECB); the HMAC covers the plaintext of
     * {@code [hmacFrom, hmacTo)} and is stored at the layout's {@link #hmacOffset()}.
     */
    public record Protection(int encryptedFrom, int encryptedTo, int hmacFrom, int hmacTo) {
        /** Nothing encrypted, no HMAC. */
        public static final Protection NONE = new Protection(0, 0, 0, 0);

        /** @return true when this mode keeps an HMAC (and so needs keys). */
        public boolean authenticates() {
            return hmacTo > hmacFrom;
        }

        /** @return the largest range length, for sizing buffers. */
        public int longestRange() {
            return Math.max(encryptedTo - encryptedFrom, hmacTo - hmacFrom);
        }
    }

    private final String name;
    private final Role role;
    private final int length;
    private final int sequenceOffset;
    private final int timestampOffset;
    private final int errorEstimateOffset;
    private final int receiveTimestampOffset;
    private final int senderSequenceOffset;
    private final int senderTimestampOffset;
    private final int senderErrorEstimateOffset;
    private final int senderTtlOffset;
    private final int hmacOffset;
    private final int ssidOffset;
    private final int[] mbzOffsets;
    private final int[] mbzLengths;
    private final Protection[] protections;

    private TestPacketLayout(Builder b) {
        this.name = b.name;
        this.role = b.role;
        this.length = b.length;
        this.sequenceOffset = b.sequence;
        this.timestampOffset = b.timestamp;
        this.errorEstimateOffset = b.errorEstimate;
        this.receiveTimestampOffset = b.receiveTimestamp;
        this.senderSequenceOffset = b.senderSequence;
        this.senderTimestampOffset = b.senderTimestamp;
        this.senderErrorEstimateOffset = b.senderErrorEstimate;
        this.senderTtlOffset = b.senderTtl;
        this.hmacOffset = b.hmac;
        this.ssidOffset = b.ssid;
        this.protections = b.protections.clone();
        boolean[] used = new boolean[length];
        claim(used, sequenceOffset, SEQUENCE_LENGTH, "sequence number");
        claim(used, timestampOffset, TIMESTAMP_LENGTH, "timestamp");
        claim(used, errorEstimateOffset, ERROR_ESTIMATE_LENGTH, "error estimate");
        claim(used, receiveTimestampOffset, TIMESTAMP_LENGTH, "receive timestamp");
        claim(used, senderSequenceOffset, SEQUENCE_LENGTH, "sender sequence number");
        claim(used, senderTimestampOffset, TIMESTAMP_LENGTH, "sender timestamp");
        claim(used, senderErrorEstimateOffset, ERROR_ESTIMATE_LENGTH, "sender error estimate");
        claim(used, senderTtlOffset, TTL_LENGTH, "sender TTL");
        claim(used, hmacOffset, HMAC_LENGTH, "HMAC");
        claim(used, ssidOffset, SSID_LENGTH, "SSID");
        int[] offsets = new int[length];
        int[] lengths = new int[length];
        int ranges = 0;
        for (int i = 0; i < length; i++) {
            if (!used[i]) {
                if (ranges > 0 && offsets[ranges - 1] + lengths[ranges - 1] == i) {
                    lengths[ranges - 1]++;
                } else {
                    offsets[ranges] = i;
                    lengths[ranges++] = 1;
                }
            }
        }
        this.mbzOffsets = Arrays.copyOf(offsets, ranges);
        this.mbzLengths = Arrays.copyOf(lengths, ranges);
        for (Protection p : protections) {
            checkProtection(p);
        }
    }

    private void claim(boolean[] used, int offset, int fieldLength, String field) {
        if (offset == ABSENT) {
            return;
        }
        if (offset < 0 || offset + fieldLength > length) {
            throw new IllegalArgumentException(name + ": " + field + " outside the packet");
        }
        for (int i = offset; i < offset + fieldLength; i++) {
            if (used[i]) {
                throw new IllegalArgumentException(name + ": " + field + " overlaps another field at byte " + i);
            }
            used[i] = true;
        }
    }

    private void checkProtection(Protection p) {
        if (p == Protection.NONE) {
            return;
        }
        if (p.encryptedFrom() % BLOCK != 0 || p.encryptedTo() % BLOCK != 0 || p.encryptedFrom() > p.encryptedTo()) {
            throw new IllegalArgumentException(name + ": encrypted range must be whole AES blocks");
        }
        int end = hmacOffset == ABSENT ? length : hmacOffset;
        if (p.encryptedTo() > end || p.hmacTo() > end || p.hmacFrom() > p.hmacTo() || p.hmacFrom() < 0) {
            throw new IllegalArgumentException(name + ": protected range must end before the HMAC");
        }
        if (p.authenticates() && hmacOffset == ABSENT) {
            throw new IllegalArgumentException(name + ": an HMAC range needs an HMAC field");
        }
    }

    /** Starts a layout description; fields not set are {@link #ABSENT}. */
    public static Builder builder(String name, Role role) {
        return new Builder(name, role);
    }

    /** @return the Session-Sender layout of {@code mode}: authenticated in A and E, unauthenticated in O and M. */
    public static TestPacketLayout senderFor(Mode mode) {
        return mode.authenticatedTestPackets() ? AUTHENTICATED_SENDER : UNAUTHENTICATED_SENDER;
    }

    /** @return the Session-Reflector layout of {@code mode}: authenticated in A and E, unauthenticated in O and M. */
    public static TestPacketLayout reflectorFor(Mode mode) {
        return mode.authenticatedTestPackets() ? AUTHENTICATED_REFLECTOR : UNAUTHENTICATED_REFLECTOR;
    }

    /** @return a short name for messages and docs. */
    public String name() {
        return name;
    }

    public Role role() {
        return role;
    }

    /** @return true when the layout carries an HMAC field (keyed modes). */
    public boolean authenticated() {
        return hmacOffset != ABSENT;
    }

    /** @return the minimum packet length, which is also where the padding starts. */
    public int length() {
        return length;
    }

    /** @return where the padding starts (= {@link #length()}). */
    public int paddingOffset() {
        return length;
    }

    /** @return the length of a sender packet with {@code paddingLength} bytes of padding. */
    public int packetLength(int paddingLength) {
        return length + paddingLength;
    }

    /** @return the reply length twampd uses for a request of {@code requestLength}: the larger (RFC 5357 §4.2.1). */
    public int replyLength(int requestLength) {
        return Math.max(requestLength, length);
    }

    /** @return true when a datagram of {@code datagramLength} in a buffer of {@code bufferLength} holds this layout. */
    public boolean fits(long bufferLength, int datagramLength) {
        return datagramLength >= length && bufferLength >= length;
    }

    public int sequenceOffset() {
        return sequenceOffset;
    }

    public int timestampOffset() {
        return timestampOffset;
    }

    public int errorEstimateOffset() {
        return errorEstimateOffset;
    }

    /** @return the reflector's receive timestamp, or {@link #ABSENT} in a sender layout. */
    public int receiveTimestampOffset() {
        return receiveTimestampOffset;
    }

    /** @return the copied sender sequence number, or {@link #ABSENT} in a sender layout. */
    public int senderSequenceOffset() {
        return senderSequenceOffset;
    }

    /** @return the copied sender timestamp, or {@link #ABSENT} in a sender layout. */
    public int senderTimestampOffset() {
        return senderTimestampOffset;
    }

    /** @return the copied sender error estimate, or {@link #ABSENT} in a sender layout. */
    public int senderErrorEstimateOffset() {
        return senderErrorEstimateOffset;
    }

    /** @return the TTL of the sender packet as the reflector received it, or {@link #ABSENT} in a sender layout. */
    public int senderTtlOffset() {
        return senderTtlOffset;
    }

    /** @return the HMAC field ({@link #HMAC_LENGTH} bytes), or {@link #ABSENT} when the layout has none. */
    public int hmacOffset() {
        return hmacOffset;
    }

    /** @return the STAMP Session-Sender Identifier (RFC 8972 §3), or {@link #ABSENT} (TWAMP layouts). */
    public int ssidOffset() {
        return ssidOffset;
    }

    /** @return how many MBZ ranges the layout has. */
    public int mbzRanges() {
        return mbzOffsets.length;
    }

    /** @return the offset of MBZ range {@code index}. */
    public int mbzOffset(int index) {
        return mbzOffsets[index];
    }

    /** @return the length of MBZ range {@code index}. */
    public int mbzLength(int index) {
        return mbzLengths[index];
    }

    /** @return the ranges {@code mode} encrypts and authenticates in this layout ({@link Protection#NONE} if none). */
    public Protection protection(Mode mode) {
        return protections[mode.ordinal()];
    }

    @Override
    public String toString() {
        return name + " (" + length + " bytes)";
    }

    /** Describes a layout field by field; {@link #build()} derives the MBZ ranges and checks for overlaps. */
    public static final class Builder {
        private final String name;
        private final Role role;
        private int length = ABSENT;
        private int sequence = ABSENT;
        private int timestamp = ABSENT;
        private int errorEstimate = ABSENT;
        private int receiveTimestamp = ABSENT;
        private int senderSequence = ABSENT;
        private int senderTimestamp = ABSENT;
        private int senderErrorEstimate = ABSENT;
        private int senderTtl = ABSENT;
        private int hmac = ABSENT;
        private int ssid = ABSENT;
        private final Protection[] protections = new Protection[Mode.values().length];

        private Builder(String name, Role role) {
            this.name = name;
            this.role = role;
            Arrays.fill(protections, Protection.NONE);
        }

        public Builder length(int value) {
            length = value;
            return this;
        }

        public Builder sequence(int offset) {
            sequence = offset;
            return this;
        }

        public Builder timestamp(int offset) {
            timestamp = offset;
            return this;
        }

        public Builder errorEstimate(int offset) {
            errorEstimate = offset;
            return this;
        }

        public Builder receiveTimestamp(int offset) {
            receiveTimestamp = offset;
            return this;
        }

        public Builder senderSequence(int offset) {
            senderSequence = offset;
            return this;
        }

        public Builder senderTimestamp(int offset) {
            senderTimestamp = offset;
            return this;
        }

        public Builder senderErrorEstimate(int offset) {
            senderErrorEstimate = offset;
            return this;
        }

        public Builder senderTtl(int offset) {
            senderTtl = offset;
            return this;
        }

        public Builder hmac(int offset) {
            hmac = offset;
            return this;
        }

        /** The STAMP Session-Sender Identifier (RFC 8972 §3), in both roles. */
        public Builder ssid(int offset) {
            ssid = offset;
            return this;
        }

        /** What {@code mode} encrypts ({@code [encryptedFrom, encryptedTo)}) and HMACs ({@code [hmacFrom, hmacTo)}). */
        public Builder protect(Mode mode, int encryptedFrom, int encryptedTo, int hmacFrom, int hmacTo) {
            protections[mode.ordinal()] = new Protection(encryptedFrom, encryptedTo, hmacFrom, hmacTo);
            return this;
        }

        /** @throws IllegalArgumentException when fields overlap or lie outside the packet */
        public TestPacketLayout build() {
            if (length <= 0) {
                throw new IllegalArgumentException(name + ": length must be set");
            }
            if (sequence == ABSENT || timestamp == ABSENT || errorEstimate == ABSENT) {
                throw new IllegalArgumentException(name + ": sequence, timestamp and error estimate are required");
            }
            if (role == Role.REFLECTOR && (receiveTimestamp == ABSENT || senderSequence == ABSENT
                    || senderTimestamp == ABSENT || senderErrorEstimate == ABSENT || senderTtl == ABSENT)) {
                throw new IllegalArgumentException(name + ": a reflector layout needs the reflected sender fields");
            }
            return new TestPacketLayout(this);
        }
    }
}
