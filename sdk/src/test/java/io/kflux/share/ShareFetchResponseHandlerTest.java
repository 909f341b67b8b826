package io.kflux.share;

import static io.kflux.share.FakeShareIo.acknowledgeAnswer;
import static io.kflux.share.FakeShareIo.acknowledged;
import static io.kflux.share.FakeShareIo.fetchAnswer;
import static io.kflux.share.FakeShareIo.fetched;
import static io.kflux.share.FakeShareIo.records;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.AcknowledgeType;
import io.kflux.GroupAuthorizationException;
import io.kflux.KafkaFluxException;
import io.kflux.KafkaProtocolException;
import io.kflux.TopicAuthorizationException;
import io.kflux.TopicPartition;
import io.kflux.network.UnsupportedVersionException;
import io.kflux.protocol.ApiKey;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.ShareFetchResponse;
import io.kflux.protocol.message.ShareFetchResponse.AcquiredRecords;
import io.kflux.share.ShareOutcome.PartitionOutcome;
import io.kflux.share.ShareOutcome.Verdict;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@link ShareFetchResponseHandler} on plain answers, no broker and no loop: each class of error a ShareFetch or
 * ShareAcknowledge answer can carry, and a mixed answer, read into the outcome the fetcher applies.
 */
class ShareFetchResponseHandlerTest {
    static final UUID JOBS = FakeShareIo.TOPIC_ID;
    static final SharePartition P0 = new SharePartition(JOBS, 0);
    static final SharePartition P1 = new SharePartition(JOBS, 1);
    static final SharePartition P2 = new SharePartition(JOBS, 2);
    static final TopicPartition TP0 = new TopicPartition("jobs", 0);
    static final TopicPartition TP1 = new TopicPartition("jobs", 1);
    static final TopicPartition TP2 = new TopicPartition("jobs", 2);
    static final Map<UUID, String> NAMES = Map.of(JOBS, "jobs");
    static final Map<TopicPartition, UUID> ASSIGNED = Map.of(TP0, JOBS, TP1, JOBS, TP2, JOBS);
    static final int LOCK_MS = FakeShareIo.LOCK_MS;

    final ShareFetchResponseHandler handler = new ShareFetchResponseHandler("g");

    /** The acknowledgements one request carries: offsets 0-2 of P0 and 7 of P1 accepted, offset 4 of P2 released. */
    static ShareBroker.Drained sent() {
        ShareBroker b = new ShareBroker(1);
        for (long o = 0; o <= 2; o++) {
            b.add(P0, o, AcknowledgeType.ACCEPT, null);
        }
        b.add(P1, 7, AcknowledgeType.ACCEPT, null);
        b.add(P2, 4, AcknowledgeType.RELEASE, null);
        return b.drain();
    }

    static PartitionOutcome of(ShareOutcome o, SharePartition p) {
        return o.partitions().stream().filter(po -> po.partition().equals(p)).findFirst()
                .orElseThrow(() -> new AssertionError(p + " has no outcome: " + o.partitions()));
    }

    @Test
    void aShareFetchAnswerHandsOnTheRecordsAcquiredAndConfirmsTheAcknowledgementsItCarried() {
        ByteBuf records = records(120);
        ShareOutcome o = handler.fetched(1, sent(), fetchAnswer(Errors.NONE,
                fetched(0, Errors.NONE, Errors.NONE, records, new AcquiredRecords(10, 12, (short) 1)),
                fetched(1, Errors.NONE, Errors.NONE, null),
                fetched(2, Errors.NONE, Errors.NONE, null)), ASSIGNED, NAMES);

        assertThat(o.verdict()).isEqualTo(Verdict.ANSWERED);
        assertThat(o.error()).isNull();
        assertThat(o.partitions()).extracting(PartitionOutcome::partition).containsExactly(P0, P1, P2);
        assertThat(o.partitions()).allSatisfy(p -> {
            assertThat(p.acknowledgeError()).isNull();
            assertThat(p.lockMs()).isEqualTo(LOCK_MS);
        });
        ShareOutcome.Acquired acquired = (ShareOutcome.Acquired) of(o, P0).result();
        assertThat(acquired.batch().nodeId()).isEqualTo(1);
        assertThat(acquired.batch().topicPartition()).isEqualTo(TP0);
        assertThat(acquired.batch().records()).isSameAs(records);
        assertThat(records.refCnt()).as("handed on, not released").isEqualTo(1);
        assertThat(acquired.batch().acquired()).containsExactly(new AcquiredRecords(10, 12, (short) 1));
        assertThat(of(o, P1).result()).as("nothing acquired").isNull();
        assertThat(o.acknowledged()).isEqualTo(5);
        assertThat(o.refused()).isZero();
        assertThat(o.fetchedRecords()).isEqualTo(3);
        assertThat(o.fetchedBytes()).isEqualTo(120);
        records.release();
    }

