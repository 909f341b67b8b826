package io.kflux.fetch;

import static io.kflux.fetch.FakeFetchIo.batch;
import static io.kflux.fetch.FakeFetchIo.cluster;
import static io.kflux.fetch.FakeFetchIo.epochEnd;
import static io.kflux.fetch.FakeFetchIo.partition;
import static io.kflux.fetch.FakeFetchIo.response;
import static io.kflux.fetch.FakeFetchIo.topLevelError;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.LogTruncationException;
import io.kflux.OffsetOutOfRangeException;
import io.kflux.TopicPartition;
import io.kflux.fetch.FakeFetchIo.PendingEpochs;
import io.kflux.fetch.FakeFetchIo.PendingFetch;
import io.kflux.fetch.FakeFetchIo.PendingList;
import io.kflux.metadata.Cluster;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.FetchRequest;
import io.kflux.protocol.message.FetchResponse;
import io.kflux.protocol.message.FetchResponse.PartitionData;
import io.kflux.util.SerialExecutor;
import io.netty.buffer.Unpooled;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * {@link Fetcher} against a scripted cluster ({@link FakeFetchIo}) on virtual time: which requests go out, when, to
 * which broker, and where positions end up. Past 500 lines because every scenario shares one harness (the scripted
 * cluster, the loop, virtual time, the delivered results); split by topic it would be copied into each part.
 */
class FetcherTest {
    static final long RETRY_BACKOFF_MS = 100;
    static final TopicPartition TP0 = new TopicPartition(FakeFetchIo.TOPIC, 0);
    static final TopicPartition TP1 = new TopicPartition(FakeFetchIo.TOPIC, 1);

    final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    final List<Throwable> loopErrors = new CopyOnWriteArrayList<>();
    final SerialExecutor loop = new SerialExecutor(loopErrors::add);
    final List<CompletedFetch> delivered = new ArrayList<>();
    final List<Throwable> failures = new ArrayList<>();
    final List<FetchRequestListener.Request> requests = new ArrayList<>();
    final List<Integer> throttles = new ArrayList<>();
    FakeFetchIo io;
    Fetcher fetcher;

    private void start(Cluster cluster, OffsetResetStrategy reset) {
        io = new FakeFetchIo(cluster);
        FetchConfig config = new FetchConfig(500, 1, 50 << 20, 1 << 20, (byte) 0, "", 100L << 20, RETRY_BACKOFF_MS,
                true, 300_000);
        fetcher = new Fetcher(config, io, reset, 0L, loop, new FetchSink() {
            @Override
            public void accept(CompletedFetch fetch) {
                delivered.add(fetch);
            }

            @Override
            public void fail(Throwable error) {
                failures.add(error);
            }
        }, time);
        fetcher.requestListener(new FetchRequestListener() {
            @Override
            public void onRequest(Request request) {
                requests.add(request);
            }

            @Override
            public void onThrottle(int nodeId, int throttleMs) {
                throttles.add(throttleMs);
            }
        });
    }

    /** Assigns the partitions, each at {@code offset} (a negative offset: awaiting {@code auto.offset.reset}). */
    private void assign(long offset, TopicPartition... tps) {
        Map<TopicPartition, PartitionState> states = new LinkedHashMap<>();
        for (TopicPartition tp : tps) {
            PartitionState ps = new PartitionState(tp);
            if (offset >= 0) {
                ps.seek(offset);
            } else {
                ps.requireReset();
            }
            states.put(tp, ps);
        }
        loop.execute(() -> fetcher.assign(states));
    }

    private void advance(long ms) {
        time.advanceTimeBy(Duration.ofMillis(ms));
    }

    /** The emitter emitted every record of {@code fetch} and handed it back. */
    private void emit(CompletedFetch fetch, int lastEpoch) {
        PartitionState ps = fetch.partition();
        assertThat(ps.advance(ps.position(), fetch.nextFetchOffset(), lastEpoch)).isTrue();
        fetch.release();
        loop.execute(() -> fetcher.onConsumed(fetch));
    }

    /** Offsets 0-9, written in leader epoch 1, fetched from node 1 and emitted: the next Fetch is pending. */
    private void tenRecordsEmitted(Cluster cluster, OffsetResetStrategy reset) {
        start(cluster, reset);
        assign(0, TP0);
        io.takeFetch().answer(response(0, 7, partition(0, Errors.NONE, 10, batch(0, 1, 10))));
        emit(delivered.get(0), 1);
        assertThat(state(TP0).position()).isEqualTo(10L);
    }

    private PartitionState state(TopicPartition tp) {
        return fetcher.partition(tp);
    }

    @AfterEach
    void noLoopErrors() {
        if (fetcher != null) {
            loop.execute(fetcher::close);
        }
        delivered.forEach(f -> {
            if (f.records().refCnt() > 0) {
                f.release();
            }
        });
        assertThat(loopErrors).as("no task on the loop failed").isEmpty();
    }

    /**
     * Issue #17: a partition read to its end (fetch offset = high watermark) is not prefetched while its result waits
     * with the emitter; once the result is emitted ({@code onConsumed}) its next Fetch goes out at once and may
     * long-poll.
     */
    @Test
    void aPartitionReadToItsEndIsFetchedAgainOnlyOnceItsResultIsEmitted() {
        start(cluster(1, 1, 0), OffsetResetStrategy.EARLIEST);
        assign(0, TP0);
        io.takeFetch().answer(response(0, 7, partition(0, Errors.NONE, 10, batch(0, 0, 10))));
        assertThat(delivered).hasSize(1);
        advance(10_000);
        assertThat(io.fetches).as("no prefetch from the end of the log").isEmpty();

        emit(delivered.get(0), 0);

        PendingFetch next = io.takeFetch();
        assertThat(next.only(0).fetchOffset()).isEqualTo(10L);
        assertThat(next.request().maxWaitMs()).as("nothing waits: a long poll").isEqualTo(500);
    }

