package io.github.twping.control;

import io.github.twping.crypto.ControlCipher;
import io.github.twping.crypto.KeyDerivation;
import io.github.twping.crypto.Token;
import io.github.twping.protocol.AcceptCode;
import io.github.twping.protocol.AcceptSession;
import io.github.twping.protocol.ControlMessage;
import io.github.twping.protocol.Mode;
import io.github.twping.protocol.RequestTwSession;
import io.github.twping.protocol.ServerGreeting;
import io.github.twping.protocol.ServerStart;
import io.github.twping.protocol.SetUpResponse;
import io.github.twping.protocol.StartAck;
import io.github.twping.protocol.StopSessions;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import io.github.twping.protocol.StartSessions;

/**
 * Server side of one TWAMP-Control connection (docs/SERVER.md): greeting, authentication, Server-Start,
 * then the request loop (Request-TW-Session, Start-Sessions, Stop-Sessions) until the client
 * closes, a timeout or a protocol error. Decisions go to a {@link ServerPolicy}, session work to a
 * {@link ControlSessionHandler}. {@link #run()} blocks on the calling thread; {@link #close()} may
 * be called from any thread to end it.
 *
 * <p>Failures only ever end this connection: {@link #run()} returns a {@link ControlCloseReason}
 * and never throws for peer behaviour.
 */
public final class ControlServerConnection implements AutoCloseable {
    private static final int BLOCK = ControlMessage.BLOCK_LENGTH;

    private final ControlStream stream;
    private final ServerPolicy policy;
    private final ControlSessionHandler handler;
    private final ControlServerSettings settings;
    private final byte[] buffer = new byte[SetUpResponse.LENGTH];
    private final MemorySegment segment = MemorySegment.ofArray(buffer);
    private final RequestTwSession request = new RequestTwSession();
    private final AcceptSession acceptSession = new AcceptSession();
    private final StartAck startAck = new StartAck();
    private final StopSessions stopSessions = new StopSessions();
    private ControlCipher cipher = ControlCipher.open();
    private ControlPeer peer;
    private int sessionCount;
    private boolean testsRunning;
    private volatile boolean closing;

    /** Wraps an accepted, blocking channel (it is closed when {@link #run()} returns). */
    public ControlServerConnection(SocketChannel channel, ServerPolicy policy, ControlSessionHandler handler,
                                   ControlServerSettings settings) throws IOException {
        this(channel.socket(), policy, handler, settings);
    }

    /** Wraps an accepted socket (it is closed when {@link #run()} returns). */
    public ControlServerConnection(Socket socket, ServerPolicy policy, ControlSessionHandler handler,
                                   ControlServerSettings settings) throws IOException {
        socket.setTcpNoDelay(true);
        this.stream = new ControlStream(socket);
        this.policy = policy;
        this.handler = handler;
        this.settings = settings;
    }

    /**
     * Serves the connection until it ends, then closes it, wipes the keys and calls
     * {@link ControlSessionHandler#closed} once.
     *
     * @return why the connection ended
     */
    public ControlCloseReason run() {
        ControlCloseReason reason = ControlCloseReason.IO_ERROR;
        try {
            reason = setUp();
            if (reason == null) {
                reason = requestLoop();
            }
        } catch (SocketTimeoutException e) {
            reason = ControlCloseReason.TIMEOUT;
        } catch (EOFException e) {
            reason = closing ? ControlCloseReason.CLOSED_LOCALLY : ControlCloseReason.PEER_CLOSED;
        } catch (IOException e) {
            reason = closing ? ControlCloseReason.CLOSED_LOCALLY
                    : isReset(e) ? ControlCloseReason.PEER_CLOSED : ControlCloseReason.IO_ERROR;
        } finally {
            stream.close();
            cipher.close();
            Arrays.fill(buffer, (byte) 0);
            if (peer != null) {
                peer.wipe(); // before the handler hears of it: no key derivation after the end
            }
            handler.closed(peer, reason);
        }
        return reason;
    }

    /** Ends the connection from another thread; {@link #run()} then returns {@link ControlCloseReason#CLOSED_LOCALLY}. */
    @Override
    public void close() {
        closing = true;
        stream.close();
    }

    /** @return the peer once the set-up has succeeded, else {@code null}. */
    public ControlPeer peer() {
        return peer;
    }

