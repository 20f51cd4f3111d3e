package io.github.twping.crypto;

import io.github.twping.protocol.TestPacketLayout;
import java.lang.foreign.MemorySegment;

/** The TWAMP-Test "cipher" of modes Open and Mixed: nothing to protect, only length checks (RFC 5357 §4.1.2). */
public final class UnauthenticatedTestPacketCipher implements TestPacketCipher {
    /** Stateless, shared: the unauthenticated layouts of Open and Mixed. */
    public static final UnauthenticatedTestPacketCipher INSTANCE = new UnauthenticatedTestPacketCipher(
            TestPacketLayout.UNAUTHENTICATED_SENDER, TestPacketLayout.UNAUTHENTICATED_REFLECTOR);

    private final TestPacketLayout sender;
    private final TestPacketLayout reflector;

    private UnauthenticatedTestPacketCipher(TestPacketLayout sender, TestPacketLayout reflector) {
        this.sender = sender;
        this.reflector = reflector;
    }

    @Override
    public TestPacketLayout senderLayout() {
        return sender;
    }

    @Override
    public TestPacketLayout reflectorLayout() {
        return reflector;
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
        return sender.fits(packet.byteSize(), length);
    }

    @Override
    public void sealReflector(MemorySegment packet) {
        // nothing to protect
    }

    @Override
    public boolean openReflector(MemorySegment packet, int length) {
        return reflector.fits(packet.byteSize(), length);
    }
}
