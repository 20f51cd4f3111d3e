package io.github.twping.client;

import java.util.Map;

import io.github.twping.report.owamp.CFormat;
import io.github.twping.report.owamp.Language;

/**
 * The run's own diagnostic lines and the "Approximately" line in the language of {@code --lang}.
 *
 * <p>English is the C client's wording, unchanged (scripts parse it). Russian translates the lines a user
 * meets in a measurement; lines without a translation (library diagnostics such as {@code getaddrinfo()}
 * or {@code _OWPRead...}) stay in English. A translation is one map lookup of a constant string, so the
 * per-packet HMAC warning costs no formatting.
 */
final class RunTexts {
    private static final Map<String, String> RUSSIAN_LINES = Map.ofEntries(
            Map.entry("Session Failed!", "Сессия не удалась!"),
            Map.entry("Test session(s) Failed...", "Тестовая сессия завершилась с ошибкой..."),
            Map.entry("Test failed", "Тест не удался"),
            Map.entry("OWPControlOpen: No Common Modes", "OWPControlOpen: нет общих режимов"),
            Map.entry("Invalid reflected sender sequence number!",
                    "Недопустимый номер последовательности отправителя в ответе!"),
            Map.entry("Invalid sent send timestamp!", "Недопустимая метка времени отправки в ответе!"),
            Map.entry("Invalid sent recv timestamp!", "Недопустимая метка времени приёма отражателем!"),
            Map.entry("run_tw_test: Invalid HMAC on received packet: ignoring",
                    "run_tw_test: неверный HMAC в принятом пакете, пакет пропущен"),
            Map.entry("Full port range exhausted", "Диапазон портов исчерпан"),
            Map.entry("OWPSessionRequest called with incompatible addresses",
                    "OWPSessionRequest: несовместимые семейства адресов"));

    private static final Map<String, String> RUSSIAN_PREFIXES = Map.of(
            "Unable to open control connection to ", "Не удалось открыть управляющее соединение с ",
            "Server denied access: ", "Сервер отказал в доступе: ",
            "Server denied test: ", "Сервер отказал в тесте: ");

    private final boolean russian;

    private RunTexts(boolean russian) {
        this.russian = russian;
    }

    static RunTexts of(Language language) {
        return new RunTexts(language == Language.RU);
    }

    /** @return {@code line} in this language (the English line when there is no translation). */
    String line(String line) {
        if (!russian) {
            return line;
        }
        String exact = RUSSIAN_LINES.get(line);
        if (exact != null) {
            return exact;
        }
        for (Map.Entry<String, String> e : RUSSIAN_PREFIXES.entrySet()) {
            if (line.startsWith(e.getKey())) {
                return e.getValue() + line.substring(e.getKey().length());
            }
        }
        return line;
    }

    /** @return the line printed after Start-Ack (docs/CLIENT.md), with its newline. */
    String approximately(double seconds) {
        // %.1f as C's printf rounds it (the double's exact value, half-even), not as String.format (half-up from the
        // shortest decimal, and 7 ms of Formatter set-up in a `-c 1`)
        StringBuilder sb = new StringBuilder(64).append(russian ? "Примерно " : "Approximately ");
        CFormat.f(sb, seconds, 1);
        return sb.append(russian ? " с до получения результатов\n" : " seconds until results available\n").toString();
    }
}
