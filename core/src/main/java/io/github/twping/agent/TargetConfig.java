package io.github.twping.agent;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One measured path of the agent, with every default applied (docs/FLEET.md, docs/agent-config.schema.json).
 *
 * @param name               the {@code target} label value; unique in the file
 * @param host               server host name or literal (no brackets)
 * @param port               TWAMP-Control port
 * @param protocol           the measurement protocol
 * @param rate               test packets per second
 * @param sessionSeconds     length of one session
 * @param exponential        exponentially distributed intervals instead of fixed ones
 * @param modeMask           requested modes as the -A bit mask
 * @param identity           KeyID for keyed modes, or null
 * @param keyFile            pfs file with the identity's pass-phrase, or null
 * @param dscp               DSCP 0..63
 * @param paddingBytes       padding per test packet, or -1 for the twping default of the negotiated mode
 * @param lossTimeoutSeconds loss timeout
 * @param spinMicros         busy-wait window before each send
 * @param stamp              the STAMP/TWAMP-Light packet options ({@link StampOptions#DEFAULT} for TWAMP)
 * @param line               line of the entry in the file (for messages)
 */
public record TargetConfig(String name, String host, int port, Protocol protocol, double rate, double sessionSeconds,
                           boolean exponential, int modeMask, String identity, Path keyFile, int dscp, int paddingBytes,
                           double lossTimeoutSeconds, long spinMicros, StampOptions stamp, int line) {

    /** @return packets per session (at least 1). */
    public long packetCount() {
        return Math.max(1, Math.round(rate * sessionSeconds));
    }

    /** @return true when the two configs connect to the same server the same way (a reload keeps the connection). */
    public boolean sameConnection(TargetConfig o) {
        return host.equals(o.host) && port == o.port && protocol == o.protocol && modeMask == o.modeMask
                && Objects.equals(identity, o.identity) && Objects.equals(keyFile, o.keyFile);
    }

    /** @return true when everything but the line number is equal. */
    public boolean sameSettings(TargetConfig o) {
        return sameConnection(o) && name.equals(o.name) && rate == o.rate && sessionSeconds == o.sessionSeconds
                && exponential == o.exponential && dscp == o.dscp && paddingBytes == o.paddingBytes
                && lossTimeoutSeconds == o.lossTimeoutSeconds && spinMicros == o.spinMicros
                && stamp.samePackets(o.stamp);
    }

    /** @return host and port as typed in messages ({@code [v6]:port}). */
    public String address() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
