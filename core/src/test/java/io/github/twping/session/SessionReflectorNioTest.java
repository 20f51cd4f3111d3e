package io.github.twping.session;

/** The {@link SessionReflectorTest} suite over the ffm NIO fallback ({@code forceNio}). */
class SessionReflectorNioTest extends SessionReflectorTest {
    @Override
    boolean forceNio() {
        return true;
    }
}
