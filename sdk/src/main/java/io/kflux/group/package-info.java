/**
 * Layer 4: consumer group membership, one member per protocol, each a pure core (state in one checked enum, events in,
 * decisions out, time passed in) and a driver that does the I/O on the consumer's event loop:
 * {@link io.kflux.group.ClassicGroupMember} (classic protocol: FindCoordinator, JoinGroup, SyncGroup, Heartbeat,
 * LeaveGroup; core {@code ClassicMembership}), {@link io.kflux.group.ConsumerGroupMember} (KIP-848, core
 * {@code ConsumerMembership}) and {@link io.kflux.group.ShareGroupMember} (KIP-932 share groups, core
 * {@code ShareMemberCore}). What they share lives once: the coordinator ({@code CoordinatorManager},
 * {@code CoordinatorLink}), the session ({@code SessionTimer}), the broker-driven heartbeat timing
 * ({@code HeartbeatCadence}) and the metadata watch ({@code io.kflux.metadata.SubscriptionWatch}). Members report
 * ownership changes through {@link io.kflux.group.GroupListener} (the share member through its own listener).
 * Assignors and the consumer protocol's embedded formats live in {@code io.kflux.group.assignor}.
 */
package io.kflux.group;
