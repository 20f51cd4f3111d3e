package io.github.twping.control;

import io.github.twping.protocol.AddressField;
import io.github.twping.protocol.RequestTwSession;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Objects;

/**
 * The decoded fields of one Request-TW-Session (RFC 5357 section 3.5, RFC 5357 §3.5). The client builds
 * one with {@link #forTwping}; the server hands one (addresses substituted) to its session handler.
 *
 * @param ipvn            IP version, 4 or 6
 * @param senderAddress   Session-Sender address, or {@code null} for the all-zero "unspecified" field
 * @param receiverAddress Session-Reflector address, or {@code null} for unspecified
 * @param sid             the SID field (16 bytes; twping sends zeros)
 * @param paddingLength   unsigned 32-bit padding length of the sender's test packets
 * @param startTimeNtp    absolute start time (NTP Num64)
 * @param timeoutNtp      session timeout (Num64 duration)
 * @param typePDescriptor Type-P Descriptor (DSCP &lt;&lt; 24 for twping)
 */
public record SessionRequest(int ipvn, int confSender, int confReceiver, long scheduleSlots, long packets,
                             InetAddress senderAddress, int senderPort,
                             InetAddress receiverAddress, int receiverPort,
                             byte[] sid, long paddingLength, long startTimeNtp, long timeoutNtp,
                             int typePDescriptor) {

    /** The only Type-P bits a twampd reflector supports (the DSCP in bits 24..29). */
    public static final int SUPPORTED_TYPE_P_BITS = 0x3F000000;

    public SessionRequest {
        sid = sid == null ? new byte[RequestTwSession.SID_LENGTH] : sid.clone();
    }

    /**
     * A request as twping sends it: no Conf-*, no slots/packets, zero SID.
     *
     * @param senderAddress   local address of the test socket, {@code null} for {@code -Z}
     * @param receiverAddress reflector address, {@code null} for {@code -Z}
     */
    public static SessionRequest forTwping(int ipvn, InetAddress senderAddress, int senderPort,
                                           InetAddress receiverAddress, int receiverPort, long paddingLength,
                                           long startTimeNtp, long timeoutNtp, int typePDescriptor) {
        return new SessionRequest(ipvn, 0, 0, 0, 0, senderAddress, senderPort, receiverAddress, receiverPort,
                null, paddingLength, startTimeNtp, timeoutNtp, typePDescriptor);
    }

    @Override
    public byte[] sid() {
        return sid.clone();
    }

    /** Writes this request into a zeroed Request-TW-Session (HMAC field left zero). */
    public void encode(RequestTwSession message) {
        message.clear().command(RequestTwSession.COMMAND).ipvn(ipvn)
                .confSender(confSender).confReceiver(confReceiver)
                .scheduleSlots(scheduleSlots).packets(packets)
                .senderPort(senderPort).receiverPort(receiverPort)
                .senderAddress(wireAddress(senderAddress)).receiverAddress(wireAddress(receiverAddress))
                .sid(sid).paddingLength(paddingLength).startTimeNtp(startTimeNtp).timeoutNtp(timeoutNtp)
                .typePDescriptor(typePDescriptor);
    }

    /**
     * Reads a received Request-TW-Session. Addresses whose field is zero, or whose IPVN is neither
     * 4 nor 6, are decoded as {@code null}.
     */
    public static SessionRequest decode(RequestTwSession message) {
        int ipvn = message.ipvn();
        byte[] sid = new byte[RequestTwSession.SID_LENGTH];
        message.copySidTo(sid);
        return new SessionRequest(ipvn, message.confSender(), message.confReceiver(),
                message.scheduleSlots(), message.packets(),
                address(message, ipvn, true), message.senderPort(),
                address(message, ipvn, false), message.receiverPort(),
                sid, message.paddingLength(), message.startTimeNtp(), message.timeoutNtp(),
                message.typePDescriptor());
    }

    /** @return a copy with the given addresses (used for the server's zero-address substitution). */
    public SessionRequest withAddresses(InetAddress sender, InetAddress receiver) {
        return new SessionRequest(ipvn, confSender, confReceiver, scheduleSlots, packets, sender, senderPort,
                receiver, receiverPort, sid, paddingLength, startTimeNtp, timeoutNtp, typePDescriptor);
    }

    private static InetAddress address(RequestTwSession message, int ipvn, boolean sender) {
        int len = AddressField.lengthForIpvn(ipvn);
        if (len < 0) {
            return null;
        }
        byte[] raw = new byte[len];
        if (sender) {
            message.copySenderAddressTo(raw);
        } else {
            message.copyReceiverAddressTo(raw);
        }
        boolean zero = true;
        for (byte b : raw) {
            zero &= b == 0;
        }
        if (zero) {
            return null;
        }
        try {
            // getByAddress keeps 16-byte IPv4-mapped input as an Inet4Address; force Inet6 for IPVN 6.
            return len == 16 ? Inet6Address.getByAddress(null, raw, null) : InetAddress.getByAddress(raw);
        } catch (UnknownHostException e) {
            throw new AssertionError("fixed-length address rejected", e);
        }
    }

    private static byte[] wireAddress(InetAddress address) {
        return address == null ? null : address.getAddress();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SessionRequest r && ipvn == r.ipvn && confSender == r.confSender
                && confReceiver == r.confReceiver && scheduleSlots == r.scheduleSlots && packets == r.packets
                && Objects.equals(senderAddress, r.senderAddress) && senderPort == r.senderPort
                && Objects.equals(receiverAddress, r.receiverAddress) && receiverPort == r.receiverPort
                && Arrays.equals(sid, r.sid) && paddingLength == r.paddingLength && startTimeNtp == r.startTimeNtp
                && timeoutNtp == r.timeoutNtp && typePDescriptor == r.typePDescriptor;
    }

    @Override
    public int hashCode() {
        return Objects.hash(ipvn, senderAddress, senderPort, receiverAddress, receiverPort,
                Arrays.hashCode(sid), startTimeNtp);
    }

    @Override
    public String toString() {
        return "SessionRequest[ipvn=" + ipvn + ", sender=" + senderAddress + ":" + senderPort
                + ", receiver=" + receiverAddress + ":" + receiverPort + ", padding=" + paddingLength
                + ", startTimeNtp=" + Long.toHexString(startTimeNtp) + ", timeoutNtp=" + Long.toHexString(timeoutNtp)
                + ", typeP=" + Integer.toHexString(typePDescriptor) + "]";
    }
}
