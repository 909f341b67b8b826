package io.kflux.group;

import io.kflux.InvalidTopicException;
import io.kflux.KafkaFluxException;
import io.kflux.TopicAuthorizationException;
import io.kflux.metadata.Cluster;
import io.kflux.metadata.TopicInfo;
import io.kflux.protocol.Errors;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;

/**
 * What ends a member, under either protocol, when metadata answers with an error for a topic it subscribed to by
 * name: INVALID_TOPIC_EXCEPTION or TOPIC_AUTHORIZATION_FAILED, as the official consumer's {@code poll()} throws
 * {@code InvalidTopicException} / {@code TopicAuthorizationException} for them (waiting cannot help). Pattern
 * subscriptions only match topics without errors, so they never get here.
 */
final class SubscribedTopicErrors {
    private SubscribedTopicErrors() {
    }

    /**
     * Ends the member through {@code fail} when a subscribed topic has such an error.
     *
     * @return true when none has (the member goes on)
     */
    static boolean pass(Collection<String> subscribedTopics, Cluster cluster, String groupId,
                        java.util.function.Consumer<Throwable> fail) {
        KafkaFluxException error = check(subscribedTopics, cluster, groupId);
        if (error != null) {
            fail.accept(error);
        }
        return error == null;
    }

    /** @return the error that ends the member, or null when every subscribed topic is fine or unknown yet */
    static KafkaFluxException check(Collection<String> subscribedTopics, Cluster cluster, String groupId) {
        Set<String> invalid = new TreeSet<>();
        Set<String> unauthorized = unauthorized(subscribedTopics, cluster);
        for (String topic : subscribedTopics) {
            TopicInfo t = cluster.topic(topic);
            if (t != null && t.errorCode() == Errors.INVALID_TOPIC_EXCEPTION.code()) {
                invalid.add(topic);
            }
        }
        if (!invalid.isEmpty()) {
            return new InvalidTopicException(invalid, "Metadata answered INVALID_TOPIC_EXCEPTION for subscribed topics");
        }
        if (!unauthorized.isEmpty()) {
            return new TopicAuthorizationException("not authorized to describe subscribed topics (group " + groupId
                    + ")", unauthorized);
        }
        return null;
    }

    /** The subscribed topics metadata answered TOPIC_AUTHORIZATION_FAILED for, sorted. */
    static Set<String> unauthorized(Collection<String> subscribedTopics, Cluster cluster) {
        Set<String> unauthorized = new TreeSet<>();
        for (String topic : subscribedTopics) {
            TopicInfo t = cluster.topic(topic);
            if (t != null && t.errorCode() == Errors.TOPIC_AUTHORIZATION_FAILED.code()) {
                unauthorized.add(topic);
            }
        }
        return unauthorized;
    }
}
