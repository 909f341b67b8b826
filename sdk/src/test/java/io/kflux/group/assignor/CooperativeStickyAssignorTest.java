package io.kflux.group.assignor;

import static io.kflux.group.assignor.AssignorTestSupport.asSets;
import static io.kflux.group.assignor.AssignorTestSupport.assertLocallyBalanced;
import static io.kflux.group.assignor.AssignorTestSupport.assertValid;
import static io.kflux.group.assignor.AssignorTestSupport.moves;
import static io.kflux.group.assignor.AssignorTestSupport.officialAssign;
import static io.kflux.group.assignor.AssignorTestSupport.randomMembers;
import static io.kflux.group.assignor.AssignorTestSupport.randomSubscription;
import static io.kflux.group.assignor.AssignorTestSupport.randomTopics;
import static io.kflux.group.assignor.AssignorTestSupport.spread;
import static io.kflux.group.assignor.RangeAssignorTest.tp;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.TopicPartition;
import io.kflux.protocol.consumer.CooperativeStickyAssignorUserData;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The cooperative sticky assignor, by simulating groups through rebalances: members keep what they own while
 * joining, revoke what the assignment leaves out, and rejoin when they revoked something (KIP-429).
 */
class CooperativeStickyAssignorTest {

    static final class Group {
        final Map<String, CooperativeStickyAssignor> members = new LinkedHashMap<>();
        final Map<String, List<String>> topics = new HashMap<>();
        final Map<String, Set<TopicPartition>> owned = new HashMap<>();
        final Map<String, Integer> memberGeneration = new HashMap<>();
        int generation;

        void add(String id, List<String> subscribed) {
            members.put(id, new CooperativeStickyAssignor());
            topics.put(id, subscribed);
            owned.put(id, Set.of());
            memberGeneration.put(id, -1);
        }

        void remove(String id) {
            members.remove(id);
            topics.remove(id);
            owned.remove(id);
            memberGeneration.remove(id);
        }

        Map<String, Subscription> subscriptions() {
            Map<String, Subscription> subs = new HashMap<>();
            members.forEach((id, a) -> subs.put(id, new Subscription(topics.get(id),
                    a.subscriptionUserData(Set.copyOf(topics.get(id))), new ArrayList<>(owned.get(id)),
                    memberGeneration.get(id), null, null)));
            return subs;
        }

        /** Applies the assignment as members do; returns how many partitions were revoked. */
        int apply(GroupAssignment assignment) {
            generation++;
            int revoked = 0;
            for (Map.Entry<String, CooperativeStickyAssignor> e : members.entrySet()) {
                Assignment mine = assignment.byMemberId().get(e.getKey());
                Set<TopicPartition> now = Set.copyOf(mine.partitions());
                for (TopicPartition tp : owned.get(e.getKey())) {
                    if (!now.contains(tp)) {
                        revoked++;
                    }
                }
                owned.put(e.getKey(), now);
                memberGeneration.put(e.getKey(), generation);
                e.getValue().onAssignment(mine, generation);
            }
            return revoked;
        }
    }

