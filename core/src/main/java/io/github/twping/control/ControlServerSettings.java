package io.github.twping.control;

import java.security.SecureRandom;

/**
 * Fixed settings of the server side of control connections.
 *
 * @param serverStartTimeNtp the daemon start time sent in every Server-Start (NTP Num64)
 * @param controlTimeoutMs   inactivity limit for each expected message while no test runs
 *                           ({@code controltimeout}, twampd default 900 s); 0 = none
 * @param random             source of challenges, salts, Server-IVs and SID tails
 */
public record ControlServerSettings(long serverStartTimeNtp, int controlTimeoutMs, SecureRandom random) {
    /** twampd's default {@code controltimeout} in milliseconds. */
    public static final int DEFAULT_CONTROL_TIMEOUT_MS = 900_000;

    public ControlServerSettings {
        if (controlTimeoutMs < 0) {
            throw new IllegalArgumentException("controlTimeoutMs must be >= 0: " + controlTimeoutMs);
        }
        if (random == null) {
            random = new SecureRandom();
        }
    }
}