    /**
     * Issue #17: a seek made while the partition is held back at its end (the benchmark's seek back to 0 as its last
     * record is emitted) is fetched in the next Fetch, at once: no long poll at the old end is in flight to wait for.
     */
    @Test
    void aSeekWhileHeldBackAtTheEndIsFetchedAtOnceWithoutWaitingForALongPoll() {
        start(cluster(1, 1, 0), OffsetResetStrategy.EARLIEST);
        assign(0, TP0);
        io.takeFetch().answer(response(0, 7, partition(0, Errors.NONE, 15, batch(0, 0, 10))));
        emit(delivered.get(0), 0);
        io.takeFetch().answer(response(0, 7, partition(0, Errors.NONE, 15, batch(10, 0, 5))));
        CompletedFetch last = delivered.get(1);
        PartitionState ps = state(TP0);
        assertThat(ps.advance(10, 15, 0)).as("the last record emitted, the result not handed back yet").isTrue();
        assertThat(io.fetches).as("held back at the end: no long poll at 15").isEmpty();

        loop.execute(() -> {
            ps.seek(0); // as KafkaFluxConsumer.seek does on the loop
            fetcher.plan();
        });

        PendingFetch again = io.takeFetch();
        assertThat(again.only(0).fetchOffset()).isZero();
        assertThat(time.now(TimeUnit.MILLISECONDS)).as("no time passed").isZero();
        last.release();
        loop.execute(() -> fetcher.onConsumed(last)); // the emitter drops the stale result
        assertThat(io.fetches).as("one Fetch in flight per broker").isEmpty();
        again.answer(response(0, 7, partition(0, Errors.NONE, 15, batch(0, 0, 10))));
        assertThat(delivered).hasSize(3);
        assertThat(delivered.get(2).fetchOffset()).isZero();
        assertThat(io.fetchesSent).extracting(f -> f.only(0).fetchOffset())
                .as("never one at the old end (15); after the re-read, below the end: prefetched at 10")
                .containsExactly(0L, 10L, 0L, 10L);
    }

    /** Below the end of the log, a waiting result still pipelines the next Fetch with its emission. */
    @Test
    void belowItsEndAPartitionIsPrefetchedWhileItsResultWaits() {
        start(cluster(1, 1, 0), OffsetResetStrategy.EARLIEST);
        assign(0, TP0);

        io.takeFetch().answer(response(0, 7, partition(0, Errors.NONE, 20, batch(0, 0, 10))));

        PendingFetch next = io.takeFetch();
        assertThat(next.only(0).fetchOffset()).isEqualTo(10L);
        assertThat(next.request().maxWaitMs()).isEqualTo(500);
        assertThat(delivered.get(0).partition().pendingFetches()).isEqualTo(1);
    }

    /**
     * While one partition waits at its end and the other of its broker is at its end too, the broker gets no Fetch: a
     * no-wait one would bring nothing (an empty round trip per answer with data while tailing), a long poll would keep
     * the waiting one behind it. Emitting the waiting result plans again, and both are long-polled.
     */
    @Test
    void whileOnePartitionWaitsAtItsEndAndTheOtherIsAtItsEndTheBrokerIsAskedOnceTheResultIsEmitted() {
        start(cluster(2, 1, 0), OffsetResetStrategy.EARLIEST);
        assign(0, TP0, TP1);
        io.takeFetch().answer(response(0, 7, partition(0, Errors.NONE, 10, batch(0, 0, 10)),
                partition(1, Errors.NONE, 0, null)));
        advance(10_000);
        assertThat(io.fetches).as("no Fetch while tp0 waits and tp1 is at its end").isEmpty();

        emit(delivered.get(0), 0);

        PendingFetch both = io.takeFetch();
        assertThat(both.listed()).as("tp1 unchanged in the session").containsExactly(0);
        assertThat(both.forgotten()).isEmpty();
        assertThat(both.only(0).fetchOffset()).isEqualTo(10L);
        assertThat(both.request().maxWaitMs()).isEqualTo(500);
    }

    /**
     * While one partition waits at its end, another of its broker below its end is fetched without waiting and, when
     * that brings nothing, the broker idles; emitting the waiting result wakes it and both are long-polled.
     */
    @Test
    void whileOnePartitionWaitsAtItsEndAnotherBelowItsEndIsFetchedWithoutWaiting() {
        start(cluster(2, 1, 0), OffsetResetStrategy.EARLIEST);
        assign(0, TP0, TP1);
        io.takeFetch().answer(response(0, 7, partition(0, Errors.NONE, 10, batch(0, 0, 10)),
                partition(1, Errors.NONE, 8, batch(0, 0, 5))));

        PendingFetch noWait = io.takeFetch();
        assertThat(noWait.request().maxWaitMs()).isZero();
        assertThat(noWait.forgotten()).as("tp0 leaves the session while held back").containsExactly(0);
        assertThat(noWait.only(1).fetchOffset()).isEqualTo(5L);
        noWait.answer(response(0, 7));
        advance(499);
        assertThat(io.fetches).as("idle: tp1 is not asked again and again").isEmpty();

        emit(delivered.get(0), 0);

        PendingFetch both = io.takeFetch();
        assertThat(both.only(0).fetchOffset()).isEqualTo(10L);
        assertThat(both.request().maxWaitMs()).as("nothing held back (tp1's result waits below its end)")
                .isEqualTo(500);
        assertThat(time.now(TimeUnit.MILLISECONDS)).isEqualTo(499);
    }

