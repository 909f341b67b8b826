package io.kflux.share;

import static io.kflux.share.FakeShareIo.acknowledgeAnswer;
import static io.kflux.share.FakeShareIo.acknowledged;
import static io.kflux.share.FakeShareIo.acquiring;
import static io.kflux.share.FakeShareIo.fetchAnswer;
import static io.kflux.share.FakeShareIo.fetched;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.AcknowledgeType;
import io.kflux.GroupAuthorizationException;
import io.kflux.KafkaFluxException;
import io.kflux.KafkaProtocolException;
import io.kflux.TopicAuthorizationException;
import io.kflux.TopicPartition;
import io.kflux.protocol.ApiKey;
import io.kflux.protocol.Errors;
import io.kflux.share.FakeShareIo.Sent;
import io.kflux.util.ClientMetrics;
import io.kflux.util.SerialExecutor;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * {@link ShareFetcher} against a scripted cluster ({@link FakeShareIo}) on virtual time: which requests go out, when,
 * to which broker, what they carry, and what each acknowledgement's caller hears. Real brokers prove the share consumer
 * as a whole (compat-tests); these pin the loop's own rules, including the faults a real broker seldom shows on cue.
 */
class ShareFetcherTest {
    static final long RETRY_BACKOFF_MS = 100;
    static final TopicPartition TP0 = new TopicPartition(FakeShareIo.TOPIC, 0);
    static final SharePartition P0 = new SharePartition(FakeShareIo.TOPIC_ID, 0);

    final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    final List<Throwable> loopErrors = new CopyOnWriteArrayList<>();
    final SerialExecutor loop = new SerialExecutor(loopErrors::add);
    final List<AcquiredBatch> batches = new ArrayList<>();
    final List<KafkaFluxException> fatalErrors = new ArrayList<>();
    /** What the subscriber asked for and was not handed yet, as the emitter would say. */
    volatile long requested = Long.MAX_VALUE;
    FakeShareIo io;
    ShareFetcher fetcher;

    /**
     * A fetcher whose partition 0 is led by broker {@code leader}, assigned it; the opening ShareFetch is out.
     * {@code share.lock.renewal.max.ms} is 0: no RENEW of its own (the renewal tests say otherwise).
     */
    private void start(int leader) {
        start(leader, 0L, (short) 2);
    }

    /**
     * As {@link #start(int)}, renewing locks for {@code renewForMs} after acquisition, with brokers offering
     * ShareAcknowledge up to v{@code ackVersion}.
     */
    private void start(int leader, long renewForMs, short ackVersion) {
        io = new FakeShareIo(FakeShareIo.cluster(leader));
        io.acknowledgeVersion = ackVersion;
        fetcher = new ShareFetcher(new ShareFetchConfig("g", 500, 1, 1 << 20, 500, RETRY_BACKOFF_MS, 1_000), io,
                renewForMs, loop, time, () -> "member-1", ClientMetrics.NONE, new ShareFetcher.Sink() {
                    @Override
                    public void onBatch(AcquiredBatch batch) {
                        batches.add(batch);
                    }

                    @Override
                    public void onFatalError(KafkaFluxException error) {
                        fatalErrors.add(error);
                    }

                    @Override
                    public long requested() {
                        return requested;
                    }

                    @Override
                    public long buffered() {
                        return 0; // the emitter hands every batch out at once
                    }
                });
        loop.execute(() -> fetcher.assign(Map.of(TP0, FakeShareIo.TOPIC_ID)));
    }

    /** {@link #start}, then the session opened with offsets {@code 0..last} of partition 0 acquired. */
    private void startWithAcquired(long last) {
        start(1);
        Sent open = io.take();
        assertThat(open.epoch()).isEqualTo(ShareSession.OPEN_EPOCH);
        open.answer(acquiring(0, 0, last));
        assertThat(batches).hasSize(1);
    }

