package io.github.twping.report.owamp;

/** The fixed texts of the human summary per language; English is the C text byte for byte. */
record SummaryLabels(String clocksWarning, String headerStart, String headerTo, String first, String last,
                     String sent, String lostOpen, String lostClose, String sendDups, String reflectDups,
                     String roundTrip, String send, String reflect, String proc, String errOpen, String unsync,
                     String jitterRt, String jitterFwd, String jitterBck, String jitterSuffix, String percentiles,
                     String dirSend, String dirReflect, String hopsConsistent1, String hopsConsistent2,
                     String hopsTakes1, String hopsTakes2, String hopsTakes3, String ttlNotReported) {

    static final SummaryLabels EN = new SummaryLabels(
        "\nDirectional delays may be inaccurate due to out of sync clocks!\n",
        "\n--- twping statistics from [", " to [", "first:\t", "last:\t",
        " sent, ", " lost (", "%), ", " send duplicates, ", " reflect duplicates\n",
        "round-trip time min/median/max = ", "send time min/median/max = ",
        "reflect time min/median/max = ", "reflector processing time min/max = ",
        "(err=", "(unsync)",
        "two-way jitter = ", "send jitter = ", "reflect jitter = ", " (P95-P50)\n", "Percentiles:\n",
        "send ", "reflect ", "hops = ", " (consistently)",
        "hops takes ", " values; min hops = ", ", max hops = ", "TTL not reported");

    static final SummaryLabels RU = new SummaryLabels(
        "\nЗадержки по направлениям могут быть неточны: часы не синхронизированы!\n",
        "\n--- статистика twping от [", " до [", "первый:\t", "последний:\t",
        " отправлено, ", " потеряно (", "%), ", " дубликатов отправки, ", " дубликатов отражения\n",
        "время туда-обратно мин/медиана/макс = ", "время туда мин/медиана/макс = ",
        "время обратно мин/медиана/макс = ", "время обработки на отражателе мин/макс = ",
        "(погр.=", "(нет синхр.)",
        "джиттер туда-обратно = ", "джиттер туда = ", "джиттер обратно = ", " (P95-P50)\n", "Процентили:\n",
        "туда: ", "обратно: ", "хопов = ", " (постоянно)",
        "число хопов меняется, значений: ", "; мин. хопов = ", ", макс. хопов = ", "TTL не сообщается");

    static SummaryLabels of(Language language) {
        return language == Language.RU ? RU : EN;
    }
}
