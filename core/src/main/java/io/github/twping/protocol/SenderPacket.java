package io.github.twping.protocol;

/**
 * Flyweight for a TWAMP-Test Session-Sender packet (RFC 5357 §4.1.2) in one of the sender layouts:
 * {@link TestPacketLayout#UNAUTHENTICATED_SENDER} (modes Open and Mixed) or
 * {@link TestPacketLayout#AUTHENTICATED_SENDER} (Authenticated and Encrypted). The fields are those of
 * {@link TestPacketFlyweight}; the offsets come from the layout.
 */
public final class SenderPacket extends TestPacketFlyweight<SenderPacket> {

    /** A flyweight over {@code layout}, which must be a {@link TestPacketLayout.Role#SENDER} layout. */
    public SenderPacket(TestPacketLayout layout) {
        super(layout, TestPacketLayout.Role.SENDER);
    }

    /** A flyweight over the sender layout of {@code mode}. */
    public static SenderPacket forMode(Mode mode) {
        return new SenderPacket(TestPacketLayout.senderFor(mode));
    }
}
