package io.github.twping.server;

import io.github.twping.net.AddressText;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import io.github.twping.metrics.TwampdMetrics;
import io.github.twping.session.ReflectorFaultInjection;
import java.io.UncheckedIOException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * twampd's listener (docs/SERVER.md): a TCP socket (dual stack on the wildcard where the system allows it,
 * {@code SO_REUSEADDR}, backlog 64), an accept loop on its own platform thread, and one virtual thread per
 * control connection. At most {@code maxcontrolsessions} connections are served at once; further ones are
 * closed right after accept. One connection's failure never touches another: each has its own thread,
 * state and reflectors.
 */
public final class TwampServer implements AutoCloseable {
    static final int BACKLOG = 64;

    private final ServerConfig config;
    private final ServedConnection.Factory factory;
    private final ServerLog log;
    private final Set<ServedConnection> active = ConcurrentHashMap.newKeySet();
    private final AtomicInteger activeCount = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();
    private volatile TwampdMetrics metrics = TwampdMetrics.detached();
    private final AtomicInteger served = new AtomicInteger();
    private ServerSocket listener;
    private Thread acceptThread;
    private volatile boolean closing;
    private Runnable onClose = () -> { };
    private Supplier<ServerSocket> socketFactory = TwampServer::newServerSocket;

    /** A server whose connections are made by {@code factory} (the TWAMP control handler, or a test double). */
    TwampServer(ServerConfig config, ServedConnection.Factory factory, ServerLog log) {
        this.config = config;
        this.factory = factory;
        this.log = log;
    }

    /** Creates the full TWAMP server for a configuration, policy and pass-phrase source. */
    public static TwampServer create(ServerConfig config, LimitsConfig limits, ServerPassphrases passphrases,
            ServerLog log, ReflectorFaultInjection faults) {
        ServerSessions sessions = new ServerSessions(config, limits, passphrases, log, faults);
        TwampServer server = new TwampServer(config, sessions::connection, log);
        sessions.attach(server);
        server.onClose = sessions::shutdown;
        return server;
    }

    /**
     * Binds the listening socket and starts accepting.
     *
     * @throws IOException with a one-line message ({@code bind([addr]:port): reason}) when it cannot listen
     */
    public synchronized void start() throws IOException {
        if (listener != null) {
            throw new IllegalStateException("already started");
        }
        InetSocketAddress bind = listenAddress(config);
        ServerSocket s = socketFactory.get();
        try {
            s.setReuseAddress(true);
            s.bind(bind, BACKLOG);
        } catch (IOException e) {
            s.close();
            throw new IOException("bind(" + describe(bind) + "): " + reason(e), e);
        }
        listener = s;
        acceptThread = Thread.ofPlatform().name("twampd-accept").daemon(true).unstarted(this::acceptLoop);
        acceptThread.start();
        log.debug("listening on " + describe((InetSocketAddress) s.getLocalSocketAddress()));
    }

    private static ServerSocket newServerSocket() {
        try {
            return new ServerSocket();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Replaces the listening socket's factory (tests: a socket whose accept fails). Before {@link #start}. */
    void socketFactory(Supplier<ServerSocket> factory) {
        this.socketFactory = factory;
    }

    /** The address the configuration asks to listen on; a host name is resolved here. */
    static InetSocketAddress listenAddress(ServerConfig config) throws IOException {
        if (config.listenHost() == null) {
            return new InetSocketAddress(config.listenPort());
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(config.listenHost()), config.listenPort());
        } catch (UnknownHostException e) {
            throw new IOException("Unable to resolve srcnode \"" + config.listenHost() + "\"", e);
        }
    }

    private static String reason(IOException e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /** {@code [addr]:port} as C twampd logs addresses. */
    static String describe(InetSocketAddress a) {
        if (a == null) {
            return "[?]";
        }
        String host = a.getAddress() == null ? AddressText.withoutZone(a.getHostString()) : AddressText.numeric(a.getAddress());
        return "[" + host + "]:" + a.getPort();
    }

    /** The bound listening port. */
    public int port() {
        return listener.getLocalPort();
    }

    /** The bound listening address. */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) listener.getLocalSocketAddress();
    }

