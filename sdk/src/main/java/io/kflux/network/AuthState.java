package io.kflux.network;

import java.util.EnumSet;
import java.util.Set;

/**
 * Where a connection stands in re-authentication (KIP-368), which must not overlap other requests: the
 * broker expects nothing but SaslHandshake and SaslAuthenticate while a client re-authenticates.
 */
enum AuthState {
    /** Requests are written as they come. */
    READY,
    /** Re-authentication is due: new requests are held back until the ones in flight are answered. */
    DRAINING,
    /** Nothing but the SASL exchange is in flight; held requests wait for it to end. */
    AUTHENTICATING;

    private Set<AuthState> next() {
        return switch (this) {
            case READY -> EnumSet.of(DRAINING);
            case DRAINING -> EnumSet.of(AUTHENTICATING);
            case AUTHENTICATING -> EnumSet.of(READY);
        };
    }

    /** The state after moving to {@code target}; refuses a move the protocol does not allow. */
    AuthState moveTo(AuthState target) {
        if (!next().contains(target)) {
            throw new IllegalStateException("re-authentication cannot go from " + this + " to " + target);
        }
        return target;
    }
}
