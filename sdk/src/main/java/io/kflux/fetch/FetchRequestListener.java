package io.kflux.fetch;

import io.kflux.TopicPartition;
import java.util.List;

/**
 * Told about each Fetch request as the fetcher sends it, on the consumer's event loop (keep it
 * quick). For diagnostics and tests (how many partitions each request lists); not public API.
 */
@FunctionalInterface
public interface FetchRequestListener {

    /**
     * One Fetch request.
     *
     * @param nodeId            the broker asked
     * @param sessionId         the fetch session id sent (0 opens a session)
     * @param sessionEpoch      the session epoch sent (0 for a full request)
     * @param full              whether the request lists every partition of the session
     * @param partitions        the partitions the request lists
     * @param forgotten         the partitions it removes from the session
     * @param sessionPartitions how many partitions the session holds after the request
     */
    record Request(int nodeId, int sessionId, int sessionEpoch, boolean full, List<TopicPartition> partitions,
                   List<TopicPartition> forgotten, int sessionPartitions) {
    }

    void onRequest(Request request);

    /**
     * A Fetch response asked the client to hold back (KIP-219, quota exceeded): no Fetch goes to {@code nodeId}
     * for {@code throttleMs} ms from now.
     *
     * @param nodeId     the broker
     * @param throttleMs the throttle time the broker sent, in ms
     */
    default void onThrottle(int nodeId, int throttleMs) {
    }
}
