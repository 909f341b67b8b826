package io.kflux.share;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.kflux.AcknowledgeType;
import io.kflux.KafkaProtocolException;
import io.kflux.protocol.message.AcknowledgementBatch;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** One broker's pending acknowledgements: gathered per partition, taken for one request, answered per partition. */
class ShareBrokerTest {
    private static final SharePartition P0 = new SharePartition(new UUID(0, 1), 0);
    private static final SharePartition P1 = new SharePartition(new UUID(0, 1), 1);

    @Test
    void acknowledgementsGatheredMeanwhileGoInOneRequestAndEachWaiterHearsItsPartition() {
        ShareBroker b = new ShareBroker(1);
        Mono<Void> a0 = Mono.create(s -> b.add(P0, 0, AcknowledgeType.ACCEPT, new SinkWaiter(0, s)));
        Mono<Void> a1 = Mono.create(s -> b.add(P0, 1, AcknowledgeType.ACCEPT, new SinkWaiter(1, s)));
        Mono<Void> r5 = Mono.create(s -> b.add(P1, 5, AcknowledgeType.RELEASE, new SinkWaiter(5, s)));
        var f0 = a0.toFuture();
        var f1 = a1.toFuture();
        var f5 = r5.toFuture();
        b.add(P0, 2, null, null); // a gap nobody waits on
        assertThat(b.hasPending()).isTrue();
        assertThat(b.hasPendingRenew()).isFalse();

        ShareBroker.Drained d = b.drain();
        assertThat(b.hasPending()).isFalse();
        assertThat(d.batches().get(P0)).containsExactly(new AcknowledgementBatch(0, 2,
                List.of((byte) 1, (byte) 1, AcknowledgementBatch.GAP)));
        assertThat(d.batches().get(P1)).containsExactly(new AcknowledgementBatch(5, 5, List.of((byte) 2)));

        AckCompletions completions = new AckCompletions();
        ShareBroker.answer(d, P0, null, completions);
        ShareBroker.answer(d, P1, new KafkaProtocolException((short) 121, "INVALID_RECORD_STATE", false, "lock expired"),
                completions);
        assertThat(f0).isNotDone(); // answered in the pass, not before
        completions.run();
        assertThat(f0).succeedsWithin(Duration.ofSeconds(1));
        assertThat(f1).succeedsWithin(Duration.ofSeconds(1));
        assertThat(f5).failsWithin(Duration.ofSeconds(1)).withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .havingCause().isInstanceOf(KafkaProtocolException.class).withMessageContaining("lock expired");
    }

    /**
     * The planner counts the acknowledgements someone waits for until the broker answered them: pending, then on the
     * request out, then none; those failed before going out never count as out.
     */
    @Test
    void acknowledgementsAwaitedCountUntilTheRequestCarryingThemIsAnswered() {
        ShareBroker b = new ShareBroker(1);
        Mono.<Void>create(s -> b.add(P0, 0, AcknowledgeType.ACCEPT, new SinkWaiter(0, s))).subscribe();
        Mono.<Void>create(s -> b.add(P0, 1, AcknowledgeType.ACCEPT, new SinkWaiter(1, s))).subscribe();
        b.add(P0, 2, AcknowledgeType.RELEASE, null); // nobody waits
        assertThat(b.hasPendingWaiters()).isTrue();
        assertThat(b.waiting()).isEqualTo(2);

        b.inFlight = b.drain();
        Mono.<Void>create(s -> b.add(P1, 7, AcknowledgeType.ACCEPT, new SinkWaiter(7, s))).subscribe();
        assertThat(b.waiting()).isEqualTo(3);
        assertThat(b.hasPendingWaiters()).isTrue();

        b.inFlightDone();
        assertThat(b.waiting()).isEqualTo(1);
        b.failPending(new io.kflux.KafkaFluxException("gone"), new AckCompletions());
        assertThat(b.waiting()).isZero();
        assertThat(b.hasPendingWaiters()).isFalse();
    }

    @Test
    void aRenewMakesTheRequestARenewal() {
        ShareBroker b = new ShareBroker(1);
        b.add(P0, 3, AcknowledgeType.RENEW, null);
        assertThat(b.hasPendingRenew()).isTrue();
        assertThat(b.drain().renew()).isTrue();
    }

    @Test
    void aWaiterWhoseSubscriberThrowsDoesNotStopTheOthers() {
        ShareBroker b = new ShareBroker(1);
        Mono.<Void>create(s -> b.add(P0, 0, AcknowledgeType.ACCEPT, new SinkWaiter(0, s))).subscribe(new reactor.core.CoreSubscriber<>() {
            @Override
            public void onSubscribe(org.reactivestreams.Subscription s) {
                s.request(1);
            }

            @Override
            public void onNext(Void v) {
            }

            @Override
            public void onError(Throwable t) {
            }

            @Override
            public void onComplete() {
                throw new java.util.concurrent.RejectedExecutionException("subscriber code threw");
            }
        });
        var f1 = Mono.<Void>create(s -> b.add(P0, 1, AcknowledgeType.ACCEPT, new SinkWaiter(1, s))).toFuture();
        ShareBroker.Drained d = b.drain();

        AckCompletions completions = new AckCompletions();
        ShareBroker.answer(d, P0, null, completions);
        assertThatCode(completions::run).doesNotThrowAnyException();
        assertThat(f1).succeedsWithin(Duration.ofSeconds(1));
    }
}
