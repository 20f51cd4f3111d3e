package io.github.twping.agent;

import io.github.twping.metrics.AgentMetrics;
import io.github.twping.metrics.SessionSample;
import io.github.twping.datafile.RecordSources;
import io.github.twping.datafile.RecordStamps;
import io.github.twping.stats.breakdown.PacketBreakdown;
import io.github.twping.stats.breakdown.ReflectorStamps;
import io.github.twping.session.ReceiverCounters;
import io.github.twping.datafile.ScheduleDeltas;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.stats.owamp.SummaryResult;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.stats.owamp.TwoWayStatistics;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import io.github.twping.stats.owamp.RecordListener;

/**
 * Turns one session's data file into a {@link SessionSample}: loss, duplicates, error sums, sync and TTLs from
 * the owamp-compatible statistics engine ({@link TwoWayStatistics}, the one twping prints from), the delays of
 * every distinct answered packet (sorted, for the histograms and the exact quantiles) from the same pass, and
 * reordering from the records' sequence numbers and arrival stamps; and ({@link #breakdown}) each answered
 * packet's delay breakdown for the component histograms. Runs once per session, off the packet path.
 */
final class SessionAnalysis {
    /** Bucket width of the engine's histogram; the agent takes its quantiles from the exact delays instead. */
    private static final float BUCKET_WIDTH = 0.0001f;

    private SessionAnalysis() {
    }

    /**
     * What the delay breakdown of a session is computed from, and where it goes.
     *
     * @param sources   the session's timestamp sources per record
     * @param stamps    the client's extra stamps per record, or null (the client's parts are then unknown)
     * @param reflector what the protocol said about the reflector's stamps
     */
    record Breakdown(RecordSources sources, RecordStamps stamps, ReflectorStamps reflector) {
    }

    /**
     * @param data      the session data file (header and records written)
     * @param sent      packets actually sent (fewer than the header's count when the session was stopped or the
     *                  sender was late)
     * @param skipped   packets not sent because the sender was more than the loss timeout late
     * @param counters  the receiver's counters
     * @param completed whether the session ran to its end
     * @param diagnostics receives the engine's lines when it fails
     */
    static SessionSample analyse(FileChannel data, long sent, long skipped, ReceiverCounters counters, boolean completed,
                                 List<String> diagnostics) throws IOException {
        try (SessionDataReader reader = SessionDataReader.open(data)) {
            SessionHeader header = reader.header();
            // Sequence numbers handled: the sent ones and the skipped ones between them (a skipped packet has
            // no record and counts in no statistic), so a late start's skips do not cut off the last packets.
            long last = Math.min(header.packetCount(), sent + skipped);
            SummaryResult result = new SummaryResult(BUCKET_WIDTH);
            Delays delays = new Delays((int) Math.min(Integer.MAX_VALUE - 8, Math.max(16, last)));
            boolean ok = last == 0 || new TwoWayStatistics(header, ScheduleDeltas.of(header))
                    .summarize(reader, 0, last, 0, 0, delays, result, diagnostics);
            if (!ok) {
                throw new IOException("statistics failed: " + String.join("; ", diagnostics));
            }
            long lost = last == 0 ? 0 : result.lost();
            long sentCounted = last == 0 ? 0 : result.sent();
            long rxAll = counters.received() + counters.duplicates();
            return new SessionSample(sentCounted, lost, skipped, last == 0 ? 0 : result.dupsFwd(),
                    last == 0 ? 0 : result.dupsBck(), delays.reorderedForward(), delays.reorderedBack(),
                    delays.sorted(delays.rtt), delays.sorted(delays.fwd), delays.sorted(delays.bck),
                    lastHops(result, true), lastHops(result, false), last > 0 && result.sync(),
                    result.maxError(SummaryResult.RT), result.maxError(SummaryResult.FWD),
                    result.maxError(SummaryResult.BCK), Math.min(rxAll, counters.kernelRxStamps()),
                    Math.max(0, rxAll - counters.kernelRxStamps()), Math.min(sent, counters.kernelTxStamps()),
                    Math.max(0, sent - counters.kernelTxStamps()), System.currentTimeMillis() / 1000.0, completed);
        }
    }

