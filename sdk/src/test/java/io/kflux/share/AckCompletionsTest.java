package io.kflux.share;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.AcknowledgeType;
import io.kflux.KafkaFluxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** One pass completes a broker answer's waiters; a request from inside a completion finishes the pass there. */
class AckCompletionsTest {

    /** A Mono whose waiter joins {@code waiters} when subscribed, as ShareFetcher.acknowledge hands one over. */
    private static Mono<Void> acknowledgement(long offset, List<ShareBroker.Waiter> waiters) {
        return Mono.create(s -> waiters.add(new SinkWaiter(offset, s)));
    }

    @Test
    void everyWaiterHearsItsOutcomeOnceInTheOrderAdded() {
        AckCompletions completions = new AckCompletions();
        List<ShareBroker.Waiter> confirmed = new ArrayList<>();
        List<ShareBroker.Waiter> failed = new ArrayList<>();
        List<String> heard = new CopyOnWriteArrayList<>();
        for (long o = 0; o < 3; o++) {
            long offset = o;
            acknowledgement(o, confirmed).subscribe(null, e -> heard.add("error " + offset), () -> heard.add("ok " + offset));
        }
        acknowledgement(7, failed).subscribe(null, e -> heard.add("error 7: " + e.getMessage()), () -> heard.add("ok 7"));
        completions.add(confirmed, null);
        completions.add(failed, new KafkaFluxException("lock expired"));
        assertThat(heard).isEmpty();

        completions.run();
        completions.run(); // nothing left: nobody hears twice
        assertThat(heard).containsExactly("ok 0", "ok 1", "ok 2", "error 7: lock expired");
    }

    @Test
    void aRequestFromInsideACompletionFinishesThePassThereAndElsewhereDoesNothing() {
        AckCompletions completions = new AckCompletions();
        List<ShareBroker.Waiter> waiters = new ArrayList<>();
        AtomicInteger done = new AtomicInteger();
        List<Integer> doneWhenTheFirstReturned = new ArrayList<>();
        acknowledgement(0, waiters).subscribe(null, null, () -> {
            done.incrementAndGet();
            completions.help(); // what flatMap's request for the next record reaches
            doneWhenTheFirstReturned.add(done.get());
        });
        for (long o = 1; o < 4; o++) {
            acknowledgement(o, waiters).subscribe(null, null, done::incrementAndGet);
        }
        completions.add(waiters, null);
        completions.help(); // outside a pass: nothing happens
        assertThat(done).hasValue(0);

        completions.run();
        assertThat(doneWhenTheFirstReturned).containsExactly(4);
        assertThat(done).hasValue(4);
    }

    /**
     * The reason for the pass: under {@code flatMap(.., n)} the first completion's drain asks for more, the rest
     * complete inside it, and flatMap asks once for all of them instead of once per completion (each ask follows a
     * walk of its n inner subscribers).
     */
    @Test
    void underFlatMapAPassOfNConfirmationsCostsTwoRequestsNotN() {
        AckCompletions completions = new AckCompletions();
        List<ShareBroker.Waiter> waiters = new ArrayList<>();
        List<Long> requests = new CopyOnWriteArrayList<>();
        int n = 1_000;
        Flux<Long> records = Flux.create(sink -> {
            sink.onRequest(r -> {
                requests.add(r);
                completions.help();
            });
            for (long o = 0; o < n; o++) {
                sink.next(o);
            }
            sink.complete();
        });
        var count = records.flatMap(o -> acknowledgement(o, waiters), n).count().toFuture();
        assertThat(waiters).hasSize(n);
        requests.clear();

        completions.add(waiters, null);
        completions.run();
        assertThat(count).succeedsWithin(Duration.ofSeconds(5));
        assertThat(requests).hasSizeLessThanOrEqualTo(2).allMatch(r -> r > 0);
    }
}
