package io.github.twping.stamp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.twping.crypto.TestPacketCipher;
import io.github.twping.ffm.TimestampSource;
import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import io.github.twping.protocol.Mode;
import io.github.twping.protocol.ReflectorPacket;
import io.github.twping.protocol.SenderPacket;
import io.github.twping.protocol.TestPacketLayout;
import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.schedule.SendSchedule;
import io.github.twping.session.ClientTestSession;
import io.github.twping.session.ClockErrorEstimate;
import io.github.twping.session.SessionOutcome;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import java.net.DatagramPacket;
import java.net.DatagramSocket;

/**
 * Authenticated TWAMP-Light (RFC 5357 Appendix I with the authenticated TWAMP-Test packets of §4.1.2/§4.2.1 and
 * configured keys): our sender against our reflector on loopback, a wrong key losing every packet, the reply's
 * layout decrypted and verified by an independent cipher instance, and a bounded fuzz pass.
 */
class StampLightAuthTest {
    private static final byte[] SID = new byte[16];
    private static final int PACKETS = 30;
    private static final long INTERVAL_NTP = NtpTime.fromSeconds(0.002);

    @TempDir
    Path dir;

    private static byte[] key(int seed) {
        byte[] k = new byte[StampReflectorSpec.LIGHT_KEY_LENGTH];
        new SplittableRandom(seed).nextBytes(k);
        return k;
    }

