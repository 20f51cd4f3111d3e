package io.github.twping.metrics;

/**
 * What one finished test session measured, as the metrics record it. Delays are in seconds, one entry per
 * distinct answered packet (duplicates excluded), each array sorted ascending.
 *
 * @param sent               packets sent
 * @param lost               packets not answered within the loss timeout
 * @param skipped            scheduled packets not sent because the sender was more than the loss timeout late
 * @param duplicatesForward  extra copies seen by the reflector ("send duplicates")
 * @param duplicatesBack     extra copies seen by us ("reflect duplicates")
 * @param reorderedForward   packets that reached the reflector after a later-sent one
 * @param reorderedBack      replies that reached us after a reply the reflector sent later
 * @param rtt                round-trip times without reflector processing
 * @param forward            forward ("send") delays
 * @param back               backward ("reflect") delays
 * @param hopsForward        hop count of the last forward packet (255 - TTL), or -1 when not reported
 * @param hopsBack           hop count of the last reply, or -1
 * @param synchronised       both clocks reported synchronised for the whole session
 * @param errorRtt           largest round-trip error estimate, seconds
 * @param errorForward       largest forward error estimate, seconds
 * @param errorBack          largest backward error estimate, seconds
 * @param rxKernel           replies stamped by the kernel on arrival
 * @param rxUser             replies stamped in user space
 * @param txKernel           sends stamped by the kernel
 * @param txUser             sends stamped in user space
 * @param endEpochSeconds    when the session's results became available
 * @param completed          the session ran to its end (false: stopped early, results partial)
 */
public record SessionSample(long sent, long lost, long skipped, long duplicatesForward, long duplicatesBack,
                            long reorderedForward, long reorderedBack, double[] rtt, double[] forward,
                            double[] back, int hopsForward, int hopsBack, boolean synchronised, double errorRtt,
                            double errorForward, double errorBack, long rxKernel, long rxUser, long txKernel,
                            long txUser, double endEpochSeconds, boolean completed) {

    /** @return packets answered (sent - lost). */
    public long received() {
        return sent - lost;
    }

    /**
     * @param sorted ascending values
     * @param q      quantile 0..1 (nearest rank: the smallest value with at least q of the values at or below it)
     * @return the quantile, or NaN for no values
     */
    public static double quantile(double[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
    }
}