    /**
     * {@link #startWithAcquired}, then {@code offsets} accepted (their futures into {@code accepted}) while the next
     * ShareFetch is out: returns the ShareFetch after it, which carries them.
     */
    private Sent carrying(long last, List<CompletableFuture<Void>> accepted, long... offsets) {
        startWithAcquired(last);
        Sent next = io.take();
        for (long o : offsets) {
            accepted.add(accept(o));
        }
        next.answer(fetchAnswer(Errors.NONE));
        return io.take();
    }

    private CompletableFuture<Void> accept(long offset) {
        return fetcher.acknowledge(1, TP0, P0, offset, (short) 1, AcknowledgeType.ACCEPT, null).toFuture();
    }

    private void advance(long ms) {
        time.advanceTimeBy(Duration.ofMillis(ms));
    }

    @AfterEach
    void noLoopErrors() {
        batches.forEach(b -> {
            if (b.records().refCnt() > 0) {
                b.records().release();
            }
        });
        assertThat(loopErrors).as("no task on the loop failed").isEmpty();
    }

    /**
     * KIP-932 piggy-backing: acknowledgements made while a ShareFetch is out wait for its answer and ride on the next
     * ShareFetch, all together; no ShareAcknowledge goes while ShareFetches keep going.
     */
    @Test
    void acknowledgementsGatheredWhileAShareFetchIsOutRideOnTheNext() {
        startWithAcquired(2);
        Sent second = io.take();
        assertThat(second.fetch().shareSessionEpoch()).isEqualTo(1);
        assertThat(second.acknowledged(0)).isEmpty();

        List<CompletableFuture<Void>> acks = List.of(accept(0), accept(1), accept(2));

        assertThat(io.pending).as("one request per session at a time").isEmpty();
        second.answer(fetchAnswer(Errors.NONE));
        Sent third = io.take();
        assertThat(third.fetch().shareSessionEpoch()).isEqualTo(2);
        assertThat(third.acknowledged(0)).containsExactly("0:1", "1:1", "2:1");
        assertThat(third.fetch().maxWaitMs()).as("confirmations awaited: no long poll").isZero();
        assertThat(acks).noneMatch(CompletableFuture::isDone);

        third.answer(fetchAnswer(Errors.NONE, fetched(0, Errors.NONE, Errors.NONE, null)));

        assertThat(acks).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
        assertThat(io.sent).as("ShareFetches only").allMatch(Sent::isFetch).hasSize(4);
    }

    /**
     * No demand, no ShareFetch: acknowledgements go by ShareAcknowledge, those of one burst in one request, and those
     * made while it is out together in the next, never one request per record.
     */
    @Test
    void withoutDemandAcknowledgementsGoByOneShareAcknowledgeNotOnePerRecord() {
        requested = 6;
        start(1);
        Sent open = io.take();
        assertThat(open.fetch().maxRecords()).isEqualTo(6);
        requested = 0; // all six handed out, the subscriber wants no more
        open.answer(acquiring(0, 0, 5));
        assertThat(io.pending).as("nothing wanted, nothing to acknowledge").isEmpty();

        assertThat(fetcher.burstStarted()).isTrue();
        List<CompletableFuture<Void>> burst = List.of(accept(0), accept(1), accept(2));
        assertThat(io.pending).as("held until the burst ends").isEmpty();
        fetcher.burstEnded();

        Sent first = io.take();
        assertThat(first.acknowledge().shareSessionEpoch()).isEqualTo(1);
        assertThat(first.acknowledge().isRenewAck()).isFalse();
        assertThat(first.acknowledged(0)).containsExactly("0:1", "1:1", "2:1");

        List<CompletableFuture<Void>> meanwhile = List.of(accept(3), accept(4), accept(5));
        assertThat(io.pending).as("one request per session at a time").isEmpty();
        first.answer(acknowledgeAnswer(Errors.NONE, acknowledged(0, Errors.NONE)));
        assertThat(burst).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());

