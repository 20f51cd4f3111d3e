package io.github.twping.control;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A scripted TCP peer on 127.0.0.1: sends and expects byte strings in order, then closes. */
final class FakeServer implements AutoCloseable {
    /** One step of the script. */
    sealed interface Step permits Send, Expect, AwaitClose { }

    record Send(byte[] bytes) implements Step { }

    record Expect(int length) implements Step { }

    /** Waits (bounded) for the client to close or send more; records extra bytes. */
    record AwaitClose() implements Step { }

    private final ServerSocket listener;
    private final CompletableFuture<byte[]> received = new CompletableFuture<>();

    FakeServer(List<Step> script) throws IOException {
        listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> serve(script), "fake-twamp-server");
        t.setDaemon(true);
        t.start();
    }

    static FakeServer of(Step... steps) throws IOException {
        return new FakeServer(List.of(steps));
    }

    int port() {
        return listener.getLocalPort();
    }

    /** @return every byte the client sent before the script ended (waits at most 10 s). */
    byte[] received() throws Exception {
        return received.get(60, TimeUnit.SECONDS);
    }

    private void serve(List<Step> script) {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        try (Socket s = listener.accept()) {
            s.setSoTimeout(60_000);
            s.setTcpNoDelay(true);
            InputStream in = s.getInputStream();
            for (Step step : new ArrayList<>(script)) {
                switch (step) {
                    case Send send -> {
                        s.getOutputStream().write(send.bytes());
                        s.getOutputStream().flush();
                    }
                    case Expect expect -> {
                        byte[] b = in.readNBytes(expect.length());
                        got.writeBytes(b);
                        if (b.length < expect.length()) {
                            received.complete(got.toByteArray());
                            return;
                        }
                    }
                    case AwaitClose ignored -> {
                        byte[] rest = in.readNBytes(4096);
                        got.writeBytes(rest);
                    }
                }
            }
        } catch (IOException e) {
            // the client went away: report what arrived
        } finally {
            received.complete(got.toByteArray());
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
    }
}
