/**
 * Layer 4: consumer group membership. {@link io.kflux.group.ClassicGroupMember} is the client side of the classic
 * group protocol (FindCoordinator, JoinGroup, SyncGroup, Heartbeat, LeaveGroup) as independent loops on the
 * consumer's event loop; it reports ownership changes through {@link io.kflux.group.GroupListener}. Assignors and
 * the consumer protocol's embedded formats live in {@code io.kflux.group.assignor}.
 */
package io.kflux.group;