    /** KIP-219: from Fetch v8 the broker answers at once and the client holds back until the throttle time passed. */
    @Test
    void noFetchGoesToAThrottledNodeUntilTheThrottleTimeHasPassed() {
        start(cluster(1, 1, 0), OffsetResetStrategy.EARLIEST);
        assign(0, TP0);
        PendingFetch first = io.takeFetch();
        assertThat(first.node().id()).isEqualTo(1);
        assertThat(first.only(0).fetchOffset()).isZero();

        first.answer(response(250, 7, partition(0, Errors.NONE, 5, batch(0, 0, 5))));

        assertThat(throttles).containsExactly(250);
        assertThat(delivered).hasSize(1);
        assertThat(state(TP0).fetchOffset()).isEqualTo(5L);
        assertThat(io.fetches).as("the partition may be fetched, but its node is throttled").isEmpty();
        emit(delivered.get(0), 0);
        advance(249);
        assertThat(io.fetches).as("249 ms into a 250 ms throttle").isEmpty();

        advance(1);

        PendingFetch next = io.takeFetch();
        assertThat(next.node().id()).isEqualTo(1);
        assertThat(next.only(0).fetchOffset()).isEqualTo(5L);
        assertThat(next.request().sessionId()).isEqualTo(7);
    }

    /** Below Fetch v8 the broker itself delays its answer by the throttle time: the client does not wait again. */
    @Test
    void aThrottleTimeFromABrokerBelowFetchV8DelaysNothing() {
        start(cluster(1, 1, 0), OffsetResetStrategy.EARLIEST);
        assign(0, TP0);

        // high watermark 10: not at its end, so the next records are prefetched at once
        io.takeFetch().answer(response(250, 7, partition(0, Errors.NONE, 10, batch(0, 0, 5))), (short) 7);

        assertThat(throttles).isEmpty();
        assertThat(io.takeFetch().only(0).fetchOffset()).isEqualTo(5L);
    }

    /**
     * KIP-320: a higher leader epoch in metadata holds the partition until OffsetForLeaderEpoch answered; an end
     * offset of the last fetched epoch below the fetch position means truncation, and fetching resumes there, from
     * the new leader.
     */
    @Test
    void aLeaderEpochChangeValidatesThePositionAndATruncatedLogMovesItBack() {
        tenRecordsEmitted(cluster(1, 1, 1), OffsetResetStrategy.EARLIEST);
        PendingFetch second = io.takeFetch();
        assertThat(second.only(0).lastFetchedEpoch()).isEqualTo(1);

        io.cluster = cluster(1, 2, 2); // node 2 leads now, in epoch 2
        second.answer(response(0, 7, partition(0, Errors.NONE, 10, null)));

        assertThat(state(TP0).state()).isEqualTo(FetchState.VALIDATING);
        assertThat(io.fetches).as("no Fetch before the position is validated").isEmpty();
        PendingEpochs query = io.takeEpochQuery();
        assertThat(query.leader().id()).isEqualTo(2);
        assertThat(query.queries()).containsExactlyEntriesOf(Map.of(TP0, new EpochEndOffsets.Query(2, 1)));

        query.sink().tryEmitValue(Map.of(TP0, epochEnd(0, 1, 7))); // epoch 1 ends at 7 in the new leader's log

        assertThat(failures).isEmpty();
        assertThat(state(TP0).position()).isEqualTo(7L);
        assertThat(state(TP0).state()).isEqualTo(FetchState.FETCHING);
        PendingFetch resumed = io.takeFetch();
        assertThat(resumed.node().id()).isEqualTo(2);
        assertThat(resumed.only(0).fetchOffset()).isEqualTo(7L);
        assertThat(resumed.only(0).currentLeaderEpoch()).isEqualTo(2);
        assertThat(resumed.request().sessionId()).as("a new broker: a new session").isZero();
    }

    /** KIP-320: an end offset at or past the fetch position confirms it; nothing moves. */
    @Test
    void aValidatedPositionStaysAndFetchingGoesOnFromIt() {
        tenRecordsEmitted(cluster(1, 1, 1), OffsetResetStrategy.EARLIEST);
        PendingFetch second = io.takeFetch();
        io.cluster = cluster(1, 1, 2); // same leader, new epoch

        second.answer(response(0, 7, partition(0, Errors.NONE, 10, null)));
        io.takeEpochQuery().sink().tryEmitValue(Map.of(TP0, epochEnd(0, 1, 12)));

        assertThat(state(TP0).position()).isEqualTo(10L);
        PendingFetch next = io.takeFetch();
        assertThat(next.only(0).fetchOffset()).isEqualTo(10L);
        assertThat(next.only(0).currentLeaderEpoch()).isEqualTo(2);
        assertThat(next.only(0).lastFetchedEpoch()).isEqualTo(1);
    }

    /** KIP-320 via Fetch: a {@code divergingEpoch} answer moves the position back to the epoch's end offset. */
    @Test
    void aDivergingEpochInAFetchAnswerTruncatesWithoutAskingOffsetForLeaderEpoch() {
        tenRecordsEmitted(cluster(1, 1, 2), OffsetResetStrategy.EARLIEST);
        PendingFetch second = io.takeFetch();
        assertThat(second.only(0).lastFetchedEpoch()).isEqualTo(1);

        second.answer(response(0, 7, diverging(0, 1, 6)));

        assertThat(io.epochQueries).isEmpty();
        assertThat(state(TP0).position()).isEqualTo(6L);
        PendingFetch resumed = io.takeFetch();
        assertThat(resumed.only(0).fetchOffset()).isEqualTo(6L);
        assertThat(resumed.only(0).lastFetchedEpoch()).isEqualTo(1);
        assertThat(failures).isEmpty();
    }

    /** With {@code auto.offset.reset=none} a truncated log ends the flux with the fetch and divergent offsets. */
    @Test
    void aTruncatedLogWithoutAResetPolicyFailsWithLogTruncation() {
        tenRecordsEmitted(cluster(1, 1, 2), OffsetResetStrategy.NONE);

        io.takeFetch().answer(response(0, 7, diverging(0, 1, 6)));

        assertThat(failures).singleElement().isInstanceOfSatisfying(LogTruncationException.class, e -> {
            assertThat(e.offsets()).containsExactlyEntriesOf(Map.of(TP0, 10L));
            assertThat(e.divergentOffsets()).containsExactlyEntriesOf(Map.of(TP0, 6L));
        });
        assertThat(state(TP0).position()).as("nothing moved").isEqualTo(10L);
    }

