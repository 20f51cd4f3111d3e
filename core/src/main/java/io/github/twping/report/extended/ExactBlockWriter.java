package io.github.twping.report.extended;

import java.util.Locale;

import io.github.twping.report.owamp.Language;
import io.github.twping.stats.exact.DelayDistribution;
import io.github.twping.stats.exact.ExactStatistics;
import io.github.twping.stats.exact.ExactSummary;
import io.github.twping.datafile.RecordSources;
import java.math.BigDecimal;
import java.math.MathContext;

/**
 * The {@code --exact} block printed under the C human summary (docs/CLI.md, {@code --exact}): exact
 * distributions, IPDV, P95-P50 jitter, loss split, reordering, hops, reply DSCP, clocks and timestamp
 * sources, in English or Russian, in the {@code -n} unit.
 */
public final class ExactBlockWriter {
    private static final double[] PERCENTILES = {50, 90, 95, 99, 99.9, 99.99, 99.999};
    private static final String[] PERCENTILE_LABELS = {"p50", "p90", "p95", "p99", "p99.9", "p99.99", "p99.999"};

    private ExactBlockWriter() {
    }

    /** Appends the block (ending with an empty line). */
    public static StringBuilder write(StringBuilder sb, ExactStatistics engine, Language language, char units) {
        boolean ru = language == Language.RU;
        ExactSummary s = engine.total();
        double factor = switch (units) {
            case 'n' -> 1;
            case 'u' -> 1e-3;
            case 's' -> 1e-9;
            default -> 1e-6;
        };
        String unit = switch (units) {
            case 'n' -> ru ? "нс" : "ns";
            case 'u' -> ru ? "мкс" : "us";
            case 's' -> ru ? "с" : "s";
            default -> ru ? "мс" : "ms";
        };
        sb.append(ru ? "--- точная статистика (разрешение 1 нс, " : "--- exact statistics (1 ns resolution, ")
                .append(s.roundTrip().exact() ? (ru ? "точная сортировка" : "exact sort")
                        : (ru ? "HdrHistogram, 3 значащие цифры" : "HdrHistogram, 3 significant digits"))
                .append(") ---\n");
        distribution(sb, ru ? "время кругового пути" : "round-trip", s.roundTrip(), factor, unit, ru);
        distribution(sb, ru ? "прямая задержка" : "send", s.forward(), factor, unit, ru);
        distribution(sb, ru ? "обратная задержка" : "reflect", s.back(), factor, unit, ru);
        distribution(sb, ru ? "обработка в отражателе" : "reflector processing", s.processing(), factor, unit, ru);
        distribution(sb, ru ? "IPDV кругового пути (RFC 3393)" : "round-trip IPDV (RFC 3393)", s.ipdvRoundTrip(),
                factor, unit, ru);
        sb.append(ru ? "джиттер P95-P50: круговой " : "jitter P95-P50: round-trip ");
        jitter(sb, s.roundTrip(), factor).append(ru ? ", прямой " : ", send ");
        jitter(sb, s.forward(), factor).append(ru ? ", обратный " : ", reflect ");
        jitter(sb, s.back(), factor).append(' ').append(unit).append('\n');

        long fwd = engine.forwardLost();
        long bck = engine.backLost();
        sb.append(ru ? "потери: " : "loss: ").append(s.lost());
        if (fwd >= 0) {
            sb.append(ru ? " (прямые " : " (forward ").append(fwd).append(ru ? ", обратные не менее " : ", back at least ")
                    .append(bck).append(')');
        } else {
            sb.append(ru ? " (направление неизвестно)" : " (direction unknown)");
        }
        sb.append(ru ? ", дубликатов " : ", duplicates ").append(s.duplicates())
                .append(ru ? ", переупорядочено " : ", reordered ").append(s.reordered()).append('\n');

        sb.append(ru ? "хопы: прямые " : "hops: send ");
        hops(sb, s, true, ru).append(ru ? ", обратные " : ", reflect ");
        hops(sb, s, false, ru).append(ru ? "; DSCP ответов: " : "; reply DSCP: ");
        boolean any = false;
        for (int d = 0; d <= ExactSummary.DSCP_UNKNOWN; d++) {
            long c = s.replyDscpCount(d);
            if (c > 0) {
                sb.append(any ? ", " : "").append(d == ExactSummary.DSCP_UNKNOWN ? (ru ? "неизвестно" : "unknown")
                        : Integer.toString(d)).append(" x").append(c);
                any = true;
            }
        }
        if (!any) {
            sb.append('-');
        }
        sb.append('\n');

        sb.append(ru ? "часы: локальные " : "clocks: local ")
                .append(syncText(s.localSynchronised(), s.localUnsynchronised(), ru))
                .append(ru ? " (ошибка до " : " (error up to ");
        number(sb, Math.max(s.maxSendErrorSeconds(), s.maxReceiveErrorSeconds()) * 1e9 * factor)
                .append(' ').append(unit).append(ru ? "), удалённые " : "), remote ")
                .append(syncText(s.remoteSynchronised(), s.remoteUnsynchronised(), ru))
                .append(ru ? " (ошибка до " : " (error up to ");
        number(sb, Math.max(s.maxReflectorReceiveErrorSeconds(), s.maxReflectorSendErrorSeconds()) * 1e9 * factor)
                .append(' ').append(unit).append(")\n");

        sb.append(ru ? "метки времени: отправка " : "timestamps: send ");
        sources(sb, s, true, ru).append(ru ? "; приём " : "; receive ");
        sources(sb, s, false, ru).append("\n\n");
        return sb;
    }

