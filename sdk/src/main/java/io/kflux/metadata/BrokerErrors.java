package io.kflux.metadata;

import io.kflux.GroupAuthorizationException;
import io.kflux.KafkaProtocolException;
import io.kflux.TopicAuthorizationException;
import io.kflux.protocol.Errors;
import java.util.Set;

/**
 * The one place that turns a broker's non-retriable error code into the public exception type: 29
 * (TOPIC_AUTHORIZATION_FAILED) becomes {@link TopicAuthorizationException} and 30 (GROUP_AUTHORIZATION_FAILED)
 * {@link GroupAuthorizationException}, whichever request met them; every other code a {@link KafkaProtocolException}.
 */
public final class BrokerErrors {

    private BrokerErrors() {
    }

    /**
     * @param code    the error code
     * @param message what failed
     * @param topic   the topic the error is about, or null
     * @param groupId the group the request was for, or null
     */
    public static KafkaProtocolException of(short code, String message, String topic, String groupId) {
        if (code == Errors.TOPIC_AUTHORIZATION_FAILED.code()) {
            return new TopicAuthorizationException(message, topic == null ? Set.of() : Set.of(topic));
        }
        if (code == Errors.GROUP_AUTHORIZATION_FAILED.code() && groupId != null) {
            return new GroupAuthorizationException(message, groupId);
        }
        return new KafkaProtocolException(code, Errors.nameOf(code), Errors.forCode(code).retriable(), message);
    }
}
