package io.kflux.group.assignor;

import io.kflux.TopicPartition;
import io.kflux.protocol.consumer.CooperativeStickyAssignorUserData;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code "cooperative-sticky"} assignor: the sticky assignment (KIP-54, see {@link StickyAssignor}) made safe
 * for incremental cooperative rebalancing (KIP-429). Supports {@link RebalanceProtocol#COOPERATIVE} and
 * {@link RebalanceProtocol#EAGER}.
 *
 * <p>Held partitions come from {@link Subscription#ownedPartitions()}; the generation from
 * {@link Subscription#generationId()} (subscription v2+) or, for members sending older subscriptions, from the
 * user data, which holds only the last generation as an int32 ({@link CooperativeStickyAssignorUserData}, the
 * official format).
 *
 * <p>The KIP-429 rule: a partition that another member still claims to own is never handed to its new owner in
 * the same rebalance. It is left out of everyone's assignment, its owner sees it missing and revokes it, rejoins,
 * and the follow-up rebalance gives it to the new owner. So in a single round a member may get fewer partitions
 * than the balanced share; the group converges after the follow-up round.
 *
 * <p>When the group runs the eager protocol (another configured assignor is eager-only), members revoke everything
 * before joining and send no owned partitions, so nothing is withheld and nothing is sticky, as with the official
 * client. Not rack-aware yet (see {@link StickyAssignor}).
 *
 * <p>Keeps the last generation: use one instance per consumer.
 */
public final class CooperativeStickyAssignor extends AbstractStickyAssignor {

    /** The protocol name, {@value}. */
    public static final String NAME = "cooperative-sticky";

    private int generation = CooperativeStickyAssignorUserData.DEFAULT_GENERATION;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<RebalanceProtocol> supportedProtocols() {
        return List.of(RebalanceProtocol.COOPERATIVE, RebalanceProtocol.EAGER);
    }

    /** The last generation (-1 before the first assignment), read by leaders only for v0/v1 subscriptions. */
    @Override
    public byte[] subscriptionUserData(Set<String> topics) {
        return CooperativeStickyAssignorUserData.serialize(generation);
    }

    @Override
    public void onAssignment(Assignment assignment, int generationId) {
        generation = generationId;
    }

    @Override
    MemberData memberData(Subscription subscription) {
        // v2+ subscriptions carry the generation; older ones only have it in the user data
        int gen = subscription.generationId() >= 0
                ? subscription.generationId()
                : CooperativeStickyAssignorUserData.deserialize(subscription.userData());
        return new MemberData(subscription.ownedPartitions(), gen);
    }

    @Override
    public GroupAssignment assign(ClusterTopics topics, Map<String, Subscription> subscriptions) {
        Map<TopicPartition, String> holders = new HashMap<>();
        Map<TopicPartition, Set<String>> claimants = new HashMap<>();
        Map<String, List<TopicPartition>> assignment = stickyAssign(topics, subscriptions, holders, claimants);
        // KIP-429: a partition someone else still claims must be revoked by them before anyone else may have it
        assignment.forEach((member, partitions) -> partitions.removeIf(tp -> {
            Set<String> claiming = claimants.get(tp);
            if (claiming == null || member.equals(holders.get(tp))) {
                return false;
            }
            return claiming.size() > 1 || !claiming.contains(member);
        }));
        return toGroupAssignment(assignment);
    }
}
