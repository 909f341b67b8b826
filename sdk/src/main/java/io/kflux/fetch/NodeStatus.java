package io.kflux.fetch;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Per broker, whether a Fetch may go to it now: none in flight (one at a time per broker), not left idle after an
 * empty no-wait Fetch, and not held off (a throttle, KIP-219, or the pause after an empty long poll,
 * {@code FetchPlanner.reaskPauseMs}); and since when its Fetch is held back for gathering
 * ({@code FetchPlanner.isDue}, issue #32), with how fast the emitter drains results, which scales that gathering's
 * bound. Times are on the fetcher's clock, in ns, passed in. Loop only.
 */
final class NodeStatus {
    private final Set<Integer> inFlight = new HashSet<>();
    private final Set<Integer> idle = new HashSet<>();
    /** Node id to when its hold-off ends: a throttle the broker asked for (KIP-219), a pause after an empty long poll. */
    private final Map<Integer, Long> heldOffUntil = new HashMap<>();
    /** Node id to when the planner first left one of its partitions without a result and without a Fetch. */
    private final Map<Integer, Long> gatheringSince = new HashMap<>();
    /** When the emitter last handed a result back; {@code Long.MIN_VALUE} before the first. */
    private long lastDrainNanos = Long.MIN_VALUE;
    /** A moving average of the time between two drained results, capped at {@link #DRAIN_INTERVAL_CAP_NANOS}. */
    private long drainIntervalNanos;
    /** One gap longer than this (a subscriber waiting for data, a pause) counts as this much. */
    static final long DRAIN_INTERVAL_CAP_NANOS = 100_000_000L;

    /** True when a Fetch may be sent to {@code nodeId} at {@code nowNanos}; an ended hold-off is forgotten. */
    boolean isReady(int nodeId, long nowNanos) {
        return !inFlight.contains(nodeId) && !idle.contains(nodeId) && !heldOff(nodeId, nowNanos);
    }

    /** A Fetch to {@code nodeId} went out: it carries every partition that was gathering. */
    void sent(int nodeId) {
        inFlight.add(nodeId);
        gatheringSince.remove(nodeId);
    }

    /**
     * Since when {@code nodeId} has a partition without a result that no Fetch carried yet: {@code nowNanos} when
     * this is the first time it is asked since the node stopped gathering.
     */
    long gatheringSince(int nodeId, long nowNanos) {
        return gatheringSince.computeIfAbsent(nodeId, id -> nowNanos);
    }

    /** No partition of {@code nodeId} is left without a result: the next one starts a new gathering bound. */
    void stopGathering(int nodeId) {
        gatheringSince.remove(nodeId);
    }

    /**
     * The emitter handed a result back at {@code nowNanos}: the average time between two drained results follows
     * (a quarter of the new interval each time, so one long gap does not swing it).
     */
    void resultDrained(long nowNanos) {
        if (lastDrainNanos != Long.MIN_VALUE) {
            long interval = Math.min(Math.max(0L, nowNanos - lastDrainNanos), DRAIN_INTERVAL_CAP_NANOS);
            drainIntervalNanos = drainIntervalNanos == 0L ? interval : (3 * drainIntervalNanos + interval) / 4;
        }
        lastDrainNanos = nowNanos;
    }

    /** The average time between two drained results, ns; 0 before two were drained. */
    long drainIntervalNanos() {
        return drainIntervalNanos;
    }

    /** The Fetch to {@code nodeId} was answered or failed. */
    void answered(int nodeId) {
        inFlight.remove(nodeId);
    }

    /** No Fetch to {@code nodeId} until {@link #wake} or {@link #wakeAll}: its held-back partitions wait to drain. */
    void idle(int nodeId) {
        idle.add(nodeId);
    }

    void wake(int nodeId) {
        idle.remove(nodeId);
    }

    /** A result was drained: every idle broker may be asked again. */
    void wakeAll() {
        idle.clear();
    }

    /**
     * No Fetch to {@code nodeId} before {@code untilNanos}: the broker's throttle time (KIP-219), or the pause after
     * an empty long poll ({@code FetchPlanner.reaskPauseMs}). A hold-off already set that ends later stays.
     */
    void holdOff(int nodeId, long untilNanos) {
        heldOffUntil.merge(nodeId, untilNanos, (set, asked) -> asked - set > 0 ? asked : set);
    }

    private boolean heldOff(int nodeId, long nowNanos) {
        Long until = heldOffUntil.get(nodeId);
        if (until == null) {
            return false;
        }
        if (nowNanos - until >= 0) {
            heldOffUntil.remove(nodeId);
            return false;
        }
        return true;
    }
}
