package io.kflux.group;

import io.kflux.metadata.Cluster;
import io.kflux.metadata.SubscriptionWatch;
import io.kflux.metadata.TopicInfo;
import io.kflux.protocol.Errors;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

/**
 * The classic member's subscription against metadata: what it subscribed to (names, or a pattern matched here, on
 * the client, against every snapshot), the metadata interest that follows from it, and each snapshot's check (a
 * pattern's new matches, metadata errors of subscribed topics, the leader's partition counts, topics still missing).
 * A change asks {@link ClassicGroupMember} to rejoin. The KIP-848 member has no such check: the broker matches its
 * pattern and names its topics by id; what both need ("refresh until it appears") is {@link SubscriptionWatch}'s, and
 * the topic errors that end either member are {@link SubscribedTopicErrors}'. Loop-only state.
 */
final class ClassicSubscriptionCheck {
    private static final Logger log = LoggerFactory.getLogger(ClassicSubscriptionCheck.class);

    private final ClassicGroupMember member;
    private final GroupConfig config;
    private final ClassicMembership core;
    private final LeaderAssignment leaderAssignment;
    private final GroupIo io;
    private final String logPrefix;
    /** The early refreshes while a subscribed topic is missing from metadata. */
    private final SubscriptionWatch missingTopics;

    /** Null for a subscription by names. */
    private Pattern pattern;
    private Cluster lastChecked;
    private Disposable updates;

    ClassicSubscriptionCheck(ClassicGroupMember member, GroupConfig config, ClassicMembership core,
                             LeaderAssignment leaderAssignment, GroupIo io, String logPrefix) {
        this.member = member;
        this.config = config;
        this.core = core;
        this.leaderAssignment = leaderAssignment;
        this.io = io;
        this.logPrefix = logPrefix;
        this.missingTopics = member.subscriptionWatch(() -> !core.inactive(), this::check, e -> {
            log.debug("{}metadata refresh failed: {}", logPrefix, e.toString());
            watchMissingTopics(io.cluster());
        });
    }

    /** Subscribes to exactly {@code topics}; a change from what the member joined with makes it rejoin. */
    void subscribe(Set<String> topics) {
        pattern = null;
        core.subscribe(topics);
        updateInterest();
        subscriptionMaybeChanged();
    }

    /** Subscribes to the topics {@code pattern} matches; once started, looks at fresh metadata at once. */
    void subscribe(Pattern pattern) {
        this.pattern = pattern;
        core.subscribe(match(io.cluster()));
        updateInterest();
        subscriptionMaybeChanged();
        if (core.started()) {
            refreshAndCheck();
        }
    }

    /** The member started: check every snapshot the consumer's metadata brings (a pattern: a fresh one now). */
    void start() {
        updateInterest();
        // The consumer refreshes metadata (metadata.max.age.ms, fetch errors); the member looks at every snapshot.
        updates = io.metadataUpdates().subscribe(c -> member.onLoop(() -> check(c)));
        if (pattern != null) {
            refreshAndCheck();
        }
    }

    /** Right before a JoinGroup: a pattern is matched against the latest snapshot, so the request carries its matches. */
    void rematch() {
        if (pattern != null) {
            Set<String> matched = match(io.cluster());
            if (!matched.equals(core.subscribed())) {
                core.subscribe(matched);
                updateInterest();
            }
        }
    }

    /** The metadata interest: the subscribed topics and, as leader, the group's (every topic for a pattern). */
    void updateInterest() {
        Set<String> topics = new TreeSet<>(core.subscribed());
        topics.addAll(leaderAssignment.groupSubscription());
        io.interest(topics, pattern != null);
    }

    /** Checks the latest snapshot unless it was checked already. */
    void checkIfChanged() {
        Cluster c = io.cluster();
        if (c != lastChecked) {
            check(c);
        }
    }

    /** The leader assigned (or skipped assigning) from {@code cluster}: that snapshot counts as checked. */
    void checked(Cluster cluster) {
        lastChecked = cluster;
    }

    void cancel() {
        if (updates != null) {
            updates.dispose();
            updates = null;
        }
        missingTopics.cancel();
    }

