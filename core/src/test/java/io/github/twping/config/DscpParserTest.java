package io.github.twping.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

class DscpParserTest {

    @ParameterizedTest(name = "-D \"{0}\" = {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "EF|46", "ef|46", "\"  EF\"|46", "0x2e|46", "056|46", "46|46", "\" 12\"|12", "63|63", "0|0",
            "\"\"|0", "none|0", "DEFAULT|0", "Df|0", "CS0|0", "CS1|8", "cs7|56", "\"CS3 \"|24", "\"cS5\t\"|40",
            "AF11|10", "Af43|38", "\"AF41  \"|34", "AF23|22",
    })
    void shouldAcceptValidDscp(String arg, int dscp) {
        assertEquals(dscp, DscpParser.parse(arg));
    }

    @ParameterizedTest(name = "-D \"{0}\" rejected")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "99", "64", "-1", "XX", "af11", "aF11", "AF44", "AF51", "AF10", "CS8", "CS", "\"none \"", "\"ef \"",
            "\"12 \"", "08", "\"  \"", "CS1x", "AF11x", "0x", "efx",
    })
    void shouldRejectInvalidDscp(String arg) {
        assertEquals(DscpParser.INVALID, DscpParser.parse(arg));
    }

    @Test
    void shouldEncodeTypePAndTos() {
        assertEquals(0x2e000000, DscpParser.typeP(46));
        assertEquals(0xb8, DscpParser.tosByte(46));
    }
}