    /** INVALID_RECORD_STATE (KIP-932): the lock had expired or the record was not this member's; typed, per partition. */
    @Test
    void anAcknowledgementErrorFailsOnlyItsPartitionTyped() {
        ShareOutcome o = handler.fetched(1, sent(), fetchAnswer(Errors.NONE,
                fetched(0, Errors.NONE, Errors.INVALID_RECORD_STATE, null),
                fetched(1, Errors.NONE, Errors.NONE, null),
                fetched(2, Errors.NONE, Errors.NONE, null)), ASSIGNED, NAMES);

        assertThat(o.verdict()).isEqualTo(Verdict.ANSWERED);
        KafkaFluxException e = of(o, P0).acknowledgeError();
        assertThat(e).isInstanceOf(KafkaProtocolException.class)
                .hasMessageContaining("INVALID_RECORD_STATE").hasMessageContaining("acquisition lock had expired");
        assertThat(((KafkaProtocolException) e).errorCode()).isEqualTo(Errors.INVALID_RECORD_STATE.code());
        assertThat(of(o, P1).acknowledgeError()).isNull();
        assertThat(o.acknowledged()).isEqualTo(5);
        assertThat(o.refused()).as("P0's three offsets").isEqualTo(3);
    }

    @Test
    void aSessionTheBrokerLostOrRejectsFailsEveryAcknowledgementCarriedAndReleasesTheRecords() {
        for (Errors error : List.of(Errors.SHARE_SESSION_NOT_FOUND, Errors.INVALID_SHARE_SESSION_EPOCH)) {
            ByteBuf records = records(10);
            ShareOutcome o = handler.fetched(1, sent(), fetchAnswer(error,
                    fetched(0, Errors.NONE, Errors.NONE, records, new AcquiredRecords(0, 0, (short) 1))),
                    ASSIGNED, NAMES);

            assertThat(o.verdict()).as(error.name()).isEqualTo(Verdict.SESSION_LOST);
            assertThat(o.errorCode()).isEqualTo(error.code());
            assertThat(o.error()).isInstanceOf(KafkaProtocolException.class).hasMessageContaining(error.name())
                    .hasMessageContaining("broker 1");
            assertThat(o.partitions()).isEmpty();
            assertThat(o.acknowledged()).isEqualTo(5);
            assertThat(o.refused()).isEqualTo(5);
            assertThat(records.refCnt()).as("released").isZero();
        }
    }

    @Test
    void authorizationErrorsAreFatalAndTyped() {
        ShareOutcome group = handler.acknowledged(1, sent(),
                acknowledgeAnswer(Errors.GROUP_AUTHORIZATION_FAILED), NAMES);
        assertThat(group.verdict()).isEqualTo(Verdict.FATAL);
        assertThat(group.error()).isInstanceOf(GroupAuthorizationException.class);
        assertThat(((GroupAuthorizationException) group.error()).groupId()).isEqualTo("g");

        ShareOutcome topic = handler.fetched(1, sent(), fetchAnswer(Errors.TOPIC_AUTHORIZATION_FAILED),
                ASSIGNED, NAMES);
        assertThat(topic.verdict()).isEqualTo(Verdict.FATAL);
        assertThat(topic.error()).isInstanceOf(TopicAuthorizationException.class);

        // on one partition of a ShareFetch answered otherwise: that partition ends the consumer
        ByteBuf records = records(10);
        ShareOutcome partition = handler.fetched(1, sent(), fetchAnswer(Errors.NONE,
                fetched(1, Errors.TOPIC_AUTHORIZATION_FAILED, Errors.NONE, records)), ASSIGNED, NAMES);
        assertThat(partition.verdict()).isEqualTo(Verdict.ANSWERED);
        ShareOutcome.Fatal fatal = (ShareOutcome.Fatal) of(partition, P1).result();
        assertThat(fatal.error()).isInstanceOf(TopicAuthorizationException.class).hasMessageContaining("jobs-1");
        assertThat(((TopicAuthorizationException) fatal.error()).unauthorizedTopics()).containsExactly("jobs");
        assertThat(records.refCnt()).isZero();
    }

