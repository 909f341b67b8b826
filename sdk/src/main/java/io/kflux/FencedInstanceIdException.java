package io.kflux;

/**
 * Another consumer process joined the group with the same {@code group.instance.id} (static membership,
 * KIP-345), so the coordinator fenced this one (error FENCED_INSTANCE_ID, code 82). Fatal for this consumer:
 * {@code receive()} terminates with it and the consumer must be closed; two processes must never share a
 * static identity.
 */
public class FencedInstanceIdException extends KafkaFluxException {

    private static final long serialVersionUID = 1L;

    /** The fenced static identity. */
    private final String groupInstanceId;

    /**
     * Creates the error.
     *
     * @param groupInstanceId the fenced static identity ({@code group.instance.id})
     * @param message         details
     */
    public FencedInstanceIdException(String groupInstanceId, String message) {
        super(message);
        this.groupInstanceId = groupInstanceId;
    }

    /**
     * The fenced static identity.
     *
     * @return the configured {@code group.instance.id}
     */
    public String groupInstanceId() {
        return groupInstanceId;
    }
}