    private static StampReflector reflector(byte[] key) throws Exception {
        return new StampReflector(new StampReflectorSpec(true, true, key, false, TimestampFormat.NTP, List.of(), 0,
                64), StampReflector.openSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0), null);
    }

    private long session(StampReflector reflector, byte[] key, int padding, List<TwoWayRecord> records)
            throws Exception {
        List<String> diagnostics = new CopyOnWriteArrayList<>();
        try (UdpSocket client = UdpSocket.open(UdpSocketOptions.builder()
                .bindAddress(InetAddress.getLoopbackAddress()).unicastTtl(255).receiveTtl(true)
                .timestamping(Timestamping.RX_TX_SOFTWARE).build())) {
            WallClock clock = WallClock.system();
            long startNtp = clock.nowNtp() + NtpTime.fromSeconds(0.2);
            long lossNtp = NtpTime.fromSeconds(records == null ? 0.5 : 5);
            byte[] local = client.localAddress().getAddress().getAddress();
            SessionHeader header = new SessionHeader(SID, 4, local, client.localAddress().getPort(), local,
                    reflector.localAddress().getPort(), PACKETS, padding, startNtp, lossNtp, 0,
                    new boolean[] {true}, new long[] {INTERVAL_NTP}, SessionHeader.FINISHED_INCOMPLETE);
            Path file = dir.resolve("light-" + System.nanoTime() + ".owp");
            SessionDataWriter writer = SessionDataWriter.create(file, header);
            ClientTestSession s = StampSenderSession.createLight(client, reflector.localAddress(), padding,
                    new SendSchedule(SID, new ScheduleSlot[] {new ScheduleSlot(true, INTERVAL_NTP)}, PACKETS),
                    PACKETS, startNtp, lossNtp, 20_000, writer, clock, ClockErrorEstimate.fromKernel(),
                    diagnostics::add, key);
            s.start();
            assertTrue(s.await(TimeUnit.SECONDS.toNanos(60)), "session did not end");
            s.join(5_000);
            writer.close();
            assertEquals(SessionOutcome.COMPLETED, s.outcome(), diagnostics.toString());
            if (records != null) {
                try (SessionDataReader reader = SessionDataReader.open(file)) {
                    for (long i = 0; i < reader.recordCount(); i++) {
                        records.add(reader.read(i, new TwoWayRecord()));
                    }
                }
            }
            return s.counters().received();
        }
    }

    @Timeout(120)
    @Test
    void ourSenderAgainstOurReflectorWithConfiguredKeys() throws Exception {
        byte[] key = key(1);
        try (StampReflector reflector = reflector(key)) {
            reflector.start();
            List<TwoWayRecord> records = new ArrayList<>();
            assertEquals(PACKETS, session(reflector, key, 64, records));
            for (int i = 0; i < PACKETS; i++) {
                TwoWayRecord r = records.get(i);
                assertEquals(i, r.sentSeq);
                assertEquals(i, r.reflSeq);
                assertEquals(255, r.sentTtl);
                long rttNs = NtpTime.signedDurationToNanos(r.reflRecvNtp - r.sentSendNtp);
                assertTrue(rttNs > 0 && rttNs < TimeUnit.SECONDS.toNanos(2), "rtt " + rttNs);
            }
            assertEquals(0, reflector.badHmac());
        }
    }

    @Timeout(120)
    @Test
    void aWrongKeyLosesEveryPacket() throws Exception {
        try (StampReflector reflector = reflector(key(1))) {
            reflector.start();
            assertEquals(0, session(reflector, key(2), 64, null));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (reflector.badHmac() < PACKETS && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(PACKETS, reflector.badHmac());
            assertEquals(0, reflector.reflected());
        }
        assertThrows(IllegalArgumentException.class, () -> new StampReflectorSpec(true, true, new byte[16], false,
                TimestampFormat.NTP, List.of(), 0, 64));
    }

    /** A sender packet sealed by an independent cipher instance. */
    private static byte[] senderPacket(byte[] key, long seq, int padding) {
        TestPacketCipher cipher = TestPacketCipher.forMode(Mode.AUTHENTICATED, StampReflectorSpec.lightKeys(key));
        byte[] p = new byte[TestPacketLayout.AUTHENTICATED_SENDER.length() + padding];
        MemorySegment m = MemorySegment.ofArray(p);
        SenderPacket s = new SenderPacket(TestPacketLayout.AUTHENTICATED_SENDER).wrap(m);
        s.clearMbz().sequenceNumber(seq);
        cipher.sealSenderHead(m);
        s.timestampNtp(WallClock.system().nowNtp()).errorEstimate(0x0001);
        cipher.sealSenderTail(m);
        return p;
    }

    @Timeout(120)
    @Test
    void mutatedPacketsNeverCrashAndAGoodSenderIsAnsweredAfterwards() throws Exception {
        byte[] key = key(3);
        SplittableRandom random = new SplittableRandom(5);
        try (DatagramSocket sink = new DatagramSocket(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             StampReflector reflector = reflector(key)) {
            InetSocketAddress source = new InetSocketAddress(InetAddress.getLoopbackAddress(), sink.getLocalPort());
            MemorySegment buffer = reflector.requestBuffer();
            int rounds = 20_000;
            for (int i = 0; i < rounds; i++) {
                byte[] p = switch (random.nextInt(4)) {
                    case 0 -> {
                        byte[] b = new byte[random.nextInt(0, 400)];
                        random.nextBytes(b);
                        yield b;
                    }
                    case 1 -> Arrays.copyOf(senderPacket(key, i, 64), random.nextInt(0, 113));
                    case 2 -> {
                        byte[] b = senderPacket(key, i, random.nextInt(0, 200));
                        b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
                        yield b;
                    }
                    default -> senderPacket(key, i, random.nextInt(0, 200));
                };
                MemorySegment.copy(p, 0, buffer, ValueLayout.JAVA_BYTE, 0, p.length);
                reflector.metadata().record(p.length, false, source, 64, 0, System.currentTimeMillis() * 1_000_000L,
                        TimestampSource.KERNEL_SOFTWARE);
                reflector.handle(p.length);
            }
            assertEquals(rounds, reflector.reflected() + reflector.shortPackets() + reflector.badHmac(),
                    "every datagram answered or counted as dropped");
            assertTrue(reflector.reflected() > rounds / 8, "the valid packets were answered");
            reflector.start();
            try (DatagramSocket good = new DatagramSocket(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
                good.setSoTimeout(10_000);
                byte[] request = senderPacket(key, 0xC0FFEE, 64);
                good.send(new DatagramPacket(request, request.length, reflector.localAddress()));
                byte[] reply = new byte[512];
                DatagramPacket dp = new DatagramPacket(reply, reply.length);
                good.receive(dp);
                assertEquals(112, dp.getLength(), "symmetric: 48 + 64 octets -> the 112-octet reply");
                TestPacketCipher client = TestPacketCipher.forMode(Mode.AUTHENTICATED,
                        StampReflectorSpec.lightKeys(key));
                MemorySegment m = MemorySegment.ofArray(Arrays.copyOf(reply, dp.getLength()));
                assertTrue(client.openReflector(m, dp.getLength()), "reply HMAC verifies, block 0 decrypts");
                ReflectorPacket r = new ReflectorPacket(TestPacketLayout.AUTHENTICATED_REFLECTOR).wrap(m);
                assertEquals(0xC0FFEE, r.senderSequenceNumber());
                assertEquals(0xC0FFEE, r.sequenceNumber());
            }
            assertNull(reflector.failure());
        }
    }
}
