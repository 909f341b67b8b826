package io.kflux.group;

import io.kflux.group.CoordinatorIo.CoordinatorChannel;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

/**
 * One group member's hold on the coordinator through the consumer's shared {@link CoordinatorManager}, the same for
 * both protocols: the channel the member sends on, one wait for the manager while none is known, and the losses
 * (found by the member itself, by commits, or by the manager's connection watch) handed to the member once each.
 * Loop-only: every method runs on the member's event loop, and the callbacks are called there.
 */
final class CoordinatorLink {
    private static final Logger log = LoggerFactory.getLogger(CoordinatorLink.class);

    private final CoordinatorManager coordinators;
    private final Consumer<Runnable> onLoop;
    private final String logPrefix;
    private final Consumer<CoordinatorChannel> found;
    private final Consumer<Throwable> failed;
    private final BiConsumer<CoordinatorChannel, String> lost;
    private CoordinatorChannel current;
    private Disposable waiting;
    private Disposable lossWatch;

    /**
     * @param onLoop runs a task on the member's loop
     * @param found  a coordinator is known now (after {@link #ensure()})
     * @param failed the manager gave up: only what no retry can change (FindCoordinator errors, versions, closed)
     * @param lost   the current coordinator was lost (already forgotten here and at the manager), with the reason
     */
    CoordinatorLink(CoordinatorManager coordinators, Consumer<Runnable> onLoop, String logPrefix,
                    Consumer<CoordinatorChannel> found, Consumer<Throwable> failed,
                    BiConsumer<CoordinatorChannel, String> lost) {
        this.coordinators = coordinators;
        this.onLoop = onLoop;
        this.logPrefix = logPrefix;
        this.found = found;
        this.failed = failed;
        this.lost = lost;
    }

    /** Starts hearing of losses others found. */
    void start() {
        if (lossWatch == null) {
            lossWatch = coordinators.onLost(ch -> onLoop.accept(() -> lose(ch, "reported to the coordinator manager")));
        }
    }

    /** The coordinator's channel, null while none is known. */
    CoordinatorChannel current() {
        return current;
    }

    /** Waits for the manager (once; it retries lookups itself) unless a coordinator is known or awaited. */
    void ensure() {
        if (current != null || waiting != null) {
            return;
        }
        waiting = coordinators.channel().subscribe(ch -> onLoop.accept(() -> {
            waiting = null;
            current = ch;
            found.accept(ch);
        }), e -> onLoop.accept(() -> {
            waiting = null;
            failed.accept(e);
        }));
    }

    /**
     * The coordinator {@code ch} (null: whichever is current) stopped answering for the group: forgets it here and at
     * the manager, then tells the member. A loss of a coordinator that is no longer current is ignored.
     */
    void lose(CoordinatorChannel ch, String reason) {
        CoordinatorChannel known = current;
        if (known == null || (ch != null && ch != known)) {
            return;
        }
        log.info("{}group coordinator (node {}) is unavailable: {}; looking for it again", logPrefix, known.nodeId(),
                reason);
        current = null;
        coordinators.markUnavailable(known, reason);
        lost.accept(known, reason);
    }

    /** Stops waiting and watching (member closed or failed); the manager stays, it belongs to the consumer. */
    void cancel() {
        if (waiting != null) {
            waiting.dispose();
        }
        if (lossWatch != null) {
            lossWatch.dispose();
        }
        waiting = lossWatch = null;
        current = null;
    }
}
