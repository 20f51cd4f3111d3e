package io.github.twping.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Replies the client cannot use, counted and said (issue 26, item 14): a fake reflector on a loopback socket of this
 * test answers TWAMP-Light with 38-octet replies (twampy's reflector; RFC 5357 §4.2.1 needs 41), and STAMP with
 * replies whose TLV area runs past the datagram. The stderr line after the summary, the {@code --exact} block and
 * {@code bad_replies} in {@code --json} (valid against docs/twping-result.schema.json) say so.
 */
class BadRepliesCliTest {
    @TempDir
    Path dir;

    /** Runs twping against a fake reflector answering each request with {@code reply.apply(request)}. */
    private String[] run(String flag, List<String> options, Function<byte[], byte[]> reply) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger answered = new AtomicInteger();
        try (DatagramSocket reflector = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            reflector.setSoTimeout(50);
            Thread t = Thread.ofPlatform().name("fake-reflector").start(() -> {
                byte[] buffer = new byte[2048];
                while (!stop.get()) {                    // ends with the test: stop is set in finally
                    DatagramPacket p = new DatagramPacket(buffer, buffer.length);
                    try {
                        reflector.receive(p);
                        byte[] r = reply.apply(java.util.Arrays.copyOf(buffer, p.getLength()));
                        reflector.send(new DatagramPacket(r, r.length, p.getSocketAddress()));
                        answered.incrementAndGet();
                    } catch (SocketTimeoutException e) {
                        // look at stop again
                    } catch (java.io.IOException e) {
                        return;
                    }
                }
            });
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            List<String> args = new ArrayList<>(options);
            args.add(flag);
            args.add("127.0.0.1:" + reflector.getLocalPort());
            int status;
            try {
                status = Twping.create(args, "twping", new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8), new ByteArrayInputStream(new byte[0]),
                        Map.of("TMPDIR", dir.toString())).run();
            } finally {
                stop.set(true);
                t.join(10_000);
            }
            assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
            assertTrue(answered.get() > 0, "the fake reflector answered");
            return new String[] {out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
        }
    }

    @Test
    void shortTwampLightRepliesAreCountedAndSaid() throws Exception {
        Path json = dir.resolve("r.json");
        String[] r = run("--light", List.of("-c", "5", "-i", "0.01f", "-L", "1", "--exact", "--json", json.toString()),
                request -> new byte[38]);
        assertTrue(r[0].contains("5 sent, 5 lost (100.000%)"), r[0]);
        assertTrue(r[1].contains("twping: 5 replies were not used (5 shorter than the 41 octets of a reply);"
                + " packets without another reply count as lost\n"), r[1]);
        assertTrue(r[0].contains("\nreplies not used: shorter than 41 octets 5, failed HMAC 0, of another session 0\n"),
                r[0]);
        JsonNode doc = new ObjectMapper().readTree(Files.readString(json));
        JsonNode bad = doc.get("bad_replies");
        assertEquals(41, bad.get("minimum_length").asInt());
        assertEquals(5, bad.get("too_short").asLong());
        assertEquals(0, bad.get("bad_hmac").asLong() + bad.get("foreign").asLong() + bad.get("malformed").asLong());
        assertValid(Files.readString(json));
    }

    @Test
    void malformedStampRepliesAreCountedAndUsed() throws Exception {
        Path json = dir.resolve("s.json");
        String[] r = run("--stamp", List.of("-c", "4", "-i", "0.01f", "-L", "1", "--json", json.toString()),
                BadRepliesCliTest::stampReplyWithABrokenTlv);
        assertTrue(r[0].contains("4 sent, 0 lost (0.000%)"), r[0]);
        assertTrue(r[1].contains("twping: 4 replies had a malformed TLV area (used)\n"), r[1]);
        assertFalse(r[1].contains("were not used"), r[1]);
        JsonNode bad = new ObjectMapper().readTree(Files.readString(json)).get("bad_replies");
        assertEquals(44, bad.get("minimum_length").asInt());
        assertEquals(4, bad.get("malformed").asLong());
        assertEquals(0, bad.get("too_short").asLong());
        assertValid(Files.readString(json));
    }

    @Test
    void goodRepliesGiveNoLine() throws Exception {
        String[] r = run("--stamp", List.of("-c", "3", "-i", "0.01f", "-L", "1"),
                request -> java.util.Arrays.copyOf(stampReplyWithABrokenTlv(request), 44));
        assertTrue(r[0].contains("3 sent, 0 lost (0.000%)"), r[0]);
        assertFalse(r[1].contains("replies"), r[1]);
    }

    /**
     * RFC 8972 §3: with {@code --ssid 7} the sender takes only replies carrying SSID 7. A reflector answering with
     * SSID 8 (odd packets) has those replies counted as of another session and their packets lost; the replies with
     * SSID 7 are used. Before, every reply was matched by its sequence number alone: 6 sent, 0 lost.
     */
    @Test
    void stampRepliesWithAnotherSsidAreNotUsed() throws Exception {
        Path json = dir.resolve("ssid.json");
        String[] r = run("--stamp", List.of("-c", "6", "-i", "0.01f", "-L", "1", "--ssid", "7", "--exact", "--json",
                json.toString()), request -> {
                    byte[] reply = java.util.Arrays.copyOf(stampReplyWithABrokenTlv(request), 44);
                    int seq = ByteBuffer.wrap(request).getInt(0);
                    int requestSsid = ByteBuffer.wrap(request).getShort(14) & 0xffff;
                    ByteBuffer.wrap(reply).putShort(14, (short) (seq % 2 == 0 ? requestSsid : requestSsid + 1));
                    return reply;
                });
        assertTrue(r[0].contains("6 sent, 3 lost (50.000%)"), r[0]);
        assertTrue(r[1].contains("twping: 3 replies were not used (3 of another session (SSID or Micro-session ID));"
                + " packets without another reply count as lost\n"), r[1]);
        assertTrue(r[0].contains("\nreplies not used: shorter than 44 octets 0, failed HMAC 0, of another session 3\n"),
                r[0]);
        JsonNode bad = new ObjectMapper().readTree(Files.readString(json)).get("bad_replies");
        assertEquals(3, bad.get("foreign").asLong());
        assertEquals(0, bad.get("too_short").asLong() + bad.get("bad_hmac").asLong() + bad.get("malformed").asLong());
        assertValid(Files.readString(json));
    }

    @Test
    void stampRepliesWithOurSsidAreUsed() throws Exception {
        String[] r = run("--stamp", List.of("-c", "3", "-i", "0.01f", "-L", "1", "--ssid", "7"), request -> {
            byte[] reply = java.util.Arrays.copyOf(stampReplyWithABrokenTlv(request), 44);
            ByteBuffer.wrap(reply).putShort(14, ByteBuffer.wrap(request).getShort(14));
            return reply;
        });
        assertTrue(r[0].contains("3 sent, 0 lost (0.000%)"), r[0]);
        assertFalse(r[1].contains("replies"), r[1]);
    }

    /**
     * An unauthenticated STAMP reply (RFC 8762 §4.3.1) to {@code request}, then a TLV header whose length runs past
     * the datagram.
     */
    private static byte[] stampReplyWithABrokenTlv(byte[] request) {
        ByteBuffer q = ByteBuffer.wrap(request);
        ByteBuffer b = ByteBuffer.allocate(48);
        b.putInt(0, q.getInt(0)).putLong(4, q.getLong(4)).putShort(12, (short) 0x8105).putLong(16, q.getLong(4))
                .putInt(24, q.getInt(0)).putLong(28, q.getLong(4)).putShort(36, q.getShort(12)).put(40, (byte) 255);
        b.put(44, (byte) 0).put(45, (byte) 1).putShort(46, (short) 16);     // Extra Padding of 16 octets: absent
        return b.array();
    }

    private static void assertValid(String document) {
        Path root = Path.of("").toAbsolutePath();
        while (root != null && !Files.isRegularFile(root.resolve("docs/twping-result.schema.json"))) {
            root = root.getParent();
        }
        assertTrue(root != null, "docs/twping-result.schema.json not found");
        try {
            Schema schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
                    .getSchema(Files.readString(root.resolve("docs/twping-result.schema.json")), InputFormat.JSON);
            assertTrue(schema.validate(document, InputFormat.JSON).isEmpty(),
                    () -> schema.validate(document, InputFormat.JSON).toString());
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }
}
