package io.kflux.network;

/**
 * The broker sent a response frame larger than {@link NetworkOptions#maxFrameBytes()}. The
 * request it answered fails with this error and the connection is closed (the rest of the frame
 * cannot be skipped reliably without reading it all). Usually a configuration mismatch: raise
 * {@code maxFrameBytes} or lower the fetch size limits.
 */
public class FrameTooLargeException extends NetworkException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message the broker, the frame size if known and the limit
     * @param cause   the decoder's error, may be {@code null}
     */
    public FrameTooLargeException(String message, Throwable cause) {
        super(message, cause);
    }
}