    private static PartitionData diverging(int partition, int epoch, long endOffset) {
        return new PartitionData(partition, (short) 0, 10, 10, 0L, new FetchResponse.EpochEndOffset(epoch, endOffset),
                FetchResponse.LeaderIdAndEpoch.NONE, FetchResponse.SnapshotId.NONE, null,
                FetchResponse.NO_PREFERRED_READ_REPLICA, Unpooled.EMPTY_BUFFER);
    }

    /**
     * Issues #28/#32: a long poll the broker held its whole {@code fetch.max.wait.ms} (500 ms) and answered with nothing
     * is followed by the next one 10 ms later (a fiftieth of it), not at once; an empty answer that came early, and an
     * answer with records after the same wait, are followed at once.
     */
    @Test
    void anEmptyLongPollIsAskedAgainAfterAShortPauseAndOnlyThen() {
        start(cluster(1, 1, 0), OffsetResetStrategy.EARLIEST);
        assign(0, TP0);
        io.takeFetch().answer(response(0, 42, partition(0, Errors.NONE, 0, null)));
        PendingFetch longPoll = io.takeFetch();
        assertThat(longPoll.request().maxWaitMs()).isEqualTo(500);
        assertThat(io.fetches).as("the early empty answer was asked again at once").isEmpty();

        advance(500);
        longPoll.answer(response(0, 42));
        assertThat(io.fetches).as("held off after the empty long poll").isEmpty();
        advance(FetchPlanner.MAX_REASK_PAUSE_MS - 1);
        assertThat(io.fetches).as("still held off").isEmpty();
        advance(1);
        PendingFetch next = io.takeFetch();
        assertThat(next.request().maxWaitMs()).isEqualTo(500);
        assertThat(time.now(TimeUnit.MILLISECONDS)).isEqualTo(500 + FetchPlanner.MAX_REASK_PAUSE_MS);

        advance(500);
        next.answer(response(0, 42, partition(0, Errors.NONE, 1, batch(0, 0, 1))));
        assertThat(delivered).hasSize(1);
        emit(delivered.get(0), 0);
        assertThat(io.takeFetch().only(0).fetchOffset()).as("records after the wait: asked again at once")
                .isEqualTo(1L);
        assertThat(failures).isEmpty();
    }

    /** Below 50 ms of {@code fetch.max.wait.ms} an empty long poll is asked again at once (a fiftieth is under 1 ms). */
    @Test
    void aShortLongPollIsAskedAgainAtOnce() {
        FetchConfig config = new FetchConfig(40, 1, 50 << 20, 1 << 20, (byte) 0, "", 100L << 20, RETRY_BACKOFF_MS,
                true, 300_000);
        assertThat(FetchPlanner.reaskPauseMs(config, 40_000_000L)).isZero();
        FetchConfig defaults = new FetchConfig(500, 1, 50 << 20, 1 << 20, (byte) 0, "", 100L << 20, RETRY_BACKOFF_MS,
                true, 300_000);
        assertThat(FetchPlanner.reaskPauseMs(defaults, 499_999_999L)).as("answered before the wait ended").isZero();
        assertThat(FetchPlanner.reaskPauseMs(defaults, 500_000_000L)).isEqualTo(10L);
        FetchConfig longer = new FetchConfig(5_000, 1, 50 << 20, 1 << 20, (byte) 0, "", 100L << 20, RETRY_BACKOFF_MS,
                true, 300_000);
        assertThat(FetchPlanner.reaskPauseMs(longer, 5_000_000_000L)).as("at most 10 ms").isEqualTo(10L);
    }

    /**
     * A failed Fetch (connection lost) refreshes metadata and the session's next request is a full one; it goes out
     * once the refresh is answered (reconnecting is paced by the connection's own backoff, not here).
     */
    @Test
    void aFailedFetchRefreshesMetadataAndTheNextFetchIsAFullOne() {
        start(cluster(1, 1, 0), OffsetResetStrategy.EARLIEST);
        assign(0, TP0);
        io.takeFetch().answer(response(0, 42, partition(0, Errors.NONE, 0, null)));
        PendingFetch incremental = io.takeFetch();
        assertThat(incremental.request().sessionEpoch()).isEqualTo(1);

        incremental.sink().tryEmitError(new io.kflux.network.DisconnectedException("gone"));

        assertThat(io.refreshCount).isEqualTo(1);
        PendingFetch full = io.takeFetch();
        assertThat(full.request().sessionId()).as("the old session named, to be replaced").isEqualTo(42);
        assertThat(full.request().sessionEpoch()).isZero();
        assertThat(full.listed()).containsExactly(0);
        assertThat(requests.get(requests.size() - 1).full()).isTrue();
        advance(RETRY_BACKOFF_MS);
        assertThat(io.fetches).as("the retry timer finds the Fetch in flight: no second one").isEmpty();
        assertThat(failures).isEmpty();
    }

    /** KIP-227: closing sends each open session's id with the final epoch and no partitions. */
    @Test
    void closingSessionsSendsTheFinalEpochToEachBrokerWithASession() {
        start(cluster(1, 1, 0), OffsetResetStrategy.EARLIEST);
        assign(0, TP0);
        io.takeFetch().answer(response(0, 42, partition(0, Errors.NONE, 0, null)));
        io.takeFetch(); // the next one, left unanswered

        boolean[] closed = new boolean[1];
        loop.execute(() -> fetcher.closeSessions(Duration.ofSeconds(1)).subscribe(null, null, () -> closed[0] = true));

        PendingFetch close = io.takeFetch();
        assertThat(close.request().sessionId()).isEqualTo(42);
        assertThat(close.request().sessionEpoch()).isEqualTo(FetchRequest.FINAL_SESSION_EPOCH);
        assertThat(close.listed()).isEmpty();
        assertThat(closed[0]).isFalse();
        close.answer(response(0, 42));
        assertThat(closed[0]).isTrue();
        assertThat(io.fetches).as("nothing fetched after close").isEmpty();
    }

