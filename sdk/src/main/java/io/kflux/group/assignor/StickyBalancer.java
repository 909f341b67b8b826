package io.kflux.group.assignor;

import io.kflux.TopicPartition;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The balancing core of the sticky assignors (KIP-54): a balanced assignment that keeps as many of the members'
 * current partitions as it can. Works on dense indexes (members by sorted id, partitions by topic then number) so
 * it stays cheap for thousands of partitions and hundreds of members.
 *
 * <p>Two cases, as in the official {@code AbstractStickyAssignor}:
 * <ul>
 *   <li>Every member subscribes to the same topics: every member ends with {@code floor(P/N)} or
 *       {@code ceil(P/N)} partitions. The {@code P mod N} larger quotas go to the members that currently hold the
 *       most, which maximises the partitions that stay put; each member keeps up to its quota of what it holds
 *       and the rest is dealt round-robin to the members below quota.</li>
 *   <li>Otherwise: every member keeps what it holds (of topics it still subscribes to); the remaining partitions,
 *       topics with the fewest eligible members first, go to the least loaded eligible member; then partitions
 *       move from a member to an eligible one holding at least two fewer, newly placed partitions first and
 *       previously held ones only when that is not enough, until no such move is left. That end state is the
 *       official assignor's definition of "balanced".</li>
 * </ul>
 *
 * <p>Rack-aware (KIP-881) when members declare a rack ({@code client.rack}), some partition's replicas share a rack
 * with some member, and not every partition has replicas on the same racks as the others (else no member could be
 * closer to one partition than to another). The priorities are those of the official assignors: balance first, then
 * locality, then stickiness. With equal subscriptions, each member first keeps, up to its quota, the partitions it
 * holds that have a replica in its rack; the unassigned partitions then go to members below quota in a rack of
 * theirs (the one furthest below quota first); only then do members keep held partitions outside their rack, and the
 * rest is dealt as without racks. With different subscriptions, a new partition goes to the least loaded eligible
 * member as before, preferring one in a rack of the partition among equally loaded ones; that is only a tie-break
 * (in randomized comparisons the official assignor places 1-5% more partitions locally there, while with equal
 * subscriptions kflux places at least as many). More than 64 distinct racks turn rack-awareness off (a bit mask per
 * partition).
 *
 * <p><b>Why one class past 500 lines.</b> The two cases and the rack-aware pass work on the same dense index arrays
 * (members, partitions, eligibility, current holders, racks) built once in the constructor; split apart, each part
 * would take or rebuild all of them.
 */
final class StickyBalancer {

    private final String[] members;
    private final String[] topics;
    private final int[] topicOffset;
    private final int totalPartitions;
    private final BitSet[] memberTopics;
    private final int[][] eligible;
    /** Per partition index: the member that holds it and may keep it (subscribed), -1 when none. */
    private final int[] keepable;
    /** Per member: its rack's index, -1 without one; null when the assignment is not rack-aware. */
    private final int[] memberRack;
    /** Per partition index: bit r set when a replica is in rack r; null when not rack-aware. */
    private final long[] partitionRacks;

