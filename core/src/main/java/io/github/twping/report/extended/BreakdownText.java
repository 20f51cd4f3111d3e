package io.github.twping.report.extended;

import io.github.twping.report.owamp.Language;
import io.github.twping.stats.breakdown.Absence;
import io.github.twping.stats.breakdown.BreakdownStatistics;
import io.github.twping.stats.breakdown.BreakdownSummary;
import io.github.twping.stats.breakdown.Component;
import io.github.twping.stats.breakdown.PacketBreakdown;
import io.github.twping.stats.exact.DelayDistribution;

/**
 * The delay breakdown in text (docs/CLI.md, {@code --exact} and {@code --explain}): the per-component lines of the
 * {@code --exact} block and the {@code --explain} section (the slowest packets, the dominant component of the p99),
 * in English or Russian, in the {@code -n} unit. Never part of the C-compatible outputs.
 */
public final class BreakdownText {
    private BreakdownText() {
    }

    private static double factor(char units) {
        return switch (units) {
            case 'n' -> 1;
            case 'u' -> 1e-3;
            case 's' -> 1e-9;
            default -> 1e-6;
        };
    }

    private static String unit(char units, boolean ru) {
        return switch (units) {
            case 'n' -> ru ? "нс" : "ns";
            case 'u' -> ru ? "мкс" : "us";
            case 's' -> ru ? "с" : "s";
            default -> ru ? "мс" : "ms";
        };
    }

    /** @return the name of a component in the text outputs */
    static String label(Component c, boolean ru) {
        return switch (c) {
            case PACING_LATENESS -> ru ? "опоздание отправки" : "pacing lateness";
            case SENDER_STACK -> ru ? "стек отправителя" : "sender stack";
            case FORWARD -> ru ? "прямой путь" : "forward";
            case REFLECTOR_RESIDENCE -> ru ? "время в отражателе" : "reflector residence";
            case REFLECTOR_STACK -> ru ? "стек отражателя" : "reflector stack";
            case BACK -> ru ? "обратный путь" : "back";
            case RECEIVER_WAKEUP -> ru ? "пробуждение приёмника" : "receiver wake-up";
        };
    }

    /** Appends the breakdown lines of the {@code --exact} block (after an empty line, ending with one). */
    public static StringBuilder exactSection(StringBuilder sb, BreakdownSummary summary, Language language,
                                             char units) {
        boolean ru = language == Language.RU;
        double f = factor(units);
        String unit = unit(units, ru);
        BreakdownStatistics st = summary.statistics();
        sb.append(ru ? "\n--- разбивка задержки (docs/STATISTICS.md; p50 p99 p99.9 max, " : "\n--- delay breakdown "
                + "(docs/STATISTICS.md; p50 p99 p99.9 max, ").append(unit).append(") ---\n");
        for (Component c : Component.values()) {
            sb.append(label(c, ru)).append(": ");
            distribution(sb, st.component(c), f, ru);
            absences(sb, st, c, st.component(c).count() > 0, ru);
            sb.append('\n');
        }
        sb.append(ru ? "интервал (от метки в пакете до приёма потоком): "
                : "span (send stamp to the receiver thread): ");
        distribution(sb, st.span(), f, ru);
        if (st.span().count() == 0) {
            sb.append(ru ? "нет данных" : "no data");
        }
        sb.append('\n');
        dominant(sb, summary, f, unit, ru);
        return sb.append('\n');
    }

    /** Appends the {@code --explain} section: the slowest packets with their breakdown, and the dominant component. */
    public static StringBuilder explain(StringBuilder sb, BreakdownSummary summary, Language language, char units) {
        boolean ru = language == Language.RU;
        double f = factor(units);
        String unit = unit(units, ru);
        sb.append(ru ? "--- объяснение: самые медленные пакеты (интервал от метки в пакете до приёма потоком, "
                : "--- explain: the slowest packets (span from the send stamp to the receiver thread, ")
                .append(unit).append(") ---\n");
        if (summary.slowest().isEmpty()) {
            sb.append(ru ? "нет принятых пакетов\n" : "no packet received\n");
        }
        for (PacketBreakdown b : summary.slowest()) {
            sb.append(ru ? "пакет " : "packet ").append(b.seq()).append(ru ? " (запись " : " (record ")
                    .append(b.recordIndex()).append(ru ? "): интервал " : "): span ");
            ExactBlockWriter.number(sb, b.spanNs() * f).append(ru ? ", время кругового пути " : ", round trip ");
            ExactBlockWriter.number(sb, b.recordRttNs() * f).append('\n');
            for (Component c : Component.values()) {
                sb.append("  ").append(label(c, ru)).append(": ");
                Absence a = b.absence(c);
                if (a == null) {
                    ExactBlockWriter.number(sb, b.ns(c) * f).append(" (").append(b.from(c).key()).append('>')
                            .append(b.to(c).key()).append(')');
                } else {
                    sb.append(ru ? "неизвестно (" : "unknown (").append(a.key()).append(')');
                }
                sb.append('\n');
            }
        }
        dominant(sb, summary, f, unit, ru);
        return sb.append('\n');
    }

    private static void dominant(StringBuilder sb, BreakdownSummary summary, double f, String unit, boolean ru) {
        Component d = summary.dominant();
        if (d == null) {
            sb.append(ru ? "преобладающая часть p99: нет данных\n" : "dominant component of the p99: no data\n");
            return;
        }
        sb.append(ru ? "преобладающая часть p99: " : "dominant component of the p99: ").append(label(d, ru))
                .append(ru ? " (в среднем " : " (mean ");
        ExactBlockWriter.number(sb, summary.tailMeanNs(d) * f).append(' ').append(unit)
                .append(ru ? " в " : " over the ").append(summary.tailPackets())
                .append(ru ? " пакетах с интервалом от p99 " : " packets with a span at or above the p99 ");
        ExactBlockWriter.number(sb, summary.tailFromNs() * f).append(' ').append(unit).append(")\n");
    }

    private static void distribution(StringBuilder sb, DelayDistribution d, double f, boolean ru) {
        if (d.count() == 0) {
            return;
        }
        sb.append("p50 ");
        ExactBlockWriter.number(sb, d.percentile(50) * f).append(" p99 ");
        ExactBlockWriter.number(sb, d.percentile(99) * f).append(" p99.9 ");
        ExactBlockWriter.number(sb, d.percentile(99.9) * f).append(" max ");
        ExactBlockWriter.number(sb, d.max() * f).append(ru ? " (пакетов " : " (packets ").append(d.count())
                .append(')');
    }

    private static void absences(StringBuilder sb, BreakdownStatistics st, Component c, boolean known, boolean ru) {
        boolean any = false;
        for (Absence a : Absence.values()) {
            long n = st.absent(c, a);
            if (n > 0) {
                sb.append(any ? ", " : (known ? "; " : "") + (ru ? "неизвестно: " : "not known: ")).append(a.key())
                        .append(' ').append(n);
                any = true;
            }
        }
        if (!known && !any) {
            sb.append(ru ? "нет данных" : "no data");
        }
    }
}
