package io.kflux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.CommitFailedException;
import io.kflux.ConsumerOptions;
import io.kflux.KafkaFluxConsumer;
import io.kflux.OffsetAndMetadata;
import io.kflux.TimeoutException;
import io.kflux.TopicPartition;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * commit(Map) by a group consumer that never got into the group: the error must say so, not blame a rebalance.
 * No broker: the bootstrap address refuses connections, so the member keeps looking for its coordinator.
 */
class CommitWithoutMembershipTest {

    @Test
    void aMemberThatNeverJoinedSaysSoWhenACommitIsRefused() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        ConsumerOptions<byte[], byte[]> options = ConsumerOptions.create(Map.of(
                        "bootstrap.servers", "127.0.0.1:" + closedPort, "group.id", "g",
                        "default.api.timeout.ms", 300, "reconnect.backoff.max.ms", 100))
                .subscription(List.of("t"));
        KafkaFluxConsumer<byte[], byte[]> consumer = KafkaFluxConsumer.create(options);
        Map<TopicPartition, OffsetAndMetadata> offsets = Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(5, ""));
        Disposable receiving = consumer.receive().subscribe(r -> { }, e -> { });
        try {
            // Until the subscription's member is in place a commit is sent without membership and times out.
            Throwable refused = Mono.defer(() -> consumer.commit(offsets))
                    .retryWhen(Retry.fixedDelay(50, Duration.ofMillis(50))
                            .filter(e -> e instanceof TimeoutException))
                    .then(Mono.<Throwable>empty())
                    .onErrorResume(Mono::just)
                    .block(Duration.ofSeconds(30));
            assertThat(refused).isInstanceOf(CommitFailedException.class);
            assertThat(refused.getMessage()).contains("t-0").contains("never joined the group")
                    .doesNotContain("rebalanced");

            receiving.dispose();
            // Right after the cancel the member may still be leaving: still "never joined". Once it is gone, the
            // commit is sent without membership (as the official consumer's after unsubscribe) and times out here.
            Throwable afterCancel = consumer.commit(offsets).then(Mono.<Throwable>empty())
                    .onErrorResume(Mono::just).block(Duration.ofSeconds(30));
            if (afterCancel instanceof CommitFailedException) {
                assertThat(afterCancel.getMessage()).contains("never joined the group").doesNotContain("rebalanced");
            } else {
                assertThat(afterCancel).isInstanceOf(TimeoutException.class);
            }
        } finally {
            receiving.dispose();
            consumer.close().block(Duration.ofSeconds(30));
        }
    }
}