    /**
     * @param partitionCounts partition count (&gt; 0) of every topic to assign (subscribed by at least one member)
     * @param topicsByMember  every member's subscribed topics, restricted to {@code partitionCounts}' keys
     * @param holders         each partition's current holder, when there is one the assignor trusts
     * @param memberRacks     the rack of each member that declared one
     * @param metadata        the racks of the partitions' replicas
     */
    StickyBalancer(Map<String, Integer> partitionCounts, Map<String, Set<String>> topicsByMember,
                   Map<TopicPartition, String> holders, Map<String, String> memberRacks, ClusterTopics metadata) {
        members = new TreeSet<>(topicsByMember.keySet()).toArray(String[]::new);
        topics = new TreeSet<>(partitionCounts.keySet()).toArray(String[]::new);
        Map<String, Integer> topicIndex = new HashMap<>();
        topicOffset = new int[topics.length + 1];
        for (int t = 0; t < topics.length; t++) {
            topicIndex.put(topics[t], t);
            topicOffset[t + 1] = topicOffset[t] + partitionCounts.get(topics[t]);
        }
        totalPartitions = topicOffset[topics.length];

        Map<String, Integer> memberIndex = new HashMap<>();
        memberTopics = new BitSet[members.length];
        int[] eligibleCount = new int[topics.length];
        for (int m = 0; m < members.length; m++) {
            memberIndex.put(members[m], m);
            memberTopics[m] = new BitSet(topics.length);
            for (String topic : topicsByMember.get(members[m])) {
                int t = topicIndex.get(topic);
                memberTopics[m].set(t);
                eligibleCount[t]++;
            }
        }
        eligible = new int[topics.length][];
        for (int t = 0; t < topics.length; t++) {
            eligible[t] = new int[eligibleCount[t]];
            eligibleCount[t] = 0;
        }
        for (int m = 0; m < members.length; m++) {
            for (int t = memberTopics[m].nextSetBit(0); t >= 0; t = memberTopics[m].nextSetBit(t + 1)) {
                eligible[t][eligibleCount[t]++] = m;
            }
        }

        keepable = new int[totalPartitions];
        Arrays.fill(keepable, -1);
        holders.forEach((tp, member) -> {
            Integer t = topicIndex.get(tp.topic());
            Integer m = memberIndex.get(member);
            if (t != null && m != null && tp.partition() < partitionCounts.get(tp.topic()) && memberTopics[m].get(t)) {
                keepable[topicOffset[t] + tp.partition()] = m;
            }
        });

        long[] racksByPartition = null;
        int[] rackByMember = null;
        Map<String, Integer> rackIndex = new HashMap<>();
        memberRacks.values().forEach(r -> rackIndex.putIfAbsent(r, rackIndex.size()));
        if (!rackIndex.isEmpty()) {
            racksByPartition = new long[totalPartitions];
            for (int t = 0; t < topics.length && racksByPartition != null; t++) {
                for (int i = topicOffset[t]; i < topicOffset[t + 1]; i++) {
                    for (String rack : metadata.racksOf(new TopicPartition(topics[t], i - topicOffset[t]))) {
                        rackIndex.putIfAbsent(rack, rackIndex.size());
                        int r = rackIndex.get(rack);
                        if (r >= Long.SIZE) {
                            racksByPartition = null;
                            break;
                        }
                        racksByPartition[i] |= 1L << r;
                    }
                    if (racksByPartition == null) {
                        break;
                    }
                }
            }
        }
        if (racksByPartition != null) {
            rackByMember = new int[members.length];
            long memberMask = 0;
            for (int m = 0; m < members.length; m++) {
                String rack = memberRacks.get(members[m]);
                rackByMember[m] = rack == null ? -1 : rackIndex.get(rack);
                memberMask |= rack == null ? 0 : 1L << rackByMember[m];
            }
            long all = 0;
            for (long racks : racksByPartition) {
                all |= racks;
            }
            boolean someOnSubset = false;
            for (int i = 0; i < totalPartitions && !someOnSubset; i++) {
                someOnSubset = racksByPartition[i] != all;
            }
            if ((all & memberMask) == 0 || !someOnSubset) {
                racksByPartition = null;
                rackByMember = null;
            }
        }
        partitionRacks = racksByPartition;
        memberRack = rackByMember;
    }

    /** True when member {@code m} is in a rack holding a replica of partition index {@code i}. */
    private boolean inRack(int m, int i) {
        return memberRack != null && memberRack[m] >= 0 && (partitionRacks[i] & (1L << memberRack[m])) != 0;
    }

    /** The assignment: every member id of the input, with its partitions sorted by topic then number. */
    Map<String, List<TopicPartition>> assign() {
        int[] owner = allSubscriptionsEqual() ? constrained() : general();
        Map<String, List<TopicPartition>> result = new HashMap<>();
        List<List<TopicPartition>> byMember = new ArrayList<>(members.length);
        for (String member : members) {
            List<TopicPartition> list = new ArrayList<>();
            byMember.add(list);
            result.put(member, list);
        }
        for (int t = 0; t < topics.length; t++) {
            for (int i = topicOffset[t]; i < topicOffset[t + 1]; i++) {
                if (owner[i] >= 0) {
                    byMember.get(owner[i]).add(new TopicPartition(topics[t], i - topicOffset[t]));
                }
            }
        }
        return result;
    }

