package io.github.twping.ffm;

/**
 * Factory choosing the {@link UdpSocket} implementation: FFM on Linux where native access works, else NIO.
 */
public final class UdpSockets {
    private UdpSockets() {
    }

    /** Opens, configures and binds a socket; see {@link UdpSocket#open}. */
    public static UdpSocket open(UdpSocketOptions options) throws SocketException {
        if (!options.forceNio() && NativeSupport.isAvailable()) {
            return NativeUdpSocket.open(options);
        }
        return NioUdpSocket.open(options);
    }

    /** True when the FFM implementation can be used in this JVM. */
    public static boolean nativeAvailable() {
        return NativeSupport.isAvailable();
    }

    /** Why the FFM implementation is unavailable, or null when it is available. */
    public static String nativeUnavailableReason() {
        return NativeSupport.unavailableReason();
    }
}
