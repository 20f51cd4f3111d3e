package io.github.twping.server;

import java.util.Locale;
import java.util.Set;

/**
 * The syslog facility and level names twampd accepts ({@code facility}, {@code loglevel}, {@code -e};
 * docs/SERVER.md): case-insensitive, with or without the {@code LOG_} prefix of the C constants.
 */
final class SyslogNames {
    private static final Set<String> FACILITIES = Set.of("auth", "authpriv", "cron", "daemon", "ftp", "kern",
            "lpr", "mail", "news", "syslog", "user", "uucp", "local0", "local1", "local2", "local3", "local4",
            "local5", "local6", "local7");
    private static final Set<String> LEVELS = Set.of("emerg", "alert", "crit", "err", "error", "warning", "warn",
            "notice", "info", "debug", "none");

    private SyslogNames() {
    }

    /** @return the facility's lower-case name without {@code log_}; throws for an unknown facility */
    static String facility(String name) {
        String f = normalise(name);
        if (!FACILITIES.contains(f)) {
            throw new IllegalArgumentException("Invalid syslog facility: " + name);
        }
        return f;
    }

    /** @return the level's lower-case name without {@code log_}; throws for an unknown level */
    static String level(String name) {
        String l = normalise(name);
        if (!LEVELS.contains(l)) {
            throw new IllegalArgumentException("Invalid log level: " + name);
        }
        return l;
    }

    private static String normalise(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return n.startsWith("log_") ? n.substring(4) : n;
    }
}