    /** KIP-392: a preferred read replica named by the leader is fetched from until its lease of metadata.max.age.ms. */
    @Test
    void aPreferredReadReplicaIsFetchedFromUntilItsLeaseEnds() {
        start(cluster(1, 1, 0), OffsetResetStrategy.EARLIEST);
        assign(0, TP0);
        io.takeFetch().answer(response(0, 7, new PartitionData(0, (short) 0, 0, 0, 0L, FetchResponse.EpochEndOffset.NONE,
                FetchResponse.LeaderIdAndEpoch.NONE, FetchResponse.SnapshotId.NONE, null, 2, Unpooled.EMPTY_BUFFER)));

        PendingFetch fromReplica = io.takeFetch();
        assertThat(fromReplica.node().id()).isEqualTo(2);
        assertThat(state(TP0).readReplicaAt(time.now(TimeUnit.NANOSECONDS))).isEqualTo(2);
        advance(300_000);
        assertThat(state(TP0).readReplicaAt(time.now(TimeUnit.NANOSECONDS))).isEqualTo(-1);
        fromReplica.answer(response(0, 8, partition(0, Errors.NONE, 6, batch(0, 0, 3)))); // not at the end: prefetched

        PendingFetch backToLeader = io.takeFetch();
        assertThat(backToLeader.node().id()).isEqualTo(1);
        assertThat(backToLeader.request().sessionId()).as("node 1's session").isEqualTo(7);
        assertThat(backToLeader.only(0).fetchOffset()).as("after what the replica returned").isEqualTo(3L);
    }

    /** A partition without a position asks ListOffsets by {@code auto.offset.reset}; OFFSET_OUT_OF_RANGE asks again. */
    @Test
    void aResetListsOffsetsByThePolicyAndOffsetOutOfRangeResetsAgain() {
        start(cluster(1, 1, 0), OffsetResetStrategy.EARLIEST);
        assign(-1, TP0);
        assertThat(io.fetches).isEmpty();
        PendingList listing = io.takeListing();
        assertThat(listing.timestamps()).containsExactlyEntriesOf(Map.of(TP0, -2L)); // earliest
        assertThat(state(TP0).state()).isEqualTo(FetchState.RESETTING);

        listing.sink().tryEmitValue(Map.of(TP0, new ListedOffset(5, -1, 0)));

        assertThat(state(TP0).position()).isEqualTo(5L);
        PendingFetch fetch = io.takeFetch();
        assertThat(fetch.only(0).fetchOffset()).isEqualTo(5L);

        fetch.answer(response(0, 7, partition(0, Errors.OFFSET_OUT_OF_RANGE, -1, null))); // the log start moved on

        assertThat(failures).isEmpty();
        assertThat(io.fetches).isEmpty();
        PendingList again = io.takeListing();
        assertThat(again.timestamps()).containsExactlyEntriesOf(Map.of(TP0, -2L));
        again.sink().tryEmitValue(Map.of(TP0, new ListedOffset(20, -1, 0)));
        assertThat(state(TP0).position()).isEqualTo(20L);
        assertThat(io.takeFetch().only(0).fetchOffset()).isEqualTo(20L);
    }

    @Test
    void latestAsksForTheEndOffset() {
        start(cluster(1, 1, 0), OffsetResetStrategy.LATEST);
        assign(-1, TP0);
        assertThat(io.takeListing().timestamps()).containsExactlyEntriesOf(Map.of(TP0, -1L));
    }

    /** With {@code auto.offset.reset=none}, OFFSET_OUT_OF_RANGE ends the flux with the partition and its offset. */
    @Test
    void offsetOutOfRangeWithoutAResetPolicyFails() {
        start(cluster(1, 1, 0), OffsetResetStrategy.NONE);
        assign(5, TP0);

        io.takeFetch().answer(response(0, 7, partition(0, Errors.OFFSET_OUT_OF_RANGE, -1, null)));

        assertThat(failures).singleElement().isInstanceOfSatisfying(OffsetOutOfRangeException.class,
                e -> assertThat(e.offsetOutOfRangePartitions()).containsExactlyEntriesOf(Map.of(TP0, 5L)));
        assertThat(io.listings).isEmpty();
    }

    /** KIP-227: a session the broker lost or that is out of step is replaced by a full fetch at once, same offsets. */
    @ParameterizedTest
    @EnumSource(value = Errors.class, names = {"FETCH_SESSION_ID_NOT_FOUND", "INVALID_FETCH_SESSION_EPOCH"})
    void aSessionErrorMakesTheNextFetchAFullOneAtOnce(Errors error) {
        start(cluster(2, 1, 0), OffsetResetStrategy.EARLIEST);
        assign(3, TP0, TP1);
        PendingFetch opening = io.takeFetch();
        assertThat(opening.request().sessionId()).isZero();
        assertThat(opening.request().sessionEpoch()).isZero();
        opening.answer(response(0, 42, partition(0, Errors.NONE, 3, null), partition(1, Errors.NONE, 3, null)));
        PendingFetch incremental = io.takeFetch();
        assertThat(incremental.request().sessionId()).isEqualTo(42);
        assertThat(incremental.request().sessionEpoch()).isEqualTo(1);
        assertThat(incremental.listed()).as("nothing changed: nothing listed").isEmpty();

        incremental.answer(topLevelError(error));

        PendingFetch full = io.takeFetch();
        assertThat(full.request().sessionEpoch()).isZero();
        assertThat(full.listed()).containsExactlyInAnyOrder(0, 1);
        assertThat(full.only(0).fetchOffset()).isEqualTo(3L);
        assertThat(full.only(1).fetchOffset()).isEqualTo(3L);
        assertThat(requests.get(requests.size() - 1).full()).isTrue();
        assertThat(failures).isEmpty();
    }

