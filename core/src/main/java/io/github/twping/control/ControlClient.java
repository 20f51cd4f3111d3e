package io.github.twping.control;

import io.github.twping.crypto.ControlCipher;
import io.github.twping.net.AddressText;
import io.github.twping.crypto.KeyDerivation;
import io.github.twping.crypto.Token;
import io.github.twping.protocol.AcceptCode;
import io.github.twping.protocol.AcceptSession;
import io.github.twping.protocol.Mode;
import io.github.twping.protocol.RequestTwSession;
import io.github.twping.protocol.ServerGreeting;
import io.github.twping.protocol.ServerStart;
import io.github.twping.protocol.SetUpResponse;
import io.github.twping.protocol.StartAck;
import io.github.twping.protocol.StartSessions;
import io.github.twping.protocol.StopSessions;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.function.BiFunction;
import java.util.List;
import java.math.BigDecimal;

/**
 * Client side of one TWAMP-Control connection, as twping drives it (RFC 5357 §3): connect and
 * set up ({@link #connect}), {@link #requestSession}, {@link #startSessions}, then
 * {@link #awaitActivity} while the test runs, {@link #stopSessions} and {@link #close}.
 *
 * <p>Every failure is a {@link ControlException} with the C messages. Blocking; the set-up and
 * session methods are meant for one thread, {@link #awaitActivity} for a watcher thread (or polling)
 * and {@link #close} for any thread.
 */
public final class ControlClient implements AutoCloseable {
    private byte[] sessionAesKey;
    private byte[] sessionHmacKey;

    private static final int BLOCK = 16;

    private final ControlStream stream;
    private final Mode mode;
    private final ControlCipher cipher;
    private final long rttBoundNtp;
    private final long serverStartTimeNtp;
    private final int readTimeoutMs;
    private final String serverIp;
    private final byte[] buffer = new byte[RequestTwSession.LENGTH];
    private final MemorySegment segment = MemorySegment.ofArray(buffer);
    private final RequestTwSession request = new RequestTwSession();
    private final AcceptSession acceptSession = new AcceptSession();
    private final StartSessions startSessions = new StartSessions();
    private final StartAck startAck = new StartAck();
    private final StopSessions stopSessions = new StopSessions();
    private int sessionCount;
    private volatile ControlCancellation cancellation;

    private ControlClient(ControlStream stream, Mode mode, ControlCipher cipher, long rttBoundNtp,
                          long serverStartTimeNtp, int readTimeoutMs, String serverIp) {
        this.stream = stream;
        this.mode = mode;
        this.cipher = cipher;
        this.rttBoundNtp = rttBoundNtp;
        this.serverStartTimeNtp = serverStartTimeNtp;
        this.readTimeoutMs = readTimeoutMs;
        this.serverIp = serverIp;
    }

    /**
     * Connects, reads the Server-Greeting, chooses the mode, sends the Set-Up-Response and reads the
     * Server-Start (RFC 4656 §3.1).
     *
     * @throws ControlException with stage {@link ControlStage#OPEN_CONNECTION} on any failure
     */
    public static ControlClient connect(ControlClientOptions options) throws ControlException {
        Socket socket = openSocket(options);
        boolean open = false;
        try {
            ControlClient client = connectOn(socket, options);
            // the cancellation stays armed for the session request and start (docs/CLI.md, signals)
            client.cancellation = options.cancellation;
            open = true;
            return client;
        } finally {
            if (!open && options.cancellation != null) {
                options.cancellation.release(socket);
            }
        }
    }

    /**
     * Ends the part of the run a cancellation aborts by closing the connection (connect to Start-Ack): from
     * now on a cancelled run still sends Stop-Sessions, so the connection must stay open. Idempotent.
     */
    public void endCancellableSetUp() {
        ControlCancellation c = cancellation;
        if (c != null) {
            c.release(stream.socket());
            cancellation = null;
        }
    }

    private static ControlClient connectOn(Socket socket, ControlClientOptions options) throws ControlException {
        ControlStream stream;
        try {
            socket.setTcpNoDelay(true);
            stream = new ControlStream(socket);
        } catch (IOException e) {
            closeQuietly(socket);
            throw new ControlException(ControlStage.OPEN_CONNECTION, ControlException.NO_ACCEPT_CODE, List.of(), e);
        }
        try {
            return setUp(stream, options);
        } catch (ControlException e) {
            stream.close();
            throw e;
        }
    }

