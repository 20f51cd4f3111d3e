package io.github.twping.net;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * Address text and address forms shared by the client, the server and the reports: the numeric text the C
 * programs print (docs/STATISTICS.md, summary headers) and the IPv4 form of IPv4-mapped IPv6 addresses.
 * Knows nothing of TWAMP.
 */
public final class AddressText {
    private AddressText() {
    }

    /**
     * The numeric text of an address as the C programs print it ({@code getnameinfo(NI_NUMERICHOST)}, glibc's
     * {@code inet_ntop}): no zone suffix; IPv6 in lower-case hex with the first longest run of two or more zero
     * groups as {@code ::}, and the last 32 bits in dotted decimal for IPv4-compatible ({@code ::a.b.c.d}) and
     * IPv4-mapped ({@code ::ffff:a.b.c.d}) addresses; {@code unknown} for no address.
     */
    public static String numeric(InetAddress address) {
        if (address == null) {
            return "unknown";
        }
        return address instanceof Inet6Address ? ipv6(address.getAddress()) : address.getHostAddress();
    }

    /** Cuts a {@code %zone} suffix off an address or host text. */
    public static String withoutZone(String text) {
        int pct = text.indexOf('%');
        return pct >= 0 ? text.substring(0, pct) : text;
    }

    private static String ipv6(byte[] a) {
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) {
            g[i] = ((a[2 * i] & 0xFF) << 8) | (a[2 * i + 1] & 0xFF);
        }
        int bestBase = -1;
        int bestLen = 0;
        for (int i = 0; i < 8; ) {
            if (g[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestBase = i;
                bestLen = j - i;
            }
            i = j;
        }
        if (bestLen < 2) {
            bestBase = -1;
        }
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestBase) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            if (i == 6 && bestBase == 0 && (bestLen == 6 || (bestLen == 5 && g[5] == 0xffff))) {
                sb.append(a[12] & 0xFF).append('.').append(a[13] & 0xFF).append('.')
                        .append(a[14] & 0xFF).append('.').append(a[15] & 0xFF);
                break;
            }
            sb.append(Integer.toHexString(g[i]));
        }
        return sb.toString();
    }

    /** @return the IPv4 address of an IPv4-mapped IPv6 address ({@code ::ffff:a.b.c.d}), else {@code address} */
    public static InetAddress unmapped(InetAddress address) {
        if (!(address instanceof Inet6Address v6)) {
            return address;
        }
        byte[] b = v6.getAddress();
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return address;
            }
        }
        if (b[10] != (byte) 0xff || b[11] != (byte) 0xff) {
            return address;
        }
        try {
            return InetAddress.getByAddress(Arrays.copyOfRange(b, 12, 16));
        } catch (UnknownHostException e) {
            throw new AssertionError(e);  // four bytes are always a valid IPv4 address
        }
    }
}
