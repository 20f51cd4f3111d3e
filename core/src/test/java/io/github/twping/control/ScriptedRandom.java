package io.github.twping.control;

import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.Deque;

/** A SecureRandom that hands out recorded byte strings in order (for byte-exact replays); falls back to real randomness when empty. */
final class ScriptedRandom extends SecureRandom {
    private static final long serialVersionUID = 1L;
    private final transient Deque<byte[]> script = new ArrayDeque<>();

    ScriptedRandom(byte[]... values) {
        for (byte[] v : values) {
            script.add(v.clone());
        }
    }

    @Override
    public synchronized void nextBytes(byte[] bytes) {
        byte[] next = script.poll();
        if (next == null) {
            super.nextBytes(bytes);
            return;
        }
        if (next.length != bytes.length) {
            throw new AssertionError("scripted random: asked for " + bytes.length + " bytes, script has " + next.length);
        }
        System.arraycopy(next, 0, bytes, 0, bytes.length);
    }
}
