package io.kflux.group.assignor;

import static io.kflux.group.assignor.AssignorTestSupport.asSets;
import static io.kflux.group.assignor.AssignorTestSupport.assertValid;
import static io.kflux.group.assignor.AssignorTestSupport.officialAssign;
import static io.kflux.group.assignor.AssignorTestSupport.randomMembers;
import static io.kflux.group.assignor.AssignorTestSupport.randomSubscription;
import static io.kflux.group.assignor.AssignorTestSupport.randomTopics;
import static io.kflux.group.assignor.AssignorTestSupport.spread;
import static io.kflux.group.assignor.RangeAssignorTest.tp;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.TopicPartition;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RoundRobinAssignorTest {

    private final RoundRobinAssignor assignor = new RoundRobinAssignor();

    @Test
    void documentedExamples() {
        Map<String, Subscription> same = Map.of(
                "C0", new Subscription(List.of("t0", "t1")),
                "C1", new Subscription(List.of("t0", "t1")));
        Map<String, Set<TopicPartition>> result = asSets(assignor.assign(ClusterTopics.of(Map.of("t0", 3, "t1", 3)), same));
        assertThat(result.get("C0")).containsExactly(tp("t0", 0), tp("t0", 2), tp("t1", 1));
        assertThat(result.get("C1")).containsExactly(tp("t0", 1), tp("t1", 0), tp("t1", 2));

        Map<String, Subscription> different = Map.of(
                "C0", new Subscription(List.of("t0")),
                "C1", new Subscription(List.of("t0", "t1")),
                "C2", new Subscription(List.of("t0", "t1", "t2")));
        result = asSets(assignor.assign(ClusterTopics.of(Map.of("t0", 1, "t1", 2, "t2", 3)), different));
        assertThat(result.get("C0")).containsExactly(tp("t0", 0));
        assertThat(result.get("C1")).containsExactly(tp("t1", 0));
        assertThat(result.get("C2")).containsExactly(tp("t1", 1), tp("t2", 0), tp("t2", 1), tp("t2", 2));
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
    void propertiesAndEqualityWithOfficial(long seed) {
        Random random = new Random(seed);
        for (int round = 0; round < 50; round++) {
            Map<String, Integer> counts = randomTopics(random, 1 + random.nextInt(6), 12);
            List<String> members = randomMembers(random, 1 + random.nextInt(8));
            boolean sameTopics = random.nextBoolean();
            List<String> shared = randomSubscription(random, counts.keySet());
            Map<String, Subscription> subs = new HashMap<>();
            for (String m : members) {
                subs.put(m, new Subscription(sameTopics ? shared : randomSubscription(random, counts.keySet()),
                        null, List.of(), -1, null, random.nextBoolean() ? "instance-" + m : null));
            }
            Map<String, Set<TopicPartition>> ours = asSets(assignor.assign(ClusterTopics.of(counts), subs));
            assertValid(counts, subs, ours, true);
            if (sameTopics) {
                assertThat(spread(ours)).isLessThanOrEqualTo(1);
            }
            assertThat(ours).isEqualTo(officialAssign(new org.apache.kafka.clients.consumer.RoundRobinAssignor(), counts, subs));
        }
    }

    @Test
    void largeGroupIsCheap() {
        Map<String, Integer> counts = Map.of("a", 400, "b", 600);
        Map<String, Subscription> subs = new HashMap<>();
        for (int m = 0; m < 100; m++) {
            subs.put("member-" + m, new Subscription(List.of("a", "b")));
        }
        Map<String, Set<TopicPartition>> result = asSets(assignor.assign(ClusterTopics.of(counts), subs));
        assertValid(counts, subs, result, true);
        assertThat(spread(result)).isZero();
    }
}
