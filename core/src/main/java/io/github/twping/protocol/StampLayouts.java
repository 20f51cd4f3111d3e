package io.github.twping.protocol;

/**
 * The STAMP test-packet layouts (RFC 8762 §4.2.1, §4.2.2, §4.3.1, §4.3.2, with the SSID of RFC 8972 §3) and the
 * TWAMP-Light layouts (RFC 5357 Appendix I, the TWAMP-Test packets of §4.1.2/§4.2.1 without a control session),
 * each one {@link TestPacketLayout} descriptor.
 *
 * <p>The STAMP sender and reflector base packets have the same length (44 unauthenticated, 112 authenticated), so a
 * reply to an equal-sized request keeps the TLVs that follow the base packet at the same offsets (RFC 8972 §4).
 * The SSID (RFC 8972 §3) is a field of every STAMP layout ({@link TestPacketLayout#ssidOffset()}). STAMP has no
 * encryption: the authenticated layouts carry an HMAC-SHA-256 truncated to 16 octets over bytes 0..95, described as
 * the {@link Mode#AUTHENTICATED} protection with an empty encrypted range.
 */
public final class StampLayouts {
    /** Base length of an unauthenticated STAMP packet, both roles (RFC 8762 §4.2.1, §4.3.1). */
    public static final int UNAUTHENTICATED_LENGTH = 44;
    /** Base length of an authenticated STAMP packet, both roles (RFC 8762 §4.2.2, §4.3.2). */
    public static final int AUTHENTICATED_LENGTH = 112;
    /** End of the HMAC-covered range in both authenticated STAMP layouts: the first 96 octets. */
    public static final int HMAC_COVERED = 96;
    /** SSID offset in an unauthenticated STAMP packet, both roles (RFC 8972 §3). */
    public static final int SSID_UNAUTHENTICATED = 14;
    /** SSID offset in an authenticated STAMP packet, both roles (RFC 8972 §3). */
    public static final int SSID_AUTHENTICATED = 26;
    /** Sequence Number offset, every STAMP layout (the HMAC TLV of RFC 8972 §4.8 covers it). */
    public static final int SEQUENCE = 0;
    /** The well-known STAMP port (RFC 8762 §4.1). */
    public static final int DEFAULT_PORT = 862;

    /**
     * Unauthenticated Session-Sender (RFC 8762 §4.2.1 Figure 1, RFC 8972 §3):
     * {@code 0 seq(4) | 4 timestamp(8) | 12 error estimate(2) | 14 SSID(2) | 16 MBZ(28) | 44 TLVs}.
     */
    public static final TestPacketLayout UNAUTHENTICATED_SENDER =
            TestPacketLayout.builder("STAMP unauthenticated sender", TestPacketLayout.Role.SENDER)
                    .sequence(SEQUENCE).timestamp(4).errorEstimate(12).ssid(SSID_UNAUTHENTICATED)
                    .length(UNAUTHENTICATED_LENGTH)
                    .build();

    /**
     * Authenticated Session-Sender (RFC 8762 §4.2.2 Figure 2, RFC 8972 §3):
     * {@code 0 seq(4) | 4 MBZ(12) | 16 timestamp(8) | 24 error estimate(2) | 26 SSID(2) | 28 MBZ(68) | 96 HMAC(16) |
     * 112 TLVs}; the HMAC covers bytes 0..95.
     */
    public static final TestPacketLayout AUTHENTICATED_SENDER =
            TestPacketLayout.builder("STAMP authenticated sender", TestPacketLayout.Role.SENDER)
                    .sequence(SEQUENCE).timestamp(16).errorEstimate(24).ssid(SSID_AUTHENTICATED).hmac(HMAC_COVERED)
                    .length(AUTHENTICATED_LENGTH).protect(Mode.AUTHENTICATED, 0, 0, 0, HMAC_COVERED).build();

    /**
     * Unauthenticated Session-Reflector (RFC 8762 §4.3.1 Figure 4, RFC 8972 §3):
     * {@code 0 seq(4) | 4 timestamp(8) | 12 error estimate(2) | 14 SSID(2) | 16 receive timestamp(8) |
     * 24 sender seq(4) | 28 sender timestamp(8) | 36 sender error estimate(2) | 38 MBZ(2) | 40 sender TTL(1) |
     * 41 MBZ(3) | 44 TLVs}.
     */
    public static final TestPacketLayout UNAUTHENTICATED_REFLECTOR =
            TestPacketLayout.builder("STAMP unauthenticated reflector", TestPacketLayout.Role.REFLECTOR)
                    .sequence(SEQUENCE).timestamp(4).errorEstimate(12).ssid(SSID_UNAUTHENTICATED).receiveTimestamp(16)
                    .senderSequence(24)
                    .senderTimestamp(28).senderErrorEstimate(36).senderTtl(40).length(UNAUTHENTICATED_LENGTH)
                    .build();

    /**
     * Authenticated Session-Reflector (RFC 8762 §4.3.2 Figure 5, RFC 8972 §3):
     * {@code 0 seq(4) | 4 MBZ(12) | 16 timestamp(8) | 24 error estimate(2) | 26 SSID(2) | 28 MBZ(4) |
     * 32 receive timestamp(8) | 40 MBZ(8) | 48 sender seq(4) | 52 MBZ(12) | 64 sender timestamp(8) |
     * 72 sender error estimate(2) | 74 MBZ(6) | 80 sender TTL(1) | 81 MBZ(15) | 96 HMAC(16) | 112 TLVs};
     * the HMAC covers bytes 0..95.
     */
    public static final TestPacketLayout AUTHENTICATED_REFLECTOR =
            TestPacketLayout.builder("STAMP authenticated reflector", TestPacketLayout.Role.REFLECTOR)
                    .sequence(SEQUENCE).timestamp(16).errorEstimate(24).ssid(SSID_AUTHENTICATED).receiveTimestamp(32)
                    .senderSequence(48)
                    .senderTimestamp(64).senderErrorEstimate(72).senderTtl(80).hmac(HMAC_COVERED)
                    .length(AUTHENTICATED_LENGTH).protect(Mode.AUTHENTICATED, 0, 0, 0, HMAC_COVERED).build();

    private StampLayouts() {
    }

    /** @return the STAMP Session-Sender layout, authenticated or not. */
    public static TestPacketLayout sender(boolean authenticated) {
        return authenticated ? AUTHENTICATED_SENDER : UNAUTHENTICATED_SENDER;
    }

    /** @return the STAMP Session-Reflector layout, authenticated or not. */
    public static TestPacketLayout reflector(boolean authenticated) {
        return authenticated ? AUTHENTICATED_REFLECTOR : UNAUTHENTICATED_REFLECTOR;
    }

    /** @return the TWAMP-Light (RFC 5357 Appendix I) Session-Sender layout: TWAMP-Test's, authenticated or not. */
    public static TestPacketLayout lightSender(boolean authenticated) {
        return TestPacketLayout.senderFor(authenticated ? Mode.AUTHENTICATED : Mode.OPEN);
    }

    /** @return the TWAMP-Light Session-Reflector layout: TWAMP-Test's, authenticated or not. */
    public static TestPacketLayout lightReflector(boolean authenticated) {
        return TestPacketLayout.reflectorFor(authenticated ? Mode.AUTHENTICATED : Mode.OPEN);
    }
}
