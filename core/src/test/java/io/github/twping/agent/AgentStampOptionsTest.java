package io.github.twping.agent;

import io.github.twping.cli.AgentArgs;
import io.github.twping.testsupport.Wait;
import java.time.Duration;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.twping.stamp.StampReflector;
import io.github.twping.stamp.TaiOffset;
import io.github.twping.stamp.StampReflectorSpec;
import io.github.twping.stamp.StampTlv;
import io.github.twping.stamp.TimestampFormat;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The STAMP and TWAMP-Light options of the configuration file on the wire, against our in-process
 * {@link StampReflector}: a relay between the agent and the reflector keeps the requests it forwards, so the tests
 * read the SSID, the Z flag, the TLVs and the packet sizes the agent really sent; the reflector's counters show it
 * understood them. Also authenticated TWAMP-Light with a 48-octet key, a reload that changes only the SSID, and STAMP
 * and TWAMP-Light targets on [::1].
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class AgentStampOptionsTest {
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(120);
    private static final String STAMP_PFS = "alice 7333637265742d6c61622d6b6579\n";
    /** 48 octets: the AES test key (16) then the HMAC test key (32) of authenticated TWAMP-Light. */
    private static final byte[] LIGHT_KEY = new byte[48];
    private static final ObjectMapper JSON = new ObjectMapper();

    static {
        for (int i = 0; i < LIGHT_KEY.length; i++) {
            LIGHT_KEY[i] = (byte) (0x41 + i % 26);
        }
    }

    @TempDir
    Path dir;

    private final List<AutoCloseable> closing = new ArrayList<>();
    private final ByteArrayOutputStream agentLog = new ByteArrayOutputStream();

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }


    private StampReflector reflector(InetAddress bind, boolean light, byte[] key, TimestampFormat format)
            throws Exception {
        StampReflectorSpec spec = new StampReflectorSpec(light, key != null, key, false, format, List.of(), 0, 64);
        StampReflector r = new StampReflector(spec, StampReflector.openSocket(new InetSocketAddress(bind, 0), 0), null);
        closing.add(r);
        r.start();
        return r;
    }

    private Relay relay(StampReflector to) throws IOException {
        Relay r = new Relay(to.localAddress());
        closing.add(r);
        return r;
    }

    private AgentCommand agent(String yaml, String... extra) throws Exception {
        Path config = dir.resolve("agent.yaml");
        Files.writeString(config, yaml);
        AgentCommand agent = new AgentCommand("twping", new PrintStream(agentLog, true, StandardCharsets.UTF_8));
        List<String> args = new ArrayList<>(List.of("--agent", config.toString()));
        args.addAll(List.of(extra));
        Thread.ofPlatform().name("agent-under-test").start(() -> AgentArgs.run(agent, args));
        assertTrue(agent.awaitReady(DEADLINE_NS), log());
        assertTrue(agent.agent() != null, log());
        closing.add(() -> {
            agent.stop();
            Wait.until(() -> log().contains("agent: stopped"), "agent stopped", Duration.ofNanos(DEADLINE_NS));
        });
        return agent;
    }

    private String log() {
        return agentLog.toString(StandardCharsets.UTF_8);
    }

    private static String text(AgentCommand agent) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, agent.metrics().registry().scrape());
        return out.toString(StandardCharsets.UTF_8);
    }

    private static double value(AgentCommand agent, String name, String labels) throws IOException {
        return AgentLoopbackTest.value(text(agent), name, labels);
    }

    /** The TLV types of a STAMP request from {@code offset} on, with their lengths: "type:length,...". */
    private static String tlvs(byte[] p, int offset) {
        StringBuilder sb = new StringBuilder();
        int at = offset;
        while (at + StampTlv.HEADER_LENGTH <= p.length) {
            int type = p[at + 1] & 0xFF;
            int length = ((p[at + 2] & 0xFF) << 8) | (p[at + 3] & 0xFF);
            sb.append(sb.length() == 0 ? "" : ",").append(type).append(':').append(length);
            at += StampTlv.HEADER_LENGTH + length;
        }
        return sb.toString();
    }

    private static int uint16(byte[] p, int at) {
        return ((p[at] & 0xFF) << 8) | (p[at + 1] & 0xFF);
    }

    @Test
    void stampTargetsSendTheConfiguredSsidTimestampFormatTlvsAndHmacAndAReloadChangesTheSsid() throws Exception {
        Files.writeString(dir.resolve("alice.pfs"), STAMP_PFS);
        byte[] key = "s3cret-lab-key".getBytes(StandardCharsets.US_ASCII);
        InetAddress lo = InetAddress.getLoopbackAddress();
        StampReflector open = reflector(lo, false, null, TimestampFormat.NTP);
        StampReflector auth = reflector(lo, false, key, TimestampFormat.PTP);
        Relay openRelay = relay(open);
        Relay authRelay = relay(auth);
        String yaml = """
                defaults: {rate: 50, session: 0.4, loss_timeout: 0.3, spin_us: 0, protocol: stamp}
                targets:
                  - {name: o, host: "127.0.0.1:%d", ssid: %d, timestamp_format: ptp, padding: 20,
                     tlv: "ts,cos=34,dm,ar=1:7,fut"}
                  - {name: a, host: "127.0.0.1:%d", mode: A, identity: alice, key_file: alice.pfs, ssid: 9,
                     tlv: [hmac, ts]}
                """;
        AgentCommand agent = agent(yaml.formatted(openRelay.port(), 4242, authRelay.port()));
        Wait.until(() -> agent.agent().sessionsDone("o") >= 2
                && agent.agent().sessionsDone("a") >= 2, "two sessions per target", Duration.ofNanos(DEADLINE_NS));

        byte[] o = openRelay.last(p -> true);
        // 44-octet base, Extra Padding (4 + 20), Timestamp Information (4 + 4), Class of Service (4 + 4), Direct
        // Measurement (4 + 12), Access Report (4 + 4), Follow-Up Telemetry (4 + 16)
        assertEquals("1:20,3:4,4:4,5:12,6:4,7:16", tlvs(o, 44), HexFormat.of().formatHex(o));
        assertEquals(44 + 24 + 8 + 8 + 16 + 8 + 20, o.length);
        assertEquals(4242, uint16(o, 14), "SSID");
        assertEquals(TimestampFormat.Z_BIT, uint16(o, 12) & TimestampFormat.Z_BIT, "Z flag: PTP timestamps");
        int ar = 44 + 24 + 8 + 8 + 16 + StampTlv.HEADER_LENGTH;
        assertEquals(1, (o[ar] & 0xFF) >>> 4, "Access Report ID");
        assertEquals(7, o[ar + 1] & 0xFF, "Access Report Return Code");
        assertTrue(open.accessReports() > 0 && open.classOfServiceApplied() > 0 && open.followUpsReported() > 0,
                "the reflector answered the TLVs");
        assertEquals(0, open.unknownTlvs() + open.malformedTlvs());

        byte[] a = authRelay.last(p -> true);
        assertEquals("3:4,8:16", tlvs(a, 112), HexFormat.of().formatHex(a));
        assertEquals(9, uint16(a, 26), "SSID of the authenticated format");
        assertEquals(0, uint16(a, 24) & TimestampFormat.Z_BIT, "NTP timestamps by default");
        assertEquals(0, auth.badHmac() + auth.badTlvHmac(), "base and TLV HMAC verified by the reflector");

        for (String t : new String[] {"o", "a"}) {
            String labels = "protocol=\"stamp\",target=\"" + t + "\"";
            assertEquals(1.0, value(agent, "twping_agent_target_up", labels), t + log());
            // o sends PTP timestamps, a's reflector answers with them: the offset they were converted with
            assertEquals(TaiOffset.kernel(), value(agent, "twping_agent_ptp_tai_offset_seconds", labels), t);
            assertEquals(0.0, value(agent, "twping_agent_bad_replies_total", "protocol=\"stamp\",reason=\"foreign\","
                    + "target=\"" + t + "\""), t);
            assertTrue(value(agent, "twping_agent_packets_received_total", labels) > 0, t);
            // PTP sender stamps read back as NTP: a forward delay of loopback size, not decades
            double fwdMax = value(agent, "twping_agent_last_session_delay_seconds",
                    "direction=\"forward\",stat=\"max\"," + labels);
            assertTrue(Math.abs(fwdMax) < 1.0, t + " forward max " + fwdMax);
        }

        // a reload that changes only the SSID: the same socket, the new SSID from the next session on
        long before = agent.agent().sessionsDone("o");
        Files.writeString(dir.resolve("agent.yaml"), yaml.formatted(openRelay.port(), 7, authRelay.port()));
        agent.reload();
        assertTrue(log().contains("(0 added, 1 changed, 0 removed)"), log());
        Wait.until(() -> openRelay.last(p -> uint16(p, 14) == 7) != null, "requests with SSID 7", Duration.ofNanos(DEADLINE_NS));
        Wait.until(() -> agent.agent().sessionsDone("o") >= before + 2, "o goes on measuring", Duration.ofNanos(DEADLINE_NS));
        assertEquals(0.0, AgentLoopbackTest.value(text(agent), "twping_agent_session_failures_total",
                "protocol=\"stamp\",reason=\"no_reply\",target=\"o\""), log());
    }

    @Test
    void lightTargetsAreSymmetricByDefaultOrNotAndAuthenticatedWithAFortyEightOctetKey() throws Exception {
        Files.writeString(dir.resolve("light.pfs"), "bob " + HexFormat.of().formatHex(LIGHT_KEY) + "\n");
        InetAddress lo = InetAddress.getLoopbackAddress();
        StampReflector open = reflector(lo, true, null, TimestampFormat.NTP);
        StampReflector auth = reflector(lo, true, LIGHT_KEY, TimestampFormat.NTP);
        Relay symmetric = relay(open);
        Relay small = relay(open);
        Relay authRelay = relay(auth);
        AgentCommand agent = agent("""
                defaults: {rate: 50, session: 0.4, loss_timeout: 0.3, spin_us: 0, protocol: light}
                targets:
                  - {name: sym, host: "127.0.0.1:%d"}
                  - {name: small, host: "127.0.0.1:%d", symmetric: false}
                  - {name: auth, host: "127.0.0.1:%d", mode: A, identity: bob, key_file: light.pfs}
                """.formatted(symmetric.port(), small.port(), authRelay.port()));
        Wait.until(() -> agent.agent().sessionsDone("sym") >= 2
                && agent.agent().sessionsDone("small") >= 2 && agent.agent().sessionsDone("auth") >= 2, "two sessions per target", Duration.ofNanos(DEADLINE_NS));
        assertEquals(41, symmetric.last(p -> true).length, "14 + 27: the 41 octets of the reply");
        assertEquals(41, symmetric.lastReply(), "the reply");
        assertEquals(14, small.last(p -> true).length, "symmetric: false, no padding");
        assertEquals(41, small.lastReply(), "the reply stays 41 octets");
        assertEquals(112, authRelay.last(p -> true).length, "48 + 64: the authenticated reply's 112 octets");
        assertEquals(0, auth.badHmac(), "every request verified with the configured test keys");
        assertTrue(auth.reflected() > 0);
        for (String t : new String[] {"sym", "small", "auth"}) {
            String labels = "protocol=\"light\",target=\"" + t + "\"";
            assertEquals(1.0, value(agent, "twping_agent_target_up", labels), t + log());
            assertTrue(value(agent, "twping_agent_packets_received_total", labels) > 0, t);
        }
    }

    @Test
    void stampAndLightTargetsMeasureOverIpv6Loopback() throws Exception {
        InetAddress v6 = InetAddress.getByName("::1");
        boolean usable;
        try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(v6, 0))) {
            usable = probe.getLocalAddress() instanceof Inet6Address;
        } catch (IOException e) {
            usable = false;
        }
        assumeTrue(usable, "no IPv6 loopback on this machine");
        StampReflector stamp = reflector(v6, false, null, TimestampFormat.NTP);
        StampReflector light = reflector(v6, true, null, TimestampFormat.NTP);
        Path stream = dir.resolve("v6.ndjson");
        AgentCommand agent = agent("""
                defaults: {rate: 50, session: 0.4, loss_timeout: 0.3, spin_us: 0}
                targets:
                  - {name: s6, protocol: stamp, host: "[::1]:%d", tlv: "ts,dm"}
                  - {name: l6, protocol: light, host: "[::1]:%d"}
                """.formatted(stamp.localAddress().getPort(), light.localAddress().getPort()),
                "--json-stream", stream.toString(), "--interval", "0.2");
        Wait.until(() -> agent.agent().sessionsDone("s6") >= 2
                && agent.agent().sessionsDone("l6") >= 2, "two sessions per target", Duration.ofNanos(DEADLINE_NS));
        for (String[] t : new String[][] {{"s6", "stamp"}, {"l6", "light"}}) {
            String labels = "protocol=\"" + t[1] + "\",target=\"" + t[0] + "\"";
            assertEquals(1.0, value(agent, "twping_agent_target_up", labels), t[0] + log());
            double sent = value(agent, "twping_agent_packets_sent_total", labels);
            double received = value(agent, "twping_agent_packets_received_total", labels);
            assertTrue(received > 0 && received <= sent, t[0] + " " + received + "/" + sent);
        }
        assertTrue(stamp.reflected() > 0 && light.reflected() > 0);
        List<JsonNode> ends = new ArrayList<>();
        for (String line : Files.readAllLines(stream)) {
            JsonNode o = JSON.readTree(line);
            if (o.path("event").asText().equals("end")) {
                ends.add(o);
            }
        }
        assertTrue(ends.size() >= 4, "end lines: " + ends.size());
        for (JsonNode o : ends) {
            JsonNode s = o.path("session");
            assertEquals(6, s.path("ip_version").asInt(), o.toString());
            assertEquals(v6, InetAddress.getByName(s.path("reflector").path("address").asText()), o.toString());
            assertTrue(s.path("sender").path("address").asText().contains(":"), o.toString());
        }
    }

    /**
     * A UDP relay on loopback: requests from the agent go to the reflector, replies back to the agent's address;
     * the last 64 requests are kept. Two platform threads, each a receive loop with a 100 ms timeout that ends when
     * the relay is closed.
     */
    /**
     * RFC 8972 §3: a STAMP target with {@code ssid: 7} behind a reflector whose replies carry SSID 8 (the relay
     * changes them) uses none of them: they are counted in {@code twping_agent_bad_replies_total{reason="foreign"}}
     * and the sessions fail with {@code no_reply}; a target without an SSID (0) behind the same change is not
     * checked and measures. Before, the replies were matched by sequence number alone and nothing was exported.
     */
    @Test
    void stampRepliesWithAnotherSsidAreCountedAsForeign() throws Exception {
        InetAddress lo = InetAddress.getLoopbackAddress();
        StampReflector reflector = reflector(lo, false, null, TimestampFormat.NTP);
        java.util.function.UnaryOperator<byte[]> otherSsid = r -> {
            byte[] c = Arrays.copyOf(r, r.length);
            int ssid = uint16(c, 14) + 1;
            c[14] = (byte) (ssid >>> 8);
            c[15] = (byte) ssid;
            return c;
        };
        Relay withSsid = relay(reflector).changingReplies(otherSsid);
        Relay withoutSsid = relay(reflector).changingReplies(otherSsid);
        String yaml = """
                defaults: {rate: 50, session: 0.4, loss_timeout: 0.3, spin_us: 0, protocol: stamp}
                targets:
                  - {name: s, host: "127.0.0.1:%d", ssid: 7}
                  - {name: z, host: "127.0.0.1:%d"}
                """;
        AgentCommand agent = agent(yaml.formatted(withSsid.port(), withoutSsid.port()));
        String s = "protocol=\"stamp\",reason=\"no_reply\",target=\"s\"";
        Wait.until(() -> failures(agent, s) >= 2 && agent.agent().sessionsDone("z") >= 2, "two failed sessions of s, two sessions of z",
                Duration.ofNanos(DEADLINE_NS));
        double foreign = value(agent, "twping_agent_bad_replies_total", "protocol=\"stamp\",reason=\"foreign\",target=\"s\"");
        double sent = value(agent, "twping_agent_packets_sent_total", "protocol=\"stamp\",target=\"s\"");
        assertTrue(foreign > 0 && foreign <= sent, "foreign " + foreign + ", sent " + sent + log());
        assertEquals(0.0, value(agent, "twping_agent_packets_received_total", "protocol=\"stamp\",target=\"s\""));
        assertEquals(0.0, value(agent, "twping_agent_bad_replies_total", "protocol=\"stamp\",reason=\"foreign\",target=\"z\""));
        assertTrue(value(agent, "twping_agent_packets_received_total", "protocol=\"stamp\",target=\"z\"") > 0);
        assertEquals(1.0, value(agent, "twping_agent_target_up", "protocol=\"stamp\",target=\"z\""), log());
        // NTP both ways: no PTP offset series
        assertFalse(text(agent).contains("twping_agent_ptp_tai_offset_seconds{"), text(agent));
    }

    private static double failures(AgentCommand agent, String labels) {
        try {
            return value(agent, "twping_agent_session_failures_total", labels);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static final class Relay implements AutoCloseable {
        private final DatagramSocket front;
        private final DatagramSocket back;
        private final ConcurrentLinkedDeque<byte[]> requests = new ConcurrentLinkedDeque<>();
        private volatile SocketAddress client;
        private volatile int lastReply = -1;
        /** What the relay does to each reply before passing it on (a faulty reflector); none by default. */
        private volatile java.util.function.UnaryOperator<byte[]> replyChange = r -> r;
        private volatile boolean closed;
        private final Thread up;
        private final Thread down;

        Relay(InetSocketAddress reflector) throws IOException {
            InetAddress bind = reflector.getAddress();
            front = new DatagramSocket(new InetSocketAddress(bind, 0));
            back = new DatagramSocket(new InetSocketAddress(bind, 0));
            back.connect(reflector);
            front.setSoTimeout(100);
            back.setSoTimeout(100);
            up = Thread.ofPlatform().daemon().name("relay-up").start(() -> pump(front, true));
            down = Thread.ofPlatform().daemon().name("relay-down").start(() -> pump(back, false));
        }

        int port() {
            return front.getLocalPort();
        }

        /** @return the newest kept request that matches, or null */
        byte[] last(Predicate<byte[]> match) {
            for (var it = requests.descendingIterator(); it.hasNext(); ) {
                byte[] p = it.next();
                if (match.test(p)) {
                    return p;
                }
            }
            return null;
        }

        Relay changingReplies(java.util.function.UnaryOperator<byte[]> change) {
            replyChange = change;
            return this;
        }

        /** @return the length of the last reply relayed, -1 before the first */
        int lastReply() {
            return lastReply;
        }

        private void pump(DatagramSocket from, boolean request) {
            byte[] buffer = new byte[65_536];
            DatagramPacket p = new DatagramPacket(buffer, buffer.length);
            while (!closed) {
                try {
                    p.setLength(buffer.length);
                    from.receive(p);
                    byte[] data = Arrays.copyOf(p.getData(), p.getLength());
                    if (request) {
                        client = p.getSocketAddress();
                        requests.addLast(data);
                        while (requests.size() > 64) {
                            requests.pollFirst();
                        }
                        back.send(new DatagramPacket(data, data.length));
                    } else if (client != null) {
                        data = replyChange.apply(data);
                        lastReply = data.length;
                        front.send(new DatagramPacket(data, data.length, client));
                    }
                } catch (SocketTimeoutException e) {
                    // look at closed again
                } catch (IOException e) {
                    if (!closed) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        }

        @Override
        public void close() throws InterruptedException {
            closed = true;
            up.join(5_000);
            down.join(5_000);
            front.close();
            back.close();
        }
    }
}
