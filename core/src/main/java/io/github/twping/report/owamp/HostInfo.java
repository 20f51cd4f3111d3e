package io.github.twping.report.owamp;

import io.github.twping.net.AddressText;
import io.github.twping.datafile.SessionHeader;

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
        return AddressText.numeric(a);
    }

    private static String lookup(InetAddress a) {
        if (a == null) {
            return "***";
        }
        String name = AddressText.withoutZone(a.getCanonicalHostName());
        return name.equals(a.getHostAddress()) ? numeric(a) : name;
    }
}