    /** @return null when the set-up succeeded, else the reason the connection ends. */
    private ControlCloseReason setUp() throws IOException {
        Socket socket = stream.socket();
        InetSocketAddress remote = (InetSocketAddress) socket.getRemoteSocketAddress();
        InetSocketAddress local = (InetSocketAddress) socket.getLocalSocketAddress();
        int offered = policy.offeredModes(remote) & Mode.ALL_BITS;
        int count = policy.pbkdf2Count();
        byte[] challenge = new byte[ServerGreeting.CHALLENGE_LENGTH];
        byte[] salt = new byte[ServerGreeting.SALT_LENGTH];
        settings.random().nextBytes(challenge);
        settings.random().nextBytes(salt);
        new ServerGreeting().wrap(segment).clear().modes(offered).challenge(challenge).salt(salt).count(count);
        stream.write(buffer, 0, ServerGreeting.LENGTH);
        if (offered == 0) {
            return ControlCloseReason.NO_MODES_OFFERED;
        }

        stream.readFully(buffer, 0, SetUpResponse.LENGTH, settings.controlTimeoutMs());
        SetUpResponse setUp = new SetUpResponse().wrap(segment);
        Mode mode = Mode.fromBits(setUp.mode());
        if (mode == null) {
            return ControlCloseReason.INVALID_MODE;
        }
        if (!mode.isIn(offered)) {
            rejectServerStart(AcceptCode.REJECT);
            return ControlCloseReason.MODE_NOT_OFFERED;
        }
        String identity = null;
        byte[] aesKey = new byte[Token.AES_KEY_LENGTH];
        byte[] hmacKey = new byte[Token.HMAC_KEY_LENGTH];
        byte[] clientIv = new byte[BLOCK];
        try {
            if (mode.protectsControl()) {
                byte[] keyId = setUp.keyIdBytes();
                identity = new String(keyId, StandardCharsets.UTF_8);
                byte[] token = new byte[Token.LENGTH];
                setUp.copyTokenTo(token).copyClientIvTo(clientIv);
                byte[] passphrase = policy.passphrase(identity);
                boolean known = passphrase != null;
                if (!known) {
                    // Same work for unknown identities: derive and decrypt with a throw-away pass-phrase.
                    passphrase = new byte[16];
                    settings.random().nextBytes(passphrase);
                }
                byte[] dk = KeyDerivation.pbkdf2HmacSha1(passphrase, salt, count);
                boolean tokenOk = Token.open(dk, token, challenge, aesKey, hmacKey);
                Arrays.fill(passphrase, (byte) 0);
                Arrays.fill(dk, (byte) 0);
                if (!known || !tokenOk) {
                    rejectServerStart(AcceptCode.REJECT);
                    return known ? ControlCloseReason.INVALID_TOKEN : ControlCloseReason.UNKNOWN_IDENTITY;
                }
            }
            ControlPeer candidate = mode.protectsControl()
                    ? new ControlPeer(remote, local, mode, identity, aesKey, hmacKey)
                    : new ControlPeer(remote, local, mode, identity);
            AcceptCode admission = policy.authorize(candidate);
            if (admission != AcceptCode.ACCEPT) {
                candidate.wipe();
                rejectServerStart(admission == null ? AcceptCode.FAILURE : admission);
                return ControlCloseReason.DENIED;
            }
            byte[] serverIv = new byte[BLOCK];
            if (mode.protectsControl()) {
                settings.random().nextBytes(serverIv);
                cipher = ControlCipher.protectedMode(aesKey, hmacKey, serverIv, clientIv);
            }
            new ServerStart().wrap(segment).clear().accept(AcceptCode.ACCEPT.code()).serverIv(serverIv)
                    .startTimeNtp(settings.serverStartTimeNtp());
            cipher.encrypt(segment, ServerStart.PROTECTED_OFFSET, BLOCK);
            peer = candidate;
            stream.write(buffer, 0, ServerStart.LENGTH);
            return null;
        } finally {
            Arrays.fill(aesKey, (byte) 0);
            Arrays.fill(hmacKey, (byte) 0);
        }
    }

    /** Sends a clear Server-Start with a non-zero Accept, zero IV and zero bytes 32..47. */
    private void rejectServerStart(AcceptCode code) throws IOException {
        new ServerStart().wrap(segment).clear().accept(code.code());
        stream.write(buffer, 0, ServerStart.LENGTH);
    }

    private ControlCloseReason requestLoop() throws IOException {
        while (true) {
            int timeout = testsRunning ? ControlStream.NO_TIMEOUT : settings.controlTimeoutMs();
            stream.readFully(buffer, 0, BLOCK, timeout);
            cipher.decrypt(segment, 0, BLOCK);
            int command = Byte.toUnsignedInt(buffer[0]);
            ControlCloseReason end;
            if (testsRunning) {
                end = command == StopSessions.COMMAND ? onStopSessions(timeout) : ControlCloseReason.PROTOCOL_ERROR;
            } else if (command == RequestTwSession.COMMAND) {
                end = onRequestSession(timeout);
            } else if (command == StartSessions.COMMAND) {
                end = onStartSessions(timeout);
            } else {
                end = onUnexpectedCommand();
            }
            if (end != null) {
                return end;
            }
        }
    }

    /** twampd quirk (docs/SERVER.md step 6): answer the single block with Accept-Session 3 and keep going. */
    private ControlCloseReason onUnexpectedCommand() throws IOException {
        cipher.resetReceiveHmac();
        sendAcceptSession(SessionAcceptance.refused(AcceptCode.UNSUPPORTED.code()));
        return null;
    }

