package io.kflux.group.assignor;

import io.kflux.TopicPartition;
import java.util.Comparator;
import java.util.Map;

/** Shared helpers of the built-in assignors. */
final class Partitions {
    private Partitions() {
    }

    /** By topic, then partition number: the order assignments are handed out in. */
    static final Comparator<TopicPartition> ORDER =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    /**
     * Static members first (by group.instance.id), then dynamic ones by member id: the official client's member
     * order ({@code AbstractPartitionAssignor.MemberInfo}) for range and roundrobin, so a restarting static member
     * (new member id, same instance id) gets the same partitions back.
     */
    static Comparator<String> memberOrder(Map<String, Subscription> subscriptions) {
        return (a, b) -> {
            String ia = subscriptions.get(a).groupInstanceId();
            String ib = subscriptions.get(b).groupInstanceId();
            if (ia != null && ib != null) {
                return ia.compareTo(ib);
            } else if (ia != null) {
                return -1;
            } else if (ib != null) {
                return 1;
            }
            return a.compareTo(b);
        };
    }

}
