package io.github.twping.protocol;

/**
 * Framing constants of TWAMP-Control messages sent after Server-Start (RFC 4656 section 3.4,
 * RFC 5357 sections 3.5 to 3.8): every message is a whole number of 16-byte blocks, the first
 * octet of a client request is its Command, and each message ends with a 16-byte HMAC block.
 */
public final class ControlMessage {
    /** AES block and control framing unit in bytes. */
    public static final int BLOCK_LENGTH = 16;
    /** Length of every control HMAC field (HMAC-SHA1 truncated to 128 bits). */
    public static final int HMAC_LENGTH = 16;

    private ControlMessage() {
    }

    /**
     * Total length of the client request that starts with {@code command}, HMAC block included.
     *
     * @return 112 for Request-TW-Session, 32 for Start-Sessions and Stop-Sessions, -1 for anything else
     */
    public static int requestLength(int command) {
        return switch (command) {
            case RequestTwSession.COMMAND -> RequestTwSession.LENGTH;
            case StartSessions.COMMAND -> StartSessions.LENGTH;
            case StopSessions.COMMAND -> StopSessions.LENGTH;
            default -> -1;
        };
    }
}
