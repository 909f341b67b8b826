package io.kflux.internal.config;

/** {@code isolation.level}: which records of transactional producers a fetch returns (KIP-98). */
public enum IsolationLevel {
    /** Every record up to the high watermark, including those of open or aborted transactions. */
    READ_UNCOMMITTED((byte) 0),
    /** Only committed records, up to the last stable offset; aborted transactions are filtered out. */
    READ_COMMITTED((byte) 1);

    private final byte id;

    IsolationLevel(byte id) {
        this.id = id;
    }

    /**
     * The value of the IsolationLevel field of Fetch and ListOffsets requests.
     *
     * @return 0 or 1
     */
    public byte id() {
        return id;
    }
}
