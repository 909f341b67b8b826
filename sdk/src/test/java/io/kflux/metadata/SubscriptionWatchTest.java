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

    @Test
    void itsPhaseFollowsEachRefreshFromNeverSentThroughScheduledAndOut() {
        assertThat(watch.phase()).isEqualTo(SubscriptionWatch.Phase.NEVER_SENT);
        watch.cancel(); // nothing to cancel: still never sent, so the first request goes at once
        assertThat(watch.phase()).isEqualTo(SubscriptionWatch.Phase.NEVER_SENT);
        assertThat(watch.request()).isZero();
        assertThat(watch.phase()).isEqualTo(SubscriptionWatch.Phase.IN_FLIGHT);
        answerLast();
        assertThat(watch.phase()).isEqualTo(SubscriptionWatch.Phase.IDLE);

        assertThat(watch.request()).isEqualTo(100);
        assertThat(watch.phase()).isEqualTo(SubscriptionWatch.Phase.SCHEDULED);
        advance(100);
        assertThat(watch.phase()).isEqualTo(SubscriptionWatch.Phase.IN_FLIGHT);
        sent.get(1).tryEmitError(new IllegalStateException("no broker"));
        assertThat(watch.phase()).isEqualTo(SubscriptionWatch.Phase.IDLE);

        watch.satisfied(); // from IDLE straight out, no gap
        assertThat(watch.request()).isZero();
        assertThat(watch.phase()).isEqualTo(SubscriptionWatch.Phase.IN_FLIGHT);
        assertThat(sent).hasSize(3);
    }

    @Test
    void aScheduledRefreshCancelledOrNoLongerWantedReturnsToIdleAndTheGapStillCountsFromTheLastSent() {
        watch.request();
        answerLast();
        advance(30);
        assertThat(watch.request()).isEqualTo(70);
        watch.cancel();
        assertThat(watch.phase()).isEqualTo(SubscriptionWatch.Phase.IDLE);
        advance(1_000);
        assertThat(sent).hasSize(1);

        // the cancelled one still counts: the next one's gap is 200 ms, counted from the one sent 1,030 ms ago
        assertThat(watch.request()).isZero();
        assertThat(watch.phase()).isEqualTo(SubscriptionWatch.Phase.IN_FLIGHT);
        answerLast();
        assertThat(watch.request()).isEqualTo(400);
        active.set(false);
        advance(400);
        assertThat(watch.phase()).isEqualTo(SubscriptionWatch.Phase.IDLE);
        assertThat(sent).hasSize(2);

        active.set(true); // the dropped one counted too: gap 800 ms from the one sent 400 ms ago
        assertThat(watch.request()).isEqualTo(400);
        assertThat(watch.phase()).isEqualTo(SubscriptionWatch.Phase.SCHEDULED);
    }
}