    /** Connections being served now. */
    public int activeConnections() {
        return activeCount.get();
    }

    /** Sets where the server counts connections, sessions and packets (docs/FLEET.md); before {@link #start()}. */
    public void metrics(TwampdMetrics metrics) {
        this.metrics = metrics;
    }

    /** @return the server's metrics (a detached set when none was given). */
    public TwampdMetrics metrics() {
        return metrics;
    }

    /** Connections closed at once because {@code maxcontrolsessions} was reached. */
    public int refusedConnections() {
        return refused.get();
    }

    /** Connections that were served to their end. */
    public int servedConnections() {
        return served.get();
    }

    public ServerConfig config() {
        return config;
    }

    private void acceptLoop() {
        int max = config.maxControlSessions();
        AcceptBackoff backoff = new AcceptBackoff(AcceptBackoff.LOG_INTERVAL_NS);
        while (!closing) {
            Socket socket;
            try {
                socket = listener.accept();
            } catch (IOException e) {
                if (closing) {
                    return;
                }
                // EMFILE/ENFILE/ENOBUFS: the pending connection stays queued, so retrying at once would
                // spin; wait (1 ms doubling to 100 ms) and log one line per interval.
                String line = backoff.failed("accept(): " + reason(e), System.nanoTime());
                if (line != null) {
                    log.warning(line);
                }
                LockSupport.parkNanos(backoff.delayNs());
                continue;
            }
            String recovered = backoff.succeeded();
            if (recovered != null) {
                log.warning(recovered);
            }
            if (max > 0 && activeCount.get() >= max) {
                refused.incrementAndGet();
                metrics.connection(TwampdMetrics.REFUSED_CAPACITY);
                log.debug("Connection from " + describe((InetSocketAddress) socket.getRemoteSocketAddress())
                        + " refused: maxcontrolsessions (" + max + ") reached");
                closeQuietly(socket);
                continue;
            }
            activeCount.incrementAndGet();
            try {
                Thread.ofVirtual().name("twampd-control-" + socket.getPort()).start(() -> serve(socket));
            } catch (RuntimeException | OutOfMemoryError e) {
                activeCount.decrementAndGet();
                closeQuietly(socket);
                log.error("cannot start a connection thread: " + e);
            }
        }
    }

    private void serve(Socket socket) {
        String peer = describe((InetSocketAddress) socket.getRemoteSocketAddress());
        ServedConnection connection = null;
        try {
            connection = factory.create(socket);
            active.add(connection);
            if (closing) {
                connection.close();
            }
            connection.serve(); // the handler logs the end of the connection
        } catch (IOException e) {
            log.warning("Connection from " + peer + " failed: " + reason(e));
            closeQuietly(socket);
        } catch (RuntimeException e) {
            log.error("Connection from " + peer + " ended by an internal error: " + e);
            closeQuietly(socket);
        } finally {
            if (connection != null) {
                active.remove(connection);
                connection.close();
            }
            activeCount.decrementAndGet();
            served.incrementAndGet();
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already gone
        }
    }

    /** Stops accepting, ends every connection (which stops their reflectors) and waits up to {@code dieby}. */
    @Override
    public void close() {
        closing = true;
        ServerSocket s;
        synchronized (this) {
            s = listener;
        }
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        for (ServedConnection c : active) {
            c.close();
        }
        long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(Math.max(1, config.diebySeconds()));
        try {
            if (acceptThread != null) {
                acceptThread.join(Duration.ofNanos(Math.max(1, deadlineNs - System.nanoTime())));
            }
            while (activeCount.get() > 0 && System.nanoTime() < deadlineNs) {
                for (ServedConnection c : active) {
                    c.close();
                }
                Thread.sleep(10); // bounded shutdown poll (not test synchronisation)
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        onClose.run();
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosing() {
        return closing;
    }

    static boolean isSocketClosed(IOException e) {
        return e instanceof SocketException;
    }
}