    private boolean allSubscriptionsEqual() {
        for (int m = 1; m < members.length; m++) {
            if (!memberTopics[m].equals(memberTopics[0])) {
                return false;
            }
        }
        return true;
    }

    // ------------------------------------------------------------------ all members subscribe to the same topics

    private int[] constrained() {
        int n = members.length;
        int[] owner = new int[totalPartitions];
        Arrays.fill(owner, -1);
        if (n == 0) {
            return owner;
        }
        List<List<Integer>> held = new ArrayList<>(n);
        for (int m = 0; m < n; m++) {
            held.add(new ArrayList<>());
        }
        for (int i = 0; i < totalPartitions; i++) {
            if (keepable[i] >= 0) {
                held.get(keepable[i]).add(i);
            }
        }
        int minQuota = totalPartitions / n;
        int withExtra = totalPartitions % n;
        // the larger quotas go to the members holding the most: each of them then keeps one more partition
        Integer[] byHeld = new Integer[n];
        for (int m = 0; m < n; m++) {
            byHeld[m] = m;
        }
        // rack-aware, among members holding as many: those with the most partitions of their rack per member there,
        // which can then fill the larger quota locally
        double[] localShare = localShare();
        Arrays.sort(byHeld, Comparator.comparingInt((Integer m) -> -held.get(m).size())
                .thenComparingDouble(m -> -localShare[m]).thenComparingInt(m -> m));
        int[] deficit = new int[n];
        for (int rank = 0; rank < n; rank++) {
            int m = byHeld[rank];
            int quota = minQuota + (rank < withExtra ? 1 : 0);
            List<Integer> mine = held.get(m);
            if (mine.size() > quota) {
                // keep the lowest partition numbers across topics (spreads topics over members), like the official one
                mine.sort(Comparator.comparingInt((Integer i) -> i - topicOffset[topicOf(i)]).thenComparingInt(i -> i));
            }
            int kept = 0;
            for (int k = 0; k < mine.size() && kept < quota; k++) {
                // rack-aware: locality comes before stickiness, so a held partition outside the rack waits
                if (memberRack == null || inRack(m, mine.get(k))) {
                    owner[mine.get(k)] = m;
                    kept++;
                }
            }
            deficit[m] = quota - kept;
        }
        if (memberRack != null) {
            assignInRack(owner, deficit);
            for (int m = 0; m < n; m++) {
                for (int k = 0; k < held.get(m).size() && deficit[m] > 0; k++) {
                    int i = held.get(m).get(k);
                    if (owner[i] < 0) {
                        owner[i] = m;
                        deficit[m]--;
                    }
                }
            }
        }
        List<Integer> unfilled = new ArrayList<>();
        for (int m = 0; m < n; m++) {
            if (deficit[m] > 0) {
                unfilled.add(m);
            }
        }
        int next = 0;
        for (int i = 0; i < totalPartitions; i++) {
            if (owner[i] >= 0) {
                continue;
            }
            // the deficits add up to the unassigned partitions exactly, so the list is never empty here
            int m = unfilled.get(next);
            owner[i] = m;
            if (--deficit[m] == 0) {
                unfilled.remove(next);
            } else {
                next++;
            }
            if (next >= unfilled.size()) {
                next = 0;
            }
        }
        return owner;
    }

    /** Per member: partitions with a replica in its rack divided by the members in that rack (0 without racks). */
    private double[] localShare() {
        double[] share = new double[members.length];
        if (memberRack == null) {
            return share;
        }
        int[] perRack = new int[Long.SIZE];
        int[] membersPerRack = new int[Long.SIZE];
        for (long racks : partitionRacks) {
            for (long left = racks; left != 0; left &= left - 1) {
                perRack[Long.numberOfTrailingZeros(left)]++;
            }
        }
        for (int r : memberRack) {
            if (r >= 0) {
                membersPerRack[r]++;
            }
        }
        for (int m = 0; m < members.length; m++) {
            share[m] = memberRack[m] < 0 ? 0 : (double) perRack[memberRack[m]] / membersPerRack[memberRack[m]];
        }
        return share;
    }

