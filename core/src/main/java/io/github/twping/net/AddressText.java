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
     * The numeric text of an address as the C programs print it: no zone suffix, the longest run of zero
     * groups of an IPv6 address compressed to {@code ::}.
     */
    public static String numeric(InetAddress address) {
        return compressIpv6(withoutZone(address.getHostAddress()));
    }

    /** Cuts a {@code %zone} suffix off an address or host text. */
    public static String withoutZone(String text) {
        int pct = text.indexOf('%');
        return pct >= 0 ? text.substring(0, pct) : text;
    }

    /** Compresses the longest run (of two or more) of zero groups of an IPv6 text to {@code ::}. */
    public static String compressIpv6(String s) {
        if (s.indexOf(':') < 0 || s.contains("::")) {
            return s;
        }
        String[] groups = s.split(":", -1);
        int bestStart = -1;
        int bestLen = 0;
        for (int i = 0; i < groups.length; ) {
            if (groups[i].equals("0")) {
                int j = i;
                while (j < groups.length && groups[j].equals("0")) {
                    j++;
                }
                if (j - i > bestLen) {
                    bestStart = i;
                    bestLen = j - i;
                }
                i = j;
            } else {
                i++;
            }
        }
        if (bestLen < 2) {
            return s;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < bestStart; i++) {
            sb.append(i == 0 ? "" : ":").append(groups[i]);
        }
        sb.append("::");
        for (int i = bestStart + bestLen; i < groups.length; i++) {
            sb.append(groups[i]);
            if (i < groups.length - 1) {
                sb.append(':');
            }
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
