package io.github.twping.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.github.twping.crypto.ControlCipher;
import io.github.twping.fuzz.FuzzDetectors;
import io.github.twping.fuzz.FuzzSeeds;
import io.github.twping.protocol.AcceptSession;
import io.github.twping.protocol.Mode;
import io.github.twping.protocol.ServerGreeting;
import io.github.twping.protocol.ServerStart;
import io.github.twping.protocol.SetUpResponse;
import io.github.twping.protocol.StartAck;
import io.github.twping.testdata.RecordedVectors;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz (Jazzer, coverage-guided): {@link ControlClient} reading a server's messages (greeting, Server-Start,
 * Accept-Session, Start-Ack) in all four modes. A loopback peer plays the server from the input and closes; the
 * client must fail with a {@link ControlException} carrying a one-line message or succeed, never throw anything
 * else, within its timeouts.
 *
 * <p>Input: a selector byte, whose low four bits are the modes the client requests (0: Open), then the
 * server's plaintext: the 64-byte Server-Greeting (modes, challenge, salt, count), the 48-byte Server-Start,
 * the 48-byte Accept-Session and the 32-byte Start-Ack, then anything (sent as it is). The client has the
 * identity {@code alice} of the recorded configuration ({@code server-config/alice.pfs}) and a fixed source
 * of randomness (the session keys and Client-IV recorded in {@code auth-crypto-verify.txt}), so the peer
 * knows the keys the client put in its Token: in the protected modes (the mode the client chooses from the
 * greeting, RFC 4656 §3.1) and when the Server-Start accepts, the peer encrypts the Server-Start's last
 * block and the later messages and seals their HMACs as a server does (RFC 4656 §3.4, RFC 5357 §3), then
 * XORs the input's 16 HMAC bytes into each sealed HMAC block: zero bytes give a valid message, any other
 * value a corrupted one. So the fuzzer reaches the client's parsing of authenticated messages (accept
 * codes, port, SID) and its HMAC checks. A message the input holds only in part is sent as it is.
 *
 * <p>Seeds: the server messages recorded from C twampd 5.2.3 in the four modes, decrypted with the keys
 * recorded for each session (their HMACs checked, then zeroed). A plain test (run with the unit tests) checks
 * that each seed takes the client through the whole set-up and that a flipped HMAC bit is refused.
 */