    /**
     * As many unassigned partitions as the quotas allow go to members in a rack holding one of their replicas: a
     * maximum matching of partitions to racks (a rack takes as many as its members lack of their quotas), found with
     * augmenting paths over the racks (a partition placed in one rack moves to another rack of its replicas to make
     * room), then each rack's partitions go to its members furthest below quota. Members within a rack are
     * interchangeable for locality, so racks (few) are the graph's nodes, not members; a greedy pass left local
     * partitions unassigned that a different choice earlier could have placed.
     */
    private void assignInRack(int[] owner, int[] deficit) {
        int[] capacity = new int[Long.SIZE];
        for (int m = 0; m < members.length; m++) {
            if (memberRack[m] >= 0) {
                capacity[memberRack[m]] += deficit[m];
            }
        }
        int[] rackOf = new int[totalPartitions];
        Arrays.fill(rackOf, -1);
        // placedBy[a][b]: partitions placed in rack a that also have a replica in rack b (could move there)
        java.util.LinkedHashSet<Integer>[][] placedBy = newSets();
        for (int i = 0; i < totalPartitions; i++) {
            if (owner[i] >= 0 || partitionRacks[i] == 0) {
                continue;
            }
            long targets = partitionRacks[i];
            int direct = -1;
            for (long left = targets; left != 0 && direct < 0; left &= left - 1) {
                int r = Long.numberOfTrailingZeros(left);
                direct = capacity[r] > 0 ? r : -1;
            }
            if (direct >= 0) {
                place(i, direct, rackOf, placedBy);
                capacity[direct]--;
                continue;
            }
            // breadth-first over racks from the partition's own racks to one with room
            int[] parent = new int[Long.SIZE];
            Arrays.fill(parent, -2);
            java.util.ArrayDeque<Integer> queue = new java.util.ArrayDeque<>();
            for (long left = targets; left != 0; left &= left - 1) {
                int r = Long.numberOfTrailingZeros(left);
                parent[r] = -1;
                queue.add(r);
            }
            int free = -1;
            while (!queue.isEmpty() && free < 0) {
                int u = queue.poll();
                for (int v = 0; v < Long.SIZE && free < 0; v++) {
                    if (parent[v] != -2 || placedBy[u][v] == null || placedBy[u][v].isEmpty()) {
                        continue;
                    }
                    parent[v] = u;
                    if (capacity[v] > 0) {
                        free = v;
                    } else {
                        queue.add(v);
                    }
                }
            }
            if (free < 0) {
                continue; // no rack of its replicas can take it, even by moving others
            }
            capacity[free]--;
            int v = free;
            while (parent[v] != -1) {
                int u = parent[v];
                int moved = placedBy[u][v].iterator().next();
                unplace(moved, rackOf, placedBy);
                place(moved, v, rackOf, placedBy);
                v = u;
            }
            place(i, v, rackOf, placedBy);
        }
        for (int i = 0; i < totalPartitions; i++) {
            if (rackOf[i] < 0) {
                continue;
            }
            int best = -1;
            for (int m = 0; m < members.length; m++) {
                if (memberRack[m] == rackOf[i] && deficit[m] > 0 && (best < 0 || deficit[m] > deficit[best])) {
                    best = m;
                }
            }
            owner[i] = best;
            deficit[best]--;
        }
    }

    @SuppressWarnings("unchecked")
    private static java.util.LinkedHashSet<Integer>[][] newSets() {
        return new java.util.LinkedHashSet[Long.SIZE][Long.SIZE];
    }

    private void place(int i, int rack, int[] rackOf, java.util.LinkedHashSet<Integer>[][] placedBy) {
        rackOf[i] = rack;
        for (long left = partitionRacks[i] & ~(1L << rack); left != 0; left &= left - 1) {
            int other = Long.numberOfTrailingZeros(left);
            if (placedBy[rack][other] == null) {
                placedBy[rack][other] = new java.util.LinkedHashSet<>();
            }
            placedBy[rack][other].add(i);
        }
    }

