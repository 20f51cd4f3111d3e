package io.github.twping.control;

import java.net.InetAddress;
import java.security.SecureRandom;

/**
 * Generates the 16-byte session identifier a TWAMP server assigns in Accept-Session (RFC 4656
 * section 3.5, docs/SERVER.md step 7): 4 bytes of the receiver address (the IPv4 address, or the last 4
 * bytes of an IPv6 address), the current NTP timestamp (8 bytes), then 4 random bytes.
 */
public final class SessionIds {
    /** SID length in bytes. */
    public static final int LENGTH = 16;

    private SessionIds() {
    }

    /** @return a new SID for a session whose reflector receives on {@code receiver}, stamped with {@code nowNtp}. */
    public static byte[] create(InetAddress receiver, long nowNtp, SecureRandom random) {
        byte[] sid = new byte[LENGTH];
        byte[] addr = receiver.getAddress();
        System.arraycopy(addr, addr.length - 4, sid, 0, 4);
        for (int i = 0; i < 8; i++) {
            sid[4 + i] = (byte) (nowNtp >>> (56 - 8 * i));
        }
        byte[] tail = new byte[4];
        random.nextBytes(tail);
        System.arraycopy(tail, 0, sid, 12, 4);
        return sid;
    }

    /** @return a new SID stamped with the current wall-clock time. */
    public static byte[] create(InetAddress receiver, SecureRandom random) {
        return create(receiver, ControlTime.nowNtp(), random);
    }
}
