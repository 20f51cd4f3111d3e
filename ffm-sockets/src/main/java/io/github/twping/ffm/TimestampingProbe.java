package io.github.twping.ffm;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.lang.foreign.ValueLayout;

/**
 * Finds out which kernel timestamps really arrive on this host (being accepted by setsockopt is not enough):
 * sends a few datagrams from one local socket to another and counts RX software/hardware and TX
 * software/scheduled/hardware timestamps, then reports the clock synchronisation state.
 *
 * <p>Traffic to a local address goes through the loopback device, so hardware stamps are not expected there.
 */
public final class TimestampingProbe {
    /** Datagrams sent by one probe run. */
    public static final int PACKETS = 5;
    private static final long RECEIVE_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long TX_WAIT_NS = TimeUnit.SECONDS.toNanos(1);

    /** What one probe run observed; counts are out of {@link #sent()}. */
    public record Result(boolean nativeSockets, InetAddress target, int sent, int received, int rxSoftware,
                         int rxHardware, int txSoftware, int txScheduled, int txHardware, ClockStatus clock) {
    }

    private TimestampingProbe() {
    }

    /** Command line: {@code TimestampingProbe [local-address]}; exit status 0 when the probe ran. */
    public static void main(String[] args) {
        try {
            InetAddress target = args.length > 0 ? InetAddress.getByName(args[0]) : null;
            run(target, System.out);
        } catch (UnknownHostException e) {
            System.err.println("timestamping probe: unknown address " + args[0]);
            System.exit(2);
        } catch (SocketException e) {
            System.err.println("timestamping probe: " + e.getMessage()
                    + (e.errno() == Errno.EADDRNOTAVAIL ? " (the probe needs an address of this host)" : ""));
            System.exit(1);
        }
    }

    /**
     * Runs the probe against {@code target} (a local address; null = IPv4 loopback) and prints a short report.
     */
    public static Result run(InetAddress target, PrintStream out) throws SocketException {
        InetAddress address = target != null ? target : InetAddress.getLoopbackAddress();
        UdpSocketOptions receiverOptions = UdpSocketOptions.builder().bindAddress(address)
                .timestamping(Timestamping.HARDWARE).build();
        UdpSocketOptions senderOptions = UdpSocketOptions.builder().bindAddress(address)
                .timestamping(Timestamping.HARDWARE).txScheduledTimestamps(true).build();
        Counts counts = new Counts();
        boolean nativeSockets;
        int received = 0;
        int rxSoftware = 0;
        int rxHardware = 0;
        try (UdpSocket receiver = UdpSocket.open(receiverOptions);
             UdpSocket sender = UdpSocket.open(senderOptions);
             Arena arena = Arena.ofConfined()) {
            nativeSockets = sender.isNative() && receiver.isNative();
            MemorySegment payload = arena.allocate(64);
            MemorySegment buffer = arena.allocate(2048);
            ReceivedPacket meta = new ReceivedPacket();
            InetSocketAddress destination = receiver.localAddress();
            for (int i = 0; i < PACKETS; i++) {
                payload.set(ValueLayout.JAVA_INT, 0, i);
                sender.send(payload, 64, destination);
                int n = receiver.receive(buffer, meta, RECEIVE_TIMEOUT_NS);
                if (n >= 0) {
                    received++;
                    if (meta.timestampSource() == TimestampSource.KERNEL_SOFTWARE) {
                        rxSoftware++;
                    }
                    if (meta.rxHardwareTimestampNs() != 0) {
                        rxHardware++;
                    }
                }
            }
            long deadlineNs = System.nanoTime() + TX_WAIT_NS;
            while (sender.capabilities().txTimestamps() && counts.software < PACKETS
                    && System.nanoTime() - deadlineNs < 0) {
                if (sender.pollTxTimestamps(counts) == 0) {
                    LockSupport.parkNanos(1_000_000);
                }
            }
            sender.pollTxTimestamps(counts);
        }
        Result result = new Result(nativeSockets, address, PACKETS, received, rxSoftware, rxHardware,
                counts.software, counts.scheduled, counts.hardware, ClockStatus.read());
        print(result, out);
        return result;
    }

    private static void print(Result r, PrintStream out) {
        out.printf("timestamping probe: %d packets to %s (%s), %s sockets%n", r.sent(), r.target().getHostAddress(),
                r.target() instanceof Inet4Address ? "IPv4" : "IPv6", r.nativeSockets() ? "FFM" : "NIO fallback");
        if (!r.nativeSockets()) {
            out.printf("  FFM unavailable: %s%n", UdpSockets.nativeUnavailableReason());
        }
        out.printf("  received       %d/%d%n", r.received(), r.sent());
        line(out, "RX software", r.rxSoftware(), r.sent());
        line(out, "RX hardware", r.rxHardware(), r.sent());
        line(out, "TX software", r.txSoftware(), r.sent());
        line(out, "TX scheduled", r.txScheduled(), r.sent());
        line(out, "TX hardware", r.txHardware(), r.sent());
        out.printf("  clock          %s%n", r.clock());
    }

    private static void line(PrintStream out, String what, int count, int of) {
        out.printf("  %-14s %s (%d/%d)%n", what, count > 0 ? "yes" : "no", count, of);
    }

    private static final class Counts implements TxTimestampHandler {
        int software;
        int hardware;
        int scheduled;

        @Override
        public void onTxTimestamp(long packetId, long epochNs, boolean hw) {
            if (hw) {
                hardware++;
            } else {
                software++;
            }
        }

        @Override
        public void onTxScheduled(long packetId, long epochNs) {
            scheduled++;
        }
    }
}
