package io.kflux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.internal.AckHandle;
import io.kflux.internal.Records;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

class ValueTypesTest {

    @Test
    void topicPartition() {
        TopicPartition tp = new TopicPartition("orders", 3);
        assertThat(tp).hasToString("orders-3").isEqualTo(new TopicPartition("orders", 3));
        assertThat(tp.hashCode()).isEqualTo(new TopicPartition("orders", 3).hashCode());
        assertThatThrownBy(() -> new TopicPartition(null, 0)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new TopicPartition("t", -1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void offsets() {
        assertThat(new OffsetAndMetadata(5)).isEqualTo(new OffsetAndMetadata(5, ""));
        assertThat(new OffsetAndMetadata(5, null).metadata()).isEmpty();
        assertThatThrownBy(() -> new OffsetAndMetadata(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new OffsetAndTimestamp(1, 2)).isEqualTo(new OffsetAndTimestamp(1, 2));
        assertThatThrownBy(() -> new OffsetAndTimestamp(1, -1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void offsetsCarryAnOptionalLeaderEpoch() {
        assertThat(new OffsetAndMetadata(5, "m").leaderEpoch()).isEmpty();
        assertThat(new OffsetAndMetadata(5, "m", null)).isEqualTo(new OffsetAndMetadata(5, "m"));
        OffsetAndMetadata withEpoch = new OffsetAndMetadata(5, "m", Optional.of(7));
        assertThat(withEpoch.leaderEpoch()).contains(7);
        assertThat(withEpoch).as("equality includes the epoch").isNotEqualTo(new OffsetAndMetadata(5, "m"))
                .isEqualTo(new OffsetAndMetadata(5, "m", Optional.of(7)));
        assertThat(new OffsetAndMetadata(5, null, Optional.of(0)).metadata()).isEmpty();
        assertThatThrownBy(() -> new OffsetAndMetadata(5, "", Optional.of(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void headerEqualityIsOverContents() {
        Header a = new Header("k", new byte[] {1, 2});
        Header b = new Header("k", new byte[] {1, 2});
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a).isNotEqualTo(new Header("k", new byte[] {1, 3})).isNotEqualTo(new Header("j", new byte[] {1, 2}));
        assertThat(new Header("k", null)).isEqualTo(new Header("k", null)).isNotEqualTo(new Header("k", new byte[0]));
        assertThat(Header.of("k", "v").valueAsString()).isEqualTo("v");
        assertThat(a.toString()).contains("2 bytes");
        assertThatThrownBy(() -> new Header(null, null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void headers() {
        Header h1 = Header.of("a", "1");
        Header h2 = Header.of("b", "2");
        Header h3 = Header.of("a", "3");
        Header[] arr = {h1, h2, h3};
        Headers hs = Headers.of(arr);
        arr[0] = h2; // the array was copied
        assertThat(hs.size()).isEqualTo(3);
        assertThat(hs).containsExactly(h1, h2, h3);
        assertThat(hs.lastHeader("a")).isEqualTo(h3);
        assertThat(hs.lastHeader("zz")).isNull();
        assertThat(hs.headers("a")).containsExactly(h1, h3);
        assertThat(hs.headers("zz")).isEmpty();
        assertThat(hs).isEqualTo(Headers.of(List.of(h1, h2, h3))).hasSameHashCodeAs(Headers.of(List.of(h1, h2, h3)));
        assertThat(Headers.empty().size()).isZero();
        assertThat(Headers.of()).isSameAs(Headers.empty());
        assertThatThrownBy(() -> hs.iterator().remove()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> hs.headers("a").add(h2)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void timestampType() {
        assertThat(TimestampType.forId(1)).isEqualTo(TimestampType.LOG_APPEND_TIME);
        assertThat(TimestampType.fromAttributeBit(false)).isEqualTo(TimestampType.CREATE_TIME);
        assertThatThrownBy(() -> TimestampType.forId(2)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void recordAccessorsAndAcks() {
        List<String> calls = new ArrayList<>();
        AckHandle handle = new AckHandle() {
            @Override
            public void acknowledge(TopicPartition tp, long offset) {
                calls.add("ack " + tp + "@" + offset);
            }

            @Override
            public Mono<Void> commit(TopicPartition tp, long offset) {
                calls.add("commit " + tp + "@" + offset);
                return Mono.empty();
            }
        };
        TopicPartition tp = new TopicPartition("t", 2);
        ConsumerRecord<String, String> r = Records.attached(tp, 10, 1234L, TimestampType.CREATE_TIME, "k", "v",
                                                            Headers.of(Header.of("h", "x")), 7, 1, 1, handle);
        assertThat(r.topic()).isEqualTo("t");
        assertThat(r.partition()).isEqualTo(2);
        assertThat(r.topicPartition()).isSameAs(tp);
        assertThat(r.offset()).isEqualTo(10);
        assertThat(r.timestamp()).isEqualTo(1234L);
        assertThat(r.timestampType()).isEqualTo(TimestampType.CREATE_TIME);
        assertThat(r.key()).isEqualTo("k");
        assertThat(r.value()).isEqualTo("v");
        assertThat(r.headers().lastHeader("h").valueAsString()).isEqualTo("x");
        assertThat(r.leaderEpoch()).contains(7);
        assertThat(r.serializedKeySize()).isEqualTo(1);
        assertThat(r.toString()).contains("t-2@10").doesNotContain("=k");

        r.acknowledge();
        Mono<Void> commit = r.commit();
        assertThat(calls).containsExactly("ack t-2@10"); // commit is lazy
        StepVerifier.create(commit).verifyComplete();
        assertThat(calls).containsExactly("ack t-2@10", "commit t-2@10");

        ConsumerRecord<String, String> detached = new ConsumerRecord<>("t", 0, 1, null, "v");
        detached.acknowledge();
        assertThat(detached.leaderEpoch()).isEmpty();
        assertThat(detached.headers()).isSameAs(Headers.empty());
        StepVerifier.create(detached.commit()).verifyError(IllegalStateException.class);

        // the public full constructor makes a detached record too (tests of application code)
        ConsumerRecord<String, String> full = new ConsumerRecord<>(tp, 10, 1234L, TimestampType.CREATE_TIME, "k", "v",
                                                                   null, 7, 1, 1);
        full.acknowledge();
        assertThat(full.leaderEpoch()).contains(7);
        assertThat(full.headers()).isSameAs(Headers.empty());
        StepVerifier.create(full.commit()).verifyError(IllegalStateException.class);
    }

    @Test
    void partitionFluxDelegates() {
        TopicPartition tp = new TopicPartition("t", 0);
        ConsumerRecord<String, String> r = new ConsumerRecord<>("t", 0, 1, "k", "v");
        PartitionFlux<String, String> pf = PartitionFlux.of(tp, Flux.just(r));
        assertThat(pf.topicPartition()).isEqualTo(tp);
        StepVerifier.create(pf.map(ConsumerRecord::value)).expectNext("v").verifyComplete();
    }

    @Test
    void exceptions() {
        KafkaProtocolException e = new KafkaProtocolException((short) 29, "TOPIC_AUTHORIZATION_FAILED", false, "fetch t");
        assertThat(e.errorCode()).isEqualTo((short) 29);
        assertThat(e.errorName()).isEqualTo("TOPIC_AUTHORIZATION_FAILED");
        assertThat(e.isRetriable()).isFalse();
        assertThat(e).isInstanceOf(KafkaFluxException.class).hasMessageContaining("29");
        assertThat(new UnknownTopicOrPartitionException(null, "x").isRetriable()).isTrue();
        assertThat(new UnknownTopicOrPartitionException(null, "x").errorCode()).isEqualTo((short) 3);
        assertThat(new InvalidTopicException(java.util.Set.of("a b"), "bad").errorCode()).isEqualTo((short) 17);
        assertThat(new TimeoutException("t").isRetriable()).isTrue();
        assertThat(new CommitFailedException("c").isRetriable()).isFalse();
        TopicPartition tp = new TopicPartition("t", 1);
        RecordDeserializationException d = new RecordDeserializationException(tp, 5, RecordDeserializationException.Origin.VALUE,
                                                                              new IllegalArgumentException("boom"));
        assertThat(d.topicPartition()).isEqualTo(tp);
        assertThat(d.offset()).isEqualTo(5);
        assertThat(d).hasMessageContaining("t-1").hasMessageContaining("5").hasCauseInstanceOf(IllegalArgumentException.class);
        assertThat(d.keyBuffer()).isNull();
        assertThat(d.valueBuffer()).isNull();
        assertThat(d.headers()).isSameAs(Headers.empty());
        assertThat(d.timestamp()).isEqualTo(ConsumerRecord.NO_TIMESTAMP);
        byte[] raw = {1, 2, 3};
        RecordDeserializationException withData = new RecordDeserializationException(tp, 5,
                RecordDeserializationException.Origin.KEY, null, raw, null, null, 7L, TimestampType.LOG_APPEND_TIME);
        java.nio.ByteBuffer key = withData.keyBuffer();
        assertThat(key.isReadOnly()).isTrue();
        assertThat(key.remaining()).isEqualTo(3);
        key.get();
        assertThat(withData.keyBuffer().remaining()).as("a new buffer per call").isEqualTo(3);
        assertThat(withData.valueBuffer()).isNull();
        assertThat(withData.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
        OffsetOutOfRangeException o = new OffsetOutOfRangeException(Map.of(tp, 99L));
        assertThat(o.offsets()).containsEntry(tp, 99L);
        ConfigException c = new ConfigException("k", "v", "something else");
        assertThat(c).hasMessageContaining("k").hasMessageContaining("v").hasMessageContaining("something else");
    }
}
