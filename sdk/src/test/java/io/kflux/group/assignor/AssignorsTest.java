package io.kflux.group.assignor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.ConfigException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AssignorsTest {

    /** A custom assignor as an application would write one. */
    public static final class EverythingToTheFirst implements PartitionAssignor {
        @Override
        public String name() {
            return "everything-to-the-first";
        }

        @Override
        public GroupAssignment assign(ClusterTopics topics, Map<String, Subscription> subscriptions) {
            return new RoundRobinAssignor().assign(topics, subscriptions);
        }
    }

    public static final class CooperativeOnly implements PartitionAssignor {
        @Override
        public String name() {
            return "coop-only";
        }

        @Override
        public List<RebalanceProtocol> supportedProtocols() {
            return List.of(RebalanceProtocol.COOPERATIVE);
        }

        @Override
        public GroupAssignment assign(ClusterTopics topics, Map<String, Subscription> subscriptions) {
            return new CooperativeStickyAssignor().assign(topics, subscriptions);
        }
    }

    public static final class NoDefaultConstructor implements PartitionAssignor {
        public NoDefaultConstructor(String ignored) {
        }

        @Override
        public String name() {
            return "x";
        }

        @Override
        public GroupAssignment assign(ClusterTopics topics, Map<String, Subscription> subscriptions) {
            return null;
        }
    }

    public static final class FailingConstructor implements PartitionAssignor {
        public FailingConstructor() {
            throw new IllegalStateException("boom");
        }

        @Override
        public String name() {
            return "y";
        }

        @Override
        public GroupAssignment assign(ClusterTopics topics, Map<String, Subscription> subscriptions) {
            return null;
        }
    }

    public static final class AnotherRange implements PartitionAssignor {
        @Override
        public String name() {
            return "range";
        }

        @Override
        public GroupAssignment assign(ClusterTopics topics, Map<String, Subscription> subscriptions) {
            return null;
        }
    }

    private static final ClassLoader LOADER = AssignorsTest.class.getClassLoader();

    @Test
    void builtInNamesAndOfficialClassNames() {
        List<PartitionAssignor> assignors = Assignors.forNames(List.of("range", "RoundRobin", " sticky ",
                "cooperative-sticky"), LOADER);
        assertThat(assignors).extracting(PartitionAssignor::name)
                .containsExactly("range", "roundrobin", "sticky", "cooperative-sticky");
        assertThat(assignors.get(0)).isInstanceOf(RangeAssignor.class);
        assertThat(assignors.get(3)).isInstanceOf(CooperativeStickyAssignor.class);

        List<PartitionAssignor> official = Assignors.forNames(List.of(
                org.apache.kafka.clients.consumer.RangeAssignor.class.getName(),
                org.apache.kafka.clients.consumer.RoundRobinAssignor.class.getName(),
                org.apache.kafka.clients.consumer.StickyAssignor.class.getName(),
                org.apache.kafka.clients.consumer.CooperativeStickyAssignor.class.getName()), LOADER);
        assertThat(official).extracting(a -> a.getClass().getSimpleName())
                .containsExactly("RangeAssignor", "RoundRobinAssignor", "StickyAssignor", "CooperativeStickyAssignor");
        assertThat(official.get(0)).isInstanceOf(RangeAssignor.class);
        // the protocol names are the official ones, so mixed groups find a common protocol
        assertThat(official).extracting(PartitionAssignor::name).containsExactly(
                new org.apache.kafka.clients.consumer.RangeAssignor().name(),
                new org.apache.kafka.clients.consumer.RoundRobinAssignor().name(),
                new org.apache.kafka.clients.consumer.StickyAssignor().name(),
                new org.apache.kafka.clients.consumer.CooperativeStickyAssignor().name());
    }

    @Test
    void eachCallGivesNewInstances() {
        assertThat(Assignors.forName("sticky", LOADER)).isNotSameAs(Assignors.forName("sticky", LOADER));
    }

    @Test
    void customClasses() {
        List<PartitionAssignor> assignors = Assignors.forNames(List.of(EverythingToTheFirst.class.getName(), "range"), null);
        assertThat(assignors.get(0)).isInstanceOf(EverythingToTheFirst.class);
        assertThat(assignors).extracting(PartitionAssignor::name).containsExactly("everything-to-the-first", "range");
    }

    @Test
    void duplicatesOfTheSameAssignorAreDropped() {
        assertThat(Assignors.forNames(List.of("range", org.apache.kafka.clients.consumer.RangeAssignor.class.getName(),
                "RANGE"), LOADER)).hasSize(1);
    }

    @Test
    void clearErrors() {
        assertThatThrownBy(() -> Assignors.forNames(List.of("range", "no-such"), LOADER))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("partition.assignment.strategy").hasMessageContaining("no-such")
                .hasMessageContaining("class not found")
                .satisfies(e -> assertThat(((ConfigException) e).key()).isEqualTo(Assignors.CONFIG_KEY));
        assertThatThrownBy(() -> Assignors.forNames(List.of(), LOADER)).isInstanceOf(ConfigException.class);
        assertThatThrownBy(() -> Assignors.forName(" ", LOADER)).isInstanceOf(ConfigException.class);
        assertThatThrownBy(() -> Assignors.forName(String.class.getName(), LOADER))
                .isInstanceOf(ConfigException.class).hasMessageContaining("does not implement");
        assertThatThrownBy(() -> Assignors.forName(
                org.apache.kafka.clients.consumer.internals.AbstractPartitionAssignor.class.getName(), LOADER))
                .isInstanceOf(ConfigException.class).hasMessageContaining("official client's ConsumerPartitionAssignor");
        assertThatThrownBy(() -> Assignors.forName(NoDefaultConstructor.class.getName(), LOADER))
                .isInstanceOf(ConfigException.class).hasMessageContaining("no public no-argument constructor");
        assertThatThrownBy(() -> Assignors.forName(FailingConstructor.class.getName(), LOADER))
                .isInstanceOf(ConfigException.class).hasMessageContaining("boom");
        assertThatThrownBy(() -> Assignors.forName(PartitionAssignor.class.getName(), LOADER))
                .isInstanceOf(ConfigException.class).hasMessageContaining("abstract");
        assertThatThrownBy(() -> Assignors.forNames(List.of("range", AnotherRange.class.getName()), LOADER))
                .isInstanceOf(ConfigException.class).hasMessageContaining("already uses the name 'range'");
    }

    @Test
    void builtInsHandleDegenerateGroups() {
        for (String name : List.of("range", "roundrobin", "sticky", "cooperative-sticky")) {
            PartitionAssignor assignor = Assignors.forName(name, LOADER);
            assertThat(assignor.assign(ClusterTopics.of(Map.of("t", 3)), Map.of()).byMemberId()).as(name).isEmpty();
            // members subscribed only to unknown or empty topics get empty assignments, not missing entries
            GroupAssignment result = assignor.assign(ClusterTopics.of(Map.of("empty", 0)), Map.of(
                    "a", new Subscription(List.of("unknown")), "b", new Subscription(List.of("empty"))));
            assertThat(result.byMemberId()).as(name).containsOnlyKeys("a", "b");
            assertThat(result.byMemberId().values()).as(name).allSatisfy(a -> assertThat(a.partitions()).isEmpty());
            // a member subscribed to nothing next to one that is
            result = assignor.assign(ClusterTopics.of(Map.of("t", 3)), Map.of(
                    "a", new Subscription(List.of()), "b", new Subscription(List.of("t"))));
            assertThat(result.byMemberId().get("a").partitions()).as(name).isEmpty();
            assertThat(result.byMemberId().get("b").partitions()).as(name).hasSize(3);
        }
    }

    @Test
    void commonProtocolIsCooperativeOnlyWhenAllSupportIt() {
        assertThat(Assignors.commonProtocol(Assignors.forNames(List.of("range", "cooperative-sticky"), LOADER)))
                .isEqualTo(RebalanceProtocol.EAGER);
        assertThat(Assignors.commonProtocol(Assignors.forNames(List.of("cooperative-sticky"), LOADER)))
                .isEqualTo(RebalanceProtocol.COOPERATIVE);
        assertThat(Assignors.commonProtocol(Assignors.forNames(List.of("sticky", "roundrobin"), LOADER)))
                .isEqualTo(RebalanceProtocol.EAGER);
        assertThat(Assignors.commonProtocol(List.of(new CooperativeOnly(), new CooperativeStickyAssignor())))
                .isEqualTo(RebalanceProtocol.COOPERATIVE);
        assertThatThrownBy(() -> Assignors.commonProtocol(List.of(new CooperativeOnly(), new RangeAssignor())))
                .isInstanceOf(ConfigException.class).hasMessageContaining("common rebalance protocol");
        assertThatThrownBy(() -> Assignors.commonProtocol(List.of())).isInstanceOf(ConfigException.class);
    }
}
