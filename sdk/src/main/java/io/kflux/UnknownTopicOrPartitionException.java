package io.kflux;

/**
 * The broker does not host this topic or partition (error UNKNOWN_TOPIC_OR_PARTITION, code 3). Retriable
 * as in the protocol's error table: the topic may be being created, or metadata may be stale.
 */
public class UnknownTopicOrPartitionException extends KafkaProtocolException {

    private static final long serialVersionUID = 1L;

    /** The protocol error code, 3. */
    public static final short ERROR_CODE = 3;

    /** The partition asked for, may be null. */
    private final TopicPartition topicPartition;

    /**
     * Creates the error.
     *
     * @param topicPartition the partition asked for, may be {@code null} when only the topic is known
     * @param message        details
     */
    public UnknownTopicOrPartitionException(TopicPartition topicPartition, String message) {
        super(ERROR_CODE, "UNKNOWN_TOPIC_OR_PARTITION", true, message);
        this.topicPartition = topicPartition;
    }

    /**
     * The partition asked for.
     *
     * @return the partition, or {@code null} when unknown
     */
    public TopicPartition topicPartition() {
        return topicPartition;
    }
}
