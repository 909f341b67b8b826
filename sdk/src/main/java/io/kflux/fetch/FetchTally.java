package io.kflux.fetch;

import io.kflux.util.ClientMetrics;
import java.util.HashMap;
import java.util.Map;

/**
 * Per topic, the record bytes and records of one Fetch answer, told to the metrics once the answer was read: the
 * official client's {@code fetch-size-avg/-max} and {@code records-per-request-avg} sample one value per answer and
 * topic, with 0 for a topic whose partitions came back empty. Made only while metrics are on; loop only.
 */
final class FetchTally {
    /** Topic to {bytes, records}. */
    private final Map<String, long[]> topics = new HashMap<>(4);

    /** A partition of {@code topic} was answered without error; {@code bytes} and {@code records} 0 when it held none. */
    void add(String topic, int bytes, int records) {
        long[] sums = topics.computeIfAbsent(topic, t -> new long[2]);
        sums[0] += bytes;
        sums[1] += records;
    }

    void report(ClientMetrics metrics) {
        topics.forEach((topic, sums) -> metrics.topicFetched(topic, sums[0], (int) sums[1]));
    }
}
