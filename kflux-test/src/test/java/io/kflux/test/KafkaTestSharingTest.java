package io.kflux.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * {@link KafkaTestExtension#SHARE_CLUSTERS}: run as a test run of their own (the JUnit launcher), classes of one
 * specification get one running cluster, an {@code isolated} class its own, and a sharing class that leaves a node
 * stopped fails and the class after it gets a new cluster. Three clusters of one node start in all.
 */
class KafkaTestSharingTest {
    /** Each sample class's cluster, by class. */
    static final Map<Class<?>, String> SEEN = new ConcurrentHashMap<>();

    @Order(1)
    @KafkaTest
    static class SharingOne {
        @Test
        void records(KafkaTestCluster kafka) {
            SEEN.put(SharingOne.class, kafka.bootstrapServers());
        }
    }

    @Order(2)
    @KafkaTest(topics = "sharing-two")
    static class SharingTwo {
        @Test
        void records(KafkaTestCluster kafka) {
            kafka.produce("sharing-two", 0, "x");
            SEEN.put(SharingTwo.class, kafka.bootstrapServers());
        }
    }

    @Order(3)
    @KafkaTest(isolated = true)
    static class Isolated {
        @Test
        void records(KafkaTestCluster kafka) {
            SEEN.put(Isolated.class, kafka.bootstrapServers());
        }
    }

    @Order(4)
    @KafkaTest
    static class LeavesANodeStopped {
        @Test
        void stopsTheNode(EmbeddedKafkaCluster kafka) {
            SEEN.put(LeavesANodeStopped.class, kafka.bootstrapServers());
            kafka.stop(kafka.nodeIds().get(0));
        }
    }

    @Order(5)
    @KafkaTest
    static class After {
        @Test
        void records(KafkaTestCluster kafka) {
            kafka.createTopic("after", 1);
            SEEN.put(After.class, kafka.bootstrapServers());
        }
    }

    @Test
    void classesOfOneSpecificationShareAClusterUnlessIsolatedOrLeftBroken() {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(List.of(selectClass(SharingOne.class), selectClass(SharingTwo.class), selectClass(Isolated.class),
                        selectClass(LeavesANodeStopped.class), selectClass(After.class)))
                .configurationParameter(KafkaTestExtension.SHARE_CLUSTERS, "true")
                .configurationParameter("junit.jupiter.testclass.order.default", ClassOrderer.OrderAnnotation.class.getName())
                .build();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        LauncherFactory.create().execute(request, listener);
        TestExecutionSummary summary = listener.getSummary();

        assertThat(summary.getTestsSucceededCount()).as("the sample tests").isEqualTo(5);
        assertThat(summary.getFailures()).as("what failed").hasSize(1);
        assertThat(summary.getFailures().get(0).getException()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("LeavesANodeStopped").hasMessageContaining("isolated = true");
        assertThat(SEEN.get(SharingTwo.class)).as("the second class's cluster").isEqualTo(SEEN.get(SharingOne.class));
        assertThat(SEEN.get(LeavesANodeStopped.class)).isEqualTo(SEEN.get(SharingOne.class));
        assertThat(SEEN.get(Isolated.class)).as("an isolated class's cluster").isNotEqualTo(SEEN.get(SharingOne.class));
        assertThat(SEEN.get(After.class)).as("the cluster after one left broken")
                .isNotEqualTo(SEEN.get(SharingOne.class)).isNotEqualTo(SEEN.get(Isolated.class));
    }
}