    @Test
    void anyOtherTopLevelErrorIsRetried() {
        ShareOutcome o = handler.acknowledged(1, sent(), acknowledgeAnswer(Errors.NOT_COORDINATOR), NAMES);
        assertThat(o.verdict()).isEqualTo(Verdict.RETRY);
        assertThat(o.error()).isInstanceOf(KafkaProtocolException.class).hasMessageContaining("NOT_COORDINATOR");
        assertThat(o.refused()).isEqualTo(o.acknowledged()).isEqualTo(5);
    }

    @Test
    void leaderErrorsAskForMetadataAndOtherPartitionErrorsAreReported() {
        for (Errors leader : List.of(Errors.NOT_LEADER_OR_FOLLOWER, Errors.UNKNOWN_TOPIC_OR_PARTITION,
                Errors.UNKNOWN_TOPIC_ID, Errors.FENCED_LEADER_EPOCH)) {
            ByteBuf records = records(10);
            ShareOutcome o = handler.fetched(1, sent(), fetchAnswer(Errors.NONE,
                    fetched(0, leader, Errors.NONE, records)), ASSIGNED, NAMES);
            assertThat(of(o, P0).result()).as(leader.name()).isEqualTo(new ShareOutcome.LeaderError(leader));
            assertThat(records.refCnt()).isZero();
        }
        ShareOutcome o = handler.fetched(1, sent(), fetchAnswer(Errors.NONE,
                fetched(0, Errors.UNKNOWN_SERVER_ERROR, Errors.NONE, null)), ASSIGNED, NAMES);
        assertThat(of(o, P0).result()).isEqualTo(new ShareOutcome.PartitionError("jobs-0",
                Errors.UNKNOWN_SERVER_ERROR.code(), null));
    }

    /** Acquired after the partition was revoked: nobody will emit them, so they go back to the group at once. */
    @Test
    void recordsAcquiredForAPartitionNoLongerAssignedAreReleased() {
        ByteBuf records = records(10);
        ShareOutcome o = handler.fetched(1, sent(), fetchAnswer(Errors.NONE,
                fetched(2, Errors.NONE, Errors.NONE, records, new AcquiredRecords(3, 5, (short) 2))),
                Map.of(TP0, JOBS), NAMES);
        assertThat(of(o, P2).result()).isEqualTo(new ShareOutcome.NotAssigned(
                List.of(new AcquiredRecords(3, 5, (short) 2))));
        assertThat(records.refCnt()).isZero();
    }

    @Test
    void acknowledgementsOfAPartitionTheAnswerLeavesOutFail() {
        ShareOutcome o = handler.fetched(1, sent(), fetchAnswer(Errors.NONE,
                fetched(0, Errors.NONE, Errors.NONE, null)), ASSIGNED, NAMES);
        assertThat(o.partitions()).extracting(PartitionOutcome::partition).containsExactlyInAnyOrder(P0, P1, P2);
        assertThat(of(o, P0).acknowledgeError()).isNull();
        assertThat(of(o, P1).acknowledgeError()).hasMessageContaining("did not answer");
        assertThat(of(o, P1).lockMs()).isZero();
        assertThat(of(o, P2).acknowledgeError()).hasMessageContaining("did not answer");
        assertThat(o.refused()).isEqualTo(2);
    }

    /** One ShareAcknowledge answer with a confirmed partition, a refused one and a leader error. */
    @Test
    void aMixedShareAcknowledgeAnswer() {
        ShareOutcome o = handler.acknowledged(1, sent(), acknowledgeAnswer(Errors.NONE,
                acknowledged(0, Errors.NONE), acknowledged(1, Errors.INVALID_RECORD_STATE),
                acknowledged(2, Errors.NOT_LEADER_OR_FOLLOWER)), NAMES);

        assertThat(o.verdict()).isEqualTo(Verdict.ANSWERED);
        assertThat(o.partitions()).extracting(PartitionOutcome::partition).containsExactly(P0, P1, P2);
        assertThat(of(o, P0).acknowledgeError()).isNull();
        assertThat(of(o, P0).result()).isNull();
        assertThat(of(o, P0).lockMs()).as("a renewal confirmed holds for the answer's lock").isEqualTo(LOCK_MS);
        assertThat(of(o, P1).acknowledgeError()).hasMessageContaining("INVALID_RECORD_STATE");
        assertThat(of(o, P2).acknowledgeError()).hasMessageContaining("NOT_LEADER_OR_FOLLOWER");
        assertThat(of(o, P2).result()).isEqualTo(new ShareOutcome.LeaderError(Errors.NOT_LEADER_OR_FOLLOWER));
        assertThat(o.acknowledged()).isEqualTo(5);
        assertThat(o.refused()).isEqualTo(2);
        assertThat(o.fetchedRecords()).isZero();
    }

