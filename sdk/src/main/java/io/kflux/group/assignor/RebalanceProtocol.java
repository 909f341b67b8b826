package io.kflux.group.assignor;

/**
 * How a group moves partitions between members during a rebalance (classic group protocol).
 *
 * <p>Declared in this order on purpose: the member picks the <em>last</em> protocol that every configured
 * assignor supports (see {@link Assignors#commonProtocol}), as the official client does.
 */
public enum RebalanceProtocol {
    /**
     * Every member revokes all its partitions before it joins; the leader's assignment is applied at once.
     */
    EAGER,
    /**
     * Incremental cooperative rebalancing (KIP-429): members keep their partitions while the group rebalances,
     * revoke only those the new assignment takes away, and rejoin so the partitions they gave up can be handed out
     * in a follow-up rebalance.
     */
    COOPERATIVE
}
