package io.github.twping.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Locale;

import io.github.twping.client.TwpingOptions;
import io.github.twping.client.TwampRun;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.report.owamp.CFormat;
import io.github.twping.time.NtpTime;

/**
 * The CI regression gates {@code --max-loss PERCENT} and {@code --max-median-rtt MILLIS}: after the run,
 * the loss and the exact median round-trip time (from the records, not the histogram) are checked, and the
 * run exits with status 3 when a limit is exceeded. The messages print numbers as the summary does
 * ({@code %.3g}/{@code %g}) and name the statistic compared: the exact median, not the bucketed one of the summary.
 */
final class GateCheck implements TwampRun.ReportSink {
    private final double maxLossPercent;
    private final double maxMedianRttMillis;
    private long sent;
    private long lost;
    private double medianRttMillis = Double.NaN;
    private boolean evaluated;

    private GateCheck(double maxLossPercent, double maxMedianRttMillis) {
        this.maxLossPercent = maxLossPercent;
        this.maxMedianRttMillis = maxMedianRttMillis;
    }

    /** @return a gate check, or null when no gate was asked for */
    static GateCheck of(TwpingOptions options) {
        double loss = options.extras().maxLossPercent();
        double rtt = options.extras().maxMedianRttMillis();
        return Double.isNaN(loss) && Double.isNaN(rtt) ? null : new GateCheck(loss, rtt);
    }

    @Override
    public void onSummary(FileChannel dataFile, SessionHeader header) {
        try (SessionDataReader reader = SessionDataReader.open(dataFile)) {
            long n = reader.recordCount();
            TwoWayRecord r = new TwoWayRecord();
            BitSet seen = new BitSet();
            double[] rtt = new double[(int) Math.min(n, Integer.MAX_VALUE - 8)];
            int received = 0;
            for (long i = 0; i < n; i++) {
                reader.read(i, r);
                int seq = (int) Math.min(r.sentSeq, Integer.MAX_VALUE);
                if (seen.get(seq)) {
                    continue;
                }
                seen.set(seq);
                sent++;
                if (r.isLost()) {
                    lost++;
                    continue;
                }
                double proc = NtpTime.toDouble(r.reflSendNtp) - NtpTime.toDouble(r.sentRecvNtp);
                rtt[received++] = NtpTime.toDouble(r.reflRecvNtp) - NtpTime.toDouble(r.sentSendNtp) - proc;
            }
            if (received > 0) {
                Arrays.sort(rtt, 0, received);
                double median = (received & 1) == 1 ? rtt[received / 2]
                        : (rtt[received / 2 - 1] + rtt[received / 2]) / 2;
                medianRttMillis = median * 1e3;
            }
            evaluated = true;
        } catch (IOException e) {
            evaluated = false;
        }
    }

    /** @return 0 when every gate holds, {@link TwampRun#EXIT_GATE_FAILED} otherwise (with one line per failure). */
    int verdict(PrintStream err, String program) {
        if (!evaluated) {
            err.println(program + ": gate: no results to check");
            return TwampRun.EXIT_GATE_FAILED;
        }
        int status = TwampRun.EXIT_OK;
        double lossPercent = sent == 0 ? 100.0 : 100.0 * lost / sent;
        if (!Double.isNaN(maxLossPercent) && lossPercent > maxLossPercent) {
            err.println(String.format(Locale.ROOT, "%s: gate: loss %.3f%% exceeds --max-loss %s%%", program,
                    lossPercent, limit(maxLossPercent)));
            status = TwampRun.EXIT_GATE_FAILED;
        }
        if (!Double.isNaN(maxMedianRttMillis) && !(medianRttMillis <= maxMedianRttMillis)) {
            StringBuilder line = new StringBuilder(160).append(program)
                    .append(": gate: exact median round-trip time ");
            if (Double.isNaN(medianRttMillis)) {
                line.append("nan (no reply)");
            } else {
                CFormat.g(line, medianRttMillis, 3).append(" ms");
            }
            line.append(" exceeds --max-median-rtt ").append(limit(maxMedianRttMillis))
                    .append(" ms (from the records; the summary's median is rounded to the -b bucket)");
            err.println(line);
            status = TwampRun.EXIT_GATE_FAILED;
        }
        return status;
    }

    /** A limit as the summary prints numbers ({@code %g}: {@code 0.5}, {@code 1e-06}, never {@code 1.0E-6}). */
    private static String limit(double v) {
        return CFormat.g(new StringBuilder(), v).toString();
    }
}