    /**
     * NOT_LEADER_OR_FOLLOWER refreshes metadata and holds the partition for {@code retry.backoff.ms}; then it is
     * fetched from the new leader, at the same offset (nothing fetched under an epoch yet: no validation).
     */
    @Test
    void aLeaderMoveRefreshesMetadataAndFetchesFromTheNewLeaderAfterTheBackoff() {
        start(cluster(1, 1, 0), OffsetResetStrategy.EARLIEST);
        assign(4, TP0);
        PendingFetch first = io.takeFetch();
        assertThat(first.node().id()).isEqualTo(1);
        io.afterRefresh = cluster(1, 2, 1);

        first.answer(response(0, 7, partition(0, Errors.NOT_LEADER_OR_FOLLOWER, -1, null)));

        assertThat(io.refreshCount).isEqualTo(1);
        assertThat(state(TP0).state()).isEqualTo(FetchState.LEADER_BACKOFF);
        assertThat(io.fetches).isEmpty();
        advance(RETRY_BACKOFF_MS - 1);
        assertThat(io.fetches).as("within retry.backoff.ms").isEmpty();

        advance(1);

        PendingFetch moved = io.takeFetch();
        assertThat(moved.node().id()).isEqualTo(2);
        assertThat(moved.only(0).fetchOffset()).isEqualTo(4L);
        assertThat(moved.only(0).currentLeaderEpoch()).isEqualTo(1);
        assertThat(io.epochQueries).isEmpty();
        assertThat(failures).isEmpty();
    }

    /**
     * A partition without a leader asks for metadata on every plan; the refreshes still come at most once per
     * {@code retry.backoff.ms} (no tight Metadata loop), and it is fetched once a leader is known.
     */
    @Test
    void withoutALeaderMetadataIsAskedAtMostOncePerBackoffUntilOneIsElected() {
        start(cluster(1, -1, 0), OffsetResetStrategy.EARLIEST);
        assign(4, TP0);
        assertThat(io.refreshCount).isEqualTo(1);
        advance(10);
        loop.execute(fetcher::plan);
        advance(10);
        loop.execute(fetcher::plan);
        assertThat(io.refreshCount).isEqualTo(1);
        advance(RETRY_BACKOFF_MS - 21);
        assertThat(io.refreshCount).isEqualTo(1);
        advance(1); // retry.backoff.ms after the first
        assertThat(io.refreshCount).isEqualTo(2);
        advance(RETRY_BACKOFF_MS - 2);
        assertThat(io.refreshCount).as("within retry.backoff.ms of the last refresh").isEqualTo(2);
        assertThat(io.fetches).isEmpty();
        io.afterRefresh = cluster(1, 2, 1);

        advance(5);

        assertThat(io.refreshCount).isEqualTo(3);
        PendingFetch fetch = io.takeFetch();
        assertThat(fetch.node().id()).isEqualTo(2);
        assertThat(fetch.only(0).fetchOffset()).isEqualTo(4L);
    }

    /**
     * A paused partition is forgotten in the next request to its broker and gets no Fetch while paused; resumed, it is
     * listed again at its fetch offset, after the data fetched before the pause (KIP-227 session kept).
     */
    @Test
    void aPausedPartitionIsForgottenAndResumedAtItsFetchOffset() {
        start(cluster(2, 1, 0), OffsetResetStrategy.EARLIEST);
        assign(0, TP0, TP1);
        // high watermark 6: tp0 is not at its end, so it is prefetched while its result waits
        io.takeFetch().answer(response(0, 42, partition(0, Errors.NONE, 6, batch(0, 0, 3)),
                partition(1, Errors.NONE, 0, null)));
        assertThat(delivered).hasSize(1);
        PendingFetch second = io.takeFetch();
        assertThat(second.listed()).as("tp0's fetch offset changed").containsExactly(0);
        assertThat(second.only(0).fetchOffset()).isEqualTo(3L);

        loop.execute(() -> {
            state(TP0).paused(true);
            fetcher.plan();
        });
        assertThat(io.fetches).as("one Fetch in flight per broker").isEmpty();
        second.answer(response(0, 42));

        PendingFetch paused = io.takeFetch();
        assertThat(paused.forgotten()).containsExactly(0);
        assertThat(paused.listed()).isEmpty();
        paused.answer(response(0, 42));
        PendingFetch stillPaused = io.takeFetch();
        assertThat(stillPaused.listed()).isEmpty();
        assertThat(stillPaused.forgotten()).isEmpty();
        assertThat(state(TP0).fetchOffset()).isEqualTo(3L);

        loop.execute(() -> {
            state(TP0).paused(false);
            fetcher.plan();
        });
        stillPaused.answer(response(0, 42));

        PendingFetch resumed = io.takeFetch();
        assertThat(resumed.request().sessionId()).isEqualTo(42);
        assertThat(resumed.listed()).containsExactly(0);
        assertThat(resumed.only(0).fetchOffset()).as("after the 3 records fetched before the pause").isEqualTo(3L);
        assertThat(delivered).hasSize(1);
        emit(delivered.get(0), 0);
        assertThat(state(TP0).position()).isEqualTo(3L);
    }

    // ------------------------------------------------------------------ issue #32: gathering partitions into Fetches

    private static TopicPartition tp(int partition) {
        return new TopicPartition(FakeFetchIo.TOPIC, partition);
    }

    private static TopicPartition[] partitions(int count) {
        return java.util.stream.IntStream.range(0, count).mapToObj(FetcherTest::tp).toArray(TopicPartition[]::new);
    }

