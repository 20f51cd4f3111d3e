package io.github.twping.protocol;

import static io.github.twping.protocol.Wire.LONG_BE;

import java.lang.foreign.MemorySegment;

/**
 * What the Session-Sender and Session-Reflector flyweights share: the wrapped bytes, the {@link TestPacketLayout}
 * the offsets come from, and the three fields every TWAMP-Test packet starts with (sequence number, timestamp,
 * error estimate). No I/O, no crypto, no allocation: accessors see plaintext only before sealing or after a
 * successful open by the test-packet cipher. Sequence numbers are unsigned 32-bit values in a {@code long},
 * error estimates the 16-bit field in an {@code int}.
 *
 * @param <T> the concrete flyweight, returned by the fluent setters
 */
public abstract sealed class TestPacketFlyweight<T extends TestPacketFlyweight<T>>
        permits SenderPacket, ReflectorPacket {
    /** Where the fields are. */
    protected final TestPacketLayout layout;
    /** The wrapped bytes. */
    protected MemorySegment segment;
    /** Offset of the packet in {@link #segment}. */
    protected long base;

    TestPacketFlyweight(TestPacketLayout layout, TestPacketLayout.Role role) {
        if (layout.role() != role) {
            throw new IllegalArgumentException(layout + " is not a " + role + " layout");
        }
        this.layout = layout;
    }

    @SuppressWarnings("unchecked")
    private T self() {
        return (T) this;
    }

    /** @return the layout this flyweight reads and writes. */
    public TestPacketLayout layout() {
        return layout;
    }

    /** Wraps a packet starting at offset 0 of {@code segment}. */
    public T wrap(MemorySegment segment) {
        return wrap(segment, 0);
    }

    /** Wraps a packet starting at {@code offset} of {@code segment}. */
    public T wrap(MemorySegment segment, long offset) {
        this.segment = segment;
        this.base = offset;
        return self();
    }

    /** Returns the wrapped segment. */
    public MemorySegment segment() {
        return segment;
    }

    public long sequenceNumber() {
        return Wire.uint32(segment, base + layout.sequenceOffset());
    }

    public T sequenceNumber(long sequenceNumber) {
        Wire.uint32(segment, base + layout.sequenceOffset(), sequenceNumber);
        return self();
    }

    public long timestampNtp() {
        return segment.get(LONG_BE, base + layout.timestampOffset());
    }

    public T timestampNtp(long timestampNtp) {
        segment.set(LONG_BE, base + layout.timestampOffset(), timestampNtp);
        return self();
    }

    /** Returns the 16-bit Error Estimate field (see {@code ErrorEstimate}). */
    public int errorEstimate() {
        return Wire.uint16(segment, base + layout.errorEstimateOffset());
    }

    public T errorEstimate(int errorEstimate) {
        Wire.uint16(segment, base + layout.errorEstimateOffset(), errorEstimate);
        return self();
    }

    /** Returns the STAMP Session-Sender Identifier (RFC 8972 §3); the layout must have one. */
    public int ssid() {
        return Wire.uint16(segment, base + layout.ssidOffset());
    }

    /** Writes the STAMP Session-Sender Identifier; the layout must have one. */
    public T ssid(int ssid) {
        Wire.uint16(segment, base + layout.ssidOffset(), ssid);
        return self();
    }

    /** Zeroes every MBZ range of the layout. */
    public T clearMbz() {
        for (int i = 0; i < layout.mbzRanges(); i++) {
            Wire.zero(segment, base + layout.mbzOffset(i), layout.mbzLength(i));
        }
        return self();
    }
}
