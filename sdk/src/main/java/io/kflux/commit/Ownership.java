package io.kflux.commit;

import io.kflux.TopicPartition;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What the member owns, read once for one commit decision. Whether the group manages the assignment, what it owns
 * and why the rest is not owned must come from the same reading of the member: read one by one, a member leaving
 * in between made a subscribed consumer's refusal say "not in the manual assignment".
 *
 * @param groupManaged true while a group member manages the assignment (only then are other partitions refused)
 * @param owned the partitions the member owns in this reading
 * @param notOwnedReason why other partitions cannot be committed, for the {@code CommitFailedException} message
 */
public record Ownership(boolean groupManaged, Set<TopicPartition> owned, Supplier<String> notOwnedReason) {
    /** No membership: any partition may be committed (manual assignment, or between subscriptions). */
    public static Ownership unmanaged(Set<TopicPartition> assigned) {
        return new Ownership(false, assigned, () -> "they are not in the manual assignment");
    }
}