    private void subscriptionMaybeChanged() {
        if (core.subscriptionChanged()) {
            member.requestRejoin("the subscription changed");
        }
    }

    private void refreshAndCheck() {
        io.refreshMetadata().subscribe(c -> member.onLoop(() -> check(c)),
                e -> log.debug("{}metadata refresh failed: {}", logPrefix, e.toString()));
    }

    /**
     * On each new metadata snapshot: a pattern subscription re-matches (a change makes this member rejoin), and the
     * leader compares the partition counts of the group's topics with those it assigned (a change, e.g. added
     * partitions or a topic created or deleted, makes it rejoin, which rebalances the group).
     */
    void check(Cluster cluster) {
        if (member.terminal() || cluster == null) {
            return;
        }
        lastChecked = cluster;
        if (pattern != null) {
            Set<String> matched = match(cluster);
            if (!matched.equals(core.subscribed())) {
                log.info("{}pattern {} now matches {}", logPrefix, pattern, matched);
                core.subscribe(matched);
                updateInterest();
            }
        }
        subscriptionMaybeChanged();
        // a member on its way out (leaving, poll expired) has nothing left to fail
        if (!core.inactive() && !topicErrorsPass(cluster)) {
            return;
        }
        String change = core.inactive() ? null : leaderAssignment.changeSinceAssignment(cluster);
        if (change != null) {
            member.requestRejoin(change);
        }
        watchMissingTopics(cluster);
    }

    /** @return false when the member failed ({@link SubscribedTopicErrors}); a pattern only matches sound topics */
    boolean topicErrorsPass(Cluster cluster) {
        return pattern != null || member.topicErrorsPass(core.subscribed(), cluster);
    }

    /**
     * While a topic this member or (as leader) the group subscribed to by name is missing from metadata, refreshes
     * again after {@code retry.backoff.ms}, growing to {@code retry.backoff.max.ms}, instead of waiting up to
     * {@code metadata.max.age.ms}: the official consumer asks for metadata again whenever a topic it needs is
     * unknown, so a topic created after subscribing is consumed within moments. The leader then sees the new
     * partitions and rebalances ({@link #check}).
     */
    void watchMissingTopics(Cluster cluster) {
        if (pattern != null || core.inactive() || missingTopics.pending()) {
            return;
        }
        Set<String> wanted = new TreeSet<>(core.subscribed());
        wanted.addAll(leaderAssignment.groupSubscription());
        Set<String> missing = new TreeSet<>();
        for (String topic : wanted) {
            TopicInfo t = cluster.topic(topic);
            if (t == null || t.partitions().isEmpty() || Errors.forCode(t.errorCode()).retriable()) {
                missing.add(topic);
            }
        }
        if (missing.isEmpty()) {
            missingTopics.satisfied();
            return;
        }
        long delay = missingTopics.request();
        // WARN on the 2nd, 8th, 32nd, ... look: repeated with growing intervals while the topics stay missing. Not on
        // the 1st: a member's first snapshot may predate its subscription (a follower that just joined saw "missing"
        // topics that existed); the 2nd comes from the refresh asked for here, which names them.
        int n = missingTopics.refreshes();
        if (Integer.bitCount(n) == 1 && Integer.numberOfTrailingZeros(n) % 2 == 1) {
            log.warn("{}subscribed topics {} do not exist (not in metadata): nothing is assigned from them until they"
                    + " are created; is the name right? Asking again in {} ms", logPrefix, missing, delay);
        } else {
            log.debug("{}topics {} are not in metadata yet; refreshing in {} ms", logPrefix, missing, delay);
        }
    }

    private Set<String> match(Cluster cluster) {
        Set<String> matched = new TreeSet<>();
        if (pattern == null) {
            return matched;
        }
        for (TopicInfo t : cluster.topics().values()) {
            if (t.errorCode() == 0 && !(config.excludeInternalTopics() && t.internal())
                    && pattern.matcher(t.name()).matches()) {
                matched.add(t.name());
            }
        }
        return matched;
    }
}
