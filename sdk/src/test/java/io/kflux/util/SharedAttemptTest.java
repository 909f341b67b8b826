package io.kflux.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/** The concurrency rules of the one idiom for sharing an in-flight attempt. */
class SharedAttemptTest {
    private final SharedAttempt<String> shared = new SharedAttempt<>();
    /** The attempts started, each finished by the test. */
    private final List<Sinks.One<String>> started = new ArrayList<>();

    private Mono<String> start() {
        Sinks.One<String> s = Sinks.one();
        started.add(s);
        return s.asMono();
    }

    @Test
    void callersWhileAnAttemptIsInFlightShareItsOutcome() {
        AtomicReference<String> first = new AtomicReference<>();
        AtomicReference<String> second = new AtomicReference<>();
        shared.join(this::start).subscribe(first::set);
        shared.join(this::start).subscribe(second::set);
        assertThat(started).hasSize(1);
        assertThat(shared.inFlight()).isTrue();

        started.get(0).tryEmitValue("a");

        assertThat(first.get()).isEqualTo("a");
        assertThat(second.get()).isEqualTo("a");
        assertThat(shared.inFlight()).isFalse();
    }

    @Test
    void theAttemptStartsWhenTheFirstCallerSubscribesNotWhenItIsAskedFor() {
        Mono<String> asked = shared.join(this::start);
        assertThat(started).isEmpty();
        asked.subscribe();
        asked.subscribe();
        assertThat(started).hasSize(1);
    }

    @Test
    void aFinishedAttemptIsNotCachedEvenForACallerAskingFromItsOnNext() {
        AtomicReference<Mono<String>> askedAgain = new AtomicReference<>();
        shared.join(this::start).subscribe(v -> askedAgain.set(shared.join(this::start)));
        started.get(0).tryEmitValue("a");

        AtomicReference<String> second = new AtomicReference<>();
        askedAgain.get().subscribe(second::set);
        assertThat(started).as("a new attempt, not the finished one replayed").hasSize(2);
        assertThat(second.get()).isNull();
        started.get(1).tryEmitValue("b");
        assertThat(second.get()).isEqualTo("b");
    }

    @Test
    void aFailureReachesEveryCallerAndTheNextCallerStartsAgain() {
        AtomicInteger failed = new AtomicInteger();
        shared.join(this::start).subscribe(v -> { }, e -> failed.incrementAndGet());
        shared.join(this::start).subscribe(v -> { }, e -> failed.incrementAndGet());
        started.get(0).tryEmitError(new IllegalStateException("down"));
        assertThat(failed).hasValue(2);

        shared.join(this::start).subscribe(v -> { }, e -> { });
        assertThat(started).hasSize(2);
    }

    @Test
    void oneCallerCancellingDoesNotCancelTheAttemptOrTheOthers() {
        AtomicBoolean sourceCancelled = new AtomicBoolean();
        Sinks.One<String> source = Sinks.one();
        AtomicReference<String> other = new AtomicReference<>();
        Disposable cancelling = shared.join(() -> source.asMono().doOnCancel(() -> sourceCancelled.set(true)))
                .subscribe();
        shared.join(() -> Mono.error(new AssertionError("not started twice"))).subscribe(other::set);

        cancelling.dispose();
        assertThat(sourceCancelled).isFalse();
        source.tryEmitValue("a");
        assertThat(other.get()).isEqualTo("a");
    }

    @Test
    void abandoningCancelsTheAttemptAndFailsItsCallers() {
        AtomicBoolean sourceCancelled = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Mono<String> late = shared.join(() -> Mono.<String>never().doOnCancel(() -> sourceCancelled.set(true)));
        late.subscribe(v -> { }, failure::set);

        shared.abandon(new IllegalStateException("closed"));

        assertThat(sourceCancelled).isTrue();
        assertThat(failure.get()).hasMessage("closed");
        AtomicReference<Throwable> lateFailure = new AtomicReference<>();
        late.subscribe(v -> { }, lateFailure::set);
        assertThat(lateFailure.get()).as("a caller subscribing after abandon").hasMessage("closed");
        assertThat(shared.inFlight()).isFalse();
    }

