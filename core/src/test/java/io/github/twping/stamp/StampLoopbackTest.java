package io.github.twping.stamp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
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
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Timeout;

/** Our STAMP and TWAMP-Light sender against our reflector on loopback, in every format combination. */
class StampLoopbackTest {
    private static final int PACKETS = 30;
    private static final long INTERVAL_NTP = NtpTime.fromSeconds(0.002);
    private static final byte[] SID = new byte[16];
    private static final byte[] KEY = {1, 2, 3, 4, 5, 6, 7, 8};

    @TempDir
    Path dir;

    /** One hand-built packet answered: the reflector thread runs (the warm-up is not part of the session). */
    private static void awaitAnswering(InetSocketAddress reflector, boolean light, boolean auth) throws Exception {
        try (DatagramSocket s = new DatagramSocket(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            s.setSoTimeout(30_000);
            byte[] request = new byte[light ? 14 : auth ? 112 : 44];
            if (auth) {
                Mac mac = Mac.getInstance("HmacSHA256");
                mac.init(new SecretKeySpec(KEY, "HmacSHA256"));
                mac.update(request, 0, 96);
                System.arraycopy(mac.doFinal(), 0, request, 96, 16);
            }
            s.send(new DatagramPacket(request, request.length, reflector));
            s.receive(new DatagramPacket(new byte[256], 256));
        }
    }

    @Timeout(300)
    @ParameterizedTest(name = "light={0} auth={1} stateful={2} sender={3} reflector={4} padding={5}")
    @CsvSource({
            "false, false, false, NTP, NTP, 0",
            "false, false, true, NTP, PTP, 0",
            "false, true, false, PTP, NTP, 0",
            "false, true, true, PTP, PTP, 100",
            "false, false, false, PTP, PTP, 1000",
            "true, false, false, NTP, NTP, 0",
            "true, false, false, NTP, NTP, 200"})
    void everyPacketIsAnsweredWithConsistentTimestamps(boolean light, boolean auth, boolean stateful,
                                                       TimestampFormat senderFormat, TimestampFormat reflectorFormat,
                                                       int padding) throws Exception {
        StampReflectorSpec reflectorSpec = new StampReflectorSpec(light, auth, auth ? KEY : null, stateful,
                reflectorFormat, List.of(), 0, 64);
        List<String> diagnostics = new CopyOnWriteArrayList<>();
        try (StampReflector reflector = new StampReflector(reflectorSpec, StampReflector.openSocket(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0), null);
             UdpSocket client = UdpSocket.open(UdpSocketOptions.builder()
                     .bindAddress(InetAddress.getLoopbackAddress()).unicastTtl(255).receiveTtl(true)
                     .timestamping(Timestamping.RX_TX_SOFTWARE).build())) {
            reflector.start();
            awaitAnswering(reflector.localAddress(), light, auth);
            WallClock clock = WallClock.system();
            long startNtp = clock.nowNtp() + NtpTime.fromSeconds(0.2);
            long lossNtp = NtpTime.fromSeconds(5);   // generous: a cold JIT on a loaded host is slow
            ScheduleSlot[] slots = {new ScheduleSlot(true, INTERVAL_NTP)};
            byte[] local = client.localAddress().getAddress().getAddress();
            SessionHeader header = new SessionHeader(SID, 4, local, client.localAddress().getPort(), local,
                    reflector.localAddress().getPort(), PACKETS, padding, startNtp, lossNtp, 0,
                    new boolean[] {true}, new long[] {INTERVAL_NTP}, SessionHeader.FINISHED_INCOMPLETE);
            Path file = dir.resolve("stamp.owp");
            SessionDataWriter writer = SessionDataWriter.create(file, header);
            SendSchedule schedule = new SendSchedule(SID, slots, PACKETS);
            InetSocketAddress to = reflector.localAddress();
            ClientTestSession session = light
                    ? StampSenderSession.createLight(client, to, padding, schedule, PACKETS, startNtp, lossNtp,
                    20_000, writer, clock, ClockErrorEstimate.fromKernel(), diagnostics::add)
                    : StampSenderSession.create(client, to,
                    new StampSenderSpec(auth, auth ? KEY : null, senderFormat, 77, padding), schedule, PACKETS,
                    startNtp, lossNtp, 20_000, writer, clock, ClockErrorEstimate.fromKernel(), diagnostics::add);
            session.start();
            assertTrue(session.await(TimeUnit.SECONDS.toNanos(60)), "session did not end");
            session.join(5_000);
            writer.close();
            assertEquals(SessionOutcome.COMPLETED, session.outcome(), diagnostics.toString());
            assertEquals(PACKETS, session.counters().received(), () -> diagnostics + " reflector: failure "
                    + reflector.failure() + ", reflected " + reflector.reflected() + ", short "
                    + reflector.shortPackets() + ", counters " + session.counters() + ", sent " + session.sentCount());
            List<TwoWayRecord> records = new ArrayList<>();
            try (SessionDataReader reader = SessionDataReader.open(file)) {
                for (long i = 0; i < reader.recordCount(); i++) {
                    records.add(reader.read(i, new TwoWayRecord()));
                }
            }
            assertEquals(PACKETS, records.size());
            for (int i = 0; i < PACKETS; i++) {
                TwoWayRecord r = records.get(i);
                assertEquals(i, r.sentSeq);
                assertEquals(i, r.reflSeq, "one session: stateless and stateful both number 0..N-1");
                assertEquals(255, r.sentTtl, "Sender TTL: our sender's TTL 255 over loopback");
                assertEquals(255, r.reflTtl);
                long rttNs = NtpTime.signedDurationToNanos(r.reflRecvNtp - r.sentSendNtp);
                long forwardNs = NtpTime.signedDurationToNanos(r.sentRecvNtp - r.sentSendNtp);
                long turnNs = NtpTime.signedDurationToNanos(r.reflSendNtp - r.sentRecvNtp);
                assertTrue(rttNs > 0 && rttNs < TimeUnit.SECONDS.toNanos(2), "rtt " + rttNs);
                assertTrue(Math.abs(forwardNs) < TimeUnit.SECONDS.toNanos(2), "forward " + forwardNs);
                assertTrue(turnNs >= -2 && turnNs < TimeUnit.SECONDS.toNanos(2), "reflector turn " + turnNs);
                assertEquals(0, r.sentRecvErr & TimestampFormat.Z_BIT, "Z cleared after conversion");
                assertEquals(0, r.sentSendErr & TimestampFormat.Z_BIT);
            }
            assertEquals(PACKETS + 1, reflector.reflected(), "the session and the warm-up packet");
            assertEquals(0, reflector.badHmac());
        }
    }
}
