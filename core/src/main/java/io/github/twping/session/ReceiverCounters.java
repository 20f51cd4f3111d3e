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
 * @param foreign        authentic replies of another session, dropped (STAMP: an SSID not our non-zero one, or a Micro-session ID not ours)
 * @param malformed      replies used although their TLV area did not parse (STAMP)
 * @param ptpReplies     replies whose reflector timestamps were in the PTP format (STAMP)
 */
public record ReceiverCounters(long received, long duplicates, long badHmac, long tooShort, long late,
                               long kernelRxStamps, long kernelTxStamps, long foreign, long malformed,
                               long ptpReplies) {
    /** Counters without the STAMP-only ones. */
    public ReceiverCounters(long received, long duplicates, long badHmac, long tooShort, long late,
                            long kernelRxStamps, long kernelTxStamps) {
        this(received, duplicates, badHmac, tooShort, late, kernelRxStamps, kernelTxStamps, 0, 0, 0);
    }

    /** @return replies that were not used: too short, failed HMAC, of another session */
    public long rejected() {
        return tooShort + badHmac + foreign;
    }
}
