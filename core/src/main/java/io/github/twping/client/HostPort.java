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

    /**
     * Checks the port of a {@code node[:port]} argument where a bad port must be refused rather than read as
     * "no port" (the STAMP and TWAMP-Light addresses of twping and twampd, as {@code twampd -S} checks its
     * srcnode): decimal digits only, {@code lowest}..65535.
     *
     * @return the reason ({@code bad port "x"}, {@code port out of range}), or null when the port is good or
     *         none was typed (no colon, or a bare IPv6 literal)
     */
    public static String portError(String arg, int lowest) {
        String text = typedPort(arg);
        if (text == null) {
            return null;
        }
        if (text.isEmpty() || text.length() > 9 || !text.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
            return "bad port \"" + text + "\"";
        }
        int value = Integer.parseInt(text);
        return value < lowest || value > 65535 ? "port out of range" : null;
    }

    /** @return the text after the node's colon as typed, or null when the argument has no port part */
    private static String typedPort(String arg) {
        if (arg.startsWith("[")) {
            int close = arg.indexOf(']');
            return close > 0 && close + 1 < arg.length() && arg.charAt(close + 1) == ':' ? arg.substring(close + 2)
                    : null;
        }
        int colon = arg.indexOf(':');
        return colon >= 0 && colon == arg.lastIndexOf(':') ? arg.substring(colon + 1) : null;
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
