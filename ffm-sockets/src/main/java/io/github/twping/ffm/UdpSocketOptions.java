package io.github.twping.ffm;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.util.Objects;

/**
 * Everything {@link UdpSocket#open} needs to create, configure and bind a socket; immutable, built with
 * {@link #builder()}. Unset options keep the kernel default.
 */
public final class UdpSocketOptions {
    /** Value of int options left at the kernel default. */
    public static final int DEFAULT = -1;

    private final InetAddress bindAddress;
    private final StandardProtocolFamily family;
    private final int portLow;
    private final int portHigh;
    private final int portFirstTry;
    private final int unicastTtl;
    private final int tos;
    private final int receiveBufferBytes;
    private final int sendBufferBytes;
    private final String bindToDevice;
    private final boolean receiveTtl;
    private final boolean receiveTos;
    private final boolean receiveDestination;
    private final Timestamping timestamping;
    private final boolean txScheduledTimestamps;
    private final boolean txTimestampsPerSend;
    private final boolean forceNio;
    private final int busyPollMicros;
    private final boolean reusePort;
    private final boolean dropReceived;

    private UdpSocketOptions(Builder b) {
        this.busyPollMicros = b.busyPollMicros;
        this.reusePort = b.reusePort;
        this.dropReceived = b.dropReceived;
        this.bindAddress = b.bindAddress;
        this.family = b.family != null ? b.family
                : b.bindAddress == null || b.bindAddress instanceof Inet4Address ? StandardProtocolFamily.INET
                : StandardProtocolFamily.INET6;
        this.portLow = b.portLow;
        this.portHigh = b.portHigh;
        this.portFirstTry = b.portFirstTry;
        this.unicastTtl = b.unicastTtl;
        this.tos = b.tos;
        this.receiveBufferBytes = b.receiveBufferBytes;
        this.sendBufferBytes = b.sendBufferBytes;
        this.bindToDevice = b.bindToDevice;
        this.receiveTtl = b.receiveTtl;
        this.receiveTos = b.receiveTos;
        this.receiveDestination = b.receiveDestination;
        this.timestamping = b.timestamping;
        this.txScheduledTimestamps = b.txScheduledTimestamps;
        this.txTimestampsPerSend = b.txTimestampsPerSend;
        this.forceNio = b.forceNio;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The local address to bind, or null for the wildcard of {@link #family()}. */
    public InetAddress bindAddress() {
        return bindAddress;
    }

    /** INET or INET6; derived from {@link #bindAddress()} when not set (INET when neither is set). */
    public StandardProtocolFamily family() {
        return family;
    }

    public int portLow() {
        return portLow;
    }

    public int portHigh() {
        return portHigh;
    }

    public int portFirstTry() {
        return portFirstTry;
    }

    /** IP_TTL / IPV6_UNICAST_HOPS, or {@link #DEFAULT}. */
    public int unicastTtl() {
        return unicastTtl;
    }

    /** IP_TOS / IPV6_TCLASS full byte (DSCP &lt;&lt; 2), or {@link #DEFAULT}. */
    public int tos() {
        return tos;
    }

    public int receiveBufferBytes() {
        return receiveBufferBytes;
    }

    public int sendBufferBytes() {
        return sendBufferBytes;
    }

    /** SO_BINDTODEVICE interface name, or null. */
    public String bindToDevice() {
        return bindToDevice;
    }

    public boolean receiveTtl() {
        return receiveTtl;
    }

    public boolean receiveTos() {
        return receiveTos;
    }

    /** Received datagrams carry their destination address (IP_PKTINFO / IPV6_RECVPKTINFO; FFM socket only). */
    public boolean receiveDestination() {
        return receiveDestination;
    }

    public Timestamping timestamping() {
        return timestamping;
    }

    /** Also report SCM_TSTAMP_SCHED (packet entered the qdisc) TX timestamps. */
    public boolean txScheduledTimestamps() {
        return txScheduledTimestamps;
    }

    /**
     * TX timestamps only for the datagrams sent with {@link UdpSocket#sendStamped}, not for every send (with
     * {@link Timestamping#RX_TX_SOFTWARE} or {@link Timestamping#HARDWARE}).
     */
    public boolean txTimestampsPerSend() {
        return txTimestampsPerSend;
    }

    public boolean forceNio() {
        return forceNio;
    }

    /** SO_BUSY_POLL: µs a blocking receive busy-polls the device queue before sleeping, or {@link #DEFAULT}. */
    public int busyPollMicros() {
        return busyPollMicros;
    }

    /** SO_REUSEPORT: other sockets of this user may bind the same address and port (set on all of them). */
    public boolean reusePort() {
        return reusePort;
    }

    /**
     * A socket filter that drops every datagram arriving for this socket: for a socket that only sends (and
     * reads its TX timestamps, which the filter does not touch), beside a receiving socket on the same port.
     */
    public boolean dropReceived() {
        return dropReceived;
    }

    @Override
    public String toString() {
        return "UdpSocketOptions[bind=" + bindAddress + ", family=" + family + ", ports=" + portLow + ".." + portHigh
                + " first " + portFirstTry + ", ttl=" + unicastTtl + ", tos=" + tos + ", rcvbuf=" + receiveBufferBytes
                + ", sndbuf=" + sendBufferBytes + ", device=" + bindToDevice + ", recvTtl=" + receiveTtl
                + ", recvTos=" + receiveTos + ", timestamping=" + timestamping + ", txSched=" + txScheduledTimestamps
                + ", txPerSend=" + txTimestampsPerSend
                + ", forceNio=" + forceNio + ", busyPoll=" + busyPollMicros + ", reusePort=" + reusePort
                + ", dropReceived=" + dropReceived + "]";
    }

    /** Builder of {@link UdpSocketOptions}; {@link #build()} validates and throws IllegalArgumentException. */
    public static final class Builder {
        private InetAddress bindAddress;
        private StandardProtocolFamily family;
        private int portLow;
        private int portHigh;
        private int portFirstTry;
        private int unicastTtl = DEFAULT;
        private int tos = DEFAULT;
        private int receiveBufferBytes = DEFAULT;
        private int sendBufferBytes = DEFAULT;
        private String bindToDevice;
        private boolean receiveTtl;
        private boolean receiveTos;
        private boolean receiveDestination;
        private Timestamping timestamping = Timestamping.NONE;
        private boolean txScheduledTimestamps;
        private boolean txTimestampsPerSend;
        private boolean forceNio;
        private int busyPollMicros = DEFAULT;
        private boolean reusePort;
        private boolean dropReceived;

        private Builder() {
        }

        /** Local address (null = wildcard of the family). */
        public Builder bindAddress(InetAddress address) {
            this.bindAddress = address;
            return this;
        }

        public Builder family(ProtocolFamily family) {
            if (family != null && !(family instanceof StandardProtocolFamily f && f != StandardProtocolFamily.UNIX)) {
                throw new IllegalArgumentException("family must be INET or INET6: " + family);
            }
            this.family = (StandardProtocolFamily) family;
            return this;
        }

        /** A single port (0 = ephemeral). */
        public Builder port(int port) {
            return portRange(port, port, port);
        }

        /**
         * Binds the first free port of {@code low..high}, trying {@code firstTry} first and wrapping around;
         * EADDRINUSE moves to the next port, any other error stops. {@code 0..0} asks for an ephemeral port.
         */
        public Builder portRange(int low, int high, int firstTry) {
            this.portLow = low;
            this.portHigh = high;
            this.portFirstTry = firstTry;
            return this;
        }

        public Builder unicastTtl(int ttl) {
            this.unicastTtl = ttl;
            return this;
        }

        /** The full TOS / traffic class byte (DSCP &lt;&lt; 2, ECN bits included). */
        public Builder tos(int tos) {
            this.tos = tos;
            return this;
        }

        /**
         * SO_RCVBUF; set with SO_RCVBUFFORCE first, which exceeds {@code net.core.rmem_max} when the process has
         * CAP_NET_ADMIN (else the kernel caps the plain option at the sysctl).
         */
        public Builder receiveBufferBytes(int bytes) {
            this.receiveBufferBytes = bytes;
            return this;
        }

        public Builder sendBufferBytes(int bytes) {
            this.sendBufferBytes = bytes;
            return this;
        }

        public Builder bindToDevice(String interfaceName) {
            this.bindToDevice = interfaceName;
            return this;
        }

        public Builder receiveTtl(boolean on) {
            this.receiveTtl = on;
            return this;
        }

        public Builder receiveTos(boolean on) {
            this.receiveTos = on;
            return this;
        }

        /**
         * Asks for each datagram's destination address ({@link ReceivedPacket#destinationAddressLength()}): the
         * address it was sent to, which a socket bound to a wildcard address does not know otherwise.
         */
        public Builder receiveDestination(boolean on) {
            this.receiveDestination = on;
            return this;
        }

        public Builder timestamping(Timestamping timestamping) {
            this.timestamping = Objects.requireNonNull(timestamping, "timestamping");
            return this;
        }

        public Builder txScheduledTimestamps(boolean on) {
            this.txScheduledTimestamps = on;
            return this;
        }

        /**
         * With TX timestamps ({@link Timestamping#RX_TX_SOFTWARE}, {@link Timestamping#HARDWARE}): the kernel stamps
         * only the datagrams sent with {@link UdpSocket#sendStamped} (an SO_TIMESTAMPING control message on that
         * sendmsg, Linux 4.7 and later), not every send. The socket keeps the reporting flags (OPT_ID, OPT_TSONLY);
         * the ids then count the stamped sends only ({@link UdpSocket#txStampId}). A send that needs no stamp then
         * costs no clone of its buffer, no error-queue entry and no drain.
         */
        public Builder txTimestampsPerSend(boolean on) {
            this.txTimestampsPerSend = on;
            return this;
        }

        /** Use the NIO (DatagramChannel) implementation even where FFM works (tests, comparisons). */
        public Builder forceNio(boolean on) {
            this.forceNio = on;
            return this;
        }

        /**
         * SO_BUSY_POLL: a blocking receive polls the NIC queue for up to {@code micros} before sleeping (needs a
         * NAPI device; loopback has none; raising it above net.core.busy_read needs CAP_NET_ADMIN). Refusal
         * fails the open.
         */
        public Builder reusePort(boolean on) {
            this.reusePort = on;
            return this;
        }

        public Builder dropReceived(boolean on) {
            this.dropReceived = on;
            return this;
        }

        public Builder busyPollMicros(int micros) {
            this.busyPollMicros = micros;
            return this;
        }

        public UdpSocketOptions build() {
            // Each message is built only when its check fails: a message concatenated on every build linked its
            // string concatenation at run time (the AOT cache does not keep it), about 5 ms before a twping's start
            // time was taken (docs/CLIENT.md, "Start-up").
            if (!(busyPollMicros == DEFAULT || busyPollMicros >= 0)) {
                throw invalid("busy poll must be >= 0 µs: " + busyPollMicros);
            }
            if (!(portLow >= 0 && portHigh <= 65535 && portLow <= portHigh)) {
                throw invalid("port range must satisfy 0 <= low <= high <= 65535: " + portLow + ".." + portHigh);
            }
            if (!(portFirstTry == 0 || (portFirstTry >= portLow && portFirstTry <= portHigh))) {
                throw invalid("first port " + portFirstTry + " outside " + portLow + ".." + portHigh);
            }
            if (!(unicastTtl == DEFAULT || (unicastTtl >= 1 && unicastTtl <= 255))) {
                throw invalid("ttl must be 1..255: " + unicastTtl);
            }
            if (!(tos == DEFAULT || (tos >= 0 && tos <= 255))) {
                throw invalid("tos must be 0..255: " + tos);
            }
            if (!(receiveBufferBytes == DEFAULT || receiveBufferBytes > 0)) {
                throw invalid("receive buffer must be > 0");
            }
            if (!(sendBufferBytes == DEFAULT || sendBufferBytes > 0)) {
                throw invalid("send buffer must be > 0");
            }
            if (!(bindToDevice == null || (!bindToDevice.isEmpty() && bindToDevice.length() < 16
                    && bindToDevice.chars().allMatch(c -> c > ' ' && c < 127 && c != '/')))) {
                throw invalid("bad interface name: " + bindToDevice);
            }
            if (!(family == null || bindAddress == null
                    || (family == StandardProtocolFamily.INET) == (bindAddress instanceof Inet4Address)
                    || family == StandardProtocolFamily.INET6)) {
                throw invalid("bind address " + bindAddress + " does not match family " + family);
            }
            return new UdpSocketOptions(this);
        }

        private static IllegalArgumentException invalid(String message) {
            return new IllegalArgumentException(message);
        }
    }
}