    private static void distribution(StringBuilder sb, String label, DelayDistribution d, double factor, String unit,
                                     boolean ru) {
        sb.append(label).append(": ");
        if (d.count() == 0) {
            sb.append(ru ? "нет данных\n" : "no data\n");
            return;
        }
        sb.append("min ");
        number(sb, d.min() * factor).append(ru ? " среднее " : " mean ");
        number(sb, d.mean() * factor).append(ru ? " ско " : " sd ");
        number(sb, d.stddev() * factor);
        for (int i = 0; i < PERCENTILES.length; i++) {
            sb.append(' ').append(PERCENTILE_LABELS[i]).append(' ');
            number(sb, d.percentile(PERCENTILES[i]) * factor);
        }
        sb.append(" max ");
        number(sb, d.max() * factor).append(' ').append(unit).append('\n');
    }

    private static StringBuilder jitter(StringBuilder sb, DelayDistribution d, double factor) {
        if (d.count() == 0) {
            return sb.append("nan");
        }
        return number(sb, (d.percentile(95) - d.percentile(50)) * factor);
    }

    private static StringBuilder hops(StringBuilder sb, ExactSummary s, boolean forward, boolean ru) {
        int minTtl = s.minTtl(forward);
        int maxTtl = s.maxTtl(forward);
        if (minTtl < 0) {
            return sb.append(ru ? "неизвестно" : "unknown");
        }
        int fewest = 255 - maxTtl;
        int most = 255 - minTtl;
        return fewest == most ? sb.append(fewest) : sb.append(fewest).append("..").append(most);
    }

    private static String syncText(long sync, long unsync, boolean ru) {
        if (sync + unsync == 0) {
            return ru ? "неизвестно" : "unknown";
        }
        if (unsync == 0) {
            return ru ? "синхронизированы" : "synchronised";
        }
        return sync == 0 ? (ru ? "не синхронизированы" : "unsynchronised")
                : (ru ? "синхронизированы частично" : "partly synchronised");
    }

    private static StringBuilder sources(StringBuilder sb, ExactSummary s, boolean send, boolean ru) {
        boolean any = false;
        for (int src = RecordSources.KERNEL_HARDWARE; src >= RecordSources.UNKNOWN; src--) {
            long c = send ? s.sendSourceCount(src) : s.receiveSourceCount(src);
            if (c > 0) {
                sb.append(any ? ", " : "").append(sourceLabel(src, ru)).append(' ').append(c);
                any = true;
            }
        }
        return any ? sb : sb.append('-');
    }

    static String sourceLabel(int source, boolean ru) {
        return switch (source) {
            case RecordSources.KERNEL_HARDWARE -> ru ? "ядро (аппаратная)" : "kernel hardware";
            case RecordSources.KERNEL_SOFTWARE -> ru ? "ядро (программная)" : "kernel software";
            case RecordSources.USER -> ru ? "пользовательская" : "user space";
            default -> ru ? "неизвестно" : "unknown";
        };
    }

    /** Up to 6 significant digits, no exponent for ordinary delays, trailing zeros removed. */
    static StringBuilder number(StringBuilder sb, double v) {
        if (Double.isNaN(v)) {
            return sb.append("nan");
        }
        if (v == 0) {
            return sb.append('0');
        }
        if (Math.abs(v) < 1e-3 || Math.abs(v) >= 1e9) {
            return sb.append(String.format(Locale.ROOT, "%.3e", v));
        }
        return sb.append(new BigDecimal(v).round(new MathContext(6)).stripTrailingZeros()
                .toPlainString());
    }
}