        Sent second = io.take();
        assertThat(second.acknowledge().shareSessionEpoch()).isEqualTo(2);
        assertThat(second.acknowledged(0)).containsExactly("3:1", "4:1", "5:1");
        second.answer(acknowledgeAnswer(Errors.NONE, acknowledged(0, Errors.NONE)));

        assertThat(meanwhile).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
        assertThat(io.sent).as("the opening ShareFetch and two ShareAcknowledges for six records").hasSize(3);
        assertThat(io.pending).isEmpty();
    }

    /**
     * SHARE_SESSION_NOT_FOUND: the acknowledgements the request carried fail with it (typed); the next request opens a
     * new session (epoch 0, after {@code retry.backoff.ms}), and acknowledgements made meanwhile stay pending and go in
     * the new session's first request after the opening one.
     */
    @Test
    void aSessionErrorFailsWhatTheRequestCarriedAndOpensANewSessionKeepingThePending() throws Exception {
        List<CompletableFuture<Void>> carried = new ArrayList<>();
        Sent third = carrying(3, carried, 0, 1);
        CompletableFuture<Void> a0 = carried.get(0);
        CompletableFuture<Void> a1 = carried.get(1);
        assertThat(third.acknowledged(0)).containsExactly("0:1", "1:1");
        CompletableFuture<Void> a2 = accept(2);

        third.answer(fetchAnswer(Errors.SHARE_SESSION_NOT_FOUND));

        for (CompletableFuture<Void> f : List.of(a0, a1)) {
            assertThat(f).isCompletedExceptionally();
            Throwable e = cause(f);
            assertThat(e).isInstanceOf(KafkaProtocolException.class).hasMessageContaining("SHARE_SESSION_NOT_FOUND");
            assertThat(((KafkaProtocolException) e).errorCode()).isEqualTo(Errors.SHARE_SESSION_NOT_FOUND.code());
        }
        assertThat(a2).as("made after the request went: kept").isNotDone();
        advance(RETRY_BACKOFF_MS * 8 / 10 - 1);
        assertThat(io.pending).as("backing off (retry.backoff.ms, jittered 20 %)").isEmpty();
        advance(RETRY_BACKOFF_MS * 4 / 10 + 1);

        Sent reopen = io.take();
        assertThat(reopen.fetch().shareSessionEpoch()).isEqualTo(ShareSession.OPEN_EPOCH);
        assertThat(reopen.listed()).containsExactly(0);
        assertThat(reopen.acknowledged(0)).as("an opening request carries no acknowledgements").isEmpty();
        reopen.answer(fetchAnswer(Errors.NONE));

        Sent next = io.take();
        assertThat(next.fetch().shareSessionEpoch()).isEqualTo(1);
        assertThat(next.acknowledged(0)).containsExactly("2:1");
        next.answer(fetchAnswer(Errors.NONE, fetched(0, Errors.NONE, Errors.NONE, null)));
        assertThat(a2).isCompleted();
    }

    /** A leader error refreshes metadata; the partition's next ShareFetch goes to its new leader, in a new session. */
    @Test
    void aLeaderErrorRefreshesMetadataAndFetchesFromTheNewLeader() {
        startWithAcquired(0);
        Sent second = io.take();
        io.afterRefresh = FakeShareIo.cluster(2);

        second.answer(fetchAnswer(Errors.NONE, fetched(0, Errors.NOT_LEADER_OR_FOLLOWER, Errors.NONE, null)));

        assertThat(io.refreshCount).isEqualTo(1);
        Sent atNewLeader = io.take();
        assertThat(atNewLeader.node().id()).isEqualTo(2);
        assertThat(atNewLeader.fetch().shareSessionEpoch()).isEqualTo(ShareSession.OPEN_EPOCH);
        assertThat(atNewLeader.listed()).containsExactly(0);
        assertThat(io.pending).as("nothing more for the old leader").isEmpty();
    }

    /**
     * GROUP_AUTHORIZATION_FAILED ends the consumer: the acknowledgements out and pending fail with the typed error,
     * the sink hears it once, {@code close()} completes at once, and nothing is sent any more.
     */
    @Test
    void anAuthorizationErrorIsFatal() throws Exception {
        List<CompletableFuture<Void>> carried = new ArrayList<>();
        Sent third = carrying(2, carried, 0);
        CompletableFuture<Void> out = carried.get(0);
        CompletableFuture<Void> pending = accept(1);

        third.answer(fetchAnswer(Errors.GROUP_AUTHORIZATION_FAILED));

        assertThat(fatalErrors).singleElement().isInstanceOf(GroupAuthorizationException.class);
        assertThat(cause(out)).isInstanceOf(GroupAuthorizationException.class);
        assertThat(cause(pending)).isInstanceOf(GroupAuthorizationException.class);
        assertThat(fetcher.close().toFuture()).isCompleted();
        advance(60_000);
        assertThat(io.sent).hasSize(3);
        assertThat(cause(accept(2))).isInstanceOf(KafkaFluxException.class).hasMessageContaining("closed");
    }

    @Test
    void topicAuthorizationFailedOnAPartitionIsFatal() {
        start(1);
        io.take().answer(fetchAnswer(Errors.NONE, fetched(0, Errors.TOPIC_AUTHORIZATION_FAILED, Errors.NONE, null)));

        assertThat(fatalErrors).singleElement().isInstanceOf(TopicAuthorizationException.class);
        advance(60_000);
        assertThat(io.sent).hasSize(1);
    }

    /** A broker without ShareFetch v1 (before Kafka 4.1) ends the consumer with a typed error naming the need. */
    @Test
    void aBrokerWithoutShareFetchIsFatal() {
        start(1);
        io.take().fail(new io.kflux.network.UnsupportedVersionException("SHARE_FETCH: the broker offers none",
                ApiKey.SHARE_FETCH));

        assertThat(fatalErrors).hasSize(1);
        assertThat(fatalErrors.get(0)).isInstanceOf(io.kflux.UnsupportedVersionException.class)
                .hasMessageContaining("Kafka 4.1 or later");
    }

    /**
     * A request without answer is retried after {@code retry.backoff.ms}, doubling (jittered 20 %) to
     * {@code retry.backoff.max.ms}, in a new session; the acknowledgements it carried fail with the cause.
     */
    @Test
    void aFailedRequestBacksOffGrowing() throws Exception {
        List<CompletableFuture<Void>> carried = new ArrayList<>();
        Sent carrying = carrying(0, carried, 0);
        CompletableFuture<Void> a0 = carried.get(0);
        assertThat(carrying.acknowledged(0)).containsExactly("0:1");

        carrying.fail(new IOException("connection reset"));

        assertThat(cause(a0)).isInstanceOf(KafkaFluxException.class).hasMessageContaining("broker 1")
                .hasRootCauseInstanceOf(IOException.class);
        advance(79);
        assertThat(io.pending).as("backing off").isEmpty();
        advance(41);
        Sent retry = io.take();
        assertThat(retry.fetch().shareSessionEpoch()).as("unanswered: a new session").isEqualTo(0);
        long firstRetryAt = time.now(TimeUnit.MILLISECONDS);

        retry.fail(new IOException("connection refused"));

        advance(159);
        assertThat(io.pending).as("the second failure waits twice as long").isEmpty();
        advance(81);
        assertThat(io.take().fetch().shareSessionEpoch()).isEqualTo(0);
        assertThat(time.now(TimeUnit.MILLISECONDS) - firstRetryAt).isEqualTo(240);
    }

    /** close(): no more ShareFetches; the pending acknowledgements go with the request that closes the session (-1). */
    @Test
    void closeFlushesThePendingAcknowledgementsInTheClosingRequest() {
        startWithAcquired(1);
        Sent second = io.take();
        CompletableFuture<Void> a0 = accept(0);
        CompletableFuture<Void> a1 = accept(1);
        CompletableFuture<Void> closed = fetcher.close().toFuture();
        second.answer(fetchAnswer(Errors.NONE));

        Sent closing = io.take();
        assertThat(closing.acknowledge().shareSessionEpoch()).isEqualTo(ShareSession.CLOSE_EPOCH);
        assertThat(closing.acknowledged(0)).containsExactly("0:1", "1:1");
        assertThat(closed).isNotDone();
        closing.answer(acknowledgeAnswer(Errors.NONE, acknowledged(0, Errors.NONE)));

        assertThat(List.of(a0, a1)).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
        assertThat(closed).isCompleted();
        assertThat(io.pending).isEmpty();
    }

    /**
     * Offset 0 acquired at time 0 from a broker offering ShareAcknowledge up to v{@code ackVersion}, locks renewed
     * for 60 s after acquisition, and no demand left: nothing else goes unless a lock asks for it.
     */
    private void oneRecordHeld(short ackVersion) {
        requested = 1;
        start(1, 60_000, ackVersion);
        Sent open = io.take();
        requested = 0;
        open.answer(acquiring(0, 0, 0));
    }

    /**
     * KIP-1222: once half of a held record's lock has run, a RENEW goes by ShareAcknowledge with {@code IsRenewAck}
     * (not waiting for a ShareFetch); the confirmed renewal keeps the record held, so its ACCEPT goes afterwards.
     */
    @Test
    void aLockIsRenewedAtHalfItsDurationByAShareAcknowledgeWithIsRenewAck() {
        oneRecordHeld((short) 2);

        advance(FakeShareIo.LOCK_MS / 2 - 1);
        assertThat(io.pending).isEmpty();
        advance(1);
        Sent renew = io.take();
        assertThat(renew.acknowledge().isRenewAck()).isTrue();
        assertThat(renew.acknowledge().shareSessionEpoch()).isEqualTo(1);
        assertThat(renew.acknowledged(0)).containsExactly("0:4");
        renew.answer(acknowledgeAnswer(Errors.NONE, acknowledged(0, Errors.NONE)));

        CompletableFuture<Void> a0 = accept(0);
        Sent acceptance = io.take();
        assertThat(acceptance.acknowledge().isRenewAck()).isFalse();
        assertThat(acceptance.acknowledged(0)).containsExactly("0:1");
        acceptance.answer(acknowledgeAnswer(Errors.NONE, acknowledged(0, Errors.NONE)));
        assertThat(a0).isCompleted();
    }

    /**
     * A broker without ShareAcknowledge v2 (as its connection says, {@link ShareIo.Connected}) gets no RENEW: the lock
     * runs out, and an acknowledgement after that fails at once with INVALID_RECORD_STATE without being sent.
     */
    @Test
    void withoutRenewSupportTheLockRunsOutAndALateAcknowledgementFailsWithoutBeingSent() throws Exception {
        oneRecordHeld((short) 1);

        advance(FakeShareIo.LOCK_MS);
        assertThat(io.pending).as("no RENEW to a v1 broker").isEmpty();

        Throwable late = cause(accept(0));
        assertThat(late).isInstanceOf(KafkaProtocolException.class).hasMessageContaining("INVALID_RECORD_STATE");
        assertThat(((KafkaProtocolException) late).errorCode()).isEqualTo(Errors.INVALID_RECORD_STATE.code());
        assertThat(io.sent).as("only the opening ShareFetch").hasSize(1);
    }

    private static Throwable cause(CompletableFuture<Void> f) throws InterruptedException {
        assertThat(f).as("failed").isCompletedExceptionally();
        try {
            f.get();
            throw new AssertionError("not failed");
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }
}
