package io.kflux.fetch;

import static io.kflux.fetch.FakeFetchIo.batch;
import static io.kflux.fetch.FakeFetchIo.cluster;
import static io.kflux.fetch.FakeFetchIo.partition;
import static io.kflux.fetch.FakeFetchIo.response;
import static io.kflux.fetch.FakeFetchIo.topLevelError;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.CorruptRecordException;
import io.kflux.KafkaProtocolException;
import io.kflux.TopicPartition;
import io.kflux.fetch.FetchOutcome.PartitionOutcome;
import io.kflux.metadata.Cluster;
import io.kflux.metadata.Node;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.FetchResponse;
import io.kflux.protocol.message.FetchResponse.AbortedTransaction;
import io.kflux.protocol.message.FetchResponse.PartitionData;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link FetchResponseHandler}: one Fetch answer in, a {@link FetchOutcome} out, with no partition state changed and
 * every buffer not handed on released.
 */
class FetchResponseHandlerTest {
    static final Cluster CLUSTER = cluster(2, 1, 0);
    static final Node LEADER = CLUSTER.node(1);
    static final Node FOLLOWER = CLUSTER.node(2);

    final FetchRequestBuilder builder = new FetchRequestBuilder(config((byte) 0));
    final FetchSession session = new FetchSession(1);
    final Map<TopicPartition, FetchTarget> targets = new LinkedHashMap<>();
    final PartitionState p0 = at(0, 10);
    final PartitionState p1 = at(1, 0);
    FetchSession.Request sent;
    FetchOutcome outcome;

    static FetchConfig config(byte isolationLevel) {
        return new FetchConfig(500, 1, 50 << 20, 1 << 20, isolationLevel, "", 100L << 20, 100, true, 300_000);
    }

    static PartitionState at(int partition, long offset) {
        PartitionState ps = new PartitionState(new TopicPartition(FakeFetchIo.TOPIC, partition));
        ps.seek(offset);
        return ps;
    }

    /** A full Fetch of p0 and p1 has gone out to the leader. */
    private void sentFull() {
        List<FetchTarget> planned = List.of(FetchTarget.of(p0, 0), FetchTarget.of(p1, 0));
        planned.forEach(t -> targets.put(t.partition().topicPartition(), t));
        sent = builder.build(session, planned, false, CLUSTER).session();
    }

    private FetchOutcome handle(FetchResponseHandler handler, Node from, FetchResponse response) {
        outcome = handler.handle(from, session, sent, targets, response, CLUSTER);
        return outcome;
    }

    private FetchOutcome handle(FetchResponse response) {
        return handle(new FetchResponseHandler(config((byte) 0)), LEADER, response);
    }

    @AfterEach
    void releaseHandedOn() {
        if (outcome != null) {
            outcome.partitions().stream().filter(o -> o instanceof FetchOutcome.Fetched)
                    .forEach(o -> ((FetchOutcome.Fetched) o).fetch().release());
        }
    }

    @Test
    void recordsPastTheFetchOffsetAreHandedOnWithoutMovingThePartition() {
        sentFull();
        ByteBuf records = batch(10, 3, 5);

        FetchOutcome o = handle(response(0, 42, partition(0, Errors.NONE, 15, records)));

        assertThat(o.sessionError()).isNull();
        assertThat(o.partitions()).singleElement().isInstanceOfSatisfying(FetchOutcome.Fetched.class, f -> {
            assertThat(f.target().partition()).isSameAs(p0);
            assertThat(f.fetch().fetchOffset()).isEqualTo(10L);
            assertThat(f.fetch().nextFetchOffset()).isEqualTo(15L);
            assertThat(f.fetch().sizeInBytes()).isEqualTo(records.readableBytes());
            assertThat(f.fetch().highWatermark()).isEqualTo(15L);
            assertThat(f.fetch().abortedTransactions()).isEmpty();
            assertThat(f.lastEpoch()).isEqualTo(3);
            assertThat(f.records()).isEqualTo(5);
        });
        assertThat(p0.fetchOffset()).as("the fetcher applies the outcome").isEqualTo(10L);
        assertThat(p0.pendingFetches()).isZero();
        assertThat(records.refCnt()).as("handed on, not released").isEqualTo(1);
        assertThat(session.sessionId()).isEqualTo(42);
    }

