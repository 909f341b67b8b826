package io.kflux.group;

import io.kflux.metadata.Cluster;
import java.util.Set;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Everything the group member asks of the network and metadata layers, behind one seam so that the state machine
 * can be driven by a scripted coordinator in tests (virtual time, no sockets). {@link NetworkGroupIo} is the real
 * one. Monos may signal on any thread; the member hops back onto its event loop.
 */
interface GroupIo extends CoordinatorIo {

    /** The latest metadata snapshot. */
    Cluster cluster();

    /** Sets the topics the metadata must cover; {@code all} for every topic (pattern subscriptions). */
    void interest(Set<String> topics, boolean all);

    /** A fresh metadata snapshot; fails when no broker answers. */
    Mono<Cluster> refreshMetadata();

    /** Every new metadata snapshot, whoever asked for it (the consumer refreshes every {@code metadata.max.age.ms}). */
    Flux<Cluster> metadataUpdates();
}
