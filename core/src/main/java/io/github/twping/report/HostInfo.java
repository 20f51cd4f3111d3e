package io.github.twping.report;

import io.github.twping.stats.SessionHeader;

import java.net.InetAddress;

/**
 * The host and port strings printed in summary headers (docs/STATISTICS.md): {@code fromhost},
 * {@code fromserv}, {@code fromaddr}, {@code tohost}, {@code toserv}, {@code toaddr}.
 * Supplied by the caller; {@link #numericFrom(SessionHeader)} and
 * {@link #reverseLookup(SessionHeader)} derive them from a data file header.
 */
public record HostInfo(String fromHost, String fromServ, String fromAddr, String toHost, String toServ,
                       String toAddr) {

    /** Numeric strings from the header's addresses and ports (no lookups). */
    public static HostInfo numericFrom(SessionHeader header) {
        String from = numeric(header.senderInetAddress());
        String to = numeric(header.receiverInetAddress());
        return new HostInfo(from, Integer.toString(header.senderPort()), from, to,
            Integer.toString(header.receiverPort()), to);
    }

    /** owstats-style: host names are reverse lookups of the header addresses (may block on DNS). */
    public static HostInfo reverseLookup(SessionHeader header) {
        HostInfo n = numericFrom(header);
        return new HostInfo(lookup(header.senderInetAddress()), n.fromServ, n.fromAddr,
            lookup(header.receiverInetAddress()), n.toServ, n.toAddr);
    }

    private static String numeric(InetAddress a) {
        if (a == null) {
            return "***";
        }
        String s = a.getHostAddress();
        int pct = s.indexOf('%');
        s = pct >= 0 ? s.substring(0, pct) : s;
        return compressIpv6(s);
    }

    private static String lookup(InetAddress a) {
        if (a == null) {
            return "***";
        }
        String name = a.getCanonicalHostName();
        int pct = name.indexOf('%');
        name = pct >= 0 ? name.substring(0, pct) : name;
        return name.equals(a.getHostAddress()) ? numeric(a) : name;
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
}
