package io.github.twping.server;

import io.github.twping.ffm.UdpSocket;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.random.RandomGenerator;
import io.github.twping.ffm.AddressInUseException;

/**
 * Binds a reflector socket on the receiver address with the port chosen as C twampd does (docs/SERVER.md step 7):
 * the requested Receiver Port if it is inside {@code testports} (any non-zero port when no range is set) and
 * free; otherwise a search of the range from the requested port (if inside) or a random port, wrapping, until
 * one binds; without a range, from the requested port up to 65535. Port 0 without a range is ephemeral.
 */
final class TestPortAllocator {
    /** Opens a socket bound to an address; throws {@link BindException} (or an in-use error) when taken. */
    @FunctionalInterface
    interface SocketOpener {
        UdpSocket open(InetSocketAddress bind, int tos) throws IOException;
    }

    private final int low;
    private final int high;
    private final SocketOpener opener;
    private final RandomGenerator random;

    TestPortAllocator(int low, int high, SocketOpener opener, RandomGenerator random) {
        this.low = low;
        this.high = high;
        this.opener = opener;
        this.random = random;
    }

    /**
     * @return the bound socket
     * @throws IOException when no port could be bound (the last error), or a non-"in use" bind error
     */
    UdpSocket bind(InetAddress address, int requestedPort, int tos) throws IOException {
        if (low == 0 && high == 0) {
            if (requestedPort == 0) {
                return opener.open(new InetSocketAddress(address, 0), tos);
            }
            IOException last = null;
            for (int port = requestedPort; port <= 65535; port++) {
                try {
                    return opener.open(new InetSocketAddress(address, port), tos);
                } catch (IOException e) {
                    if (!inUse(e)) {
                        throw e;
                    }
                    last = e;
                }
            }
            throw last;
        }
        int size = high - low + 1;
        int first = requestedPort >= low && requestedPort <= high ? requestedPort : low + random.nextInt(size);
        IOException last = null;
        for (int i = 0; i < size; i++) {
            int port = low + (first - low + i) % size;
            try {
                return opener.open(new InetSocketAddress(address, port), tos);
            } catch (IOException e) {
                if (!inUse(e)) {
                    throw e;
                }
                last = e;
            }
        }
        throw new PortsExhausted("Full port range exhausted (" + low + "-" + high + "): " + last.getMessage(), last);
    }

    /** Every port of {@code testports} is in use: a temporary condition (Accept-Session 5). */
    static final class PortsExhausted extends IOException {
        private static final long serialVersionUID = 1L;

        PortsExhausted(String message, IOException cause) {
            super(message, cause);
        }
    }

    /**
     * The test ports one control connection may hold: a quarter of {@code testports} (at least 1), and never more
     * than {@code hardCap}. A TWAMP client asks for one session per connection (twping) or a few, so a quarter
     * leaves them ample room while one connection alone cannot take the whole range; without a range (ephemeral
     * ports) only {@code hardCap} applies.
     */
    int perConnection(int hardCap) {
        if (low == 0 && high == 0) {
            return hardCap;
        }
        return Math.min(hardCap, Math.max(1, (high - low + 1) / 4));
    }

    static boolean inUse(IOException e) {
        if (e instanceof BindException || e instanceof AddressInUseException) {
            return true;
        }
        String m = e.getMessage();
        return m != null && m.contains("Address already in use");
    }
}