    private static ControlClient setUp(ControlStream stream, ControlClientOptions o) throws ControlException {
        int timeout = o.readTimeoutMs;
        byte[] greetingBytes = new byte[ServerGreeting.LENGTH];
        try {
            stream.readFully(greetingBytes, 0, greetingBytes.length, timeout);
        } catch (IOException e) {
            throw fail(ControlStage.OPEN_CONNECTION, e, "Read failed: (" + reason(o, e) + ")",
                    timedOut(e, timeout, "the Server-Greeting"));
        }
        ServerGreeting greeting = new ServerGreeting().wrap(MemorySegment.ofArray(greetingBytes));
        boolean keyed = o.identity != null && o.passphrase != null;
        int available = greeting.modes() & o.requestedModes;
        if (!keyed) {
            available = Mode.withoutKeyedModes(available);
        }
        Mode mode = Mode.choose(available);
        if (mode == null) {
            throw ControlException.open("OWPControlOpen: No Common Modes");
        }
        byte[] setUpBytes = new byte[SetUpResponse.LENGTH];
        SetUpResponse setUp = new SetUpResponse().wrap(MemorySegment.ofArray(setUpBytes)).clear().mode(mode.bits());
        byte[] aesKey = new byte[Token.AES_KEY_LENGTH];
        byte[] hmacKey = new byte[Token.HMAC_KEY_LENGTH];
        byte[] clientIv = new byte[BLOCK];
        long t0;
        try {
            if (mode.protectsControl()) {
                long count = greeting.count();
                if (count < 1 || count > o.maxPbkdf2Count) {
                    // Deliberate deviation: C does not validate Count; a hostile server's 2^31 would cost minutes
                    // of CPU in PBKDF2. RFC 5357 §6: the client may close when Count exceeds its maximum.
                    throw ControlException.open("OWPControlOpen: Invalid PBKDF2 count " + count);
                }
                // Only the keyed modes draw random bytes here (session keys, Client-IV): the open mode creates no
                // SecureRandom, whose first use starts the JDK's security providers (docs/CLIENT.md, "Start-up").
                SecureRandom random = o.random != null ? o.random : new SecureRandom();
                random.nextBytes(aesKey);
                random.nextBytes(hmacKey);
                random.nextBytes(clientIv);
                byte[] salt = new byte[ServerGreeting.SALT_LENGTH];
                byte[] challenge = new byte[ServerGreeting.CHALLENGE_LENGTH];
                greeting.copySaltTo(salt).copyChallengeTo(challenge);
                byte[] dk = KeyDerivation.pbkdf2HmacSha1(o.passphrase, salt, (int) count);
                byte[] token = Token.seal(dk, challenge, aesKey, hmacKey);
                Arrays.fill(dk, (byte) 0);
                setUp.keyId(o.identity).token(token).clientIv(clientIv);
            }
            t0 = System.nanoTime();
            try {
                stream.write(setUpBytes, 0, setUpBytes.length);
            } catch (IOException e) {
                throw fail(ControlStage.OPEN_CONNECTION, e, "Write failed: (" + reason(o, e) + ")", null);
            }
            Arrays.fill(setUpBytes, (byte) 0);

            byte[] startBytes = new byte[ServerStart.LENGTH];
            try {
                stream.readFully(startBytes, 0, ServerStart.CLEAR_LENGTH, timeout);
            } catch (IOException e) {
                throw fail(ControlStage.OPEN_CONNECTION, e, "Read failed:(" + reason(o, e) + ")",
                        timedOut(e, timeout, "the Server-Start"));
            }
            MemorySegment startSegment = MemorySegment.ofArray(startBytes);
            ServerStart start = new ServerStart().wrap(startSegment);
            int accept = start.accept();
            if (!AcceptCode.isValid(accept)) {
                throw ControlException.open("GetAcceptType:Invalid val " + accept);
            }
            ControlCipher cipher = ControlCipher.open();
            if (accept == AcceptCode.ACCEPT.code() && mode.protectsControl()) {
                byte[] serverIv = new byte[BLOCK];
                start.copyServerIvTo(serverIv);
                cipher = ControlCipher.protectedMode(aesKey, hmacKey, clientIv, serverIv);
            }
            try {
                stream.readFully(startBytes, ServerStart.PROTECTED_OFFSET, BLOCK, timeout);
            } catch (IOException e) {
                cipher.close();
                throw fail(ControlStage.OPEN_CONNECTION, e, "_OWPReadServerStart: Unable to read from socket.");
            }
            cipher.decrypt(startSegment, ServerStart.PROTECTED_OFFSET, BLOCK);
            String serverIp = AddressText.numeric(stream.socket().getInetAddress());
            if (accept != AcceptCode.ACCEPT.code()) {
                cipher.close();
                throw new ControlException(ControlStage.OPEN_CONNECTION, accept,
                        List.of("Server denied access: " + serverIp));
            }
            long rttBoundNtp = ControlTime.durationNsToNtp(System.nanoTime() - t0);
            ControlClient client =
                    new ControlClient(stream, mode, cipher, rttBoundNtp, start.startTimeNtp(), timeout, serverIp);
            if (mode.protectsControl()) {
                client.sessionAesKey = aesKey.clone();
                client.sessionHmacKey = hmacKey.clone();
            }
            return client;
        } finally {
            Arrays.fill(aesKey, (byte) 0);
            Arrays.fill(hmacKey, (byte) 0);
        }
    }

