package io.kflux.internal.processing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.Ordering;
import io.kflux.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DispatcherTest {
    private static final TopicPartition P0 = new TopicPartition("t", 0);
    private static final TopicPartition P1 = new TopicPartition("t", 1);

    /** A record: its partition, key and offset. */
    private record Item(TopicPartition tp, Object key, long offset) {
    }

    private static Dispatcher<Item> dispatcher(Ordering ordering, int maxInFlight) {
        return new Dispatcher<>(ordering, maxInFlight, Item::tp, Item::key);
    }

    private static List<Item> pollAll(Dispatcher<Item> d) {
        List<Item> started = new ArrayList<>();
        Item next;
        while ((next = d.poll()) != null) {
            started.add(next);
        }
        return started;
    }

    @Test
    void underKeyOrderingEqualKeysWaitAndOtherKeysOfThePartitionRun() {
        Dispatcher<Item> d = dispatcher(Ordering.KEY, 10);
        Item a0 = new Item(P0, "a", 0);
        Item b1 = new Item(P0, "b", 1);
        Item a2 = new Item(P0, "a", 2);
        Item c3 = new Item(P0, "c", 3);
        List.of(a0, b1, a2, c3).forEach(d::offer);
        assertThat(pollAll(d)).containsExactly(a0, b1, c3);
        assertThat(d.inFlight()).isEqualTo(3);
        assertThat(d.waiting()).isEqualTo(1);
        d.complete(b1);
        assertThat(d.poll()).isNull(); // a2 still waits for a0, however many slots are free
        d.complete(a0);
        assertThat(pollAll(d)).containsExactly(a2);
        assertThat(d.waiting()).isZero();
    }

    @Test
    void theMostQueuedBehindOneKeyIsTheBusiestKeysBacklog() {
        Dispatcher<Item> d = dispatcher(Ordering.KEY, 10);
        List.of(new Item(P0, "a", 0), new Item(P0, "a", 1), new Item(P0, "a", 2), new Item(P0, "b", 3),
                new Item(P0, "b", 4), new Item(P1, "a", 0)).forEach(d::offer);
        assertThat(d.mostQueuedInOneLane()).as("a of P0: 1 and 2 behind 0").isEqualTo(2);
        assertThat(d.waiting()).isEqualTo(6);
        Dispatcher<Item> unordered = dispatcher(Ordering.UNORDERED, 1);
        List.of(new Item(P0, "a", 0), new Item(P0, "a", 1)).forEach(unordered::offer);
        assertThat(unordered.mostQueuedInOneLane()).isZero();
    }

    @Test
    void aNullKeyIsOneKeyPerPartition() {
        Dispatcher<Item> d = dispatcher(Ordering.KEY, 10);
        Item n0 = new Item(P0, null, 0);
        Item n1 = new Item(P0, null, 1);
        Item m0 = new Item(P1, null, 0);
        List.of(n0, n1, m0).forEach(d::offer);
        assertThat(pollAll(d)).containsExactly(n0, m0);
        d.complete(n0);
        assertThat(pollAll(d)).containsExactly(n1);
    }

    @Test
    void byteArrayKeysAreComparedByContent() {
        Dispatcher<Item> d = dispatcher(Ordering.KEY, 10);
        Item x0 = new Item(P0, new byte[] {1, 2}, 0);
        Item x1 = new Item(P0, new byte[] {1, 2}, 1);
        Item y2 = new Item(P0, new byte[] {1, 3}, 2);
        List.of(x0, x1, y2).forEach(d::offer);
        assertThat(pollAll(d)).containsExactly(x0, y2);
    }

    @Test
    void equalKeysOfDifferentPartitionsAreDifferentLanes() {
        Dispatcher<Item> d = dispatcher(Ordering.KEY, 10);
        Item a = new Item(P0, "k", 0);
        Item b = new Item(P1, "k", 0);
        List.of(a, b).forEach(d::offer);
        assertThat(pollAll(d)).containsExactly(a, b);
    }

    @Test
    void underPartitionOrderingOneRecordOfAPartitionRunsAtATime() {
        Dispatcher<Item> d = dispatcher(Ordering.PARTITION, 10);
        Item a = new Item(P0, "a", 0);
        Item b = new Item(P0, "b", 1);
        Item c = new Item(P1, "a", 0);
        List.of(a, b, c).forEach(d::offer);
        assertThat(pollAll(d)).containsExactly(a, c);
        d.complete(a);
        assertThat(pollAll(d)).containsExactly(b);
    }

    @Test
    void unorderedRunsUpToMaxInFlightInArrivalOrder() {
        Dispatcher<Item> d = dispatcher(Ordering.UNORDERED, 3);
        List<Item> items = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            items.add(new Item(P0, "same", i));
            d.offer(items.get(i));
        }
        assertThat(pollAll(d)).containsExactly(items.get(0), items.get(1), items.get(2));
        d.complete(items.get(1));
        assertThat(pollAll(d)).containsExactly(items.get(3));
        assertThat(d.busyLanes()).isZero();
    }

    @Test
    void readyLanesStartInTheOrderTheyBecameReady() {
        Dispatcher<Item> d = dispatcher(Ordering.KEY, 1);
        Item a0 = new Item(P0, "a", 0);
        Item b1 = new Item(P0, "b", 1);
        Item a2 = new Item(P0, "a", 2);
        Item c3 = new Item(P0, "c", 3);
        List.of(a0, b1, a2, c3).forEach(d::offer);
        assertThat(pollAll(d)).containsExactly(a0);
        d.complete(a0); // a2 becomes ready after b1 and c3, which were ready before it
        assertThat(pollAll(d)).containsExactly(b1);
        d.complete(b1);
        assertThat(pollAll(d)).containsExactly(c3);
        d.complete(c3);
        assertThat(pollAll(d)).containsExactly(a2);
    }

    @Test
    void dropRemovesRecordsNotStartedAndKeepsTheLaneOfOneInFlightBusy() {
        Dispatcher<Item> d = dispatcher(Ordering.KEY, 2);
        Item a0 = new Item(P0, "a", 0);
        Item a1 = new Item(P0, "a", 1);
        Item b2 = new Item(P0, "b", 2);
        Item c3 = new Item(P0, "c", 3);
        Item c4 = new Item(P0, "c", 4);
        Item x0 = new Item(P1, "a", 0);
        List.of(a0, a1, b2, c3, c4, x0).forEach(d::offer);
        assertThat(pollAll(d)).containsExactly(a0, b2); // c3 and x0 ready, waiting for a slot
        assertThat(d.drop(P0::equals)).containsExactlyInAnyOrder(a1, c3, c4);
        assertThat(d.waiting()).isEqualTo(1);
        assertThat(d.inFlight()).isEqualTo(2);
        // a partition assigned again while its old record is still in flight: its key waits for that record
        Item a5 = new Item(P0, "a", 5);
        d.offer(a5);
        d.complete(b2);
        assertThat(pollAll(d)).containsExactly(x0);
        d.complete(a0);
        assertThat(pollAll(d)).containsExactly(a5);
        d.complete(x0);
        d.complete(a5);
        assertThat(d.busyLanes()).isZero();
        assertThat(d.waiting()).isZero();
    }

    @Test
    void completingWithNothingInFlightIsABug() {
        Dispatcher<Item> d = dispatcher(Ordering.KEY, 2);
        assertThatThrownBy(() -> d.complete(new Item(P0, "a", 0))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> dispatcher(Ordering.KEY, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * Random offers, completions in random order and drops: no lane ever has two records in flight, records of a
     * lane start in offer order, maxInFlight is never exceeded and is reached while enough lanes are ready, and
     * every record not dropped starts exactly once.
     */
    @Test
    void randomScheduleKeepsEveryRule() {
        for (Ordering ordering : Ordering.values()) {
            Random random = new Random(42 + ordering.ordinal());
            int max = 16;
            Dispatcher<Item> d = dispatcher(ordering, max);
            List<Item> inFlight = new ArrayList<>();
            Map<Object, Long> lastStarted = new HashMap<>();
            Set<Object> busyLanes = new HashSet<>();
            Set<Item> offered = new HashSet<>();
            Set<Item> startedOrDropped = new HashSet<>();
            long[] nextOffset = new long[4];
            for (int step = 0; step < 40_000; step++) {
                int action = random.nextInt(100);
                if (action < 50) {
                    int p = random.nextInt(4);
                    Item item = new Item(new TopicPartition("t", p), random.nextInt(8) == 0 ? null
                            : "k" + random.nextInt(30), nextOffset[p]++);
                    d.offer(item);
                    offered.add(item);
                } else if (action < 95 && !inFlight.isEmpty()) {
                    Item done = inFlight.remove(random.nextInt(inFlight.size()));
                    d.complete(done);
                    busyLanes.remove(lane(ordering, done));
                } else if (action == 99) {
                    TopicPartition tp = new TopicPartition("t", random.nextInt(4));
                    startedOrDropped.addAll(d.drop(tp::equals));
                }
                Item next;
                while ((next = d.poll()) != null) {
                    assertThat(startedOrDropped.add(next)).as("started once: %s", next).isTrue();
                    Object lane = lane(ordering, next);
                    if (lane != null) {
                        assertThat(busyLanes.add(lane)).as("one in flight in lane %s", lane).isTrue();
                        Long before = lastStarted.put(lane, next.offset());
                        assertThat(before == null || before < next.offset()).as("lane order %s", lane).isTrue();
                    }
                    inFlight.add(next);
                }
                assertThat(inFlight).hasSizeLessThanOrEqualTo(max);
                assertThat(d.inFlight()).isEqualTo(inFlight.size());
                if (ordering == Ordering.UNORDERED && d.waiting() > 0) {
                    assertThat(inFlight).hasSize(max);
                }
            }
            while (!inFlight.isEmpty()) {
                d.complete(inFlight.remove(0));
                Item next;
                while ((next = d.poll()) != null) {
                    assertThat(startedOrDropped.add(next)).isTrue();
                    inFlight.add(next);
                }
            }
            assertThat(startedOrDropped).as(ordering.toString()).isEqualTo(offered);
            assertThat(d.waiting()).isZero();
            assertThat(d.busyLanes()).isZero();
        }
    }

    private static Object lane(Ordering ordering, Item item) {
        return switch (ordering) {
            case UNORDERED -> null;
            case PARTITION -> item.tp();
            case KEY -> java.util.Arrays.asList(item.tp(), item.key());
        };
    }
}
