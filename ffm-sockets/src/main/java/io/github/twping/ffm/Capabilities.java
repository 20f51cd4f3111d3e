package io.github.twping.ffm;

/**
 * What a socket really delivers, as configured and accepted by the kernel (for example, a TTL can be received
 * only when {@code receiveTtl} is true). Hardware timestamps are "requested and accepted": whether any arrive
 * depends on the NIC (see {@link TimestampingProbe}).
 *
 * @param setTtl              the unicast TTL / hop limit option was applied
 * @param setTos              the TOS / traffic class option was applied
 * @param receiveTtl          received packets carry their TTL / hop limit
 * @param receiveTos          received packets carry their TOS / traffic class
 * @param kernelRxTimestamps  received packets carry a kernel timestamp
 * @param txTimestamps        sent packets produce TX timestamps, see {@link UdpSocket#pollTxTimestamps}
 * @param hardwareTimestamps  hardware timestamping flags were accepted by the socket
 */
public record Capabilities(boolean setTtl, boolean setTos, boolean receiveTtl, boolean receiveTos,
                           boolean kernelRxTimestamps, boolean txTimestamps, boolean hardwareTimestamps) {
}