@Tag("fuzz-control-client")
class ControlClientFuzzTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int BLOCK = 16;
    private static final int START = ServerGreeting.LENGTH;
    private static final int ACCEPT = START + ServerStart.LENGTH;
    private static final int ACK = ACCEPT + AcceptSession.LENGTH;
    private static final int END = ACK + StartAck.LENGTH;
    /** Keeps PBKDF2 per input cheap (the recorded servers use 2,048); larger counts are refused. */
    private static final int MAX_COUNT = 4096;

    private static ServerSocket listener;
    private static byte[] identity;
    private static byte[] passphrase;
    private static RecordedKeys clientKeys;

    /** The keys and Client-IV a recorded client drew: AES (16), HMAC (32), IV (16). */
    record RecordedKeys(byte[] aes, byte[] hmac, byte[] clientIv) {
        static RecordedKeys of(String vector) {
            String text = text(vector + "-crypto-verify.txt");
            return new RecordedKeys(hex(text, "aes_session_key"), hex(text, "hmac_key"), hex(text, "client_iv"));
        }

        byte[] randomBytes() {
            byte[] all = new byte[aes.length + hmac.length + clientIv.length];
            System.arraycopy(aes, 0, all, 0, aes.length);
            System.arraycopy(hmac, 0, all, aes.length, hmac.length);
            System.arraycopy(clientIv, 0, all, aes.length + hmac.length, clientIv.length);
            return all;
        }
    }

    /** The client's randomness: the recorded keys, in the order the client draws them, over and over. */
    private static final class ReplayedRandom extends SecureRandom {
        private final byte[] bytes;
        private int next;

        ReplayedRandom(byte[] bytes) {
            this.bytes = bytes.clone();
        }

        @Override
        public synchronized void nextBytes(byte[] out) {
            for (int i = 0; i < out.length; i++) {
                out[i] = bytes[next];
                next = (next + 1) % bytes.length;
            }
        }
    }

    static Stream<Arguments> recordedServerStreams() {
        return Stream.of("open", "auth", "enc", "mixed").map(v -> {
            byte[] recorded = FuzzSeeds.controlStream(v, "S->C");
            int mode = new SetUpResponse().wrap(MemorySegment.ofArray(setUpResponse(v))).mode();
            byte[] plain = Mode.fromBits(mode).protectsControl() ? decrypt(recorded, RecordedKeys.of(v))
                    : recorded;
            return FuzzSeeds.seed(v + " S->C, plaintext", mode, plain);
        });
    }

    @BeforeAll
    static void listen() throws IOException {
        listener = new ServerSocket(0, 50, LOOPBACK);
        String[] pfs = text("server-config/alice.pfs").trim().split("\\s+");
        identity = pfs[0].getBytes(StandardCharsets.US_ASCII);
        passphrase = HexFormat.of().parseHex(pfs[1]);
        clientKeys = RecordedKeys.of("auth");
    }

    @AfterAll
    static void close() throws IOException {
        listener.close();
    }

    @MethodSource("recordedServerStreams")
    @FuzzTest
    void failCleanlyOrSucceed(byte[] input) throws InterruptedException {
        FuzzDetectors.allowLoopback();
        ControlException failure = run(input);
        if (failure != null) {
            checkOneLine(failure, input);
        }
    }

    @Test
    void shouldCompleteTheRecordedSessionsOfEveryModeAndRefuseACorruptedHmac() throws InterruptedException {
        List<Arguments> seeds = recordedServerStreams().toList();
        assertEquals(4, seeds.size());
        for (Arguments seed : seeds) {
            @SuppressWarnings("unchecked")
            Named<byte[]> named = (Named<byte[]>) seed.get()[0];
            byte[] input = named.getPayload();
            ControlException failure = run(input);
            assertNull(failure, () -> named.getName() + ": " + failure.getMessage());
            if (Mode.fromBits(input[0]).protectsControl()) {
                byte[] corrupted = input.clone();
                corrupted[1 + ACCEPT + AcceptSession.HMAC_OFFSET + 3] ^= 0x40;
                ControlException refused = run(corrupted);
                assertEquals("Invalid HMAC in Accept-Session message", refused == null ? null : refused.getMessage(),
                        named.getName());
                byte[] ack = input.clone();
                ack[1 + ACK + StartAck.HMAC_OFFSET] ^= 1;
                ControlException refusedAck = run(ack);
                assertEquals("_OWPReadStartAck: Invalid HMAC", refusedAck == null ? null : refusedAck.getMessage(),
                        named.getName());
            }
        }
    }

    /** Plays the server of {@code input} to a client; @return the client's failure, or null when it succeeded. */
    private static ControlException run(byte[] input) throws InterruptedException {
        int requested = FuzzSeeds.selector(input, 16);
        requested = requested == 0 ? Mode.OPEN.bits() : requested;
        byte[] server = serverStream(FuzzSeeds.payload(input), requested);
        Thread peer = Thread.ofVirtual().start(() -> {
            try (Socket s = listener.accept()) {
                s.getOutputStream().write(server);
                s.shutdownOutput();
                s.setSoTimeout(10_000);
                s.getInputStream().skip(Long.MAX_VALUE);
            } catch (IOException ignored) {
                // the client closed or reset: expected
            }
        });
        long t0 = System.nanoTime();
        ControlException failure = null;
        try (ControlClient c = ControlClient.connect(ControlClientOptions.of(LOOPBACK.getHostAddress(),
                        listener.getLocalPort()).requestedModes(requested).identity(identity, passphrase)
                .random(new ReplayedRandom(clientKeys.randomBytes())).maxPbkdf2Count(MAX_COUNT)
                .readTimeoutMs(3000).connectTimeoutMs(3000))) {
            long now = NtpTime.fromEpochNanos(WallClock.system().nowEpochNs());
            c.requestSession(SessionRequest.forTwping(4, LOOPBACK, 40000, LOOPBACK, 0, 0, now, NtpTime.ONE_SECOND, 0));
            c.startSessions();
            c.stopSessions(0);
        } catch (ControlException e) {
            failure = e;
        }
        if (System.nanoTime() - t0 > TimeUnit.SECONDS.toNanos(60)) {
            throw new AssertionError("client not bounded by its timeouts\n" + FuzzSeeds.show(input));
        }
        if (!peer.join(Duration.ofSeconds(30))) {
            throw new AssertionError("peer did not end\n" + FuzzSeeds.show(input));
        }
        return failure;
    }

    /** The failure is what twping prints: a message, lines without line breaks, no stack frame. */
    private static void checkOneLine(ControlException e, byte[] input) {
        String message = e.getMessage();
        if (message == null || message.isEmpty()) {
            throw new AssertionError("a failure without a message\n" + FuzzSeeds.show(input), e);
        }
        for (String line : Stream.concat(Stream.of(message), e.lines().stream()).toList()) {
            if (line.isEmpty() || line.indexOf('\n') >= 0 || line.indexOf('\r') >= 0 || line.contains("\tat ")) {
                throw new AssertionError("not one line: [" + line + "]\n" + FuzzSeeds.show(input), e);
            }
        }
    }

    /**
     * The bytes the peer sends: the input's messages, the protected parts encrypted and sealed with the keys
     * the client drew when the client's mode protects the control connection and the Server-Start accepts.
     */
    static byte[] serverStream(byte[] plain, int requested) {
        byte[] out = plain.clone();
        if (out.length < ACCEPT) {
            return out;                                         // no complete Server-Start: nothing to seal
        }
        ServerGreeting greeting = new ServerGreeting().wrap(MemorySegment.ofArray(out).asSlice(0, ServerGreeting.LENGTH));
        Mode mode = Mode.choose(greeting.modes() & requested);
        boolean accepted = out[START + ServerStart.ACCEPT_OFFSET] == 0;
        if (mode == null || !mode.protectsControl() || !accepted) {
            return out;                                         // the client's cipher stays Open
        }
        byte[] serverIv = Arrays.copyOfRange(out, START + ServerStart.SERVER_IV_OFFSET,
                START + ServerStart.SERVER_IV_OFFSET + ServerStart.SERVER_IV_LENGTH);
        MemorySegment s = MemorySegment.ofArray(out);
        try (ControlCipher cipher = ControlCipher.protectedMode(clientKeys.aes(), clientKeys.hmac(), serverIv,
                clientKeys.clientIv())) {
            cipher.encrypt(s, START + ServerStart.PROTECTED_OFFSET, BLOCK);
            seal(cipher, out, ACCEPT, AcceptSession.HMAC_OFFSET);
            seal(cipher, out, ACK, StartAck.HMAC_OFFSET);
        }
        return out;
    }

    /** Encrypts one complete message at {@code at} and seals its HMAC, XORed with the input's HMAC bytes. */
    private static void seal(ControlCipher cipher, byte[] out, int at, int hmacOffset) {
        if (out.length < at + hmacOffset + ControlCipher.HMAC_LENGTH) {
            return;
        }
        byte[] flip = Arrays.copyOfRange(out, at + hmacOffset, at + hmacOffset + ControlCipher.HMAC_LENGTH);
        MemorySegment s = MemorySegment.ofArray(out);
        cipher.encrypt(s, at, hmacOffset);
        cipher.sealHmac(s, at + hmacOffset);
        for (int i = 0; i < flip.length; i++) {
            out[at + hmacOffset + i] ^= flip[i];
        }
    }

    /**
     * A recorded protected-mode server stream decrypted with the client's recorded keys (the HMACs verified,
     * then zeroed: "valid" in the input's terms).
     */
    static byte[] decrypt(byte[] recorded, RecordedKeys keys) {
        if (recorded.length < END) {
            throw new AssertionError("recorded server stream too short: " + recorded.length);
        }
        byte[] plain = recorded.clone();
        byte[] serverIv = Arrays.copyOfRange(plain, START + ServerStart.SERVER_IV_OFFSET,
                START + ServerStart.SERVER_IV_OFFSET + ServerStart.SERVER_IV_LENGTH);
        MemorySegment s = MemorySegment.ofArray(plain);
        try (ControlCipher client = ControlCipher.protectedMode(keys.aes(), keys.hmac(), keys.clientIv(), serverIv)) {
            client.decrypt(s, START + ServerStart.PROTECTED_OFFSET, BLOCK);
            for (int[] message : new int[][] {{ACCEPT, AcceptSession.HMAC_OFFSET}, {ACK, StartAck.HMAC_OFFSET}}) {
                client.decrypt(s, message[0], message[1]);
                if (!client.verifyHmac(s, message[0] + message[1])) {
                    throw new AssertionError("recorded message at " + message[0] + ": HMAC does not verify");
                }
                Arrays.fill(plain, message[0] + message[1], message[0] + message[1] + ControlCipher.HMAC_LENGTH,
                        (byte) 0);
            }
        }
        return Arrays.copyOf(plain, END);
    }

    private static byte[] setUpResponse(String vector) {
        for (FuzzSeeds.Segment segment : FuzzSeeds.controlSegments(vector)) {
            if (segment.direction().equals("C->S") && segment.data().length == SetUpResponse.LENGTH) {
                return segment.data();
            }
        }
        throw new AssertionError(vector + ": no Set-Up-Response recorded");
    }

    private static byte[] hex(String text, String key) {
        Matcher m = Pattern.compile("\\b" + key + "=([0-9a-f]+)").matcher(text);
        if (!m.find()) {
            throw new AssertionError("no " + key + " in the recorded crypto check");
        }
        return HexFormat.of().parseHex(m.group(1));
    }

    private static String text(String name) {
        try {
            return Files.readString(RecordedVectors.file(name), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new AssertionError("cannot read " + name + ": " + e.getMessage());
        }
    }
}
