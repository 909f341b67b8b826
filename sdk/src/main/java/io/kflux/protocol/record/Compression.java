package io.kflux.protocol.record;

/**
 * Compression codec of a record batch, stored in bits 0-2 of the batch attributes.
 */
public enum Compression {
    /** Uncompressed records (id 0). */
    NONE(0),
    /** gzip stream (id 1), read with java.util.zip. */
    GZIP(1),
    /** xerial snappy-java stream, or one raw snappy block (id 2). */
    SNAPPY(2),
    /** LZ4 frame format with independent blocks (id 3). */
    LZ4(3),
    /** zstd frame (id 4). */
    ZSTD(4);

    private static final Compression[] BY_ID = values();

    private final int id;

    Compression(int id) {
        this.id = id;
    }

    /** @return the wire id (0..4) */
    public int id() {
        return id;
    }

    /**
     * @param id the wire id, bits 0-2 of the batch attributes
     * @return the codec with that id
     * @throws IllegalArgumentException if no codec has that id (5..7 are unassigned)
     */
    public static Compression forId(int id) {
        if (id < 0 || id >= BY_ID.length) {
            throw new IllegalArgumentException("unknown compression id " + id);
        }
        return BY_ID[id];
    }
}
