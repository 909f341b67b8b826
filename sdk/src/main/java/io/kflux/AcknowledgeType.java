package io.kflux;

/**
 * How a share consumer acknowledges a record it acquired from a share group (KIP-932, Kafka 4.2+). Each type has
 * the id the ShareFetch and ShareAcknowledge requests carry for it (id 0 is a gap, an offset without a record,
 * which only kflux itself sends).
 */
public enum AcknowledgeType {
    /** The record was processed: it is never delivered again (KIP-932, wire id 1). */
    ACCEPT(1),
    /**
     * The record was not processed and goes back for another delivery, to this or another member; its delivery
     * count grows with each (KIP-932, wire id 2).
     */
    RELEASE(2),
    /** The record cannot be processed: it is archived and never delivered again (KIP-932, wire id 3). */
    REJECT(3),
    /**
     * The record is still being processed: its acquisition lock is renewed and it stays this member's
     * (KIP-1222, wire id 4; ShareFetch/ShareAcknowledge v2, Kafka 4.2+).
     */
    RENEW(4);

    private final byte id;

    AcknowledgeType(int id) {
        this.id = (byte) id;
    }

    /**
     * Returns the id on the wire.
     *
     * @return 1 to 4
     */
    public byte id() {
        return id;
    }

    /**
     * Returns the type with this wire id.
     *
     * @param id a wire id
     * @return the type
     * @throws IllegalArgumentException when {@code id} is not 1 to 4 (0, a gap, is no acknowledgement type)
     */
    public static AcknowledgeType forId(byte id) {
        for (AcknowledgeType t : values()) {
            if (t.id == id) {
                return t;
            }
        }
        throw new IllegalArgumentException("no acknowledge type has id " + id + " (1 accept, 2 release, 3 reject, 4 renew)");
    }
}
