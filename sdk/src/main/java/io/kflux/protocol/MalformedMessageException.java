package io.kflux.protocol;

/**
 * A frame or message body that cannot be decoded: truncated, a negative length where none is
 * allowed, a varint longer than five bytes, trailing garbage. The network layer fails the
 * request (and drops the connection, since the stream can no longer be trusted).
 */
public final class MalformedMessageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MalformedMessageException(String message) {
        super(message);
    }

    public MalformedMessageException(String message, Throwable cause) {
        super(message, cause);
    }
}
