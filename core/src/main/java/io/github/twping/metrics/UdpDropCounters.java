package io.github.twping.metrics;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The kernel's per-socket drop counter of UDP sockets (datagrams dropped because the receive buffer was full),
 * read from {@code /proc/net/udp} and {@code /proc/net/udp6} by local port. Read at scrape time, never per packet.
 */
final class UdpDropCounters {
    private static final Path UDP = Path.of("/proc/net/udp");
    private static final Path UDP6 = Path.of("/proc/net/udp6");

    /** @return the drops of the socket bound to {@code local}'s port, or -1 when unknown. */
    long drops(InetSocketAddress local) {
        if (local == null) {
            return -1;
        }
        boolean v6 = local.getAddress() instanceof Inet6Address;
        return drops(read(v6 ? UDP6 : UDP), local.getPort());
    }

    static long drops(List<String> lines, int port) {
        String wanted = String.format(Locale.ROOT, ":%04X", port);
        for (String line : lines) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 13 || !f[1].endsWith(wanted)) {
                continue;
            }
            try {
                return Long.parseLong(f[12]);
            } catch (NumberFormatException e) {
                return -1;
            }
        }
        return -1;
    }

    private static List<String> read(Path p) {
        try {
            return Files.readAllLines(p);
        } catch (IOException e) {
            return List.of();
        }
    }
}
