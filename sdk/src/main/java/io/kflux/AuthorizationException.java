package io.kflux;

/**
 * The broker's ACLs refused an operation: error codes 29 (TOPIC_AUTHORIZATION_FAILED, see
 * {@link TopicAuthorizationException}) and 30 (GROUP_AUTHORIZATION_FAILED, see
 * {@link GroupAuthorizationException}) always surface as these types. Not retriable.
 */
public class AuthorizationException extends KafkaProtocolException {

    private static final long serialVersionUID = 1L;

    /**
     * @param errorCode the Kafka error code (29 or 30)
     * @param errorName its name
     * @param message   what was refused
     */
    protected AuthorizationException(short errorCode, String errorName, String message) {
        super(errorCode, errorName, false, message);
    }
}
