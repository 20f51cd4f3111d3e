package io.github.twping.session;

/**
 * What the reply receiver saw, for the library API and diagnostics.
 *
 * @param received       distinct packets answered in time
 * @param duplicates     extra replies for packets already answered
 * @param badHmac        replies dropped for a bad HMAC (modes A/E)
 * @param tooShort       datagrams shorter than a reflector packet
 * @param late           replies to packets already recorded as lost
 * @param kernelRxStamps replies stamped by the kernel on arrival
 * @param kernelTxStamps kernel TX timestamps delivered for sent packets
 */
public record ReceiverCounters(long received, long duplicates, long badHmac, long tooShort, long late,
                               long kernelRxStamps, long kernelTxStamps) {
}
