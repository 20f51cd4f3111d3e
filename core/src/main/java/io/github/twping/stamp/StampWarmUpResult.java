package io.github.twping.stamp;

/**
 * What a STAMP/TWAMP-Light warm-up did ({@link StampReflectorWarmUp}, {@link StampSenderWarmUp}).
 *
 * @param packets   sequence numbers the senders handled (sent or skipped; the last attempt of each phase)
 * @param reflected replies the in-process reflector sent
 * @param followUps of those, replies whose Follow-Up Telemetry TLV carried a kernel TX stamp read from the
 *                  reflector socket's error queue
 * @param elapsedNs how long it took
 * @param completed every phase ran all its packets
 * @param sockets   the senders' sockets: 2 when a receiving and a sending socket ran as one split test socket
 *                  (kernel TX stamps), 1 for one socket, 0 for the reflector's warm-up or none run
 */
public record StampWarmUpResult(long packets, long reflected, long followUps, long elapsedNs, boolean completed,
                                int sockets) {
    static final StampWarmUpResult NONE = new StampWarmUpResult(0, 0, 0, 0, false, 0);
}
