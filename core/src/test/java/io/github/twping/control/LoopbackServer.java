package io.github.twping.control;

import io.github.twping.protocol.AcceptCode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.HexFormat;

/** A ControlServerConnection on 127.0.0.1 serving one connection, with a map-backed policy and a recording handler. */
final class LoopbackServer implements AutoCloseable, ServerPolicy, ControlSessionHandler {
    static final long START_TIME_NTP = 0xeeb7dd07fb1ca7d6L;

    private final ServerSocketChannel listener;
    private final int offeredModes;
    private final Map<String, byte[]> passphrases;
    final List<SessionRequest> requests = new CopyOnWriteArrayList<>();
    final List<Integer> stops = new CopyOnWriteArrayList<>();
    final CompletableFuture<ControlCloseReason> closedReason = new CompletableFuture<>();
    final CompletableFuture<ControlServerConnection> connection = new CompletableFuture<>();
    volatile int starts;
    volatile ControlPeer lastPeer;
    final List<String> sessionKeys = new CopyOnWriteArrayList<>();
    volatile int count = 1024;
    volatile AcceptCode admission = AcceptCode.ACCEPT;
    volatile Function<SessionRequest, SessionAcceptance> decider =
            r -> SessionAcceptance.accepted(18760, SessionIds.create(r.receiverAddress(), new SecureRandom()));

    LoopbackServer(int offeredModes, Map<String, byte[]> passphrases, SecureRandom random, int controlTimeoutMs)
            throws IOException {
        this(InetAddress.getLoopbackAddress(), offeredModes, passphrases, random, controlTimeoutMs);
    }

    LoopbackServer(InetAddress bind, int offeredModes, Map<String, byte[]> passphrases, SecureRandom random,
                   int controlTimeoutMs) throws IOException {
        this.offeredModes = offeredModes;
        this.passphrases = passphrases;
        listener = ServerSocketChannel.open();
        listener.bind(new InetSocketAddress(bind, 0));
        ControlServerSettings settings = new ControlServerSettings(START_TIME_NTP, controlTimeoutMs, random);
        Thread t = new Thread(() -> {
            try (SocketChannel ch = listener.accept()) {
                ControlServerConnection c = new ControlServerConnection(ch, this, this, settings);
                connection.complete(c);
                c.run();
            } catch (IOException e) {
                closedReason.completeExceptionally(e);
            }
        }, "loopback-control-server");
        t.setDaemon(true);
        t.start();
    }

    static LoopbackServer aliceOnly(int offeredModes) throws IOException {
        return new LoopbackServer(offeredModes,
                Map.of("alice", "s3cret-lab-key".getBytes(StandardCharsets.US_ASCII)), new SecureRandom(), 10_000);
    }

    static String keysHex(byte[] aes, byte[] hmac) {
        return HexFormat.of().formatHex(aes) + "/" + HexFormat.of().formatHex(hmac);
    }

    int port() {
        return ((InetSocketAddress) listener.socket().getLocalSocketAddress()).getPort();
    }

    ControlCloseReason awaitClosed() throws Exception {
        return closedReason.get(60, TimeUnit.SECONDS);
    }

    @Override
    public int offeredModes(InetSocketAddress peer) {
        return offeredModes;
    }

    @Override
    public int pbkdf2Count() {
        return count;
    }

    @Override
    public byte[] passphrase(String identity) {
        byte[] p = passphrases.get(identity);
        return p == null ? null : p.clone();
    }

    @Override
    public AcceptCode authorize(ControlPeer peer) {
        return admission;
    }

    @Override
    public SessionAcceptance requestSession(ControlPeer peer, SessionRequest request) {
        requests.add(request);
        lastPeer = peer;
        sessionKeys.add(String.valueOf(peer.deriveFromSessionKeys(LoopbackServer::keysHex)));
        return decider.apply(request);
    }

    @Override
    public AcceptCode startSessions(ControlPeer peer) {
        starts++;
        return AcceptCode.ACCEPT;
    }

    @Override
    public void stopSessions(ControlPeer peer, int acceptCode) {
        stops.add(acceptCode);
    }

    @Override
    public void closed(ControlPeer peer, ControlCloseReason reason) {
        closedReason.complete(reason);
    }

    @Override
    public void close() throws IOException {
        listener.close();
        connection.thenAccept(ControlServerConnection::close);
    }
}
