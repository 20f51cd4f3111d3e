package io.github.twping.ffm;

/**
 * Linux errno values and their glibc messages (English, independent of the process locale).
 */
final class Errno {
    static final int EPERM = 1;
    static final int ENOENT = 2;
    static final int EINTR = 4;
    static final int EIO = 5;
    static final int EBADF = 9;
    static final int EAGAIN = 11;
    static final int ENOMEM = 12;
    static final int EACCES = 13;
    static final int EFAULT = 14;
    static final int ENODEV = 19;
    static final int EINVAL = 22;
    static final int EMFILE = 24;
    static final int ENOSYS = 38;
    static final int ENOMSG = 42;
    static final int ENOTSOCK = 88;
    static final int EDESTADDRREQ = 89;
    static final int EMSGSIZE = 90;
    static final int ENOPROTOOPT = 92;
    static final int EPROTONOSUPPORT = 93;
    static final int EOPNOTSUPP = 95;
    static final int EAFNOSUPPORT = 97;
    static final int EADDRINUSE = 98;
    static final int EADDRNOTAVAIL = 99;
    static final int ENETDOWN = 100;
    static final int ENETUNREACH = 101;
    static final int ENOBUFS = 105;
    static final int ENOTCONN = 107;
    static final int ECONNREFUSED = 111;
    static final int EHOSTUNREACH = 113;

    private static final String[] NAMES = new String[134];
    private static final String[] MESSAGES = new String[134];

    static {
        define(EPERM, "EPERM", "Operation not permitted");
        define(ENOENT, "ENOENT", "No such file or directory");
        define(EINTR, "EINTR", "Interrupted system call");
        define(EIO, "EIO", "Input/output error");
        define(EBADF, "EBADF", "Bad file descriptor");
        define(EAGAIN, "EAGAIN", "Resource temporarily unavailable");
        define(ENOMEM, "ENOMEM", "Cannot allocate memory");
        define(EACCES, "EACCES", "Permission denied");
        define(EFAULT, "EFAULT", "Bad address");
        define(ENODEV, "ENODEV", "No such device");
        define(EINVAL, "EINVAL", "Invalid argument");
        define(EMFILE, "EMFILE", "Too many open files");
        define(ENOSYS, "ENOSYS", "Function not implemented");
        define(ENOMSG, "ENOMSG", "No message of desired type");
        define(ENOTSOCK, "ENOTSOCK", "Socket operation on non-socket");
        define(EDESTADDRREQ, "EDESTADDRREQ", "Destination address required");
        define(EMSGSIZE, "EMSGSIZE", "Message too long");
        define(ENOPROTOOPT, "ENOPROTOOPT", "Protocol not available");
        define(EPROTONOSUPPORT, "EPROTONOSUPPORT", "Protocol not supported");
        define(EOPNOTSUPP, "EOPNOTSUPP", "Operation not supported");
        define(EAFNOSUPPORT, "EAFNOSUPPORT", "Address family not supported by protocol");
        define(EADDRINUSE, "EADDRINUSE", "Address already in use");
        define(EADDRNOTAVAIL, "EADDRNOTAVAIL", "Cannot assign requested address");
        define(ENETDOWN, "ENETDOWN", "Network is down");
        define(ENETUNREACH, "ENETUNREACH", "Network is unreachable");
        define(ENOBUFS, "ENOBUFS", "No buffer space available");
        define(ENOTCONN, "ENOTCONN", "Transport endpoint is not connected");
        define(ECONNREFUSED, "ECONNREFUSED", "Connection refused");
        define(EHOSTUNREACH, "EHOSTUNREACH", "No route to host");
    }

    private Errno() {
    }

    private static void define(int errno, String name, String message) {
        NAMES[errno] = name;
        MESSAGES[errno] = message;
    }

    /** The symbolic name, e.g. {@code EADDRINUSE}, or {@code errno N} when not in the table. */
    static String name(int errno) {
        String name = errno > 0 && errno < NAMES.length ? NAMES[errno] : null;
        return name != null ? name : "errno " + errno;
    }

    /** The glibc message for an errno; falls back to strerror(3) and then to the number. */
    static String message(int errno) {
        String message = errno > 0 && errno < MESSAGES.length ? MESSAGES[errno] : null;
        if (message != null) {
            return message;
        }
        String fromLibc = NativeSupport.isAvailable() ? Libc.strerror(errno) : null;
        return fromLibc != null ? fromLibc : "Unknown error " + errno;
    }
}
