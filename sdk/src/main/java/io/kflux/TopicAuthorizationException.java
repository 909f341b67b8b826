package io.kflux;

import java.util.Set;

/**
 * The broker's ACLs do not let this client read (or describe) topics: error code 29, TOPIC_AUTHORIZATION_FAILED,
 * in Metadata, Fetch, ListOffsets, OffsetCommit or OffsetFetch. Ends {@code receive()}; fails {@code commit()}
 * and {@code committed()}.
 */
public class TopicAuthorizationException extends AuthorizationException {

    private static final long serialVersionUID = 1L;

    private final Set<String> unauthorizedTopics;

    /**
     * @param message            what was refused
     * @param unauthorizedTopics the topics refused; copied
     */
    public TopicAuthorizationException(String message, Set<String> unauthorizedTopics) {
        super((short) 29, "TOPIC_AUTHORIZATION_FAILED", message + " (topics " + unauthorizedTopics + ")");
        this.unauthorizedTopics = Set.copyOf(unauthorizedTopics);
    }

    /**
     * The topics the broker refused.
     *
     * @return an unmodifiable set
     */
    public Set<String> unauthorizedTopics() {
        return unauthorizedTopics;
    }
}
