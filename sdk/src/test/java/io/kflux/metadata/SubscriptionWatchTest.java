package io.kflux.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.scheduler.VirtualTimeScheduler;

/** When the one owner of "refresh until it appears" sends, in virtual time, with refreshes the test answers. */
class SubscriptionWatchTest {
    private final VirtualTimeScheduler clock = VirtualTimeScheduler.create();
    /** The refreshes sent, each answered by the test. */
    private final List<Sinks.One<Cluster>> sent = new ArrayList<>();
    private final List<Cluster> snapshots = new ArrayList<>();
    private final List<Throwable> failures = new ArrayList<>();
    private final AtomicBoolean active = new AtomicBoolean(true);
    /** Gap n: 100 ms, 200 ms, 400 ms, ... */
    private final SubscriptionWatch watch = new SubscriptionWatch(Runnable::run, clock, () -> {
        Sinks.One<Cluster> s = Sinks.one();
        sent.add(s);
        return s.asMono();
    }, n -> 100L << (n - 1), active::get, snapshots::add, failures::add);

    private void advance(long ms) {
        clock.advanceTimeBy(Duration.ofMillis(ms));
    }

    private void answerLast() {
        sent.get(sent.size() - 1).tryEmitValue(Cluster.EMPTY);
    }

    @Test
    void theFirstRefreshGoesAtOnceAndEachFurtherOneAfterItsGrowingGap() {
        assertThat(watch.request()).isZero();
        assertThat(sent).hasSize(1);
        answerLast();
        assertThat(snapshots).containsExactly(Cluster.EMPTY);

        assertThat(watch.request()).isEqualTo(100);
        advance(99);
        assertThat(sent).hasSize(1);
        advance(1);
        assertThat(sent).hasSize(2);
        answerLast();

        advance(50); // the gap counts from when the previous refresh went out
        assertThat(watch.request()).isEqualTo(150);
        advance(150);
        assertThat(sent).hasSize(3);
        assertThat(watch.refreshes()).isEqualTo(3);
    }

    @Test
    void requestsWhileOneIsPendingAreServedByIt() {
        watch.request();
        assertThat(watch.request()).isEqualTo(-1);
        assertThat(watch.pending()).isTrue();
        assertThat(sent).hasSize(1);
        answerLast();
        assertThat(watch.pending()).isFalse();

        watch.request(); // scheduled, not yet out
        assertThat(watch.request()).isEqualTo(-1);
        advance(1_000);
        assertThat(sent).hasSize(2);
    }

    @Test
    void satisfiedMakesTheNextRequestGoAtOnce() {
        watch.request();
        answerLast();
        watch.request();
        advance(100);
        answerLast();
        watch.satisfied();
        assertThat(watch.request()).isZero();
        assertThat(sent).hasSize(3);
    }

    @Test
    void aFailedRefreshReachesTheFailureHandlerAndTheGapStillApplies() {
        watch.request();
        sent.get(0).tryEmitError(new IllegalStateException("no broker"));
        assertThat(failures).singleElement().extracting(Throwable::getMessage).isEqualTo("no broker");
        assertThat(snapshots).isEmpty();
        assertThat(watch.request()).isEqualTo(100);
    }

    @Test
    void anEmptyAnswerCountsAsAFailureSoTheWatchDoesNotWedge() {
        SubscriptionWatch empty = new SubscriptionWatch(Runnable::run, clock, Mono::empty, n -> 100, active::get,
                snapshots::add, failures::add);
        empty.request();
        assertThat(failures).hasSize(1);
        assertThat(empty.pending()).isFalse();
    }

    @Test
    void aCancelledRefreshReachesNoOneAndLaterRequestsAreServed() {
        watch.request();
        watch.cancel();
        answerLast();
        assertThat(snapshots).isEmpty();
        assertThat(watch.pending()).isFalse();

        watch.request(); // scheduled after the gap, then cancelled: it never goes out
        watch.cancel();
        advance(10_000);
        assertThat(sent).hasSize(1);
    }

    @Test
    void anOwnerNoLongerActiveWhenTheTimeComesSendsNothing() {
        watch.request();
        answerLast();
        watch.request();
        active.set(false);
        advance(100);
        assertThat(sent).hasSize(1);
        assertThat(watch.pending()).isFalse();
        assertThat(watch.request()).isEqualTo(-1);
    }
}