    /** A ShareFetch answer mixing records, an acknowledgement error, a leader error and a revoked partition. */
    @Test
    void aMixedShareFetchAnswer() {
        ByteBuf kept = records(50);
        ByteBuf revoked = records(30);
        UUID other = new UUID(7, 7);
        ShareFetchResponse answer = new ShareFetchResponse(25, Errors.NONE.code(), null, LOCK_MS, List.of(
                new ShareFetchResponse.ShareFetchableTopicResponse(JOBS, List.of(
                        fetched(0, Errors.NONE, Errors.INVALID_RECORD_STATE, kept,
                                new AcquiredRecords(20, 21, (short) 1), new AcquiredRecords(22, 22, (short) 3)),
                        fetched(1, Errors.NOT_LEADER_OR_FOLLOWER, Errors.NONE, null))),
                new ShareFetchResponse.ShareFetchableTopicResponse(other, List.of(
                        fetched(0, Errors.NONE, Errors.NONE, revoked, new AcquiredRecords(0, 1, (short) 1))))),
                List.of());

        ShareOutcome o = handler.fetched(1, sent(), answer, ASSIGNED, NAMES);

        assertThat(o.verdict()).isEqualTo(Verdict.ANSWERED);
        assertThat(o.throttleMs()).isEqualTo(25);
        assertThat(o.partitions()).extracting(PartitionOutcome::partition)
                .containsExactly(P0, P1, new SharePartition(other, 0), P2);
        assertThat(of(o, P0).acknowledgeError()).hasMessageContaining("INVALID_RECORD_STATE");
        assertThat(((ShareOutcome.Acquired) of(o, P0).result()).batch().acquiredCount())
                .as("records acquired whatever became of the acknowledgements").isEqualTo(3);
        assertThat(of(o, P1).result()).isEqualTo(new ShareOutcome.LeaderError(Errors.NOT_LEADER_OR_FOLLOWER));
        assertThat(of(o, new SharePartition(other, 0)).result()).isInstanceOf(ShareOutcome.NotAssigned.class);
        assertThat(revoked.refCnt()).isZero();
        assertThat(of(o, P2).acknowledgeError()).hasMessageContaining("did not answer");
        assertThat(o.fetchedRecords()).as("3 kept, 2 released again").isEqualTo(5);
        assertThat(o.fetchedBytes()).isEqualTo(80);
        assertThat(o.refused()).as("P0's three, P2's one").isEqualTo(4);
        kept.release();
    }

    @Test
    void aRequestWithoutAnswerFailsItsAcknowledgementsTypedAndEndsTheConsumerOnlyWithoutShareSupport() {
        ShareOutcome.NoAnswer old = handler.noAnswer(1, new UnsupportedVersionException("SHARE_FETCH: not offered",
                ApiKey.SHARE_FETCH), false);
        assertThat(old.fatal()).isTrue();
        assertThat(old.error()).isInstanceOf(io.kflux.UnsupportedVersionException.class)
                .hasMessageContaining("Kafka 4.1 or later");

        ShareOutcome.NoAnswer renew = handler.noAnswer(1, new UnsupportedVersionException("SHARE_ACKNOWLEDGE: RENEW "
                + "needs v2", ApiKey.SHARE_ACKNOWLEDGE), true);
        assertThat(renew.fatal()).as("a renewal refused: the locks run out").isFalse();
        assertThat(renew.error()).isInstanceOf(io.kflux.UnsupportedVersionException.class);

        ShareOutcome.NoAnswer lost = handler.noAnswer(1, new IOException("connection reset"), false);
        assertThat(lost.fatal()).isFalse();
        assertThat(lost.error()).hasMessageContaining("broker 1").hasCauseInstanceOf(IOException.class);

        KafkaFluxException typed = new KafkaFluxException("broker 1 is not in metadata");
        assertThat(handler.noAnswer(1, typed, false).error()).isSameAs(typed);
    }
}
