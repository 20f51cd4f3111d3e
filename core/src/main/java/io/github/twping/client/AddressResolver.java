package io.github.twping.client;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;

import io.github.twping.net.AddressText;

/**
 * The run's address resolution as the C client does it (docs/CLI.md): servaddr to the control addresses in
 * the order they are tried, {@code -S} to a source address, testaddr to the reflector's address.
 */
final class AddressResolver {
    private AddressResolver() {
    }

    /** @return the port of a service text (decimal 0..65535), or -1 when it is not one */
    static int parseService(String service) {
        try {
            int p = Integer.parseInt(service.trim());
            return p >= 0 && p <= 65535 ? p : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** @return the addresses of {@code node} allowed by {@code -4}/{@code -6}: IPv6 first, then IPv4 */
    static List<InetAddress> controlAddresses(String node, TwpingOptions.AddressFamily family)
            throws UnknownHostException {
        InetAddress[] resolved = HostPort.resolve(node);
        List<InetAddress> addresses = new ArrayList<>();
        boolean v4 = family != TwpingOptions.AddressFamily.IPV6_ONLY;
        boolean v6 = family != TwpingOptions.AddressFamily.IPV4_ONLY;
        for (InetAddress a : resolved) {
            if (a instanceof Inet6Address && v6) {
                addresses.add(a);
            }
        }
        for (InetAddress a : resolved) {
            if (a instanceof Inet4Address && v4) {
                addresses.add(a);
            }
        }
        return addresses;
    }

    /** Whether a network interface of that name exists ({@code -B}). */
    static boolean interfaceExists(String name) {
        try {
            return NetworkInterface.getByName(name) != null;
        } catch (SocketException e) {
            return false;
        }
    }

    /** {@code -S}: an interface name (its first address of the server's family) or an address; null if neither. */
    static InetAddress sourceAddress(String source, InetAddress serverAddress) {
        try {
            NetworkInterface nif = NetworkInterface.getByName(source);
            if (nif != null) {
                Enumeration<InetAddress> e = nif.getInetAddresses();
                while (e.hasMoreElements()) {
                    InetAddress a = e.nextElement();
                    if (a.getClass() == serverAddress.getClass()) {
                        return a;
                    }
                }
            }
        } catch (SocketException ignored) {
            // not an interface name
        }
        try {
            for (InetAddress a : HostPort.resolve(source)) { // "[::1]" fails, as getaddrinfo does
                if (a.getClass() == serverAddress.getClass()) {
                    return a;
                }
            }
        } catch (UnknownHostException ignored) {
            // reported by the caller
        }
        return null;
    }

    /** @return testaddr's first address of the sender's family (IPv4-mapped addresses unmapped), or null */
    static InetAddress reflectorAddress(String node, InetAddress senderAddress) throws UnknownHostException {
        InetAddress[] resolved = HostPort.resolve(node);
        boolean wantV6 = senderAddress instanceof Inet6Address;
        for (InetAddress a : resolved) {
            InetAddress u = AddressText.unmapped(a);
            if ((u instanceof Inet6Address) == wantV6) {
                return u;
            }
        }
        return null;
    }
}