    /**
     * Feeds the breakdown ({@link PacketBreakdown}) of the first reply to each sequence number the statistics
     * count (as {@link #analyse}) to {@code recorder}, in one more pass over the records of {@code data}, then
     * finishes it. Called by {@link AgentMetrics#recordSession} so that a session's metrics change together; a file
     * that cannot be read (it was just analysed) leaves the breakdown out.
     */
    static void breakdown(FileChannel data, long sent, long skipped, Breakdown b, AgentMetrics.ComponentRecorder recorder) {
        try (SessionDataReader reader = SessionDataReader.open(data)) {
            long last = Math.min(reader.header().packetCount(), sent + skipped);
            BitSet seen = new BitSet((int) Math.min(Integer.MAX_VALUE, Math.max(64, last)));
            TwoWayRecord r = new TwoWayRecord();
            PacketBreakdown packet = new PacketBreakdown();
            ReflectorStamps reflector = b.reflector() == null ? ReflectorStamps.NONE : b.reflector();
            long count = reader.recordCount();
            for (long i = 0; i < count; i++) {
                reader.read(i, r);
                if (r.isLost() || r.sentSeq < 0 || r.sentSeq >= last || r.sentSeq > Integer.MAX_VALUE
                        || seen.get((int) r.sentSeq)) {
                    continue;
                }
                seen.set((int) r.sentSeq);
                recorder.accept(packet.compute(i, r, b.sources() == null ? 0 : b.sources().get(i), b.stamps(),
                        reflector));
            }
        } catch (IOException e) {
            return;
        }
        recorder.finish();
    }

    /** The hop count seen most often (255 - TTL), or -1 when no TTL was reported. */
    private static int lastHops(SummaryResult r, boolean forward) {
        int best = -1;
        long bestCount = 0;
        for (int ttl = 0; ttl < 256; ttl++) {
            long c = forward ? r.ttlCountFwd(ttl) : r.ttlCountBck(ttl);
            if (c > bestCount) {
                bestCount = c;
                best = ttl;
            }
        }
        return best < 0 ? -1 : 255 - best;
    }

    /** Collects the delays of first copies and the sequence numbers for reordering. */
    private static final class Delays implements RecordListener {
        final Growable rtt;
        final Growable fwd;
        final Growable bck;
        final BitSet seen = new BitSet();
        final List<long[]> order = new ArrayList<>();

        Delays(int expected) {
            rtt = new Growable(expected);
            fwd = new Growable(expected);
            bck = new Growable(expected);
        }

        @Override
        public void onLost(TwoWayRecord record) {
            // counted by the engine
        }

        @Override
        public void onReceived(TwoWayRecord r, double fwdDelay, double bckDelay, double rt, double proc,
                               double errRt) {
            if (r.sentSeq < 0 || r.sentSeq > Integer.MAX_VALUE || seen.get((int) r.sentSeq)) {
                return;
            }
            seen.set((int) r.sentSeq);
            rtt.add(rt);
            fwd.add(fwdDelay);
            bck.add(bckDelay);
            order.add(new long[] {r.sentSeq, r.reflSeq, r.reflRecvNtp});
        }

        /** Packets that reached the reflector after one sent later (reflector seq below the running max). */
        long reorderedForward() {
            List<long[]> bySent = new ArrayList<>(order);
            bySent.sort((a, b) -> Long.compare(a[0], b[0]));
            long count = 0;
            long max = -1;
            for (long[] o : bySent) {
                if (o[1] < max) {
                    count++;
                }
                max = Math.max(max, o[1]);
            }
            return count;
        }

        /** Replies that reached us after one the reflector sent later (arrival below the running max). */
        long reorderedBack() {
            List<long[]> byReflected = new ArrayList<>(order);
            byReflected.sort((a, b) -> Long.compare(a[1], b[1]));
            long count = 0;
            long max = 0;
            for (long[] o : byReflected) {
                if (max != 0 && Long.compareUnsigned(o[2], max) < 0) {
                    count++;
                }
                if (Long.compareUnsigned(o[2], max) > 0) {
                    max = o[2];
                }
            }
            return count;
        }

        double[] sorted(Growable g) {
            double[] v = Arrays.copyOf(g.values, g.size);
            Arrays.sort(v);
            return v;
        }
    }

    private static final class Growable {
        double[] values;
        int size;

        Growable(int capacity) {
            values = new double[Math.min(capacity, 1 << 16)];
        }

        void add(double v) {
            if (size == values.length) {
                values = Arrays.copyOf(values, Math.max(16, size * 2));
            }
            values[size++] = v;
        }
    }
}
