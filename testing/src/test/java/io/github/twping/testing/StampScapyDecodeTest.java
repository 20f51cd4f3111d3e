package io.github.twping.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.twping.protocol.SenderPacket;
import io.github.twping.protocol.StampLayouts;
import io.github.twping.stamp.StampReflector;
import io.github.twping.stamp.StampReflectorSpec;
import io.github.twping.stamp.StampSenderCodec;
import io.github.twping.stamp.StampSenderSpec;
import io.github.twping.stamp.StampTlvRequest;
import io.github.twping.stamp.TimestampFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An independent decode of our RFC 9503 and RFC 9534 TLVs by Debian's python3-scapy ({@code scapy.contrib.stamp},
 * written from RFC 8972): its generic STAMP TLV splits a request built by our sender codec and the reply of our
 * reflector into TLVs, and each one's flags, type, length and value must be what the RFCs' figures say. scapy
 * 2.5.0 knows the TLV header but none of these types by name, so the values are compared as octets. Skips, saying
 * so, when no python3 with scapy is installed ({@code .ci/run} installs python3-scapy when it can).
 */
class StampScapyDecodeTest {
    /** Prints "flags type length value-hex" per TLV of the octets after the 44-octet base packet. */
    private static final String DECODE = String.join("\n",
            "import sys",
            "from scapy.contrib.stamp import STAMPTestTLV",
            "rest = bytes.fromhex(sys.argv[1])[44:]",
            "while rest:",
            "    t = STAMPTestTLV(rest)",
            "    print(int(t.flags), t.type, t.len, bytes(t.value).hex())",
            "    rest = rest[4 + t.len:]");

    private static String python() {
        for (String candidate : List.of("python3", "/usr/bin/python3")) {
            try {
                Process p = new ProcessBuilder(candidate, "-c", "import scapy.contrib.stamp")
                        .redirectErrorStream(true).start();
                p.getInputStream().readAllBytes();
                if (p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0) {
                    return candidate;
                }
                p.destroyForcibly();
            } catch (IOException e) {
                // not this one
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
        return null;
    }

    private static List<String> decode(String python, byte[] packet) throws Exception {
        Process p = new ProcessBuilder(python, "-c", DECODE, HexFormat.of().formatHex(packet))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(true, p.waitFor(60, TimeUnit.SECONDS), "scapy did not finish");
        assertEquals(0, p.exitValue(), out);
        return out.lines().toList();
    }

    @Test
    @Timeout(120)
    void scapyReadsOurRequestsAndOurReflectorsReplies() throws Exception {
        String python = python();
        assumeTrue(python != null, "no python3 with scapy (python3-scapy) is installed; the independent decode "
                + "cannot run");
        StampTlvRequest tlvs = StampTlvRequest.parse("dna=127.0.0.1,rp-addr=127.0.0.1,rp-srv6=2001:db8::1,msid=7",
                false);
        StampSenderCodec codec = new StampSenderCodec(new StampSenderSpec(false, null, TimestampFormat.NTP, 3, 0,
                tlvs));
        int length = StampLayouts.UNAUTHENTICATED_LENGTH + tlvs.bytes();
        MemorySegment packet = MemorySegment.ofArray(new byte[length]);
        new SenderPacket(StampLayouts.UNAUTHENTICATED_SENDER).wrap(packet).clearMbz().sequenceNumber(1);
        codec.sealSenderHead(packet);
        byte[] request = packet.toArray(ValueLayout.JAVA_BYTE);
        String sid = "20010db8000000000000000000000001";
        assertEquals(List.of(
                "128 9 4 7f000001",                                           // RFC 9503 §3
                "128 10 28 000200047f000001" + "00040010" + sid,               // §4.1.2 and §4.1.3.2
                "128 11 4 00070000"), decode(python, request));                // RFC 9534 §3.1

        try (StampReflector reflector = new StampReflector(StampReflectorSpec.stamp().withMemberLink(42),
                StampReflector.openSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0), null);
             DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            reflector.start();
            client.setSoTimeout(10_000);
            client.send(new DatagramPacket(request, request.length, reflector.localAddress()));
            byte[] buffer = new byte[2048];
            DatagramPacket p = new DatagramPacket(buffer, buffer.length);
            client.receive(p);
            byte[] reply = Arrays.copyOf(buffer, p.getLength());
            assertEquals(List.of(
                    "0 9 4 7f000001",                                         // our address: U clear
                    "128 10 28 000200047f000001" + "80040010" + sid,           // SRv6 cannot be followed: U
                    "0 11 4 0007002a"), decode(python, reply));                // member link 42 filled in
        }
    }
}
