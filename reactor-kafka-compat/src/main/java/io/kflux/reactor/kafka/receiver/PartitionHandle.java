package io.kflux.reactor.kafka.receiver;

import io.kflux.KafkaFluxConsumer;
import io.kflux.OffsetAndMetadata;
import io.kflux.OffsetAndTimestamp;
import io.kflux.RebalanceContext;
import io.kflux.TopicPartition;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The {@link ReceiverPartition} given to listeners. Seeks go to the rebalance context (or, for a manual assignment,
 * to the consumer before it starts); lookups go to the consumer and block the listener's thread.
 */
final class PartitionHandle implements ReceiverPartition {

    /** Where seeks go: the rebalance in progress, or the consumer before a manual assignment starts. */
    interface Seeker {
        void seek(TopicPartition tp, long offset);

        void seekToBeginning(TopicPartition tp);

        void seekToEnd(TopicPartition tp);

        static Seeker of(RebalanceContext ctx) {
            return new Seeker() {
                @Override
                public void seek(TopicPartition tp, long offset) {
                    ctx.seek(tp, offset);
                }

                @Override
                public void seekToBeginning(TopicPartition tp) {
                    ctx.seekToBeginning(List.of(tp));
                }

                @Override
                public void seekToEnd(TopicPartition tp) {
                    ctx.seekToEnd(List.of(tp));
                }
            };
        }

        static Seeker of(KafkaFluxConsumer<?, ?> consumer) {
            return new Seeker() {
                @Override
                public void seek(TopicPartition tp, long offset) {
                    consumer.seek(tp, offset).block();
                }

                @Override
                public void seekToBeginning(TopicPartition tp) {
                    consumer.seekToBeginning(List.of(tp)).block();
                }

                @Override
                public void seekToEnd(TopicPartition tp) {
                    consumer.seekToEnd(List.of(tp)).block();
                }
            };
        }
    }

    /** What the last seek of this listener call asked for; position() answers from it. */
    private enum Sought { NOTHING, OFFSET, BEGINNING, END }

    private final TopicPartition tp;
    private final Seeker seeker;
    private final ReceiverSession<?, ?> session;
    private Sought sought = Sought.NOTHING;
    private long soughtOffset;

    PartitionHandle(TopicPartition tp, Seeker seeker, ReceiverSession<?, ?> session) {
        this.tp = tp;
        this.seeker = seeker;
        this.session = session;
    }

    @Override
    public org.apache.kafka.common.TopicPartition topicPartition() {
        return KafkaTypes.kafka(tp);
    }

    @Override
    public void seekToBeginning() {
        seeker.seekToBeginning(tp);
        sought = Sought.BEGINNING;
    }

    @Override
    public void seekToEnd() {
        seeker.seekToEnd(tp);
        sought = Sought.END;
    }

    @Override
    public void seek(long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0, was " + offset);
        }
        seeker.seek(tp, offset);
        sought = Sought.OFFSET;
        soughtOffset = offset;
    }

    @Override
    public void seekToTimestamp(long timestamp) {
        if (timestamp < 0) {
            throw new IllegalArgumentException("timestamp must be >= 0, was " + timestamp);
        }
        Map<TopicPartition, OffsetAndTimestamp> found = session.consumer().offsetsForTimes(Map.of(tp, timestamp)).block();
        OffsetAndTimestamp at = found == null ? null : found.get(tp);
        if (at == null) {
            seekToEnd();
        } else {
            seek(at.offset());
        }
    }

    @Override
    public long position() {
        switch (sought) {
            case OFFSET:
                return soughtOffset;
            case BEGINNING:
                return beginningOffset();
            case END:
                return endOffset();
            default:
                break;
        }
        if (session.options().groupId() != null) {
            Map<TopicPartition, OffsetAndMetadata> committed = session.consumer().committed(Set.of(tp)).block();
            OffsetAndMetadata c = committed == null ? null : committed.get(tp);
            if (c != null) {
                return c.offset();
            }
        }
        Object reset = session.options().consumerProperty("auto.offset.reset");
        String policy = reset == null ? "latest" : reset.toString().trim().toLowerCase(Locale.ROOT);
        return switch (policy) {
            case "earliest" -> beginningOffset();
            case "latest" -> endOffset();
            default -> throw new IllegalStateException("no committed offset for " + tp + " and auto.offset.reset="
                                                       + policy + ": seek it first");
        };
    }

    @Override
    public Long beginningOffset() {
        return session.consumer().beginningOffsets(List.of(tp)).block().get(tp);
    }

    @Override
    public Long endOffset() {
        return session.consumer().endOffsets(List.of(tp)).block().get(tp);
    }

    @Override
    public String toString() {
        return tp.toString();
    }
}
