package io.kflux.protocol.consumer;

import java.nio.ByteBuffer;

/**
 * The user data the official {@code CooperativeStickyAssignor} ("cooperative-sticky") puts in its
 * subscriptions: only the member's generation, as an int32 (no version prefix). Since subscription
 * v2 carries {@code generationId} itself, the official assignor reads this only when the
 * subscription has no generation (v0/v1 subscriptions, from older members).
 */
public final class CooperativeStickyAssignorUserData {
    private CooperativeStickyAssignorUserData() {
    }

    public static final int DEFAULT_GENERATION = -1;

    /** The 4 bytes the official assignor's subscriptionUserData writes for {@code generation}. */
    public static byte[] serialize(int generation) {
        return ByteBuffer.allocate(4).putInt(generation).array();
    }

    /**
     * The generation in {@code userData}: -1 when null, too short or otherwise unreadable (the
     * official assignor's fallback). Trailing bytes are ignored. Does not move the buffer's position.
     */
    public static int deserialize(ByteBuffer userData) {
        if (userData == null || userData.remaining() < 4) {
            return DEFAULT_GENERATION;
        }
        return userData.getInt(userData.position());
    }

    public static int deserialize(byte[] userData) {
        return deserialize(userData == null ? null : ByteBuffer.wrap(userData));
    }

    /**
     * The member's generation as the official CooperativeStickyAssignor determines it: the
     * subscription's own generationId when it has one (v2+, not negative), else the one in its
     * user data, else -1.
     */
    public static int generationOf(ConsumerProtocolSubscription subscription) {
        if (subscription.generationId() >= 0) {
            return subscription.generationId();
        }
        return deserialize(subscription.userData());
    }
}