    /** KIP-429: nothing another member still claims may be handed out; everything else must be. */
    static void assertCooperative(Map<String, Integer> counts, Map<String, Subscription> subs,
                                  Map<String, Set<TopicPartition>> result) {
        assertValid(counts, subs, result, false);
        Map<TopicPartition, Set<String>> claims = new HashMap<>();
        subs.forEach((m, s) -> s.ownedPartitions().forEach(tp -> claims.computeIfAbsent(tp, k -> new HashSet<>()).add(m)));
        Set<TopicPartition> assigned = new HashSet<>();
        result.forEach((member, partitions) -> partitions.forEach(tp -> {
            assigned.add(tp);
            Set<String> others = new HashSet<>(claims.getOrDefault(tp, Set.of()));
            others.remove(member);
            assertThat(others).as("%s given to %s while owned by %s", tp, member, others).isEmpty();
        }));
        Set<String> subscribed = new HashSet<>();
        subs.values().forEach(s -> subscribed.addAll(s.topics()));
        for (String topic : subscribed) {
            for (int p = 0; p < counts.getOrDefault(topic, 0); p++) {
                TopicPartition tp = new TopicPartition(topic, p);
                if (!assigned.contains(tp)) {
                    assertThat(claims).as("%s neither assigned nor withheld for revocation", tp).containsKey(tp);
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {41, 42, 43, 44, 45, 46, 47, 48, 49, 50})
    void rebalancesAreCooperativeAndConverge(long seed) {
        Random random = new Random(seed);
        int oursRevoked = 0;
        int officialRevoked = 0;
        for (int round = 0; round < 20; round++) {
            Map<String, Integer> counts = randomTopics(random, 1 + random.nextInt(5), 20);
            boolean same = random.nextBoolean();
            List<String> shared = randomSubscription(random, counts.keySet());
            Group group = new Group();
            for (String m : randomMembers(random, 2 + random.nextInt(7))) {
                group.add(m, same ? shared : randomSubscription(random, counts.keySet()));
            }
            group.apply(new CooperativeStickyAssignor().assign(ClusterTopics.of(counts), group.subscriptions()));

            for (int change = 0; change < 4; change++) {
                perturb(random, group, counts, same ? shared : null);
                Map<String, Subscription> subs = group.subscriptions();
                GroupAssignment first = new CooperativeStickyAssignor().assign(ClusterTopics.of(counts), subs);
                Map<String, Set<TopicPartition>> ours = asSets(first);
                assertCooperative(counts, subs, ours);

                Map<String, Set<TopicPartition>> official = officialAssign(
                        new org.apache.kafka.clients.consumer.CooperativeStickyAssignor(), counts, subs);
                assertCooperative(counts, subs, official);
                Map<String, Set<TopicPartition>> before = new HashMap<>(group.owned);
                int revokedByOfficial = revoked(before, official);
                int revoked = group.apply(first);
                assertThat(revoked).isEqualTo(revoked(before, ours));
                if (same) {
                    assertThat(revoked).isLessThanOrEqualTo(revokedByOfficial);
                }
                oursRevoked += revoked;
                officialRevoked += revokedByOfficial;

                // the members that revoked something rejoin; the follow-up rebalance hands out what was withheld
                int rounds = 1;
                while (revoked > 0) {
                    assertThat(rounds++).as("converges").isLessThanOrEqualTo(same ? 1 : 3);
                    subs = group.subscriptions();
                    ours = asSets(new CooperativeStickyAssignor().assign(ClusterTopics.of(counts), subs));
                    assertCooperative(counts, subs, ours);
                    revoked = group.apply(new GroupAssignment(toAssignments(ours)));
                }
                subs = group.subscriptions();
                assertValid(counts, subs, group.owned, true);
                assertLocallyBalanced(counts, subs, group.owned);
                if (same) {
                    assertThat(spread(group.owned)).isLessThanOrEqualTo(1);
                }
            }
        }
        System.out.printf("seed %d: revoked %d (official %d)%n", seed, oursRevoked, officialRevoked);
        assertThat(oursRevoked).isLessThanOrEqualTo(officialRevoked + officialRevoked / 10 + 5);
    }

    private static Map<String, Assignment> toAssignments(Map<String, Set<TopicPartition>> sets) {
        Map<String, Assignment> out = new HashMap<>();
        sets.forEach((m, s) -> out.put(m, new Assignment(new ArrayList<>(s))));
        return out;
    }

    private static int revoked(Map<String, Set<TopicPartition>> before, Map<String, Set<TopicPartition>> after) {
        int revoked = 0;
        for (Map.Entry<String, Set<TopicPartition>> e : before.entrySet()) {
            Set<TopicPartition> now = after.getOrDefault(e.getKey(), Set.of());
            revoked += (int) e.getValue().stream().filter(tp -> !now.contains(tp)).count();
        }
        return revoked;
    }

    private static void perturb(Random random, Group group, Map<String, Integer> counts, List<String> shared) {
        int kind = random.nextInt(4);
        if ((kind == 0 || kind == 2) && group.members.size() > 1) {
            List<String> ids = new ArrayList<>(group.members.keySet());
            group.remove(ids.get(random.nextInt(ids.size())));
        }
        if (kind == 1 || kind == 2) {
            for (String m : randomMembers(random, 1 + random.nextInt(3))) {
                group.add("new-" + group.generation + "-" + m,
                        shared != null ? shared : randomSubscription(random, counts.keySet()));
            }
        }
        if (kind == 3 && shared == null) {
            List<String> ids = new ArrayList<>(group.members.keySet());
            group.topics.put(ids.get(random.nextInt(ids.size())), randomSubscription(random, counts.keySet()));
        }
        if (kind == 3 && shared != null) {
            String topic = new ArrayList<>(counts.keySet()).get(random.nextInt(counts.size()));
            counts.merge(topic, 1 + random.nextInt(4), Integer::sum);
        }
    }

    @Test
    void aMovingPartitionIsWithheldForOneRound() {
        // a owns everything; b joins: half of a's partitions must move, but only after a revoked them
        Map<String, Integer> counts = Map.of("t", 4);
        List<TopicPartition> all = List.of(tp("t", 0), tp("t", 1), tp("t", 2), tp("t", 3));
        Map<String, Subscription> subs = Map.of(
                "a", new Subscription(List.of("t"), null, all, 3, null, null),
                "b", new Subscription(List.of("t"), null, List.of(), -1, null, null));
        Map<String, Set<TopicPartition>> first = asSets(new CooperativeStickyAssignor().assign(ClusterTopics.of(counts), subs));
        assertThat(first.get("a")).hasSize(2);
        assertThat(first.get("b")).isEmpty();

        Map<String, Subscription> followUp = Map.of(
                "a", new Subscription(List.of("t"), null, new ArrayList<>(first.get("a")), 4, null, null),
                "b", new Subscription(List.of("t"), null, List.of(), 4, null, null));
        Map<String, Set<TopicPartition>> second = asSets(new CooperativeStickyAssignor().assign(ClusterTopics.of(counts), followUp));
        assertThat(second.get("a")).isEqualTo(first.get("a"));
        Set<TopicPartition> rest = new TreeSet<>(Partitions.ORDER);
        rest.addAll(all);
        rest.removeAll(first.get("a"));
        assertThat(second.get("b")).isEqualTo(rest);
    }

    @Test
    void partitionClaimedTwiceInTheSameGenerationIsWithheldFromEveryone() {
        Map<String, Subscription> subs = Map.of(
                "a", new Subscription(List.of("t"), null, List.of(tp("t", 0)), 5, null, null),
                "b", new Subscription(List.of("t"), null, List.of(tp("t", 0), tp("t", 1)), 5, null, null));
        Map<String, Set<TopicPartition>> result = asSets(new CooperativeStickyAssignor().assign(ClusterTopics.of(Map.of("t", 2)), subs));
        assertThat(result.get("a")).doesNotContain(tp("t", 0));
        assertThat(result.get("b")).containsExactly(tp("t", 1));
    }

    @Test
    void theNewestGenerationKeepsAPartitionClaimedTwice() {
        Map<String, Subscription> subs = Map.of(
                "a", new Subscription(List.of("t"), null, List.of(tp("t", 0)), 4, null, null),
                "b", new Subscription(List.of("t"), null, List.of(tp("t", 0)), 5, null, null));
        Map<String, Set<TopicPartition>> result = asSets(new CooperativeStickyAssignor().assign(ClusterTopics.of(Map.of("t", 2)), subs));
        assertThat(result.get("b")).containsExactly(tp("t", 0));
        assertThat(result.get("a")).containsExactly(tp("t", 1));
    }

    @Test
    void generationComesFromUserDataForOldSubscriptions() {
        CooperativeStickyAssignor assignor = new CooperativeStickyAssignor();
        assertThat(CooperativeStickyAssignorUserData.deserialize(assignor.subscriptionUserData(Set.of("t")))).isEqualTo(-1);
        assignor.onAssignment(new Assignment(List.of(tp("t", 0))), 9);
        byte[] userData = assignor.subscriptionUserData(Set.of("t"));

        // the official assignor writes the same bytes
        org.apache.kafka.clients.consumer.CooperativeStickyAssignor official =
                new org.apache.kafka.clients.consumer.CooperativeStickyAssignor();
        official.onAssignment(null, new ConsumerGroupMetadata("g", 9, "m", Optional.empty()));
        ByteBuffer officialBytes = official.subscriptionUserData(Set.of("t"));
        byte[] officialArray = new byte[officialBytes.remaining()];
        officialBytes.get(officialArray);
        assertThat(userData).isEqualTo(officialArray);

        // v1 subscription (no generation field): the user data's generation decides between two claims
        Subscription old = new Subscription(List.of("t"), userData, List.of(tp("t", 0)), -1, null, null);
        Subscription newer = new Subscription(List.of("t"), null, List.of(tp("t", 0)), 8, null, null);
        assertThat(assignor.memberData(old).generation()).isEqualTo(9);
        Map<String, Set<TopicPartition>> result = asSets(new CooperativeStickyAssignor()
                .assign(ClusterTopics.of(Map.of("t", 2)), Map.of("old", old, "newer", newer)));
        assertThat(result.get("old")).containsExactly(tp("t", 0));
        assertThat(result.get("newer")).containsExactly(tp("t", 1));
    }

    @Test
    void supportsBothProtocols() {
        assertThat(new CooperativeStickyAssignor().supportedProtocols())
                .containsExactly(RebalanceProtocol.COOPERATIVE, RebalanceProtocol.EAGER);
        assertThat(new CooperativeStickyAssignor().name()).isEqualTo(
                new org.apache.kafka.clients.consumer.CooperativeStickyAssignor().name());
    }

    @Test
    void largeGroupIsCheap() {
        Group group = new Group();
        Map<String, Integer> counts = Map.of("a", 500, "b", 500);
        for (int m = 0; m < 100; m++) {
            group.add("member-" + m, List.of("a", "b"));
        }
        group.apply(new CooperativeStickyAssignor().assign(ClusterTopics.of(counts), group.subscriptions()));
        group.add("member-new", List.of("a", "b"));
        Map<String, Subscription> subs = group.subscriptions();
        Map<String, Set<TopicPartition>> result = asSets(new CooperativeStickyAssignor().assign(ClusterTopics.of(counts), subs));
        assertCooperative(counts, subs, result);
        // 1000 / 101: 91 members keep 10, 10 get 9 (the newcomer among them): 9 survivors give up one each
        assertThat(group.apply(new GroupAssignment(toAssignments(result)))).isEqualTo(9);
    }
}
