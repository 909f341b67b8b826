package io.kflux.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.metadata.Cluster;
import io.kflux.network.BrokerConnection;
import io.kflux.network.DisconnectedException;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.FindCoordinatorResponse;
import io.kflux.protocol.message.HeartbeatRequest;
import io.kflux.protocol.message.HeartbeatResponse;
import io.kflux.protocol.message.LeaveGroupRequest;
import io.kflux.protocol.message.LeaveGroupResponse;
import io.kflux.protocol.message.MetadataResponse;
import io.kflux.protocol.message.MetadataResponse.MetadataResponseBroker;
import io.kflux.protocol.message.MetadataResponse.MetadataResponsePartition;
import io.kflux.protocol.message.MetadataResponse.MetadataResponseTopic;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A scripted group coordinator and metadata source: every FindCoordinator and every request the member sends waits
 * until the test answers it (heartbeats and LeaveGroup are answered automatically unless told otherwise). Answers
 * are emitted on the test thread, so with a SerialExecutor loop and a virtual-time scheduler each step is
 * deterministic.
 */
final class FakeGroupIo implements GroupIo {
    final Deque<Sinks.One<FindCoordinatorResponse.Coordinator>> finds = new ArrayDeque<>();
    int findCount;
    final List<FakeChannel> channels = new ArrayList<>();
    Function<Integer, Mono<CoordinatorChannel>> connector;
    volatile Cluster cluster = Cluster.EMPTY;
    Set<String> interestTopics = Set.of();
    boolean interestAll;
    int refreshCount;
    /** When set, refreshes wait for the test (see {@link #answerRefresh}); else they answer {@link #cluster}. */
    boolean holdRefreshes;
    final Deque<Sinks.One<Cluster>> refreshes = new ArrayDeque<>();
    /** What {@link #metadataUpdates()} emits: each answered refresh, and {@link #publish()}. */
    final Sinks.Many<Cluster> updates = Sinks.many().multicast().directBestEffort();
    /** Answer to heartbeats; null leaves them pending. */
    Function<HeartbeatRequest, Object> heartbeatAnswer = h -> new HeartbeatResponse(0, (short) 0);

    FakeGroupIo() {
        connector = node -> {
            FakeChannel ch = new FakeChannel(node);
            channels.add(ch);
            return Mono.just(ch);
        };
    }

    @Override
    public Mono<FindCoordinatorResponse.Coordinator> findCoordinator(String groupId) {
        Sinks.One<FindCoordinatorResponse.Coordinator> sink = Sinks.one();
        finds.add(sink);
        findCount++;
        return sink.asMono();
    }

    void answerFind(int nodeId) {
        answerFind(nodeId, Errors.NONE);
    }

    void answerFind(int nodeId, Errors error) {
        Sinks.One<FindCoordinatorResponse.Coordinator> sink = finds.poll();
        assertThat(sink).as("a FindCoordinator is pending").isNotNull();
        sink.tryEmitValue(new FindCoordinatorResponse.Coordinator("g", error == Errors.NONE ? nodeId : -1, "broker" + nodeId,
                9092, error.code(), ""));
    }

    void failFind(Throwable e) {
        Sinks.One<FindCoordinatorResponse.Coordinator> sink = finds.poll();
        assertThat(sink).as("a FindCoordinator is pending").isNotNull();
        sink.tryEmitError(e);
    }

    @Override
    public Mono<CoordinatorChannel> connectCoordinator(int nodeId, String host, int port) {
        return connector.apply(nodeId);
    }

    FakeChannel channel() {
        assertThat(channels).as("a coordinator connection").isNotEmpty();
        return channels.get(channels.size() - 1);
    }

    @Override
    public Cluster cluster() {
        return cluster;
    }

    @Override
    public void interest(Set<String> topics, boolean all) {
        interestTopics = Set.copyOf(topics);
        interestAll = all;
    }

    @Override
    public Mono<Cluster> refreshMetadata() {
        refreshCount++;
        if (!holdRefreshes) {
            return Mono.fromSupplier(() -> cluster).doOnNext(updates::tryEmitNext);
        }
        Sinks.One<Cluster> sink = Sinks.one();
        refreshes.add(sink);
        return sink.asMono().doOnNext(updates::tryEmitNext);
    }

    @Override
    public Flux<Cluster> metadataUpdates() {
        return updates.asFlux();
    }

    /** A refresh someone else made (the consumer's periodic one) produced {@link #cluster}. */
    void publish() {
        updates.tryEmitNext(cluster);
    }

    void answerRefresh() {
        Sinks.One<Cluster> sink = refreshes.poll();
        assertThat(sink).as("a metadata refresh is pending").isNotNull();
        sink.tryEmitValue(cluster);
    }

