package io.kflux.test.broker;

/**
 * A broker node could not be formatted or did not become ready in time. The message carries the
 * tail of the node's log, because the forked JVM's own output is not visible anywhere else.
 */
public final class BrokerStartException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, including any log excerpt
     * @param cause   the underlying failure, or {@code null}
     */
    public BrokerStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