    private void unplace(int i, int[] rackOf, java.util.LinkedHashSet<Integer>[][] placedBy) {
        int rack = rackOf[i];
        for (long left = partitionRacks[i] & ~(1L << rack); left != 0; left &= left - 1) {
            placedBy[rack][Long.numberOfTrailingZeros(left)].remove(i);
        }
        rackOf[i] = -1;
    }

    private int topicOf(int partitionIndex) {
        int t = Arrays.binarySearch(topicOffset, partitionIndex);
        if (t < 0) {
            return -t - 2;
        }
        // offsets of empty topics cannot occur (counts are > 0), so an exact hit is that topic's first partition
        return t;
    }

    // ------------------------------------------------------------------ members subscribe to different topics

    private int[] general() {
        int n = members.length;
        int[] owner = keepable.clone();
        int[] load = new int[n];
        // per member and topic: partitions it held before (sticky) and partitions placed in this round (fresh)
        Map<Long, List<Integer>> sticky = new HashMap<>();
        Map<Long, List<Integer>> fresh = new HashMap<>();
        for (int t = 0; t < topics.length; t++) {
            for (int i = topicOffset[t]; i < topicOffset[t + 1]; i++) {
                if (owner[i] >= 0) {
                    load[owner[i]]++;
                    sticky.computeIfAbsent(key(owner[i], t), k -> new ArrayList<>()).add(i);
                }
            }
        }

        // most constrained topics first, so the flexible ones can even out what they leave behind
        Integer[] topicOrder = new Integer[topics.length];
        for (int t = 0; t < topics.length; t++) {
            topicOrder[t] = t;
        }
        Arrays.sort(topicOrder, Comparator.comparingInt((Integer t) -> eligible[t].length).thenComparingInt(t -> t));
        for (int t : topicOrder) {
            for (int i = topicOffset[t]; i < topicOffset[t + 1]; i++) {
                if (owner[i] >= 0) {
                    continue;
                }
                int best = -1;
                for (int m : eligible[t]) {
                    if (best < 0 || load[m] < load[best]
                            || (load[m] == load[best] && inRack(m, i) && !inRack(best, i))) {
                        best = m;
                    }
                }
                owner[i] = best;
                load[best]++;
                fresh.computeIfAbsent(key(best, t), k -> new ArrayList<>()).add(i);
            }
        }

        rebalance(owner, load, sticky, fresh, false);
        rebalance(owner, load, sticky, fresh, true);
        return owner;
    }

    /**
     * Moves partitions from a member to an eligible one holding at least two fewer until there is no such pair.
     * The most loaded members give first, each partition to the least loaded eligible member, so no partition
     * moves twice when once would do. Each move lowers the sum of squared loads, so this ends.
     */
    private void rebalance(int[] owner, int[] load, Map<Long, List<Integer>> sticky, Map<Long, List<Integer>> fresh,
                           boolean moveHeld) {
        int n = members.length;
        Integer[] order = new Integer[n];
        boolean changed;
        do {
            changed = false;
            for (int m = 0; m < n; m++) {
                order[m] = m;
            }
            Arrays.sort(order, Comparator.comparingInt((Integer m) -> -load[m]).thenComparingInt(m -> m));
            for (int from : order) {
                for (int t = memberTopics[from].nextSetBit(0); t >= 0; t = memberTopics[from].nextSetBit(t + 1)) {
                    while (true) {
                        List<Integer> source = fresh.get(key(from, t));
                        if ((source == null || source.isEmpty()) && moveHeld) {
                            source = sticky.get(key(from, t));
                        }
                        if (source == null || source.isEmpty()) {
                            break;
                        }
                        int to = -1;
                        for (int m : eligible[t]) {
                            if (to < 0 || load[m] < load[to]) {
                                to = m;
                            }
                        }
                        if (load[from] <= load[to] + 1) {
                            break;
                        }
                        int i = source.remove(source.size() - 1);
                        owner[i] = to;
                        load[from]--;
                        load[to]++;
                        fresh.computeIfAbsent(key(to, t), k -> new ArrayList<>()).add(i);
                        changed = true;
                    }
                }
            }
        } while (changed);
    }

    private static long key(int member, int topic) {
        return ((long) member << 32) | topic;
    }
}