    /** A hook on the failure's way that abandons the attempt (the owner closing on that failure) drops nothing. */
    @Test
    void aFailureThatMakesTheOwnerAbandonTheAttemptIsNotReportedAsDropped() {
        List<Throwable> dropped = new ArrayList<>();
        reactor.core.publisher.Hooks.onErrorDropped(dropped::add);
        try {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Sinks.One<String> connect = Sinks.one();
            shared.join(() -> connect.asMono().doOnError(e -> shared.abandon(new IllegalStateException("closed"))))
                    .subscribe(v -> { }, failure::set);
            connect.tryEmitError(new IllegalStateException("refused")); // later, as a broker's answer comes

            assertThat(failure.get()).as("the caller is failed by the abandon").hasMessage("closed");
            assertThat(dropped).isEmpty();
            assertThat(shared.inFlight()).isFalse();
        } finally {
            reactor.core.publisher.Hooks.resetOnErrorDropped();
        }
    }

    @Test
    void anEmptyAttemptCompletesItsCallersEmpty() {
        AtomicBoolean completed = new AtomicBoolean();
        shared.join(Mono::empty).subscribe(v -> { }, e -> { }, () -> completed.set(true));
        assertThat(completed).isTrue();
        assertThat(shared.inFlight()).isFalse();
    }

    @Test
    void whileWantedTheAttemptEndsWhenItsLastCallerCancelsNotBefore() {
        SharedAttempt<String> wanted = SharedAttempt.whileWanted();
        AtomicInteger cancels = new AtomicInteger();
        Disposable first = wanted.join(() -> Mono.<String>never().doOnCancel(cancels::incrementAndGet)).subscribe();
        Disposable second = wanted.join(() -> Mono.error(new AssertionError("not started twice"))).subscribe();

        first.dispose();
        assertThat(cancels).as("one caller of two left").hasValue(0);
        second.dispose();
        assertThat(cancels).as("the last caller left").hasValue(1);
        assertThat(wanted.inFlight()).isFalse();

        AtomicReference<String> next = new AtomicReference<>();
        wanted.join(() -> Mono.just("b")).subscribe(next::set);
        assertThat(next.get()).as("a new caller starts again").isEqualTo("b");
    }

    @Test
    void whileWantedACallerThatAskedBeforeTheOthersLeftButSubscribesAfterStartsAgain() {
        SharedAttempt<String> wanted = SharedAttempt.whileWanted();
        AtomicInteger starts = new AtomicInteger();
        Mono<String> late = wanted.join(() -> {
            starts.incrementAndGet();
            return Mono.never();
        });
        late.subscribe().dispose();
        AtomicReference<Disposable> again = new AtomicReference<>(late.subscribe());
        assertThat(starts).hasValue(2);
        again.get().dispose();
    }

    @Test
    void concurrentCallersStartOneAttempt() throws Exception {
        int threads = 8;
        AtomicInteger starts = new AtomicInteger();
        Sinks.One<String> source = Sinks.one();
        CyclicBarrier together = new CyclicBarrier(threads);
        CountDownLatch joined = new CountDownLatch(threads);
        CountDownLatch answered = new CountDownLatch(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int i = 0; i < threads; i++) {
                pool.execute(() -> {
                    try {
                        together.await(5, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    shared.join(() -> {
                        starts.incrementAndGet();
                        return source.asMono();
                    }).subscribe(v -> answered.countDown());
                    joined.countDown();
                });
            }
            // every caller asked (and subscribed) before the answer: one attempt serves them all
            assertThat(joined.await(5, TimeUnit.SECONDS)).isTrue();
            source.tryEmitValue("a");
            assertThat(answered.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(starts).hasValue(1);
        } finally {
            pool.shutdownNow();
        }
    }
}
