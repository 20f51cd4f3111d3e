package io.github.twping.testing.perf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Per-socket kernel drop counters from {@code /proc/net/udp} (the {@code drops} column: datagrams the
 * kernel discarded because the socket's receive buffer was full), to tell where loopback loss happens.
 */
public final class UdpSocketDrops {
    private static final Path PROC_NET_UDP = Path.of("/proc/net/udp");

    private UdpSocketDrops() {
    }

    /** Drops of the IPv4 socket bound to local {@code port}, or -1 when there is none or the file is unreadable. */
    public static long read(int port) {
        try {
            return dropsOf(Files.readAllLines(PROC_NET_UDP), port);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * Finds the socket with local {@code port} in the lines of {@code /proc/net/udp} (header first) and
     * returns its last column, or -1.
     */
    static long dropsOf(List<String> lines, int port) {
        for (int i = 1; i < lines.size(); i++) {
            String[] f = lines.get(i).trim().split("\\s+");
            if (f.length < 13) {
                continue;
            }
            String local = f[1];
            int colon = local.indexOf(':');
            if (colon >= 0 && Integer.parseInt(local.substring(colon + 1), 16) == port) {
                return Long.parseLong(f[f.length - 1]);
            }
        }
        return -1;
    }
}