    @Test
    void underReadCommittedTheAbortedTransactionsTravelWithTheRecords() {
        sentFull();
        List<AbortedTransaction> aborted = List.of(new AbortedTransaction(7L, 11L));
        PartitionData pd = new PartitionData(0, (short) 0, 15, 15, 0L, FetchResponse.EpochEndOffset.NONE,
                FetchResponse.LeaderIdAndEpoch.NONE, FetchResponse.SnapshotId.NONE, aborted,
                FetchResponse.NO_PREFERRED_READ_REPLICA, batch(10, 0, 5));

        FetchOutcome o = handle(new FetchResponseHandler(config((byte) 1)), LEADER, response(0, 42, pd));

        assertThat(o.partitions()).singleElement().isInstanceOfSatisfying(FetchOutcome.Fetched.class,
                f -> assertThat(f.fetch().abortedTransactions()).isEqualTo(aborted));
    }

    @Test
    void anEmptyAnswerAndAPartialBatchBringNoRecordsAndAreReleased() {
        sentFull();
        ByteBuf whole = batch(0, 0, 5);
        ByteBuf partial = whole.retainedSlice(0, whole.readableBytes() - 1);
        whole.release();

        FetchOutcome o = handle(response(0, 42, partition(0, Errors.NONE, 10, null),
                partition(1, Errors.NONE, 5, partial)));

        assertThat(o.partitions()).hasSize(2);
        assertThat(o.partitions().get(0)).isInstanceOfSatisfying(FetchOutcome.NoRecords.class, n -> {
            assertThat(n.target().partition()).isSameAs(p0);
            assertThat(n.empty()).isTrue();
            assertThat(n.answer().highWatermark()).isEqualTo(10L);
        });
        assertThat(o.partitions().get(1)).isInstanceOfSatisfying(FetchOutcome.NoRecords.class, n -> {
            assertThat(n.target().partition()).isSameAs(p1);
            assertThat(n.empty()).as("a partial batch, fetched again").isFalse();
        });
        assertThat(partial.refCnt()).isZero();
    }

    /** KIP-320 via Fetch: the diverging epoch and its end offset, nothing moved yet. */
    @Test
    void aDivergingEpochIsReportedWithItsEndOffset() {
        sentFull();
        ByteBuf records = batch(10, 2, 1);
        PartitionData pd = new PartitionData(0, (short) 0, 15, 15, 0L, new FetchResponse.EpochEndOffset(1, 6),
                FetchResponse.LeaderIdAndEpoch.NONE, FetchResponse.SnapshotId.NONE, null,
                FetchResponse.NO_PREFERRED_READ_REPLICA, records);

        FetchOutcome o = handle(response(0, 42, pd));

        assertThat(o.partitions()).singleElement().isInstanceOfSatisfying(FetchOutcome.Diverged.class, d -> {
            assertThat(d.epoch()).isEqualTo(1);
            assertThat(d.endOffset()).isEqualTo(6L);
        });
        assertThat(p0.state()).isEqualTo(FetchState.FETCHABLE);
        assertThat(records.refCnt()).isZero();
    }

    @Test
    void partitionErrorsAreSortedByWhatTheFetcherMustDo() {
        sentFull();

        FetchOutcome o = handle(response(0, 42, partition(0, Errors.OFFSET_OUT_OF_RANGE, -1, null),
                partition(1, Errors.NOT_LEADER_OR_FOLLOWER, -1, null)));

        assertThat(o.partitions()).hasSize(2);
        assertThat(o.partitions().get(0)).isInstanceOf(FetchOutcome.OutOfRange.class)
                .extracting(PartitionOutcome::target).extracting(FetchTarget::fetchOffset).isEqualTo(10L);
        assertThat(o.partitions().get(1)).isInstanceOfSatisfying(FetchOutcome.LeaderError.class,
                l -> assertThat(l.error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER));
        assertThat(p1.state()).as("the backoff is the fetcher's to start").isEqualTo(FetchState.FETCHABLE);
    }

