package io.kflux.share;

import io.kflux.TopicPartition;
import io.kflux.protocol.message.ShareFetchResponse.AcquiredRecords;
import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.UUID;

/**
 * One partition's answer to a ShareFetch that acquired records: the record batches as the broker sent them (a
 * retained slice of the response frame, released once by whoever takes it) and the offset ranges this member now
 * holds under the acquisition lock, each with its delivery count (KIP-932). Offsets of {@code records} outside
 * {@code acquired} are not this member's; offsets of {@code acquired} without a record are gaps.
 *
 * @param nodeId  the broker it was acquired from: its acknowledgements go to that broker's share session
 * @param topicId the topic's id, for acknowledgements
 */
public record AcquiredBatch(int nodeId, TopicPartition topicPartition, UUID topicId, ByteBuf records,
                            List<AcquiredRecords> acquired) {

    /** The share partition its acknowledgements go to (a new one each call: callers keep it per batch). */
    public SharePartition sharePartition() {
        return new SharePartition(topicId, topicPartition.partition());
    }

    /** How many offsets were acquired (records and gaps). */
    public long acquiredCount() {
        long n = 0;
        for (AcquiredRecords a : acquired) {
            n += a.lastOffset() - a.firstOffset() + 1;
        }
        return n;
    }
}
