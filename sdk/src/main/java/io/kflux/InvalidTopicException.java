package io.kflux;

import java.util.Set;

/**
 * A topic name is not legal (error INVALID_TOPIC_EXCEPTION, code 17): empty, longer than 249 characters, or
 * containing characters other than ASCII letters, digits, '.', '_' and '-'. Not retriable.
 */
public class InvalidTopicException extends KafkaProtocolException {

    private static final long serialVersionUID = 1L;

    /** The protocol error code, 17. */
    public static final short ERROR_CODE = 17;

    /** The rejected names. */
    private final Set<String> invalidTopics;

    /**
     * Creates the error.
     *
     * @param invalidTopics the rejected topic names; copied
     * @param message       details
     */
    public InvalidTopicException(Set<String> invalidTopics, String message) {
        super(ERROR_CODE, "INVALID_TOPIC_EXCEPTION", false, message + " " + invalidTopics);
        this.invalidTopics = Set.copyOf(invalidTopics);
    }

    /**
     * The rejected topic names.
     *
     * @return an unmodifiable set
     */
    public Set<String> invalidTopics() {
        return invalidTopics;
    }
}