    /**
     * The broker answers every pending Fetch at once (it is faster than the subscriber): ten records at each fetch
     * offset of the partitions the Fetch carried (those being fetched that its broker leads), the high watermark far
     * ahead.
     */
    private void brokerAnswers() {
        while (!io.fetches.isEmpty()) {
            PendingFetch f = io.takeFetch();
            List<PartitionData> data = new ArrayList<>();
            fetcher.partitions().values().stream()
                    .filter(ps -> ps.state() == FetchState.FETCHING
                            && io.cluster.partition(ps.topicPartition()).leaderId() == f.node().id())
                    .forEach(ps -> data.add(partition(ps.topicPartition().partition(), Errors.NONE, 1_000_000,
                            batch(ps.fetchOffset(), 0, 10))));
            f.answer(response(0, 7, data.toArray(PartitionData[]::new)));
        }
    }

    /**
     * A subscriber slower than the broker: it emits the results in the order they came (the emitter's queue), one
     * at a time, and after each the broker answers whatever Fetch is out. Time passes only when nothing can be emitted
     * and no Fetch is out (a Fetch waiting for its gathering bound), by 1 ms at a time, at most {@code maxWaitMs}.
     *
     * @return the virtual ms that passed
     */
    private long slowSubscriber(int results, long maxWaitMs) {
        int next = 0;
        long waited = 0;
        brokerAnswers();
        while (next < results) {
            if (next < delivered.size()) {
                emit(delivered.get(next++), 0);
            } else {
                assertThat(waited).as("a Fetch is due within the bound").isLessThan(maxWaitMs);
                advance(1);
                waited++;
            }
            brokerAnswers();
        }
        return waited;
    }

    /**
     * Issue #32 (a): eight partitions of one broker and a subscriber slower than the broker. Each Fetch carries the
     * eight partitions once their round of results drained, about one Fetch per eight results emitted, where one
     * Fetch per result, of one partition each, went out before; nothing waits for a deadline.
     */
    @Test
    void aSlowSubscriberGetsFetchesCarryingEveryPartitionOfItsBroker() {
        start(cluster(8, 1, 0), OffsetResetStrategy.EARLIEST);
        assign(0, partitions(8));

        long waited = slowSubscriber(160, 1);

        assertThat(waited).isZero();
        assertThat(requests).extracting(FetchRequestListener.Request::sessionPartitions)
                .as("every Fetch carries all eight partitions").containsOnly(8);
        assertThat(requests).as("160 results of 8 partitions: 20 rounds, and the one prefetched").hasSizeBetween(20, 22);
    }

    /**
     * Issue #32 (b): a partition alone on its broker is fetched as soon as it may be, whatever the other broker's
     * partitions hold: its broker's Fetches carry it each time one of its results drained.
     */
    @Test
    void aPartitionAloneOnItsBrokerIsFetchedAsSoonAsItsResultDrains() {
        start(FakeFetchIo.clusterLedBy(0, 1, 2, 2, 2, 2, 2, 2, 2), OffsetResetStrategy.EARLIEST);
        assign(0, partitions(8));

        long waited = slowSubscriber(160, 1);

        assertThat(waited).isZero();
        List<FetchRequestListener.Request> alone = requests.stream().filter(r -> r.nodeId() == 1).toList();
        long fetchedAlone = delivered.stream().filter(f -> f.partition().topicPartition().equals(TP0)).count();
        assertThat(alone).extracting(FetchRequestListener.Request::sessionPartitions).containsOnly(1);
        assertThat((long) alone.size()).as("one Fetch per result of partition 0").isEqualTo(fetchedAlone);
        assertThat(state(TP0).pendingFetches()).as("refilled as soon as drained, no time passing")
                .isEqualTo(FetchPlanner.MAX_PENDING_FETCHES);
        assertThat(requests.stream().filter(r -> r.nodeId() == 2))
                .extracting(FetchRequestListener.Request::sessionPartitions).containsOnly(7);
    }

    /**
     * Issue #32 (c): a partition whose results all drained while its broker's other partitions still hold two each
     * waits for no round: its Fetch goes out {@link FetchPlanner#GATHER_BOUND_NANOS} after it was left empty (the
     * fetcher's timer wakes it), not later.
     */
    @Test
    void aDrainedPartitionIsFetchedWithinTheGatherBoundWhileTheOthersHoldResults() {
        start(cluster(8, 1, 0), OffsetResetStrategy.EARLIEST);
        assign(0, partitions(8));
        brokerAnswers(); // two rounds: every partition holds two results, no Fetch is out
        assertThat(delivered).hasSize(16);
        assertThat(io.fetches).isEmpty();

        // partition 0's subscriber is faster (receivePartitioned): both of its results are emitted
        delivered.stream().filter(f -> f.partition().topicPartition().equals(TP0)).toList().forEach(f -> emit(f, 0));
        long boundMs = FetchPlanner.GATHER_BOUND_NANOS / 1_000_000;
        advance(boundMs - 1);
        assertThat(io.fetches).as("gathering: the others will need a Fetch soon").isEmpty();
        advance(1);

        PendingFetch due = io.takeFetch();
        assertThat(due.only(0).fetchOffset()).isEqualTo(20L);
        assertThat(requests.get(requests.size() - 1).sessionPartitions()).isEqualTo(1);
        assertThat(due.request().maxWaitMs()).as("others are held back: no long poll").isZero();
    }

    /**
     * Issue #32 (d), seek: a partition sought while its broker's others hold two results each has its stale results
     * dropped, and is fetched at its new position within the gather bound.
     */
    @Test
    void aSeekWhileTheOthersHoldResultsIsFetchedWithinTheGatherBound() {
        start(cluster(8, 1, 0), OffsetResetStrategy.EARLIEST);
        assign(0, partitions(8));
        brokerAnswers();
        PartitionState p3 = state(tp(3));

        loop.execute(() -> {
            p3.seek(5); // as KafkaFluxConsumer.seek does on the loop
            fetcher.plan();
        });
        delivered.stream().filter(f -> f.partition() == p3).toList().forEach(f -> {
            f.release(); // the emitter drops the stale results
            loop.execute(() -> fetcher.onConsumed(f));
        });
        advance(FetchPlanner.GATHER_BOUND_NANOS / 1_000_000);

        assertThat(io.takeFetch().only(3).fetchOffset()).isEqualTo(5L);
    }