    /** A snapshot with broker 1 and these topics (name -> partition count; a negative count: UNKNOWN_TOPIC). */
    static Cluster cluster(Map<String, Integer> topics, String... internal) {
        List<MetadataResponseTopic> list = new ArrayList<>();
        topics.forEach((name, count) -> {
            List<MetadataResponsePartition> ps = new ArrayList<>();
            for (int p = 0; p < Math.max(count, 0); p++) {
                ps.add(new MetadataResponsePartition((short) 0, p, 1, 0, List.of(1), List.of(1), List.of()));
            }
            short error = count < 0 ? Errors.UNKNOWN_TOPIC_OR_PARTITION.code() : 0;
            list.add(new MetadataResponseTopic(error, name, UUID.randomUUID(), List.of(internal).contains(name), ps, 0));
        });
        MetadataResponse r = new MetadataResponse(0, List.of(new MetadataResponseBroker(1, "broker1", 9092, null)),
                "cluster", 1, list, 0, (short) 0);
        return Cluster.from(r, Cluster.EMPTY, false, System.nanoTime());
    }

    /** A snapshot with broker 1 and these topics (name -> topic id), each with 2 partitions. */
    static Cluster clusterWithIds(Map<String, UUID> topics) {
        List<MetadataResponseTopic> list = new ArrayList<>();
        topics.forEach((name, id) -> list.add(new MetadataResponseTopic((short) 0, name, id, false, List.of(
                new MetadataResponsePartition((short) 0, 0, 1, 0, List.of(1), List.of(1), List.of()),
                new MetadataResponsePartition((short) 0, 1, 1, 0, List.of(1), List.of(1), List.of())), 0)));
        MetadataResponse r = new MetadataResponse(0, List.of(new MetadataResponseBroker(1, "broker1", 9092, null)),
                "cluster", 1, list, 0, (short) 0);
        return Cluster.from(r, Cluster.EMPTY, false, System.nanoTime());
    }

    /** A snapshot with broker 1 where each of these topics has only its topic-level error and no partitions. */
    static Cluster clusterWithErrors(Map<String, Errors> topics) {
        List<MetadataResponseTopic> list = new ArrayList<>();
        topics.forEach((name, error) -> list.add(new MetadataResponseTopic(error.code(), name, UUID.randomUUID(), false,
                List.of(), 0)));
        MetadataResponse r = new MetadataResponse(0, List.of(new MetadataResponseBroker(1, "broker1", 9092, null)),
                "cluster", 1, list, 0, (short) 0);
        return Cluster.from(r, Cluster.EMPTY, false, System.nanoTime());
    }

    /** One coordinator connection: requests queue until answered. */
    final class FakeChannel implements CoordinatorChannel {
        final int nodeId;
        final List<Pending<?>> pending = new ArrayList<>();
        final List<Object> sent = new ArrayList<>();
        final Sinks.Empty<Void> closed = Sinks.empty();

        FakeChannel(int nodeId) {
            this.nodeId = nodeId;
        }

        @SuppressWarnings("unchecked")
        @Override
        public <R> Mono<R> send(ApiRequest<R> request, long timeoutMs) {
            sent.add(request);
            if (request instanceof HeartbeatRequest h && heartbeatAnswer != null) {
                Object answer = heartbeatAnswer.apply(h);
                if (answer instanceof Throwable t) {
                    return Mono.error(t);
                }
                if (answer != null) {
                    return Mono.just((R) answer);
                }
            }
            if (request instanceof LeaveGroupRequest) {
                return Mono.just((R) new LeaveGroupResponse(0, (short) 0, List.of()));
            }
            Pending<R> p = new Pending<>(request, timeoutMs, Sinks.one());
            pending.add(p);
            return p.sink.asMono();
        }

        /** The oldest pending request of {@code type}, removed from the pending list. */
        @SuppressWarnings("unchecked")
        <Q> Pending<?> take(Class<Q> type) {
            for (Iterator<Pending<?>> it = pending.iterator(); it.hasNext(); ) {
                Pending<?> p = it.next();
                if (type.isInstance(p.request)) {
                    it.remove();
                    return p;
                }
            }
            throw new AssertionError("no pending " + type.getSimpleName() + "; sent: " + sent);
        }

        boolean hasPending(Class<?> type) {
            return pending.stream().anyMatch(p -> type.isInstance(p.request));
        }

        <Q> List<Q> sent(Class<Q> type) {
            return sent.stream().filter(type::isInstance).map(type::cast).toList();
        }

        /** The connection drops: pending requests fail with DisconnectedException, onClose completes. */
        void drop() {
            List<Pending<?>> all = new ArrayList<>(pending);
            pending.clear();
            all.forEach(p -> p.sink.tryEmitError(new DisconnectedException("connection to broker dropped")));
            closed.tryEmitEmpty();
        }

        @Override
        public Mono<Void> onClose() {
            return closed.asMono();
        }

        @Override
        public BrokerConnection connection() {
            return null;
        }

        @Override
        public int nodeId() {
            return nodeId;
        }
    }

    record Pending<R>(ApiRequest<R> request, long timeoutMs, Sinks.One<R> sink) {
        @SuppressWarnings("unchecked")
        void answer(Object response) {
            sink.tryEmitValue((R) response);
        }

        void fail(Throwable e) {
            sink.tryEmitError(e);
        }

        @SuppressWarnings("unchecked")
        <Q> Q request(Class<Q> type) {
            return (Q) request;
        }
    }
}
