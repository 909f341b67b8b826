package io.kflux.share;

/**
 * What the share fetcher needs of the configuration, parsed once by the consumer.
 *
 * @param groupId          {@code group.id}, the share group
 * @param maxWaitMs        {@code fetch.max.wait.ms}: how long a ShareFetch may wait at the broker for records
 * @param minBytes         {@code fetch.min.bytes}
 * @param maxBytes         {@code fetch.max.bytes}
 * @param maxRecords       {@code max.poll.records}: the most records acquired and not yet emitted at a time, with
 *                         unbounded demand (bounded demand acquires no more than it asks for)
 * @param retryBackoffMs   {@code retry.backoff.ms}, the first delay after a failed request
 * @param retryBackoffMaxMs {@code retry.backoff.max.ms}
 */
public record ShareFetchConfig(String groupId, int maxWaitMs, int minBytes, int maxBytes, int maxRecords,
                               long retryBackoffMs, long retryBackoffMaxMs) {
}
