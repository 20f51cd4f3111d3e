package io.github.twping.control;

import java.util.Arrays;
import io.github.twping.protocol.AcceptCode;
import java.util.HexFormat;

/**
 * The content of an Accept-Session (RFC 5357 section 3.5): the accept code, the reflector's UDP
 * port and the 16-byte SID. Returned by the client; produced by a server's session handler.
 *
 * @param acceptCode 0..5 ({@link AcceptCode})
 * @param port       reflector port (sent as 0 when the code is not 0)
 * @param sid        16-byte session identifier (sent as zeros when the code is not 0)
 */
public record SessionAcceptance(int acceptCode, int port, byte[] sid) {
    public SessionAcceptance {
        sid = sid == null ? new byte[SessionIds.LENGTH] : sid.clone();
        if (sid.length != SessionIds.LENGTH) {
            throw new IllegalArgumentException("SID must be 16 bytes: " + sid.length);
        }
    }

    /** @return an acceptance with code 0. */
    public static SessionAcceptance accepted(int port, byte[] sid) {
        return new SessionAcceptance(0, port, sid);
    }

    /** @return a refusal with the given non-zero code, port 0 and a zero SID. */
    public static SessionAcceptance refused(int acceptCode) {
        return new SessionAcceptance(acceptCode, 0, null);
    }

    @Override
    public byte[] sid() {
        return sid.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SessionAcceptance a && acceptCode == a.acceptCode && port == a.port
                && Arrays.equals(sid, a.sid);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * acceptCode + port) + Arrays.hashCode(sid);
    }

    @Override
    public String toString() {
        return "SessionAcceptance[accept=" + acceptCode + ", port=" + port + ", sid=" + HexFormat.of().formatHex(sid) + "]";
    }
}
