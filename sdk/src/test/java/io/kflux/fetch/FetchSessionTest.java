package io.kflux.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.TopicPartition;
import io.kflux.fetch.FetchSession.PartitionFetch;
import io.kflux.fetch.FetchSession.Request;
import io.kflux.protocol.Errors;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The client side of incremental fetch sessions (KIP-227): what each request lists, and how answers move the session. */
class FetchSessionTest {
    private static final UUID TOPIC_ID = new UUID(1, 2);
    private static final int SESSION = 77;

    private final FetchSession session = new FetchSession(1);

    private static PartitionFetch p(int partition, long offset) {
        return new PartitionFetch(new TopicPartition("t", partition), TOPIC_ID, offset, 5, 4, 1024);
    }

    private static List<PartitionFetch> partitions(int n, long offset) {
        List<PartitionFetch> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(p(i, offset));
        }
        return out;
    }

    private static Set<TopicPartition> tps(Request r) {
        return r.session().keySet();
    }

    private static List<Integer> indexes(List<PartitionFetch> ps) {
        return ps.stream().map(x -> x.partition().partition()).toList();
    }

    /** Opens a session over {@code wanted} (a full request answered with {@link #SESSION}). */
    private Request open(List<PartitionFetch> wanted) {
        Request full = session.build(wanted);
        assertThat(session.onResponse(full, (short) 0, SESSION, tps(full), 0)).isTrue();
        return full;
    }

    @Test
    void theFirstRequestIsAFullOneOpeningASession() {
        Request r = session.build(partitions(200, 10));
        assertThat(r.full()).isTrue();
        assertThat(r.sessionId()).isZero();
        assertThat(r.epoch()).isEqualTo(FetchSession.INITIAL_EPOCH);
        assertThat(r.toSend()).hasSize(200);
        assertThat(r.toForget()).isEmpty();
        assertThat(session.onResponse(r, (short) 0, SESSION, tps(r), 0)).isTrue();
        assertThat(session.sessionId()).isEqualTo(SESSION);
        assertThat(session.nextEpoch()).isEqualTo(1);
    }

    @Test
    void incrementalRequestsListOnlyNewAndChangedPartitions() {
        open(partitions(200, 10));
        Request unchanged = session.build(partitions(200, 10));
        assertThat(unchanged.full()).isFalse();
        assertThat(unchanged.sessionId()).isEqualTo(SESSION);
        assertThat(unchanged.epoch()).isEqualTo(1);
        assertThat(unchanged.toSend()).isEmpty();
        assertThat(unchanged.toForget()).isEmpty();
        assertThat(unchanged.session()).hasSize(200);
        assertThat(session.onResponse(unchanged, (short) 0, SESSION, Set.of(), 0)).isTrue();

        List<PartitionFetch> next = partitions(200, 10);
        next.set(7, p(7, 15));                                                            // fetch offset moved
        next.set(42, new PartitionFetch(new TopicPartition("t", 42), TOPIC_ID, 10, 6, 4, 1024)); // new leader epoch
        next.set(99, new PartitionFetch(new TopicPartition("t", 99), TOPIC_ID, 10, 5, 5, 1024)); // last fetched epoch
        next.set(150, new PartitionFetch(new TopicPartition("t", 150), TOPIC_ID, 10, 5, 4, 2048)); // max bytes
        Request changed = session.build(next);
        assertThat(changed.epoch()).isEqualTo(2);
        assertThat(indexes(changed.toSend())).containsExactly(7, 42, 99, 150);
        assertThat(changed.toSend().get(0).fetchOffset()).isEqualTo(15);
        assertThat(changed.toForget()).isEmpty();
    }

    @Test
    void partitionsNoLongerWantedAreForgottenAndComeBackWithTheirState() {
        open(partitions(5, 10));
        List<PartitionFetch> without2 = new ArrayList<>(partitions(5, 10));
        without2.remove(2); // held back, paused, revoked, moved: not fetched now
        Request forget = session.build(without2);
        assertThat(forget.toSend()).isEmpty();
        assertThat(indexes(forget.toForget())).containsExactly(2);
        assertThat(forget.session()).hasSize(4).doesNotContainKey(new TopicPartition("t", 2));
        session.onResponse(forget, (short) 0, SESSION, Set.of(), 0);

        Request back = session.build(partitions(5, 10));
        assertThat(indexes(back.toSend())).containsExactly(2);
        assertThat(back.toForget()).isEmpty();
        assertThat(back.session()).hasSize(5);
    }

    @Test
    void anIncrementalResponseNamingPartitionsOutsideTheSessionIsDropped() {
        open(partitions(3, 0));
        Request r = session.build(partitions(2, 0)); // partition 2 forgotten
        assertThat(session.onResponse(r, (short) 0, SESSION, Set.of(new TopicPartition("t", 2)), 0)).isFalse();
        assertThat(session.nextIsFull()).isTrue();
        assertThat(session.sessionId()).isEqualTo(SESSION); // the next full request closes it
    }

    @Test
    void fetchSessionIdNotFoundStartsOverWithoutAnId() {
        open(partitions(3, 0));
        Request r = session.build(partitions(3, 0));
        assertThat(session.onResponse(r, Errors.FETCH_SESSION_ID_NOT_FOUND.code(), 0, Set.of(), 0)).isFalse();
        Request full = session.build(partitions(3, 0));
        assertThat(full.full()).isTrue();
        assertThat(full.sessionId()).isZero();
        assertThat(full.epoch()).isEqualTo(FetchSession.INITIAL_EPOCH);
        assertThat(full.toSend()).hasSize(3);
    }

    @Test
    void otherSessionErrorsCloseTheSessionInTheNextFullRequest() {
        open(partitions(3, 0));
        Request r = session.build(partitions(3, 0));
        assertThat(session.onResponse(r, Errors.INVALID_FETCH_SESSION_EPOCH.code(), 0, Set.of(), 0)).isFalse();
        Request full = session.build(partitions(3, 0));
        assertThat(full.full()).isTrue();
        assertThat(full.sessionId()).isEqualTo(SESSION); // id + epoch 0: close this one, open a new one
        assertThat(full.epoch()).isEqualTo(FetchSession.INITIAL_EPOCH);
        assertThat(full.toSend()).hasSize(3);
        assertThat(session.onResponse(full, (short) 0, SESSION + 1, tps(full), 0)).isTrue();
        assertThat(session.sessionId()).isEqualTo(SESSION + 1);
        assertThat(session.nextEpoch()).isEqualTo(1);
    }

    @Test
    void aFailedRequestMakesTheNextOneFull() {
        open(partitions(3, 0));
        session.build(partitions(3, 0));
        session.onFailure();
        Request full = session.build(partitions(3, 0));
        assertThat(full.full()).isTrue();
        assertThat(full.sessionId()).isEqualTo(SESSION);
        assertThat(full.epoch()).isZero();
    }

    @Test
    void withoutASessionFromTheBrokerEveryRequestIsFull() {
        Request r = session.build(partitions(3, 0));
        assertThat(session.onResponse(r, (short) 0, 0, tps(r), 0)).isTrue(); // cache full, or Fetch < v7
        Request again = session.build(partitions(3, 0));
        assertThat(again.full()).isTrue();
        assertThat(again.sessionId()).isZero();
        assertThat(again.toSend()).hasSize(3);
    }

    @Test
    void theBrokerClosingTheSessionInAnIncrementalAnswerKeepsTheDataAndGoesFull() {
        open(partitions(3, 0));
        Request r = session.build(partitions(3, 0));
        assertThat(session.onResponse(r, (short) 0, 0, Set.of(new TopicPartition("t", 1)), 0)).isTrue();
        Request next = session.build(partitions(3, 0));
        assertThat(next.full()).isTrue();
        assertThat(next.sessionId()).isZero();
    }

    @Test
    void aThrottledEmptyFullAnswerIsDroppedAndRetriedFull() {
        Request r = session.build(partitions(3, 0));
        assertThat(session.onResponse(r, (short) 0, 0, Set.of(), 100)).isFalse();
        assertThat(session.build(partitions(3, 0)).full()).isTrue();
    }

    @Test
    void theEpochIncrementsPerAnsweredRequestAndWrapsToOne() {
        open(partitions(1, 0));
        for (int expected = 1; expected <= 5; expected++) {
            Request r = session.build(partitions(1, 0));
            assertThat(r.epoch()).isEqualTo(expected);
            session.onResponse(r, (short) 0, SESSION, Set.of(), 0);
        }
        FetchSession late = new FetchSession(1, SESSION, Integer.MAX_VALUE);
        Request r = late.build(partitions(1, 0));
        assertThat(r.full()).isFalse();
        assertThat(r.epoch()).isEqualTo(Integer.MAX_VALUE);
        late.onResponse(r, (short) 0, SESSION, Set.of(), 0);
        assertThat(late.nextEpoch()).isEqualTo(1);
        assertThat(FetchSession.nextEpoch(-1)).isEqualTo(-1);
        assertThat(FetchSession.nextEpoch(0)).isEqualTo(1);
    }

    @Test
    void aRecreatedTopicOpensANewSession() {
        open(partitions(2, 0));
        List<PartitionFetch> recreated = List.of(
                new PartitionFetch(new TopicPartition("t", 0), new UUID(9, 9), 0, 0, -1, 1024), p(1, 0));
        Request r = session.build(recreated);
        assertThat(r.full()).isTrue();
        assertThat(r.sessionId()).isEqualTo(SESSION);
        assertThat(r.toSend()).hasSize(2);
    }

    @Test
    void theSessionHoldsExactlyTheLastWantedPartitionsInOrder() {
        open(partitions(3, 0));
        List<PartitionFetch> wanted = List.of(p(2, 0), p(5, 0), p(0, 0));
        Request r = session.build(wanted);
        assertThat(indexes(r.toSend())).containsExactly(5);
        assertThat(indexes(r.toForget())).containsExactly(1);
        Map<TopicPartition, PartitionFetch> expected = new LinkedHashMap<>();
        wanted.forEach(x -> expected.put(x.partition(), x));
        assertThat(r.session()).containsExactlyEntriesOf(expected);
        assertThat(session.partitions()).containsExactlyElementsOf(expected.keySet());
    }
}