    @Test
    void corruptDataAndOtherErrorsFailWithTypedErrors() {
        sentFull();

        FetchOutcome o = handle(response(0, 42, partition(0, Errors.CORRUPT_MESSAGE, -1, null),
                partition(1, Errors.UNKNOWN_SERVER_ERROR, -1, null)));

        assertThat(o.partitions().get(0)).isInstanceOfSatisfying(FetchOutcome.Failed.class,
                f -> assertThat(f.error()).isInstanceOfSatisfying(CorruptRecordException.class, e -> {
                    assertThat(e.topicPartition()).isEqualTo(p0.topicPartition());
                    assertThat(e.offset()).isEqualTo(10L);
                }));
        assertThat(o.partitions().get(1)).isInstanceOfSatisfying(FetchOutcome.Failed.class,
                f -> assertThat(f.error()).isInstanceOfSatisfying(KafkaProtocolException.class,
                        e -> assertThat(e.errorName()).isEqualTo("UNKNOWN_SERVER_ERROR")));
    }

    /** KIP-392: an error from the preferred read replica is no verdict on the position, whatever the error. */
    @Test
    void anErrorFromThePreferredReadReplicaSendsThePartitionBackToItsLeader() {
        p0.preferReadReplica(2, Long.MAX_VALUE);
        sentFull();

        FetchOutcome o = handle(new FetchResponseHandler(config((byte) 0)), FOLLOWER,
                response(0, 42, partition(0, Errors.OFFSET_OUT_OF_RANGE, -1, null)));

        assertThat(o.partitions()).singleElement().isInstanceOfSatisfying(FetchOutcome.ReadReplicaFailed.class,
                r -> assertThat(r.error()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE));
        assertThat(p0.preferredReadReplica()).as("left by the fetcher").isEqualTo(2);
    }

    @Test
    void anAnswerForAPartitionRepositionedOrRevokedSinceIsDroppedAndReleased() {
        sentFull();
        p0.seek(100);
        p1.revoke();
        ByteBuf seeked = batch(10, 0, 5);
        ByteBuf revoked = batch(0, 0, 5);

        FetchOutcome o = handle(response(0, 42, partition(0, Errors.NONE, 15, seeked),
                partition(1, Errors.NONE, 5, revoked)));

        assertThat(o.sessionError()).isNull();
        assertThat(o.partitions()).isEmpty();
        assertThat(seeked.refCnt()).isZero();
        assertThat(revoked.refCnt()).isZero();
    }

    @Test
    void aPartitionNamedTwiceIsTakenOnce() {
        sentFull();
        ByteBuf second = batch(10, 0, 5);

        FetchOutcome o = handle(response(0, 42, partition(0, Errors.NONE, 15, batch(10, 0, 5)),
                partition(0, Errors.NONE, 15, second)));

        assertThat(o.partitions()).singleElement().isInstanceOf(FetchOutcome.Fetched.class);
        assertThat(second.refCnt()).isZero();
    }

    /** KIP-227: a lost or out-of-step incremental session drops the answer and asks for a full Fetch at once. */
    @Test
    void aLostIncrementalSessionDropsTheAnswerAndAsksForAFullFetchAtOnce() {
        sentFull();
        handle(response(0, 42, partition(0, Errors.NONE, 10, null), partition(1, Errors.NONE, 0, null)));
        sent = builder.build(session, List.copyOf(targets.values()), false, CLUSTER).session();
        assertThat(sent.full()).isFalse();

        FetchOutcome o = handle(topLevelError(Errors.FETCH_SESSION_ID_NOT_FOUND));

        assertThat(o.partitions()).isEmpty();
        assertThat(o.sessionError()).isNotNull();
        assertThat(o.sessionError().error()).isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND);
        assertThat(o.sessionError().fetchAtOnce()).isTrue();
        assertThat(o.sessionError().refreshMetadata()).isFalse();
        assertThat(builder.build(session, List.copyOf(targets.values()), false, CLUSTER).session().full()).isTrue();
    }

    @Test
    void aTopicIdErrorAsksForMetadataAndRetriesAfterTheBackoff() {
        sentFull();
        ByteBuf records = batch(10, 0, 5);
        FetchResponse answer = new FetchResponse(0, Errors.FETCH_SESSION_TOPIC_ID_ERROR.code(), 0, List.of(
                new FetchResponse.FetchableTopicResponse(FakeFetchIo.TOPIC, FakeFetchIo.TOPIC_ID,
                        List.of(partition(0, Errors.NONE, 15, records)))), List.of());

        FetchOutcome o = handle(answer);

        assertThat(o.partitions()).isEmpty();
        assertThat(o.sessionError().refreshMetadata()).isTrue();
        assertThat(o.sessionError().fetchAtOnce()).isFalse();
        assertThat(records.refCnt()).as("the whole answer released").isZero();
    }
}
