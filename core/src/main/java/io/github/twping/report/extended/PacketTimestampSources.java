package io.github.twping.report.extended;

/**
 * The reflector's timestamp sources of one reply, for the {@code t2_source} and {@code t3_source} fields of the
 * {@code packet} events (STAMP with the Timestamp Information TLV, docs/STAMP.md). Called on the results writer
 * thread for records the data file has made visible: it reads only what the reply of that record carried.
 */
public interface PacketTimestampSources {
    /** @return how the reflector stamped t2 of the reply to {@code seq} ({@code kernel_software}, ...) */
    String t2Source(long seq);

    /** @return how the reflector stamped the t3 carried in the reply to {@code seq} */
    String t3Source(long seq);
}
