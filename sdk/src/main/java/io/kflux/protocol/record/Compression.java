package io.kflux.protocol.record;

/**
 * Compression codec of a record batch, stored in bits 0-2 of the batch attributes.
 */
public enum Compression {
    NONE(0),
    GZIP(1),
    SNAPPY(2),
    LZ4(3),
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
