package io.kflux.protocol.record;

/**
 * A batch uses a record format other than v2 (magic 2). Message sets v0/v1 are not decoded:
 * Kafka 4.x brokers never write them, and older brokers only return them for topics still holding
 * data written by pre-0.11 producers.
 */
public class UnsupportedRecordFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final long baseOffset;
    private final byte magic;

    /**
     * @param baseOffset offset field of the batch (first offset for v2, last offset for v0/v1)
     * @param magic the magic byte found
     */
    public UnsupportedRecordFormatException(long baseOffset, byte magic) {
        super("unsupported record batch format: magic " + magic + " at offset " + baseOffset
                + "; only magic 2 (Kafka 0.11+) is supported");
        this.baseOffset = baseOffset;
        this.magic = magic;
    }

    /** @return offset field of the batch header */
    public long baseOffset() {
        return baseOffset;
    }

    /** @return the magic byte found */
    public byte magic() {
        return magic;
    }
}
