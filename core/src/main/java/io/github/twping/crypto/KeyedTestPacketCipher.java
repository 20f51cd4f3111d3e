package io.github.twping.crypto;

import io.github.twping.protocol.Mode;
import io.github.twping.protocol.TestPacketLayout;
import io.github.twping.protocol.TestPacketLayout.Protection;
import java.lang.foreign.MemorySegment;

/**
 * The TWAMP-Test cipher of the keyed modes, driven only by the byte ranges of
 * {@link TestPacketLayout#protection(Mode)}: the HMAC (HMAC-SHA1 truncated to 16 bytes) is computed over the
 * plaintext of its range and stored in clear at the layout's HMAC offset, then the encrypted range is AES-128-CBC
 * encrypted in place with a zero IV.
 *
 * <p>Authenticated (as perfSONAR does it): block 0 ({@code seq ‖ 12 MBZ}) only, ECB, HMAC over block 0 in both
 * directions, so the clear timestamps are not integrity-protected (interop quirk, reproduced on purpose).
 * Encrypted: bytes 0..31 (sender) resp. 0..95 (reflector), HMAC over the same bytes.
 *
 * <p>The sender's two steps split the ranges at the start of the timestamp's block: the head protects what lies
 * before it (and writes the HMAC if its range ends there), the tail the rest, chaining on the head's state.
 * One instance per thread.
 */
final class KeyedTestPacketCipher implements TestPacketCipher {
    private final TestPacketLayout sender;
    private final TestPacketLayout reflector;
    private final Protection senderRanges;
    private final Protection reflectorRanges;
    /** Start of the sender timestamp's block: the head protects what lies before it, the tail the rest. */
    private final int split;
    private final TestBlockCrypto crypto;

    KeyedTestPacketCipher(TestSessionKeys keys, TestPacketLayout sender, TestPacketLayout reflector, Mode mode) {
        this.sender = sender;
        this.reflector = reflector;
        this.senderRanges = sender.protection(mode);
        this.reflectorRanges = reflector.protection(mode);
        this.split = sender.timestampOffset() - sender.timestampOffset() % TestPacketLayout.BLOCK;
        this.crypto = new TestBlockCrypto(keys,
                Math.max(senderRanges.longestRange(), reflectorRanges.longestRange()));
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
        Protection p = senderRanges;
        crypto.macReset();
        crypto.macUpdate(packet, p.hmacFrom(), Math.min(p.hmacTo(), split));
        if (p.hmacTo() <= split) {
            crypto.macWrite(packet, sender.hmacOffset());
        }
        crypto.resetChain();
        crypto.encrypt(packet, p.encryptedFrom(), Math.min(p.encryptedTo(), split));
    }

    @Override
    public void sealSenderTail(MemorySegment packet) {
        Protection p = senderRanges;
        if (p.hmacTo() > split) {
            crypto.macUpdate(packet, Math.max(p.hmacFrom(), split), p.hmacTo());
            crypto.macWrite(packet, sender.hmacOffset());
        }
        crypto.encrypt(packet, Math.max(p.encryptedFrom(), split), p.encryptedTo());
    }

    @Override
    public boolean openSender(MemorySegment packet, int length) {
        return open(packet, length, sender, senderRanges);
    }

    @Override
    public void sealReflector(MemorySegment packet) {
        Protection p = reflectorRanges;
        crypto.macReset();
        crypto.macUpdate(packet, p.hmacFrom(), p.hmacTo());
        crypto.macWrite(packet, reflector.hmacOffset());
        crypto.resetChain();
        crypto.encrypt(packet, p.encryptedFrom(), p.encryptedTo());
    }

    @Override
    public boolean openReflector(MemorySegment packet, int length) {
        return open(packet, length, reflector, reflectorRanges);
    }

    private boolean open(MemorySegment packet, int length, TestPacketLayout layout, Protection p) {
        if (!layout.fits(packet.byteSize(), length)) {
            return false;
        }
        crypto.resetChain();
        crypto.decrypt(packet, p.encryptedFrom(), p.encryptedTo());
        crypto.macReset();
        crypto.macUpdate(packet, p.hmacFrom(), p.hmacTo());
        return crypto.macVerify(packet, layout.hmacOffset());
    }
}