    private ControlCloseReason onRequestSession(int timeout) throws IOException {
        stream.readRest(buffer, BLOCK, RequestTwSession.LENGTH - BLOCK);
        cipher.decrypt(segment, BLOCK, RequestTwSession.HMAC_OFFSET - BLOCK);
        if (!cipher.verifyHmac(segment, RequestTwSession.HMAC_OFFSET)) {
            return ControlCloseReason.HMAC_FAILURE;
        }
        SessionRequest decoded = SessionRequest.decode(request.wrap(segment));
        SessionRequest resolved = resolve(decoded);
        SessionAcceptance decision = resolved == null
                ? SessionAcceptance.refused(AcceptCode.UNSUPPORTED.code())
                : handler.requestSession(peer, resolved);
        if (decision == null) {
            return ControlCloseReason.PROTOCOL_ERROR;
        }
        if (decision.acceptCode() == AcceptCode.ACCEPT.code()) {
            sessionCount++;
        }
        sendAcceptSession(decision);
        return null;
    }

    /**
     * Validates a request and substitutes unspecified addresses (docs/SERVER.md step 7).
     *
     * @return the request to hand to the handler, or {@code null} for Accept 3
     */
    private SessionRequest resolve(SessionRequest r) {
        if (r.confSender() != 0 || r.confReceiver() != 0 || r.scheduleSlots() != 0 || r.packets() != 0
                || (r.ipvn() != 4 && r.ipvn() != 6)
                || (r.typePDescriptor() & ~SessionRequest.SUPPORTED_TYPE_P_BITS) != 0) {
            return null;
        }
        InetAddress sender = r.senderAddress() != null ? r.senderAddress() : peer.remote().getAddress();
        InetAddress receiver = r.receiverAddress() != null ? r.receiverAddress() : peer.local().getAddress();
        sender = scoped(sender, r.ipvn(), peer.remote().getAddress());
        receiver = scoped(receiver, r.ipvn(), peer.local().getAddress());
        if (sender == null || receiver == null) {
            return null;
        }
        return r.withAddresses(sender, receiver);
    }

    /**
     * @return the address if it matches the IPVN; an IPv6 link-local address gets the control
     *         connection's scope, and is refused ({@code null}) when that connection is not link-local
     */
    private static InetAddress scoped(InetAddress address, int ipvn, InetAddress control) {
        if (ipvn == 4) {
            return address instanceof Inet4Address ? address : null;
        }
        if (!(address instanceof Inet6Address v6)) {
            return null;
        }
        if (!v6.isLinkLocalAddress()) {
            return v6;
        }
        if (!(control instanceof Inet6Address c6) || !c6.isLinkLocalAddress()) {
            return null;
        }
        try {
            return Inet6Address.getByAddress(null, v6.getAddress(), c6.getScopeId());
        } catch (UnknownHostException e) {
            return null;
        }
    }

    private void sendAcceptSession(SessionAcceptance decision) throws IOException {
        boolean accepted = decision.acceptCode() == AcceptCode.ACCEPT.code();
        acceptSession.wrap(segment).clear().accept(decision.acceptCode());
        if (accepted) {
            acceptSession.port(decision.port()).sid(decision.sid());
        }
        cipher.encrypt(segment, 0, AcceptSession.HMAC_OFFSET);
        cipher.sealHmac(segment, AcceptSession.HMAC_OFFSET);
        stream.write(buffer, 0, AcceptSession.LENGTH);
    }

    private ControlCloseReason onStartSessions(int timeout) throws IOException {
        stream.readRest(buffer, BLOCK, BLOCK);
        if (!cipher.verifyHmac(segment, BLOCK)) {
            return ControlCloseReason.HMAC_FAILURE;
        }
        AcceptCode code = handler.startSessions(peer);
        if (code == null) {
            code = AcceptCode.FAILURE;
        }
        startAck.wrap(segment).clear().accept(code.code());
        cipher.encrypt(segment, 0, StartAck.HMAC_OFFSET);
        cipher.sealHmac(segment, StartAck.HMAC_OFFSET);
        stream.write(buffer, 0, StartAck.LENGTH);
        testsRunning = code == AcceptCode.ACCEPT;
        return null;
    }

    private ControlCloseReason onStopSessions(int timeout) throws IOException {
        stream.readRest(buffer, BLOCK, BLOCK);
        if (!cipher.verifyHmac(segment, BLOCK)) {
            return ControlCloseReason.HMAC_FAILURE;
        }
        stopSessions.wrap(segment);
        if (stopSessions.numberOfSessions() != sessionCount) {
            return ControlCloseReason.PROTOCOL_ERROR;
        }
        handler.stopSessions(peer, stopSessions.accept());
        testsRunning = false;
        sessionCount = 0;
        return null;
    }

    private static boolean isReset(IOException e) {
        String m = e.getMessage();
        return m != null && (m.contains("reset") || m.contains("Broken pipe"));
    }
}