    // ------------------------------------------------------------------ issue #32: the suite's bound case, modelled

    /** What {@link #boundDrain} counted. */
    private record DrainCount(double drains, int fetches, double partitionsPerFetch, long longestIdleMs) {
        double fetchesPerDrain() {
            return fetches / drains;
        }
    }

    /**
     * The suite's {@code bound} case on virtual time (issue #32): 8 partitions of one broker, {@code end} records each;
     * the subscriber takes 1 ms per record and the broker {@code brokerMs} plus 2 ms per partition with data to answer
     * (no data: {@code fetch.max.wait.ms}), with at most {@code perResult}
     * records per partition (the 1 MiB of {@code max.partition.fetch.bytes}: a result takes {@code perResult} ms to
     * drain). As the suite's window does, partition p is first read to {@code (p + 1) * end / 9} (the staggered
     * lead-in) and each time to its end, then sought back to 0 from its last record's {@code onNext}; results of a
     * partition sought meanwhile are dropped when they reach the front of the queue, as the emitter does. Runs until
     * {@code passes} times the topic's records were emitted.
     */
    private DrainCount boundDrain(long end, int perResult, long brokerMs, int passes) {
        int partitions = 8;
        start(cluster(partitions, 1, 0), OffsetResetStrategy.EARLIEST);
        assign(0, partitions(partitions));
        long[] seekAt = new long[partitions];
        for (int p = 0; p < partitions; p++) {
            seekAt[p] = (p + 1) * end / (partitions + 1);
        }
        long target = passes * end * partitions;
        long emitted = 0;
        long idle = 0;
        long longestIdle = 0;
        int next = 0;
        while (emitted < target) {
            answerFetchesAfter(end, perResult, brokerMs);
            if (next == delivered.size()) {
                advance(1); // nothing to emit: the subscriber waits
                longestIdle = Math.max(longestIdle, ++idle);
                continue;
            }
            idle = 0;
            CompletedFetch f = delivered.get(next++);
            PartitionState ps = f.partition();
            if (f.isStale()) {
                f.release(); // dropped unemitted at the front of the queue
                loop.execute(() -> fetcher.onConsumed(f));
                continue;
            }
            int p = ps.topicPartition().partition();
            long from = ps.position();
            long to = Math.min(f.nextFetchOffset(), seekAt[p]);
            for (long o = from; o < to; o++) {
                advance(1);
                answerFetchesAfter(end, perResult, brokerMs);
            }
            emitted += to - from;
            assertThat(ps.advance(from, to, 0)).isTrue();
            if (to == seekAt[p]) {
                seekAt[p] = end;
                loop.execute(() -> {
                    ps.seek(0); // from the last record's onNext, as the suite's drain does
                    fetcher.plan();
                });
            }
            f.release();
            loop.execute(() -> fetcher.onConsumed(f));
        }
        List<FetchRequestListener.Request> fetches = requests.stream()
                .filter(r -> r.sessionEpoch() != FetchRequest.FINAL_SESSION_EPOCH).toList();
        double carried = fetches.stream().mapToInt(FetchRequestListener.Request::sessionPartitions).average().orElse(0);
        return new DrainCount((double) emitted / (end * partitions), fetches.size(), carried, longestIdle);
    }

    /** Every Fetch sent since the last call is answered later with what its partitions' logs hold at their offsets. */
    private void answerFetchesAfter(long end, int perResult, long brokerMs) {
        for (PendingFetch f; (f = io.fetches.poll()) != null; ) {
            PendingFetch fetch = f;
            Map<PartitionState, Long> carried = new LinkedHashMap<>();
            fetcher.partitions().values().stream().filter(ps -> ps.state() == FetchState.FETCHING)
                    .forEach(ps -> carried.put(ps, ps.fetchOffset()));
            long withData = carried.values().stream().filter(o -> o < end).count();
            boolean data = withData > 0;
            long answerMs = brokerMs + withData * 2;
            time.schedule(() -> {
                List<PartitionData> answer = new ArrayList<>();
                carried.forEach((ps, offset) -> answer.add(partition(ps.topicPartition().partition(), Errors.NONE, end,
                        offset < end ? batch(offset, 0, (int) Math.min(perResult, end - offset)) : null)));
                fetch.answer(response(0, 7, answer.toArray(PartitionData[]::new)));
            }, data ? answerMs : Math.max(brokerMs, fetch.request().maxWaitMs()), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Issue #32, the suite's {@code bound} case modelled: 8 partitions of 250 records, results of 10 (a result takes
     * 10 ms to drain, as a 1 MiB result of 100 B records does at about 1 us per record), the broker answering in 4 ms
     * plus 2 ms per partition with data, each partition sought back to 0 at a staggered point and then at its end, 4
     * drains of the topic. One Fetch per round of 8 results would be 25 per drain. Under the rule before (half the
     * partitions starved, a fixed 5 ms bound) this model counted 30.7 Fetches per drain carrying 6.7 partitions each:
     * each seek's partition got a Fetch of its own 5 ms later. Now the bound is half a round at the emitter's pace
     * (40 ms here), so a partition sought back joins the round's Fetch; the subscriber is never idle longer than the
     * first answer takes.
     */
    @Test
    void aSlowSubscriberSeekingBackGetsFetchesCarryingMostPartitions() {
        DrainCount c = boundDrain(250, 10, 4, 4);

        assertThat(c.drains()).isBetween(4.0, 4.01);
        assertThat(c.fetchesPerDrain()).as("25 would be one per round").isBetween(25.0, 28.0);
        assertThat(c.partitionsPerFetch()).isGreaterThan(7.2);
        assertThat(c.longestIdleMs()).as("the first answer: 4 + 8 x 2 ms").isLessThanOrEqualTo(20L);
    }
}
