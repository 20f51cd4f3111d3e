package io.github.twping.protocol;

/**
 * Accept field values shared by Server-Start, Accept-Session, Start-Ack and Stop-Sessions
 * (RFC 4656 section 3.3, RFC 5357 section 3.1).
 */
public enum AcceptCode {
    /** 0: OK. */
    ACCEPT(0),
    /** 1: failure, reason unspecified (catch-all). */
    REJECT(1),
    /** 2: internal error. */
    FAILURE(2),
    /** 3: some aspect of the request is not supported. */
    UNSUPPORTED(3),
    /** 4: cannot perform the request due to permanent resource limitations. */
    UNAVAILABLE_PERM(4),
    /** 5: cannot perform the request due to temporary resource limitations. */
    UNAVAILABLE_TEMP(5);

    /** Largest defined code; anything above is a protocol error on the receiving side. */
    public static final int MAX_CODE = 5;

    private static final AcceptCode[] BY_CODE = values();

    private final int code;

    AcceptCode(int code) {
        this.code = code;
    }

    /** @return the wire value 0..5. */
    public int code() {
        return code;
    }

    /** @return true when {@code value} (an unsigned octet) is a defined accept code. */
    public static boolean isValid(int value) {
        return value >= 0 && value <= MAX_CODE;
    }

    /** @return the code for a wire value, or {@code null} when it is not defined (0..5). */
    public static AcceptCode fromCode(int value) {
        return isValid(value) ? BY_CODE[value] : null;
    }
}
