package io.github.twping.client;

import io.github.twping.config.CNumbers;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * A {@code node[:port]} positional argument (testaddr or servaddr) split as the C client splits it
 * (docs/CLI.md).
 *
 * @param typed the argument exactly as typed
 * @param node  the host part given to the resolver (brackets of {@code [addr]:port} removed; the whole
 *              string when the syntax does not match, e.g. {@code [::1]} or a bare {@code ::1})
 * @param port  the port text as typed, or null when not set; "set" means strtol found at least one
 *              leading digit and a value 0..65535, so {@code host:862x} keeps {@code "862x"} (the resolver
 *              then fails) while {@code host:abc} and {@code host:} have no port
 */
public record HostPort(String typed, String node, String port) {
    /** The TWAMP-Control service used when servaddr has no port. */
    public static final String DEFAULT_CONTROL_PORT = "862";

    /** Splits an argument into node and port. */
    public static HostPort parse(String arg) {
        int open = arg.indexOf('[');
        if (open >= 0) {
            String after = arg.substring(open + 1);
            int close = after.indexOf(']');
            if (after.indexOf('[') < 0 && close >= 0 && after.indexOf(']', close + 1) < 0
                    && close + 1 < after.length() && after.charAt(close + 1) == ':') {
                return new HostPort(arg, after.substring(0, close), portOrNull(after.substring(close + 2)));
            }
            return new HostPort(arg, arg, null);
        }
        int colon = arg.indexOf(':');
        if (colon >= 0) {
            if (arg.indexOf(':', colon + 1) >= 0) {
                return new HostPort(arg, arg, null);
            }
            return new HostPort(arg, arg.substring(0, colon), portOrNull(arg.substring(colon + 1)));
        }
        return new HostPort(arg, arg, null);
    }

    private static String portOrNull(String text) {
        CNumbers.IntegerParse p = CNumbers.strtol(text, 0, 10);
        if (p.end() == 0 || p.value() < 0 || p.value() > 65535) {
            return null;
        }
        return text;
    }

    /**
     * Resolves a node as {@code getaddrinfo} does: a bracketed name ({@code [::1]} without a port, which
     * {@link #parse} leaves whole) is not an address and fails, where the JDK resolver would accept it.
     */
    public static InetAddress[] resolve(String node) throws UnknownHostException {
        if (node.indexOf('[') >= 0 || node.indexOf(']') >= 0) {
            throw new UnknownHostException(node);
        }
        return InetAddress.getAllByName(node);
    }

    /** @return true when a port was given */
    public boolean hasPort() {
        return port != null;
    }

    /** @return the service to resolve: the port as typed, or {@code defaultService} when not set */
    public String serviceOr(String defaultService) {
        return port != null ? port : defaultService;
    }
}
