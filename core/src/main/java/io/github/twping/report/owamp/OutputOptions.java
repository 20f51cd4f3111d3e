package io.github.twping.report.owamp;

import java.time.ZoneId;

/**
 * What to print after a test or for a data file (docs/STATISTICS.md): the output-related twping options.
 *
 * @param raw           {@code -R}: raw records (wins over everything else)
 * @param machine       {@code -M}: machine-readable summary
 * @param quiet         {@code -Q}: print nothing
 * @param perPacket     {@code -v}: per-packet lines before the human summary (ignored with machine)
 * @param recordLimit   the {@code -v} argument N (0 = all); QUIRK: it limits the statistics too
 * @param unix          {@code -U}: Unix-time variants
 * @param units         {@code -n} unit character: {@code 'n'}, {@code 'u'}, {@code 'm'} or {@code 's'}
 * @param percentiles   {@code -a} values as C floats (empty = none)
 * @param bucketWidth   {@code -b} as the C float (default 0.0001f)
 * @param subsession    {@code -N} (0 = one summary)
 * @param perFile       {@code -p}: summaries into files
 * @param directory     {@code -d} directory for {@code -p} files, or {@code null}
 * @param language      language of the human summary
 * @param zone          zone for {@code first:}/{@code last:}, or {@code null} for the system's own (read through
 *                      {@code java.util.TimeZone}: {@code ZoneId.systemDefault()} loads the zone-rules providers,
 *                      a class-path scan that opened the 18 MB jar, 19 ms of a {@code twping -c 1})
 * @param programName   prefix of diagnostics on stderr ({@code twping}, {@code owstats})
 */
public record OutputOptions(boolean raw, boolean machine, boolean quiet, boolean perPacket, long recordLimit,
                            boolean unix, char units, float[] percentiles, float bucketWidth, long subsession,
                            boolean perFile, String directory, Language language, ZoneId zone,
                            String programName) {

    /** The default bucket width {@code 0.0001f}. */
    public static final float DEFAULT_BUCKET_WIDTH = 0.0001f;

    public OutputOptions {
        percentiles = percentiles == null ? new float[0] : percentiles.clone();
        language = language == null ? Language.EN : language;
        programName = programName == null ? "twping" : programName;
    }

    /** Defaults: human summary in ms, English, system zone, program name {@code twping}. */
    public static OutputOptions defaults() {
        return new OutputOptions(false, false, false, false, 0, false, 'm', new float[0], DEFAULT_BUCKET_WIDTH, 0,
            false, null, Language.EN, null, "twping");
    }

    @Override
    public float[] percentiles() {
        return percentiles.clone();
    }

    public OutputOptions withRaw(boolean v) {
        return new OutputOptions(v, machine, quiet, perPacket, recordLimit, unix, units, percentiles, bucketWidth,
            subsession, perFile, directory, language, zone, programName);
    }

    public OutputOptions withMachine(boolean v) {
        return new OutputOptions(raw, v, quiet, perPacket, recordLimit, unix, units, percentiles, bucketWidth,
            subsession, perFile, directory, language, zone, programName);
    }

    public OutputOptions withQuiet(boolean v) {
        return new OutputOptions(raw, machine, v, perPacket, recordLimit, unix, units, percentiles, bucketWidth,
            subsession, perFile, directory, language, zone, programName);
    }

    /** {@code -v[N]}: per-packet lines on, limit N (0 = all). */
    public OutputOptions withVerbose(boolean v, long limit) {
        return new OutputOptions(raw, machine, quiet, v, limit, unix, units, percentiles, bucketWidth,
            subsession, perFile, directory, language, zone, programName);
    }

    /** The record limit alone (e.g. {@code -M -v5}: lines ignored, limit kept). */
    public OutputOptions withRecordLimit(long limit) {
        return new OutputOptions(raw, machine, quiet, perPacket, limit, unix, units, percentiles, bucketWidth,
            subsession, perFile, directory, language, zone, programName);
    }

    public OutputOptions withUnix(boolean v) {
        return new OutputOptions(raw, machine, quiet, perPacket, recordLimit, v, units, percentiles, bucketWidth,
            subsession, perFile, directory, language, zone, programName);
    }

    public OutputOptions withUnits(char v) {
        return new OutputOptions(raw, machine, quiet, perPacket, recordLimit, unix, v, percentiles, bucketWidth,
            subsession, perFile, directory, language, zone, programName);
    }

    public OutputOptions withPercentiles(float... v) {
        return new OutputOptions(raw, machine, quiet, perPacket, recordLimit, unix, units, v, bucketWidth,
            subsession, perFile, directory, language, zone, programName);
    }

    public OutputOptions withBucketWidth(float v) {
        return new OutputOptions(raw, machine, quiet, perPacket, recordLimit, unix, units, percentiles, v,
            subsession, perFile, directory, language, zone, programName);
    }

    public OutputOptions withSubsession(long v) {
        return new OutputOptions(raw, machine, quiet, perPacket, recordLimit, unix, units, percentiles, bucketWidth,
            v, perFile, directory, language, zone, programName);
    }

    /** {@code -p} and {@code -d DIR} ({@code dir} may be null). */
    public OutputOptions withPerFile(boolean v, String dir) {
        return new OutputOptions(raw, machine, quiet, perPacket, recordLimit, unix, units, percentiles, bucketWidth,
            subsession, v, dir, language, zone, programName);
    }

    public OutputOptions withLanguage(Language v) {
        return new OutputOptions(raw, machine, quiet, perPacket, recordLimit, unix, units, percentiles, bucketWidth,
            subsession, perFile, directory, v, zone, programName);
    }

    public OutputOptions withZone(ZoneId v) {
        return new OutputOptions(raw, machine, quiet, perPacket, recordLimit, unix, units, percentiles, bucketWidth,
            subsession, perFile, directory, language, v, programName);
    }

    public OutputOptions withProgramName(String v) {
        return new OutputOptions(raw, machine, quiet, perPacket, recordLimit, unix, units, percentiles, bucketWidth,
            subsession, perFile, directory, language, zone, v);
    }
}