    /** @return the negotiated mode. */
    public Mode mode() {
        return mode;
    }

    /** @return t1 - t0 of the set-up (Set-Up-Response sent to Server-Start read) as Num64 (RFC 4656 §3.1 step 10). */
    public long rttBoundNtp() {
        return rttBoundNtp;
    }

    /** @return the Start-Time of the Server-Start (raw Num64; unused by twping). */
    public long serverStartTimeNtp() {
        return serverStartTimeNtp;
    }

    /** @return the local end of the control connection (the default test sender address). */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) stream.socket().getLocalSocketAddress();
    }

    /** @return the server end of the control connection. */
    public InetSocketAddress remoteAddress() {
        return (InetSocketAddress) stream.socket().getRemoteSocketAddress();
    }

    /** @return the numeric server address as twping prints it in "Server denied ..." lines. */
    public String serverIp() {
        return serverIp;
    }

    /**
     * Sends one Request-TW-Session and reads the Accept-Session (RFC 5357 §3.5).
     *
     * @return the acceptance (code 0) with the reflector port and SID
     * @throws ControlException stage {@link ControlStage#SESSION}; a refusal carries its accept code
     */
    public synchronized SessionAcceptance requestSession(SessionRequest sessionRequest) throws ControlException {
        sessionRequest.encode(request.wrap(segment));
        cipher.encrypt(segment, 0, RequestTwSession.HMAC_OFFSET);
        cipher.sealHmac(segment, RequestTwSession.HMAC_OFFSET);
        write(RequestTwSession.LENGTH, "_OWPWriteTestRequest: Unable to write to socket.");
        try {
            stream.readFully(buffer, 0, AcceptSession.LENGTH, readTimeoutMs);
        } catch (IOException e) {
            throw fail(ControlStage.SESSION, e, "_OWPReadAcceptSession:Unable to read from socket.",
                    timedOut(e, readTimeoutMs, "the Accept-Session"));
        }
        cipher.decrypt(segment, 0, AcceptSession.HMAC_OFFSET);
        if (!cipher.verifyHmac(segment, AcceptSession.HMAC_OFFSET)) {
            throw ControlException.session("Invalid HMAC in Accept-Session message");
        }
        acceptSession.wrap(segment);
        int accept = acceptSession.accept();
        if (!AcceptCode.isValid(accept)) {
            throw ControlException.session("GetAcceptType:Invalid val " + accept);
        }
        byte[] sid = new byte[AcceptSession.SID_LENGTH];
        acceptSession.copySidTo(sid);
        if (accept != AcceptCode.ACCEPT.code()) {
            throw new ControlException(ControlStage.SESSION, accept, List.of("Server denied test: " + serverIp));
        }
        sessionCount++;
        return new SessionAcceptance(accept, acceptSession.port(), sid);
    }

    /**
     * Sends Start-Sessions and reads the Start-Ack (RFC 5357 §3.7).
     *
     * @throws ControlException stage {@link ControlStage#SESSION}; Accept != 0 carries the code and no line
     */
    public synchronized void startSessions() throws ControlException {
        startSessions.wrap(segment).reset();
        cipher.encrypt(segment, 0, StartSessions.HMAC_OFFSET);
        cipher.sealHmac(segment, StartSessions.HMAC_OFFSET);
        write(StartSessions.LENGTH, "_OWPWriteStartSessions: Unable to write to socket.");
        try {
            stream.readFully(buffer, 0, StartAck.LENGTH, readTimeoutMs);
        } catch (IOException e) {
            throw fail(ControlStage.SESSION, e, "_OWPReadStartAck: Unable to read from socket.",
                    timedOut(e, readTimeoutMs, "the Start-Ack"));
        }
        cipher.decrypt(segment, 0, StartAck.HMAC_OFFSET);
        if (!cipher.verifyHmac(segment, StartAck.HMAC_OFFSET)) {
            throw ControlException.session("_OWPReadStartAck: Invalid HMAC");
        }
        int accept = startAck.wrap(segment).accept();
        if (!AcceptCode.isValid(accept)) {
            throw ControlException.session("GetAcceptType:Invalid val " + accept);
        }
        if (accept != AcceptCode.ACCEPT.code()) {
            throw new ControlException(ControlStage.SESSION, accept, List.of());
        }
    }

    /**
     * Sends Stop-Sessions (one 32-byte write) with the test outcome and the number of sessions
     * accepted since the last stop (1 for twping; RFC 5357 §3.8). No reply is expected.
     *
     * @param acceptCode 0 when the test worker succeeded, else its failure code
     */
    public synchronized void stopSessions(int acceptCode) throws ControlException {
        stopSessions.wrap(segment).reset().accept(acceptCode).numberOfSessions(sessionCount);
        cipher.encrypt(segment, 0, StopSessions.HMAC_OFFSET);
        cipher.sealHmac(segment, StopSessions.HMAC_OFFSET);
        write(StopSessions.LENGTH, "_OWPWriteStopSessions: Unable to write to socket.");
        sessionCount = 0; // the server forgets stopped sessions too (docs/SERVER.md step 9)
    }

    /**
     * Watches the idle control connection during a test (docs/CLI.md, exit statuses): any byte from the server, or the
     * server closing, means the test has failed. Call from a watcher thread or poll with a timeout.
     *
     * @param timeoutNs how long to wait; negative = until something happens (at least 1 ms otherwise)
     * @return what was observed; never throws
     */
    public ControlActivity awaitActivity(long timeoutNs) {
        if (stream.isClosed()) {
            return ControlActivity.LOCALLY_CLOSED;
        }
        int timeoutMs = timeoutNs < 0 ? ControlStream.NO_TIMEOUT
                : (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeoutNs / 1_000_000L));
        int b = stream.readOne(timeoutMs);
        if (b == ControlStream.QUIET) {
            return ControlActivity.QUIET;
        }
        if (b == ControlStream.FAILED) {
            return stream.isClosed() ? ControlActivity.LOCALLY_CLOSED : ControlActivity.PEER_CLOSED;
        }
        return b < 0 ? ControlActivity.PEER_CLOSED : ControlActivity.DATA_RECEIVED;
    }

    /**
     * Derives something (the test-session keys, RFC 4656 §4.1.1, docs/PROTOCOL-TEST.md) from the control session keys without letting
     * them escape: {@code derivation} receives the AES (16) and HMAC (32) session keys.
     *
     * @return the derivation's result, or null in Open mode (no session keys)
     */
    public synchronized <T> T deriveFromSessionKeys(BiFunction<byte[], byte[], T> derivation) {
        if (sessionAesKey == null) {
            return null;
        }
        return derivation.apply(sessionAesKey.clone(), sessionHmacKey.clone());
    }

    /** Closes the connection and wipes the session keys. Safe to call from any thread, more than once. */
    @Override
    public void close() {
        stream.close();
        synchronized (this) {
            if (sessionAesKey != null) {
                Arrays.fill(sessionAesKey, (byte) 0);
                Arrays.fill(sessionHmacKey, (byte) 0);
            }
            cipher.close();
            Arrays.fill(buffer, (byte) 0);
        }
    }

    private void write(int length, String failure) throws ControlException {
        try {
            stream.write(buffer, 0, length);
        } catch (IOException e) {
            throw fail(ControlStage.SESSION, e, failure);
        }
    }

    private static ControlException fail(ControlStage stage, IOException cause, String line) {
        return new ControlException(stage, ControlException.NO_ACCEPT_CODE, List.of(line), cause);
    }

    /** The C line, preceded by what timed out when {@code --timeout} fired. */
    private static ControlException fail(ControlStage stage, IOException cause, String line, String timedOut) {
        List<String> lines = timedOut == null ? List.of(line) : List.of(timedOut, line);
        return new ControlException(stage, ControlException.NO_ACCEPT_CODE, lines, cause);
    }

    /** {@code Timed out after N s (--timeout) waiting for <what>}, or null when {@code e} is no timeout. */
    static String timedOut(IOException e, int timeoutMs, String what) {
        if (!(e instanceof SocketTimeoutException) || timeoutMs <= 0) {
            return null;
        }
        return "Timed out after " + formatSeconds(timeoutMs) + " s (--timeout) waiting for " + what;
    }

    private static String formatSeconds(int ms) {
        return ms % 1000 == 0 ? Integer.toString(ms / 1000) : BigDecimal.valueOf(ms, 3).stripTrailingZeros()
                .toPlainString();
    }

    /** The strerror text of a failed handshake read or write; a cancelled run reads as EINTR, as in C. */
    private static String reason(ControlClientOptions o, IOException e) {
        if (o.cancellation != null && o.cancellation.isCancelled()) {
            return "Interrupted system call";
        }
        return ControlStream.strerror(e);
    }

    private static Socket openSocket(ControlClientOptions o) throws ControlException {
        List<InetAddress> candidates;
        if (o.addresses != null) {
            candidates = o.addresses;
        } else {
            try {
                candidates = List.of(InetAddress.getAllByName(o.host));
            } catch (UnknownHostException e) {
                throw ControlException.open("getaddrinfo(): Name or service not known");
            }
        }
        List<InetAddress> ordered = new ArrayList<>();
        if (!o.ipv4Only) {
            candidates.stream().filter(a -> a instanceof Inet6Address).forEach(ordered::add);
        }
        if (!o.ipv6Only) {
            candidates.stream().filter(a -> a instanceof Inet4Address).forEach(ordered::add);
        }
        IOException last = null;
        String timedOut = null;
        String bindFailure = null;
        for (InetAddress address : ordered) {
            Socket socket = new Socket();
            if (o.cancellation != null && !o.cancellation.register(socket)) {
                closeQuietly(socket);
                break; // interrupted: C's connect fails with EINTR and only the final line is printed
            }
            try {
                if (o.bindAddress != null) {
                    try {
                        socket.bind(new InetSocketAddress(o.bindAddress, 0));
                    } catch (IOException e) {
                        // C prints the bind failure before its final line (-S with an address not on this host)
                        bindFailure = "bind(): " + bindReason(e);
                        throw e;
                    }
                }
                socket.connect(new InetSocketAddress(address, o.port), o.connectTimeoutMs);
                return socket;
            } catch (IOException | IllegalArgumentException e) {
                last = e instanceof IOException io ? io : new IOException(e);
                closeQuietly(socket);
                if (o.cancellation != null) {
                    o.cancellation.release(socket);
                }
                if (e instanceof SocketTimeoutException && o.connectTimeoutMs > 0) {
                    timedOut = "Timed out after " + formatSeconds(o.connectTimeoutMs)
                            + " s (--timeout) connecting to " + address.getHostAddress();
                }
            }
        }
        List<String> lines = new ArrayList<>();
        if (bindFailure != null) {
            lines.add(bindFailure);
        }
        if (timedOut != null) {
            lines.add(timedOut);
        }
        throw new ControlException(ControlStage.OPEN_CONNECTION, ControlException.NO_ACCEPT_CODE, lines, last);
    }

    /** The strerror text of a failed bind (the JDK appends " (Bind failed)" on some versions). */
    private static String bindReason(IOException e) {
        String m = e.getMessage();
        if (m == null) {
            return "Cannot assign requested address";
        }
        int paren = m.indexOf(" (");
        return paren > 0 ? m.substring(0, paren) : m;
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing to report
        }
    }
}
