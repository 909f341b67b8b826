package io.kflux.group;

import io.kflux.group.ClassicGroupMember.Generation;
import io.kflux.protocol.Errors;

/**
 * What the classic group's answers mean for the member ({@link ClassicMembership}'s answer half): a Heartbeat,
 * JoinGroup or SyncGroup error code, with the generation it was sent for and where the member is now, becomes a
 * verdict {@link ClassicGroupMember} acts on. Pure functions; the error handling follows the official client's
 * classic coordinator and the JoinGroup/SyncGroup/Heartbeat schemas' error lists.
 */
final class ClassicAnswers {

    private ClassicAnswers() {
    }

    /** What a Heartbeat answer means. */
    enum HeartbeatVerdict {
        /** The session is confirmed; look at the newest metadata. */
        CONFIRMED,
        /** Confirmed, and a STABLE member must rejoin: the group is rebalancing. */
        CONFIRMED_REBALANCING,
        /** Confirmed, nothing to do: the group rebalances and the member takes part already. */
        CONFIRMED_IN_REBALANCE,
        /** The generation (ILLEGAL_GENERATION) or also the member id (UNKNOWN_MEMBER_ID) is gone: reset, rejoin. */
        RESET_AND_REJOIN,
        /** For a generation no longer current, or while a JoinGroup under way decides: only its timing counts. */
        STALE_ANSWER,
        /** FENCED_INSTANCE_ID for the current generation: fatal. */
        FENCED,
        /** FENCED_INSTANCE_ID for an older generation: ignored. */
        IGNORED,
        COORDINATOR_LOST,
        /** GROUP_AUTHORIZATION_FAILED: fatal. */
        FATAL,
        /** Any other error: heartbeat again soon. */
        RETRY
    }

    /** What a JoinGroup answer means. */
    enum JoinVerdict {
        JOINED,
        /** MEMBER_ID_REQUIRED (KIP-394, with the id) or REBALANCE_IN_PROGRESS: send JoinGroup again at once. */
        JOIN_AGAIN,
        /** UNKNOWN_MEMBER_ID / ILLEGAL_GENERATION: reset the generation, then prepare a new join. */
        RESET_AND_PREPARE,
        COORDINATOR_LOST,
        FENCED,
        FATAL,
        RETRY_LATER
    }

    /** What a SyncGroup answer means. */
    enum SyncVerdict {
        ASSIGNED,
        /** The generation was reset while SyncGroup was out: its assignment is stale. */
        GENERATION_CHANGED,
        /** REBALANCE_IN_PROGRESS: join again. */
        PREPARE_JOIN,
        /** UNKNOWN_MEMBER_ID / ILLEGAL_GENERATION: reset the generation if it is the one synced, then join again. */
        RESET_AND_PREPARE,
        COORDINATOR_LOST,
        FENCED,
        FATAL,
        RETRY_LATER
    }

    /**
     * What a Heartbeat answer (from the current coordinator, sent for {@code sent}) with {@code error} means to a
     * member with {@code generation} in {@code phase}.
     */
    static HeartbeatVerdict heartbeat(Errors error, Generation sent, Generation generation, ClassicPhase phase) {
        return switch (error) {
            case NONE -> HeartbeatVerdict.CONFIRMED;
            // Heartbeats go on during a rebalance, whose answers all say so: only a STABLE member must act.
            case REBALANCE_IN_PROGRESS -> phase.visible() == MemberState.STABLE
                    ? HeartbeatVerdict.CONFIRMED_REBALANCING : HeartbeatVerdict.CONFIRMED_IN_REBALANCE;
            // While a JoinGroup is under way its answer decides; a late heartbeat answer must not reset it.
            case ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID -> sent == generation && !phase.isJoining()
                    ? HeartbeatVerdict.RESET_AND_REJOIN : HeartbeatVerdict.STALE_ANSWER;
            case FENCED_INSTANCE_ID -> sent == generation ? HeartbeatVerdict.FENCED : HeartbeatVerdict.IGNORED;
            case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE -> HeartbeatVerdict.COORDINATOR_LOST;
            case GROUP_AUTHORIZATION_FAILED -> HeartbeatVerdict.FATAL;
            default -> HeartbeatVerdict.RETRY;
        };
    }

    /** What a JoinGroup answer with {@code error} means (protocol type checked by the caller on NONE). */
    static JoinVerdict join(Errors error) {
        return switch (error) {
            case NONE -> JoinVerdict.JOINED;
            case MEMBER_ID_REQUIRED, REBALANCE_IN_PROGRESS -> JoinVerdict.JOIN_AGAIN;
            case UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION -> JoinVerdict.RESET_AND_PREPARE;
            case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE -> JoinVerdict.COORDINATOR_LOST;
            case FENCED_INSTANCE_ID -> JoinVerdict.FENCED;
            case INCONSISTENT_GROUP_PROTOCOL, INVALID_SESSION_TIMEOUT, INVALID_GROUP_ID, GROUP_AUTHORIZATION_FAILED,
                 GROUP_MAX_SIZE_REACHED, UNSUPPORTED_VERSION -> JoinVerdict.FATAL;
            default -> error.retriable() ? JoinVerdict.RETRY_LATER : JoinVerdict.FATAL;
        };
    }

    /**
     * What a SyncGroup answer for {@code sent} with {@code error} means to a member with {@code generation} now
     * (protocol type and name checked by the caller).
     */
    static SyncVerdict sync(Errors error, Generation sent, Generation generation) {
        return switch (error) {
            case NONE -> generation != sent ? SyncVerdict.GENERATION_CHANGED : SyncVerdict.ASSIGNED;
            case REBALANCE_IN_PROGRESS -> SyncVerdict.PREPARE_JOIN;
            case UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION -> SyncVerdict.RESET_AND_PREPARE;
            case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE -> SyncVerdict.COORDINATOR_LOST;
            case FENCED_INSTANCE_ID -> SyncVerdict.FENCED;
            default -> error.retriable() ? SyncVerdict.RETRY_LATER : SyncVerdict.FATAL;
        };
    }
}
