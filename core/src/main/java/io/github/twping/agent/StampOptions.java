package io.github.twping.agent;

import io.github.twping.stamp.StampTlvRequest;
import io.github.twping.stamp.TimestampFormat;

/**
 * The packet options of a {@code stamp} or {@code light} target beyond mode and padding (docs/FLEET.md), with
 * every default applied; a {@code twamp} target carries {@link #DEFAULT}.
 *
 * @param ssid      STAMP: the Session-Sender Identifier, 0..65535 (RFC 8972 §3; 0 = none)
 * @param format    STAMP: the format of the sender's timestamps (the Z flag, RFC 8762 §4.2.1)
 * @param tlvs      STAMP: the RFC 8972 TLVs after the Extra Padding, as {@code twping --tlv} takes them
 * @param tlvText   the configured TLV list as written (for messages), or null
 * @param symmetric TWAMP-Light: the default padding makes the request as long as the reflector's reply
 *                  (RFC 6038 symmetric size: 27 octets open, 64 authenticated); false: no default padding
 */
public record StampOptions(int ssid, TimestampFormat format, StampTlvRequest tlvs, String tlvText, boolean symmetric) {
    /** SSID 0, NTP timestamps, no TLV, symmetric size. */
    public static final StampOptions DEFAULT = new StampOptions(0, TimestampFormat.NTP, StampTlvRequest.NONE, null,
            true);

    public StampOptions {
        if (ssid < 0 || ssid > 0xFFFF) {
            throw new IllegalArgumentException("SSID out of range: " + ssid);
        }
        if (format == null || tlvs == null) {
            throw new IllegalArgumentException("format and tlvs are required");
        }
    }

    /** @return true when both send the same packets (the TLV text is not compared, the TLVs are). */
    public boolean samePackets(StampOptions o) {
        return ssid == o.ssid && format == o.format && tlvs.equals(o.tlvs) && symmetric == o.symmetric;
    }
}
