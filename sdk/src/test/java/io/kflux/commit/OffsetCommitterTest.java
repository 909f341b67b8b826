package io.kflux.commit;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.CommitFailedException;
import io.kflux.TimeoutException;
import io.kflux.TopicPartition;
import io.kflux.network.BrokerConnection;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.OffsetCommitRequest;
import io.kflux.protocol.message.OffsetCommitRequest.OffsetCommitRequestPartition;
import io.kflux.protocol.message.OffsetCommitRequest.OffsetCommitRequestTopic;
import io.kflux.protocol.message.OffsetFetchRequest;
import io.kflux.protocol.message.OffsetFetchRequest.OffsetFetchRequestTopics;
import io.kflux.protocol.message.OffsetFetchResponse;
import io.kflux.protocol.message.OffsetFetchResponse.OffsetFetchResponseGroup;
import io.kflux.protocol.message.OffsetFetchResponse.OffsetFetchResponsePartitions;
import io.kflux.protocol.message.OffsetFetchResponse.OffsetFetchResponseTopics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * OffsetCommit error handling against a scripted coordinator, on virtual time (the retry delays and the timeout
 * run on Reactor's default schedulers, which the virtual-time scheduler replaces): REBALANCE_IN_PROGRESS waits
 * for the rejoin and then commits only what is still owned, the rest failing with CommitFailedException;
 * COORDINATOR_LOAD_IN_PROGRESS and NOT_COORDINATOR are retried with growing, capped backoff until the commit's
 * timeout; no commit failure stops the auto-commit loop.
 */
class OffsetCommitterTest {
    private static final TopicPartition P0 = new TopicPartition("t", 0);
    private static final TopicPartition P1 = new TopicPartition("t", 1);
    private static final UUID T_ID = UUID.fromString("6ba7b810-9dad-11d1-80b4-00c04fd430c8");
    private static final UUID T_RECREATED_ID = UUID.fromString("6ba7b811-9dad-11d1-80b4-00c04fd430c8");
    private static final long BACKOFF_MS = 100;
    private static final long BACKOFF_MAX_MS = 1_000;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private VirtualTimeScheduler time;
    private ScriptedGroup group;
    private OffsetCommitter committer;

    @BeforeEach
    void setUp() {
        time = VirtualTimeScheduler.getOrSet();
        group = new ScriptedGroup();
        committer = new OffsetCommitter(group, BACKOFF_MS, BACKOFF_MAX_MS, time);
    }

    @AfterEach
    void tearDown() {
        VirtualTimeScheduler.reset();
    }

    /** What the member looks like to the committer; the test changes it as a rejoin would. */
    private final class ScriptedGroup implements GroupContext {
        volatile MemberIdentity identity = new MemberIdentity(1, "m-1", null);
        volatile Set<TopicPartition> owned = Set.of(P0, P1);
        /** Null: stable. Else the rejoin under way, completed by the test. */
        volatile Sinks.Empty<Void> rejoin;
        int coordinatorLost;
        final List<Long> sentAtMs = new ArrayList<>();
        final List<OffsetCommitRequest> sent = new ArrayList<>();
        /** Error per partition for each request, in order; past the end every partition succeeds. */
        final List<Function<TopicPartition, Errors>> answers = new ArrayList<>();
        /** The topic ids metadata knows; a fresh lookup returns {@link #freshIds}. */
        volatile Map<String, UUID> ids = Map.of("t", T_ID);
        volatile Map<String, UUID> freshIds = Map.of("t", T_ID);
        /** The {@code fresh} flag of each topic id lookup. */
        final List<Boolean> idLookups = new ArrayList<>();
        final List<OffsetFetchRequest> fetches = new ArrayList<>();
        /** What OffsetFetch carries as member (KIP-848); NONE for classic members. */
        volatile MemberIdentity fetchIdentity = MemberIdentity.NONE;
        /** Group-level error of each OffsetFetch answer, in order; past the end none. */
        final List<Errors> fetchErrors = new ArrayList<>();

        @Override
        public Mono<Map<String, UUID>> topicIds(Collection<String> topics, boolean fresh) {
            idLookups.add(fresh);
            Map<String, UUID> from = fresh ? freshIds : ids;
            Map<String, UUID> out = new HashMap<>();
            topics.forEach(t -> {
                if (from.containsKey(t)) {
                    out.put(t, from.get(t));
                }
            });
            return Mono.just(out);
        }

        @Override
        public String groupId() {
            return "g";
        }

        @Override
        public Mono<BrokerConnection> coordinator() {
            return Mono.error(new AssertionError("the committer goes through exchange()"));
        }

        @SuppressWarnings("unchecked")
        @Override
        public <R> Mono<R> exchange(ApiRequest<R> request) {
            return Mono.fromSupplier(() -> {
                if (request instanceof OffsetFetchRequest fetch) {
                    int n = fetches.size();
                    fetches.add(fetch);
                    return (R) answer(fetch, n < fetchErrors.size() ? fetchErrors.get(n) : Errors.NONE);
                }
                OffsetCommitRequest commit = (OffsetCommitRequest) request;
                int n = sent.size();
                sent.add(commit);
                sentAtMs.add(time.now(java.util.concurrent.TimeUnit.MILLISECONDS));
                Function<TopicPartition, Errors> answer = n < answers.size() ? answers.get(n) : tp -> Errors.NONE;
                return (R) NoGroup.answer(commit, answer);
            });
        }

        /** Offset 42 for every partition asked, topics by id (v10, as a Kafka 4.2+ broker answers). */
        private OffsetFetchResponse answer(OffsetFetchRequest fetch, Errors error) {
            if (error != Errors.NONE) {
                return new OffsetFetchResponse(0, null, (short) 0,
                        List.of(new OffsetFetchResponseGroup("g", List.of(), error.code())));
            }
            List<OffsetFetchResponseTopics> topics = new ArrayList<>();
            fetch.groups().get(0).topics().forEach(t -> topics.add(new OffsetFetchResponseTopics("", t.topicId(),
                    t.partitionIndexes().stream().map(p -> new OffsetFetchResponsePartitions(p, 42L, 7, "m", (short) 0))
                            .toList())));
            return new OffsetFetchResponse(0, null, (short) 0,
                    List.of(new OffsetFetchResponseGroup("g", topics, (short) 0)));
        }

        @Override
        public void coordinatorUnavailable() {
            coordinatorLost++;
        }

        @Override
        public MemberIdentity identity() {
            return identity;
        }

        @Override
        public MemberIdentity offsetFetchIdentity() {
            return fetchIdentity;
        }

        @Override
        public Mono<Void> awaitStable() {
            Sinks.Empty<Void> r = rejoin;
            return r == null ? Mono.empty() : r.asMono();
        }

        @Override
        public Set<TopicPartition> owned() {
            return owned;
        }

        @Override
        public boolean groupManaged() {
            return true;
        }

        /** How often the committer read ownership; each reading hands out the next of {@link #readings}, if any. */
        int ownershipReadings;
        final List<Ownership> readings = new ArrayList<>();

        @Override
        public Ownership ownership() {
            int n = ownershipReadings++;
            return n < readings.size() ? readings.get(n) : GroupContext.super.ownership();
        }
    }

    /** Subscribes to {@code commit}, keeping how it ended. */
    private static final class Outcome {
        final AtomicReference<Throwable> error = new AtomicReference<>();
        volatile boolean done;

        Outcome(Mono<Void> commit) {
            commit.subscribe(v -> { }, e -> {
                error.set(e);
                done = true;
            }, () -> done = true);
        }
    }

    private static Map<TopicPartition, CommitOffset> offsets(long o0, long o1) {
        Map<TopicPartition, CommitOffset> m = new LinkedHashMap<>();
        m.put(P0, new CommitOffset(o0, 3, ""));
        m.put(P1, new CommitOffset(o1, 4, ""));
        return m;
    }

    private static Map<TopicPartition, Long> committedOffsets(OffsetCommitRequest r) {
        Map<TopicPartition, Long> m = new LinkedHashMap<>();
        r.topics().forEach(t -> t.partitions().forEach(p -> m.put(new TopicPartition(t.name(), p.partitionIndex()),
                p.committedOffset())));
        return m;
    }

    @Test
    void commitsNameTopicsByTheirIdFromMetadataAndAnswersByIdAreReadBackAsNames() {
        group.answers.add(tp -> tp.equals(P1) ? Errors.UNKNOWN_MEMBER_ID : Errors.NONE);
        Outcome outcome = new Outcome(committer.commit(offsets(10, 20), TIMEOUT));
        time.advanceTimeBy(Duration.ZERO);

        OffsetCommitRequest sent = group.sent.get(0);
        assertThat(sent.topics()).extracting(OffsetCommitRequestTopic::topicId).containsExactly(T_ID);
        assertThat(sent.maxVersion()).as("ids known: v10 (Kafka 4.2+) may be used").isEqualTo((short) 10);
        assertThat(outcome.error.get()).as("the id-only answer is read back as t-1").isInstanceOf(CommitFailedException.class)
                .hasMessageContaining(P1.toString());
    }

    @Test
    void unknownTopicIdLooksTheIdUpAfreshAndRetriesWithTheNewId() {
        group.answers.add(tp -> Errors.UNKNOWN_TOPIC_ID);
        group.freshIds = Map.of("t", T_RECREATED_ID); // deleted and created again under the same name
        Outcome outcome = new Outcome(committer.commit(offsets(10, 20), TIMEOUT));
        time.advanceTimeBy(Duration.ofSeconds(1));

        assertThat(outcome.done).isTrue();
        assertThat(outcome.error.get()).isNull();
        assertThat(group.sent).hasSize(2);
        assertThat(group.idLookups).containsExactly(false, true);
        assertThat(group.sent.get(1).topics()).extracting(OffsetCommitRequestTopic::topicId).containsExactly(T_RECREATED_ID);
    }

    @Test
    void aTopicWithoutAKnownIdIsNamedAndTheRequestStaysBelowTheTopicIdVersions() {
        group.ids = Map.of();
        group.freshIds = Map.of();
        Outcome outcome = new Outcome(committer.commit(offsets(10, 20), TIMEOUT));
        time.advanceTimeBy(Duration.ZERO);

        assertThat(outcome.error.get()).isNull();
        OffsetCommitRequest sent = group.sent.get(0);
        assertThat(sent.topics()).extracting(OffsetCommitRequestTopic::name).containsExactly("t");
        assertThat(sent.maxVersion()).as("a zero id never leaves the client: v9 names topics").isEqualTo((short) 9);
    }

    @Test
    void committedOffsetsAreAskedByTopicIdAndTheIdOnlyAnswerIsReadBackAsNames() {
        AtomicReference<Map<TopicPartition, CommitOffset>> read = new AtomicReference<>();
        committer.fetch(Set.of(P0, P1), TIMEOUT).subscribe(read::set);
        time.advanceTimeBy(Duration.ZERO);

        OffsetFetchRequest sent = group.fetches.get(0);
        assertThat(sent.groups().get(0).topics()).extracting(OffsetFetchRequestTopics::topicId).containsExactly(T_ID);
        assertThat(sent.maxVersion()).isEqualTo((short) 10);
        assertThat(read.get()).containsOnlyKeys(P0, P1);
        assertThat(read.get().get(P1)).isEqualTo(new CommitOffset(42L, 7, "m"));
    }

    @Test
    void aClassicMemberReadsCommittedOffsetsWithoutMemberIdOrEpoch() {
        committer.fetch(Set.of(P0), TIMEOUT).subscribe();
        time.advanceTimeBy(Duration.ZERO);
        assertThat(group.fetches.get(0).groups().get(0).memberId()).isNull();
        assertThat(group.fetches.get(0).groups().get(0).memberEpoch()).isEqualTo(-1);
    }

    @Test
    void aConsumerProtocolMemberReadsCommittedOffsetsWithItsIdAndEpochAndRetriesAStaleEpochWithTheNewOne() {
        group.fetchIdentity = new MemberIdentity(5, "m-848", null);
        group.fetchErrors.add(Errors.STALE_MEMBER_EPOCH);
        AtomicReference<Map<TopicPartition, CommitOffset>> read = new AtomicReference<>();
        committer.fetch(Set.of(P0), TIMEOUT).subscribe(read::set);
        time.advanceTimeBy(Duration.ZERO);
        assertThat(group.fetches).hasSize(1);
        assertThat(group.fetches.get(0).groups().get(0).memberId()).isEqualTo("m-848");
        assertThat(group.fetches.get(0).groups().get(0).memberEpoch()).isEqualTo(5);
        assertThat(group.fetches.get(0).maxVersion()).as("member fields need v9+").isGreaterThanOrEqualTo((short) 9);

        group.fetchIdentity = new MemberIdentity(6, "m-848", null); // the epoch moved on meanwhile
        time.advanceTimeBy(Duration.ofSeconds(1));
        assertThat(group.fetches).hasSize(2);
        assertThat(group.fetches.get(1).groups().get(0).memberEpoch()).isEqualTo(6);
        assertThat(read.get()).containsOnlyKeys(P0);
    }

    @Test
    void rebalanceInProgressWaitsForTheRejoinThenCommitsWhatIsStillOwnedAndFailsTheRest() {
        group.answers.add(tp -> Errors.REBALANCE_IN_PROGRESS);
        group.rejoin = Sinks.empty();
        Outcome outcome = new Outcome(committer.commit(offsets(10, 20), TIMEOUT));

        time.advanceTimeBy(Duration.ofSeconds(10));
        assertThat(group.sent).as("nothing is sent again while the rebalance is under way").hasSize(1);
        assertThat(outcome.done).isFalse();

        // the rejoin gave P1 to another member and bumped the generation
        group.identity = new MemberIdentity(2, "m-1", null);
        group.owned = Set.of(P0);
        group.rejoin.tryEmitEmpty();
        time.advanceTimeBy(Duration.ZERO);

        assertThat(group.sent).hasSize(2);
        OffsetCommitRequest retry = group.sent.get(1);
        assertThat(retry.generationIdOrMemberEpoch()).isEqualTo(2);
        assertThat(committedOffsets(retry)).as("only the partition still owned").containsExactly(Map.entry(P0, 10L));
        assertThat(retry.topics().get(0).partitions()).extracting(OffsetCommitRequestPartition::committedLeaderEpoch)
                .containsExactly(3);
        assertThat(outcome.done).isTrue();
        assertThat(outcome.error.get()).isInstanceOf(CommitFailedException.class)
                .hasMessageContaining(P1.toString()).hasMessageNotContaining(P0 + ",");
    }

    /**
     * The member left between two readings (the flaky CommitWithoutMembershipTest): a refusal must come from one
     * reading, with that reading's reason, and a reading without membership commits everything without refusing.
     */
    @Test
    void aCommitDecidesOnOneReadingOfTheMember() {
        group.readings.add(new Ownership(true, Set.of(P0), () -> "reason of the first reading"));
        group.readings.add(Ownership.unmanaged(Set.of()));
        Outcome refused = new Outcome(committer.commit(offsets(10, 20), TIMEOUT));
        time.advanceTimeBy(Duration.ZERO);
        assertThat(group.ownershipReadings).isEqualTo(1);
        assertThat(committedOffsets(group.sent.get(0))).containsExactly(Map.entry(P0, 10L));
        assertThat(refused.error.get()).isInstanceOf(CommitFailedException.class)
                .hasMessageContaining(P1.toString()).hasMessageContaining("reason of the first reading");

        Outcome unmanaged = new Outcome(committer.commit(offsets(11, 21), TIMEOUT));
        time.advanceTimeBy(Duration.ZERO);
        assertThat(unmanaged.done).isTrue();
        assertThat(unmanaged.error.get()).isNull();
        assertThat(committedOffsets(group.sent.get(1))).containsOnlyKeys(P0, P1);
    }

    @Test
    void aSecondRebalanceInProgressWaitsAgainAndTheWholeCommitIsBoundedByItsTimeout() {
        group.answers.add(tp -> Errors.REBALANCE_IN_PROGRESS);
        group.answers.add(tp -> Errors.REBALANCE_IN_PROGRESS);
        group.rejoin = Sinks.empty();
        Outcome outcome = new Outcome(committer.commit(offsets(10, 20), TIMEOUT));

        Sinks.Empty<Void> first = group.rejoin;
        group.rejoin = Sinks.empty(); // a further rebalance starts as soon as the first ended
        first.tryEmitEmpty();
        time.advanceTimeBy(Duration.ZERO);
        assertThat(group.sent).hasSize(2);
        assertThat(outcome.done).isFalse();

        time.advanceTimeBy(TIMEOUT);
        assertThat(outcome.error.get()).isInstanceOf(TimeoutException.class);
        assertThat(group.sent).hasSize(2);
    }

    @Test
    void coordinatorLoadInProgressIsRetriedWithGrowingBackoffCappedAtTheMaximum() {
        for (int i = 0; i < 8; i++) {
            group.answers.add(tp -> Errors.COORDINATOR_LOAD_IN_PROGRESS);
        }
        Outcome outcome = new Outcome(committer.commit(offsets(10, 20), TIMEOUT));
        time.advanceTimeBy(Duration.ofSeconds(30));

        assertThat(outcome.done).isTrue();
        assertThat(outcome.error.get()).isNull();
        assertThat(group.sent).as("8 refusals, then accepted").hasSize(9);
        assertThat(group.coordinatorLost).as("the coordinator did not move").isZero();
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < group.sentAtMs.size(); i++) {
            gaps.add(group.sentAtMs.get(i) - group.sentAtMs.get(i - 1));
        }
        // retry.backoff.ms doubling with +/-20% jitter, never above retry.backoff.max.ms
        assertThat(gaps.get(0)).isBetween(80L, 120L);
        assertThat(gaps.get(1)).isBetween(160L, 240L);
        assertThat(gaps.get(2)).isBetween(320L, 480L);
        assertThat(gaps).allSatisfy(g -> assertThat(g).isBetween(80L, BACKOFF_MAX_MS));
        assertThat(gaps.subList(5, gaps.size())).as("capped").allSatisfy(g -> assertThat(g).isGreaterThan(600L));
        group.sent.forEach(r -> assertThat(committedOffsets(r)).containsExactly(Map.entry(P0, 10L), Map.entry(P1, 20L)));
    }

    @Test
    void notCoordinatorIsRetriedAfterAskingForTheCoordinatorAgain() {
        group.answers.add(tp -> Errors.NOT_COORDINATOR);
        group.answers.add(tp -> tp.equals(P1) ? Errors.COORDINATOR_NOT_AVAILABLE : Errors.NONE);
        Outcome outcome = new Outcome(committer.commit(offsets(10, 20), TIMEOUT));
        time.advanceTimeBy(Duration.ofSeconds(5));

        assertThat(outcome.done).isTrue();
        assertThat(outcome.error.get()).isNull();
        assertThat(group.sent).hasSize(3);
        assertThat(group.coordinatorLost).isEqualTo(2);
    }

    @Test
    void aCoordinatorThatKeepsLoadingFailsTheCommitWithTimeoutAfterItsTimeoutAndNotBefore() {
        for (int i = 0; i < 1_000; i++) {
            group.answers.add(tp -> Errors.COORDINATOR_LOAD_IN_PROGRESS);
        }
        Outcome outcome = new Outcome(committer.commit(offsets(10, 20), TIMEOUT));
        time.advanceTimeBy(TIMEOUT.minusMillis(1));
        assertThat(outcome.done).isFalse();
        int sent = group.sent.size();
        assertThat(sent).as("about one attempt per retry.backoff.max.ms").isBetween(50, 90);
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(outcome.error.get()).isInstanceOf(TimeoutException.class);
        time.advanceTimeBy(Duration.ofSeconds(10));
        assertThat(group.sent).as("nothing after the timeout").hasSize(sent);
    }

    /**
     * Issue #29: a commit retried while the coordinator is lost (the cluster behind bootstrap.servers replaced) must
     * not be sent once its partition was lost and assigned again: the retry reads the member's new identity, so the
     * new cluster would accept the old cluster's offset and the new assignment would start there (past its log end).
     */
    @Test
    void aRetriedCommitOfAPartitionLostAndAssignedAgainMeanwhileIsNotSent() {
        CommitManager commits = new CommitManager(committer, TIMEOUT);
        commits.track(P0, 0, -1);
        for (long o = 0; o < 5; o++) {
            commits.acknowledge(P0, o);
        }
        group.answers.add(tp -> Errors.NOT_COORDINATOR);
        Outcome outcome = new Outcome(commits.commitAcknowledged(null));
        time.advanceTimeBy(Duration.ZERO);
        assertThat(group.sent).hasSize(1);
        assertThat(outcome.done).isFalse();

        commits.untrack(List.of(P0)); // lost
        commits.track(P0, 0, -1); // assigned again under the new membership
        time.advanceTimeBy(Duration.ofSeconds(5));

        assertThat(group.sent).as("the retry is not sent").hasSize(1);
        assertThat(outcome.error.get()).isInstanceOf(CommitFailedException.class)
                .hasMessageContaining("lost and assigned again");
    }

    @Test
    void aPartitionTrackedAgainFromALowerOffsetCommitsItsLowerOffsets() {
        CommitManager commits = new CommitManager(committer, TIMEOUT);
        commits.track(P0, 0, -1);
        for (long o = 0; o < 10; o++) {
            commits.acknowledge(P0, o);
        }
        commits.commitAcknowledged(null).subscribe();
        time.advanceTimeBy(Duration.ZERO);
        assertThat(committedOffsets(group.sent.get(0))).containsExactly(Map.entry(P0, 10L));

        // log truncation (or the topic deleted and created again, or a seek back) restarts tracking at 0: the
        // records from 0 on are other records, and must be committed as they are acknowledged, not held back
        // until acknowledgements pass the old offset 10 (a restart in between would skip them)
        commits.track(P0, 0, -1);
        commits.acknowledge(P0, 0);
        commits.acknowledge(P0, 1);
        commits.acknowledge(P0, 2);
        commits.commitAcknowledged(null).subscribe();
        time.advanceTimeBy(Duration.ZERO);
        assertThat(group.sent).hasSize(2);
        assertThat(committedOffsets(group.sent.get(1))).containsExactly(Map.entry(P0, 3L));

        // and within one tracking run the committed offset only moves forward
        commits.commit(Map.of(P0, new CommitOffset(50, -1, ""))).subscribe();
        time.advanceTimeBy(Duration.ZERO);
        commits.acknowledge(P0, 3);
        commits.commitAcknowledged(null).subscribe();
        time.advanceTimeBy(Duration.ZERO);
        assertThat(group.sent).as("offset 4 is below the explicit commit of 50: not sent").hasSize(3);
    }

    @Test
    void failedAutoCommitsDoNotStopTheAutoCommitLoop() {
        CommitManager commits = new CommitManager(committer, TIMEOUT);
        commits.track(P0, 0, 1);
        commits.track(P1, 0, 1);
        commits.acknowledge(P0, 0);
        commits.acknowledge(P1, 0);
        // the first auto commit: P1 was given to another member meanwhile
        group.owned = Set.of(P0);
        Disposable loop = commits.startAutoCommit(Duration.ofSeconds(5));
        try {
            time.advanceTimeBy(Duration.ofSeconds(5));
            assertThat(group.sent).hasSize(1);
            assertThat(committedOffsets(group.sent.get(0))).containsExactly(Map.entry(P0, 1L));

            // the next one: the coordinator refuses the generation
            commits.acknowledge(P0, 1);
            group.answers.add(tp -> Errors.NONE); // the first request
            group.answers.add(tp -> Errors.ILLEGAL_GENERATION);
            time.advanceTimeBy(Duration.ofSeconds(5));
            assertThat(group.sent).hasSize(2);

            // and still the loop goes on
            group.identity = new MemberIdentity(2, "m-1", null);
            time.advanceTimeBy(Duration.ofSeconds(5));
            assertThat(group.sent).hasSize(3);
            assertThat(committedOffsets(group.sent.get(2))).containsExactly(Map.entry(P0, 2L));
            assertThat(group.sent.get(2).generationIdOrMemberEpoch()).isEqualTo(2);
        } finally {
            loop.dispose();
        }
    }

    @Test
    void aStaleMemberEpochWaitsForTheMembersNextEpochThenCommitsWhatItStillOwns() {
        // KIP-848: the member's epoch moved on (its next heartbeat brings it); nothing is lost, the commit waits
        group.answers.add(tp -> Errors.STALE_MEMBER_EPOCH);
        group.rejoin = Sinks.empty();
        Outcome outcome = new Outcome(committer.commit(offsets(10, 20), TIMEOUT));
        assertThat(group.sent).hasSize(1);
        assertThat(outcome.done).isFalse();
        group.identity = new MemberIdentity(8, "m-1", null);
        group.rejoin.tryEmitEmpty();
        time.advanceTimeBy(Duration.ZERO);
        assertThat(group.sent).hasSize(2);
        assertThat(group.sent.get(1).generationIdOrMemberEpoch()).isEqualTo(8);
        assertThat(committedOffsets(group.sent.get(1))).containsOnlyKeys(P0, P1);
        assertThat(outcome.done).isTrue();
        assertThat(outcome.error.get()).isNull();
    }

    private static Map<TopicPartition, String> metadataSent(OffsetCommitRequest r) {
        Map<TopicPartition, String> m = new LinkedHashMap<>();
        r.topics().forEach(t -> t.partitions().forEach(p -> m.put(new TopicPartition(t.name(), p.partitionIndex()),
                p.committedMetadata())));
        return m;
    }

    @Test
    void progressMetadataTheBrokerRefusesAsTooLargeIsLeftOutAndTheOffsetsAreCommitted() {
        String progress = ProgressMetadata.encode(new long[] {1, 2, 3, 4}).metadata();
        Map<TopicPartition, CommitOffset> offsets = new LinkedHashMap<>();
        offsets.put(P0, new CommitOffset(10, 3, progress));
        offsets.put(P1, new CommitOffset(20, 4, ""));
        group.answers.add(tp -> tp.equals(P0) ? Errors.OFFSET_METADATA_TOO_LARGE : Errors.NONE);
        Outcome outcome = new Outcome(committer.commit(offsets, TIMEOUT));
        time.advanceTimeBy(Duration.ofSeconds(1));

        assertThat(outcome.done).isTrue();
        assertThat(outcome.error.get()).as("no error: the progress is an optimisation").isNull();
        assertThat(group.sent).hasSize(2);
        assertThat(metadataSent(group.sent.get(0))).containsEntry(P0, progress);
        assertThat(metadataSent(group.sent.get(1))).containsEntry(P0, "").containsEntry(P1, "");
        assertThat(committedOffsets(group.sent.get(1))).containsEntry(P0, 10L).containsEntry(P1, 20L);
    }

    @Test
    void metadataOfTheApplicationTheBrokerRefusesAsTooLargeFailsTheCommit() {
        Map<TopicPartition, CommitOffset> offsets = new LinkedHashMap<>();
        offsets.put(P0, new CommitOffset(10, 3, "the application's own note"));
        group.answers.add(tp -> Errors.OFFSET_METADATA_TOO_LARGE);
        Outcome outcome = new Outcome(committer.commit(offsets, TIMEOUT));
        time.advanceTimeBy(Duration.ofSeconds(1));

        assertThat(group.sent).hasSize(1);
        assertThat(outcome.error.get()).isInstanceOf(io.kflux.KafkaProtocolException.class)
                .hasMessageContaining("OFFSET_METADATA_TOO_LARGE").hasMessageContaining(P0.toString());
    }
}
