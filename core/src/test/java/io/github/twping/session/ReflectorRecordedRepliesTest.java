package io.github.twping.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.twping.crypto.TestSessionKeys;
import io.github.twping.protocol.Mode;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import io.github.twping.testdata.RecordedVectors;

/**
 * Replays the sender packets recorded from C twping 5.2.3 (vectors {@code *-test-udp.tsv}) into our
 * reflector and compares each reply with the one the C twampd sent: length, reflector sequence number,
 * echoed sender fields, Sender TTL and padding must be equal; only the reflector's own timestamps differ.
 * A/E use the recorded test keys ({@code *-crypto-verify.txt}).
 */
class ReflectorRecordedRepliesTest {
    private static final Pattern KEYS = Pattern.compile("test aes key=([0-9a-f]{32}) test hmac key=([0-9a-f]{64})");

    private record Datagram(int srcPort, int dstPort, int ttl, byte[] data) {
    }

    private static Path vectors() {
        return RecordedVectors.dir();
    }

    private static List<Datagram> datagrams(Path tsv) throws Exception {
        List<Datagram> out = new ArrayList<>();
        for (String line : Files.readAllLines(tsv)) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            String[] f = line.split("\t");
            out.add(new Datagram(Integer.parseInt(f[1]), Integer.parseInt(f[2]), Integer.parseInt(f[3]),
                    HexFormat.of().parseHex(f[5])));
        }
        return out;
    }

    @ParameterizedTest
    @CsvSource({"open, 1", "auth, 2", "enc, 4", "mixed, 8"})
    void shouldAnswerRecordedSenderPacketsAsCTwampdDid(String name, int mode) throws Exception {
        Path dir = vectors();
        List<Datagram> all = datagrams(dir.resolve(name + "-test-udp.tsv"));
        int senderPort = all.get(0).srcPort();
        byte[] aes = new byte[16];
        byte[] hmac = new byte[32];
        TestSessionKeys keys = null;
        if (mode == 2 || mode == 4) {
            Matcher m = KEYS.matcher(Files.readString(dir.resolve(name + "-crypto-verify.txt")));
            assertTrue(m.find(), "recorded test keys");
            aes = HexFormat.of().parseHex(m.group(1));
            hmac = HexFormat.of().parseHex(m.group(2));
            keys = TestSessionKeys.of(aes, hmac);
        }
        List<Datagram> requests = all.stream().filter(d -> d.srcPort() == senderPort).toList();
        List<Datagram> replies = all.stream().filter(d -> d.dstPort() == senderPort).toList();
        assertEquals(requests.size(), replies.size(), "one C reply per request in the recording");
        int header = (mode == 2 || mode == 4) ? 48 : 14;
        int padding = requests.get(0).data().length - header;
        InetSocketAddress sender = new InetSocketAddress(InetAddress.getLoopbackAddress(), senderPort);

        ScriptedReflectorSocket socket = new ScriptedReflectorSocket();
        try (SessionReflector reflector = new SessionReflector(
                new ReflectorSessionSpec(Mode.fromBits(mode), sender, padding, 0, keys), socket, null, null);
             HandBuiltSender opener = new HandBuiltSender(mode, aes, hmac)) {
            for (Datagram d : requests) {
                socket.offer(d.data(), sender, d.ttl());
            }
            reflector.start();
            for (int i = 0; i < requests.size(); i++) {
                byte[] ours = socket.awaitSent(TimeUnit.SECONDS.toNanos(5));
                assertTrue(ours != null, "reply " + i);
                HandBuiltSender.Reply mine = opener.open(ours);
                HandBuiltSender.Reply theirs = opener.open(replies.get(i).data());
                assertTrue(theirs.hmacOk(), "recorded reply " + i + " verifies with the recorded keys");
                assertTrue(mine.hmacOk(), "our reply " + i + " verifies");
                assertEquals(theirs.length(), mine.length(), "length of reply " + i);
                assertEquals(theirs.reflectorSeq(), mine.reflectorSeq(), "reflector seq " + i);
                assertEquals(theirs.senderSeq(), mine.senderSeq(), "sender seq " + i);
                assertEquals(theirs.senderNtp(), mine.senderNtp(), "sender timestamp " + i);
                assertEquals(theirs.senderError(), mine.senderError(), "sender error estimate " + i);
                assertEquals(theirs.senderTtl(), mine.senderTtl(), "sender TTL " + i);
                assertArrayEquals(theirs.padding(), mine.padding(), "padding " + i);
            }
            reflector.stop();
            assertTrue(reflector.awaitEnd(TimeUnit.SECONDS.toNanos(5)));
            assertEquals(requests.size(), reflector.reflected());
            assertEquals(0, reflector.badHmac());
        }
    }
}
