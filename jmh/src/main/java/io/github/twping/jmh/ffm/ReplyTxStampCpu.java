package io.github.twping.jmh.ffm;

import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.TxTimestampHandler;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * The thread CPU time (user + system, so the kernel's send path and TX stamp included) of a STAMP reflector's reply
 * in the three ways {@link ReplyTxStampBenchmark} times them: every send stamped by the socket option (the reflector
 * before stamps were asked per reply), a plain send on a {@code txTimestampsPerSend} socket (a session without
 * Follow-Up Telemetry) and a {@code sendStamped} there (a session with it); a batched error-queue read per 32 stamped
 * replies. CPU time, not wall time: on a shared machine a preemption stretches the wall time of a send, not its CPU
 * time, which JMH's scores on a loaded machine do not separate.
 *
 * <p>Run: {@code java --enable-native-access=ALL-UNNAMED -cp jmh/target/benchmarks.jar
 * io.github.twping.jmh.ffm.ReplyTxStampCpu [REPLIES_PER_ROUND] [ROUNDS]} (defaults 200000 and 6; prints one line per
 * round, the three modes interleaved so that a change of load touches all of them).
 */
public final class ReplyTxStampCpu {
    private static final int BATCH = 32;
    private static final int REPLY_BYTES = 44;
    private static long stampSum;

    private ReplyTxStampCpu() {
    }

    public static void main(String[] args) throws IOException {
        int replies = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 6;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (Arena arena = Arena.ofShared(); LoopbackSink sink = new LoopbackSink();
             UdpSocket every = UdpSocket.open(UdpSocketOptions.builder().bindAddress(loopback)
                     .timestamping(Timestamping.RX_TX_SOFTWARE).receiveBufferBytes(1 << 20).build());
             UdpSocket perSend = UdpSocket.open(UdpSocketOptions.builder().bindAddress(loopback)
                     .timestamping(Timestamping.RX_TX_SOFTWARE).txTimestampsPerSend(true)
                     .receiveBufferBytes(1 << 20).build())) {
            if (!every.capabilities().txTimestamps() || !perSend.txTimestampsPerSend()) {
                System.err.println("ReplyTxStampCpu: no kernel TX timestamps on these sockets: nothing to measure");
                System.exit(1);
            }
            MemorySegment reply = arena.allocate(REPLY_BYTES);
            InetSocketAddress to = sink.address();
            TxTimestampHandler handler = (packetId, epochNs, hardware) -> stampSum += epochNs;
            System.out.println("CPU ns per reply (" + replies + " replies per mode and round; load average "
                    + String.format("%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage())
                    + " at the start)");
            System.out.println("| round | every send stamped | per-send socket, plain | per-send socket, stamped |");
            System.out.println("|---:|---:|---:|---:|");
            for (int round = 0; round < rounds; round++) {
                long[] ns = new long[3];
                for (int mode = 0; mode < 3; mode++) {
                    long before = threads.getCurrentThreadCpuTime();
                    for (int i = 0; i < replies; i += BATCH) {
                        for (int j = 0; j < BATCH; j++) {
                            switch (mode) {
                                case 0 -> every.send(reply, REPLY_BYTES, to);
                                case 1 -> perSend.send(reply, REPLY_BYTES, to);
                                default -> perSend.sendStamped(reply, REPLY_BYTES, to);
                            }
                        }
                        if (mode == 0) {
                            every.pollTxTimestampsBatched(handler);
                        } else if (mode == 2) {
                            perSend.pollTxTimestampsBatched(handler);
                        }
                    }
                    ns[mode] = threads.getCurrentThreadCpuTime() - before;
                }
                System.out.printf("| %d | %.0f | %.0f | %.0f |%n", round, ns[0] / (double) replies,
                        ns[1] / (double) replies, ns[2] / (double) replies);
            }
        }
    }
}
