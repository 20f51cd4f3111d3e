package io.github.twping.stamp;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;

import io.github.twping.session.ReflectorClock;
import io.github.twping.time.WallClock;

/**
 * A started {@link StampReflector} on a loopback port and a plain {@link DatagramSocket} client for hand-built
 * requests (the reflector tests' common scaffolding); the reflector's Error Estimate is {@link #ERROR}.
 */
final class LoopbackReflector implements AutoCloseable {
    /** The reflector clock's Error Estimate: S = 1, scale 1, multiplier 5. */
    static final int ERROR = 0x8105;

    private final StampReflector reflector;
    private final DatagramSocket client;

    private LoopbackReflector(StampReflector reflector, DatagramSocket client) {
        this.reflector = reflector;
        this.client = client;
    }

    /** Starts a reflector of {@code spec} on 127.0.0.1 and a client with a 10 s receive timeout. */
    static LoopbackReflector start(StampReflectorSpec spec) throws Exception {
        StampReflector reflector = new StampReflector(spec, StampReflector.openSocket(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0),
                ReflectorClock.of(WallClock.system(), ERROR));
        reflector.start();
        DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        client.setSoTimeout(10_000);
        return new LoopbackReflector(reflector, client);
    }

    StampReflector reflector() {
        return reflector;
    }

    DatagramSocket client() {
        return client;
    }

    InetSocketAddress address() {
        return reflector.localAddress();
    }

    /** Sends {@code request} to {@code to} and returns the first datagram that comes back. */
    byte[] exchange(InetSocketAddress to, byte[] request) throws IOException {
        client.send(new DatagramPacket(request, request.length, to));
        byte[] buffer = new byte[2048];
        DatagramPacket p = new DatagramPacket(buffer, buffer.length);
        client.receive(p);
        return Arrays.copyOf(buffer, p.getLength());
    }

    @Override
    public void close() {
        reflector.close();
        client.close();
    }
}
