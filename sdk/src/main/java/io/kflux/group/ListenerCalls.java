package io.kflux.group;

import io.kflux.TopicPartition;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * A member's calls of its {@link GroupListener}: one at a time, in order, each bounded by
 * {@code max.poll.interval.ms}. A call that fails or times out is logged at WARN and the rebalance goes on (as with
 * the official client, a listener cannot veto a rebalance). Loop-only: every method runs on the member's event loop,
 * and each call's end hops back onto it before the next step runs.
 */
final class ListenerCalls {
    private static final Logger log = LoggerFactory.getLogger(ListenerCalls.class);
    static final Comparator<TopicPartition> PARTITION_ORDER =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    /** How ownership of partitions ends. */
    enum Drop { REVOKED, LOST }

    private final GroupListener listener;
    private final Scheduler scheduler;
    private final long timeoutMs;
    private final String logPrefix;
    private final Consumer<Runnable> onLoop;
    private final Runnable afterEach;
    private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    private boolean busy;
    private Disposable call;

    /**
     * @param onLoop    runs a task on the member's loop
     * @param afterEach run on the loop after each call and its continuation (the member decides its next step)
     */
    ListenerCalls(GroupListener listener, Scheduler scheduler, long timeoutMs, String logPrefix,
                  Consumer<Runnable> onLoop, Runnable afterEach) {
        this.listener = Objects.requireNonNull(listener, "listener");
        this.scheduler = scheduler;
        this.timeoutMs = timeoutMs;
        this.logPrefix = logPrefix;
        this.onLoop = onLoop;
        this.afterEach = afterEach;
    }

    /** True while a listener call runs. */
    boolean busy() {
        return busy;
    }

    /**
     * Tells the listener the partitions {@code partitions} gives at the time of the call are revoked or lost, then
     * runs {@code then} on the loop with that set. An empty set skips the listener.
     */
    void drop(Drop kind, Supplier<Set<TopicPartition>> partitions, Consumer<Set<TopicPartition>> then) {
        enqueue(() -> {
            Set<TopicPartition> set = Set.copyOf(partitions.get());
            if (set.isEmpty()) {
                then.accept(set);
                drain();
                return;
            }
            if (log.isInfoEnabled()) {
                List<TopicPartition> sorted = new ArrayList<>(set);
                sorted.sort(PARTITION_ORDER);
                log.info("{}partitions {}: {}", logPrefix, kind == Drop.LOST ? "lost" : "revoked", sorted);
            }
            invoke(kind == Drop.LOST ? "onPartitionsLost" : "onPartitionsRevoked",
                    () -> kind == Drop.LOST ? listener.onPartitionsLost(set) : listener.onPartitionsRevoked(set),
                    () -> then.accept(set));
        });
    }

    /** Tells the listener {@code added} is new in the whole {@code assignment}, then runs {@code then}. */
    void assigned(Set<TopicPartition> added, Set<TopicPartition> assignment, Runnable then) {
        enqueue(() -> invoke("onPartitionsAssigned", () -> listener.onPartitionsAssigned(Set.copyOf(added), assignment),
                then));
    }

    /** Abandons the call under way and every queued one (closed or failed member). */
    void cancel() {
        if (call != null) {
            call.dispose();
        }
        call = null;
        queue.clear();
        busy = false;
    }

    private void enqueue(Runnable invoke) {
        if (busy) {
            queue.add(invoke);
        } else {
            invoke.run();
        }
    }

    private void invoke(String what, Supplier<Mono<Void>> callee, Runnable then) {
        busy = true;
        Mono<Void> mono;
        try {
            mono = Objects.requireNonNull(callee.get(), what + " returned null");
        } catch (RuntimeException e) {
            mono = Mono.error(e);
        }
        call = mono
                .timeout(Duration.ofMillis(timeoutMs), scheduler)
                .onErrorResume(e -> {
                    log.warn("{}{} failed or took longer than max.poll.interval.ms; the rebalance goes on: {}",
                            logPrefix, what, e.toString());
                    return Mono.empty();
                })
                .subscribe(null, null, () -> onLoop.accept(() -> {
                    if (!busy) {
                        return; // cancelled meanwhile
                    }
                    busy = false;
                    call = null;
                    then.run();
                    drain();
                    afterEach.run();
                }));
    }

    private void drain() {
        while (!busy && !queue.isEmpty()) {
            queue.poll().run();
        }
    }
}
