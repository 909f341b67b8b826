package io.kflux.protocol.record;

/**
 * Type of a control record, read from its key (version int16, type int16).
 */
public enum ControlRecordType {
    /** Transaction marker: the producer's transaction was aborted. */
    ABORT(0),
    /** Transaction marker: the producer's transaction was committed. */
    COMMIT(1),
    /** Any other type (the KRaft metadata log uses more); consumers skip these. */
    UNKNOWN(-1);

    private final int id;

    ControlRecordType(int id) {
        this.id = id;
    }

    /** @return the wire type id, or -1 for {@link #UNKNOWN} */
    public int id() {
        return id;
    }

    /**
     * @param id the type field of a control record key
     * @return ABORT for 0, COMMIT for 1, UNKNOWN otherwise
     */
    public static ControlRecordType forId(int id) {
        return switch (id) {
            case 0 -> ABORT;
            case 1 -> COMMIT;
            default -> UNKNOWN;
        };
    }
}
