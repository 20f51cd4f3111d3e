package io.github.twping.crypto;

import io.github.twping.protocol.TestPacketLayout;
import java.lang.foreign.MemorySegment;

/** The TWAMP-Test "cipher" of modes Open and Mixed: nothing to protect, only length checks (RFC 5357 §4.1.2). */
public final class UnauthenticatedTestPacketCipher implements TestPacketCipher {
    /** Stateless, shared. */
    public static final UnauthenticatedTestPacketCipher INSTANCE = new UnauthenticatedTestPacketCipher();

    private UnauthenticatedTestPacketCipher() {
    }

    @Override
    public TestPacketLayout senderLayout() {
        return TestPacketLayout.UNAUTHENTICATED_SENDER;
    }

    @Override
    public TestPacketLayout reflectorLayout() {
        return TestPacketLayout.UNAUTHENTICATED_REFLECTOR;
    }

    @Override
    public void sealSenderHead(MemorySegment packet) {
        // nothing to protect
    }

    @Override
    public void sealSenderTail(MemorySegment packet) {
        // nothing to protect
    }

    @Override
    public boolean openSender(MemorySegment packet, int length) {
        return TestPacketLayout.UNAUTHENTICATED_SENDER.fits(packet.byteSize(), length);
    }

    @Override
    public void sealReflector(MemorySegment packet) {
        // nothing to protect
    }

    @Override
    public boolean openReflector(MemorySegment packet, int length) {
        return TestPacketLayout.UNAUTHENTICATED_REFLECTOR.fits(packet.byteSize(), length);
    }
}
