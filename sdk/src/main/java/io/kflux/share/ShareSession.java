package io.kflux.share;

import io.kflux.protocol.Errors;
import io.kflux.util.StateTransitions;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One broker's share session (KIP-932) as the member keeps it: the epoch of the next request and the partitions
 * the broker's session holds, so each ShareFetch lists only what changed. No I/O, no clock: the caller sends the
 * {@link Request} it gets and reports the answer ({@link #onAnswer}) or its absence ({@link #onNoAnswer}); states in
 * {@link ShareSessionState}.
 *
 * <p>The rules (KIP-932 "Share sessions"): epoch 0 opens a session with the partitions listed; each later request
 * carries the epoch after the last answered one (1 after the opening, wrapping from {@link Integer#MAX_VALUE} to
 * 1) and lists the partitions to add and those with acknowledgements, while {@code ForgottenTopicsData} names those
 * to remove; a ShareAcknowledge takes an epoch as a ShareFetch does but changes no partitions; epoch -1 closes it.
 * An opening request carries no acknowledgements (the broker refuses them with epoch 0), so acknowledgements pending
 * when a session is lost cannot be sent: their records return to the group after their acquisition lock.
 * SHARE_SESSION_NOT_FOUND and INVALID_SHARE_SESSION_EPOCH mean the broker lost or rejects the session: the next
 * request opens a new one. Any other top-level error leaves the session as it was before the request.
 */
public final class ShareSession {
    /** The epoch of the request that opens a session. */
    public static final int OPEN_EPOCH = 0;
    /** The epoch of the request that closes a session. */
    public static final int CLOSE_EPOCH = -1;

    /**
     * A request of this session, to be written as a ShareFetch or ShareAcknowledge.
     *
     * @param epoch     the {@code ShareSessionEpoch}
     * @param listed    the partitions to list in {@code Topics} (those added, and those with acknowledgements)
     * @param added     those of {@code listed} the session holds after the answer
     * @param forgotten the partitions for {@code ForgottenTopicsData} (ShareFetch only)
     */
    public record Request(int epoch, List<SharePartition> listed, List<SharePartition> added,
                          List<SharePartition> forgotten) {
    }

    private final int nodeId;
    private final Set<SharePartition> partitions = new LinkedHashSet<>();
    private ShareSessionState state = ShareSessionState.NONE;
    private int epoch = OPEN_EPOCH;
    private Request inFlight;

    /** @param nodeId the broker this session is with (for messages) */
    public ShareSession(int nodeId) {
        this.nodeId = nodeId;
    }

    /**
     * The next ShareFetch: opens a session when there is none, else lists the partitions not in it yet and those
     * with acknowledgements, and forgets those no longer wanted.
     *
     * @param wanted   the partitions to fetch from this broker
     * @param withAcks the partitions this request carries acknowledgements for; empty when opening
     * @return the request to send
     * @throws IllegalStateException    when a request is out or the session is closed
     * @throws IllegalArgumentException when opening with acknowledgements ({@link #canAcknowledge()} is false)
     */
    public Request fetch(Set<SharePartition> wanted, Set<SharePartition> withAcks) {
        if (state == ShareSessionState.NONE) {
            if (!withAcks.isEmpty()) {
                throw new IllegalArgumentException("broker " + nodeId + ": a share session opens without acknowledgements");
            }
            List<SharePartition> listed = List.copyOf(wanted);
            return send(ShareSessionState.OPENING, new Request(OPEN_EPOCH, listed, listed, List.of()));
        }
        List<SharePartition> added = new ArrayList<>();
        for (SharePartition p : wanted) {
            if (!partitions.contains(p)) {
                added.add(p);
            }
        }
        Set<SharePartition> listed = new LinkedHashSet<>(added);
        listed.addAll(withAcks);
        List<SharePartition> forgotten = new ArrayList<>();
        for (SharePartition p : partitions) {
            if (!wanted.contains(p) && !withAcks.contains(p)) {
                forgotten.add(p);
            }
        }
        return send(ShareSessionState.UPDATING, new Request(epoch, List.copyOf(listed), List.copyOf(added),
                List.copyOf(forgotten)));
    }

    /**
     * The next ShareAcknowledge of the open session: it changes no partitions.
     *
     * @param withAcks the partitions it carries acknowledgements for
     * @return the request to send
     * @throws IllegalStateException when no session is open or a request is out
     */
    public Request acknowledge(Set<SharePartition> withAcks) {
        return send(ShareSessionState.UPDATING, new Request(epoch, List.copyOf(withAcks), List.of(), List.of()));
    }

    /**
     * The request that closes the open session (epoch -1), carrying the last acknowledgements; empty when there is
     * no session to close (the state is then closed at once).
     *
     * @param withAcks the partitions it carries acknowledgements for
     * @return the request to send, if any
     * @throws IllegalStateException when a request is out or the session is closed already
     */
    public Optional<Request> close(Set<SharePartition> withAcks) {
        if (state == ShareSessionState.NONE) {
            state = StateTransitions.check(this, state, ShareSessionState.CLOSED);
            return Optional.empty();
        }
        return Optional.of(send(ShareSessionState.CLOSING, new Request(CLOSE_EPOCH, List.copyOf(withAcks), List.of(),
                List.of())));
    }

    /**
     * The answer to the request out, by its top-level error code.
     *
     * @param errorCode the response's top-level {@code ErrorCode}
     * @throws IllegalStateException when no request is out
     */
    public void onAnswer(short errorCode) {
        Request answered = answered();
        if (state == ShareSessionState.CLOSING) {
            state = StateTransitions.check(this, state, ShareSessionState.CLOSED);
        } else if (errorCode == Errors.NONE.code()) {
            partitions.removeAll(answered.forgotten());
            partitions.addAll(answered.added());
            epoch = nextEpoch(answered.epoch());
            state = StateTransitions.check(this, state, ShareSessionState.OPEN);
        } else if (isSessionError(errorCode)) {
            reset();
        } else {
            state = StateTransitions.check(this, state, state == ShareSessionState.OPENING
                    ? ShareSessionState.NONE : ShareSessionState.OPEN);
        }
    }

    /**
     * The request out got no answer (connection lost, timeout): whether the broker applied it is unknown, so the
     * next request opens a new session (the broker's old one expires there).
     *
     * @throws IllegalStateException when no request is out
     */
    public void onNoAnswer() {
        answered();
        if (state == ShareSessionState.CLOSING) {
            state = StateTransitions.check(this, state, ShareSessionState.CLOSED);
        } else {
            reset();
        }
    }

    /** Whether the next request may carry acknowledgements: only within an open session. */
    public boolean canAcknowledge() {
        return state == ShareSessionState.OPEN;
    }

    /** The partitions the broker's session holds, as far as the answers tell. */
    public Set<SharePartition> partitions() {
        return Set.copyOf(partitions);
    }

    /** The epoch the next request of the open session carries; {@link #OPEN_EPOCH} with no session. */
    public int epoch() {
        return epoch;
    }

    public ShareSessionState state() {
        return state;
    }

    /**
     * Whether a top-level {@code errorCode} says the broker lost or rejects the session (SHARE_SESSION_NOT_FOUND,
     * INVALID_SHARE_SESSION_EPOCH): the next request opens a new one.
     */
    static boolean isSessionError(short errorCode) {
        return errorCode == Errors.SHARE_SESSION_NOT_FOUND.code()
                || errorCode == Errors.INVALID_SHARE_SESSION_EPOCH.code();
    }

    /** The epoch after {@code epoch}: 0 and -1 are never reached again by counting (KIP-932). */
    static int nextEpoch(int epoch) {
        return epoch == Integer.MAX_VALUE ? 1 : epoch + 1;
    }

    private Request send(ShareSessionState next, Request request) {
        state = StateTransitions.check(this, state, next);
        inFlight = request;
        return request;
    }

    private Request answered() {
        if (inFlight == null) {
            throw new IllegalStateException(this + ": no request is out");
        }
        Request r = inFlight;
        inFlight = null;
        return r;
    }

    private void reset() {
        partitions.clear();
        epoch = OPEN_EPOCH;
        state = StateTransitions.check(this, state, ShareSessionState.NONE);
    }

    @Override
    public String toString() {
        return "share session with broker " + nodeId + " (" + state + ", epoch " + epoch + ")";
    }
}
