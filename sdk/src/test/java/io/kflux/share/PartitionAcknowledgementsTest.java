package io.kflux.share;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.AcknowledgeType;
import io.kflux.protocol.message.AcknowledgementBatch;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class PartitionAcknowledgementsTest {
    private static final byte GAP = 0;
    private static final byte ACCEPT = 1;
    private static final byte RELEASE = 2;
    private static final byte REJECT = 3;

    private static AcknowledgementBatch batch(long first, long last, byte... types) {
        List<Byte> list = new ArrayList<>();
        for (byte t : types) {
            list.add(t);
        }
        return new AcknowledgementBatch(first, last, list);
    }

    @Test
    void aRunOfOneTypeIsOneBatchWithOneType() {
        PartitionAcknowledgements acks = new PartitionAcknowledgements();
        for (long o = 100; o < 110; o++) {
            acks.add(o, AcknowledgeType.ACCEPT);
        }
        assertThat(acks.drain()).containsExactly(batch(100, 109, ACCEPT));
        assertThat(acks.isEmpty()).isTrue();
        assertThat(acks.drain()).isEmpty();
    }

    @Test
    void shortMixedStretchesShareABatchWithOneTypePerOffset() {
        PartitionAcknowledgements acks = new PartitionAcknowledgements();
        acks.add(12, AcknowledgeType.REJECT); // added out of order on purpose
        acks.add(10, AcknowledgeType.ACCEPT);
        acks.add(11, AcknowledgeType.ACCEPT);
        acks.addGap(13);
        acks.add(14, AcknowledgeType.RELEASE);
        assertThat(acks.drain()).containsExactly(batch(10, 14, ACCEPT, ACCEPT, REJECT, GAP, RELEASE));
    }

    @Test
    void anOffsetNeitherAcknowledgedNorAGapEndsTheBatch() {
        PartitionAcknowledgements acks = new PartitionAcknowledgements();
        acks.add(1, AcknowledgeType.ACCEPT);
        acks.add(2, AcknowledgeType.ACCEPT);
        acks.add(4, AcknowledgeType.ACCEPT); // 3 still in processing
        acks.add(5, AcknowledgeType.RELEASE);
        assertThat(acks.drain()).containsExactly(batch(1, 2, ACCEPT), batch(4, 5, ACCEPT, RELEASE));
    }

    @Test
    void aLongStretchOfOneTypeInsideAMixedRunGetsABatchOfItsOwn() {
        PartitionAcknowledgements acks = new PartitionAcknowledgements();
        acks.add(0, AcknowledgeType.REJECT);
        for (long o = 1; o <= 100; o++) {
            acks.add(o, AcknowledgeType.ACCEPT);
        }
        acks.add(101, AcknowledgeType.RELEASE);
        acks.add(102, AcknowledgeType.ACCEPT);
        assertThat(acks.drain()).containsExactly(batch(0, 0, REJECT), batch(1, 100, ACCEPT),
                batch(101, 102, RELEASE, ACCEPT));
    }

    @Test
    void renewIsReportedForTheRequestsFlag() {
        PartitionAcknowledgements acks = new PartitionAcknowledgements();
        acks.add(7, AcknowledgeType.ACCEPT);
        assertThat(acks.hasRenew()).isFalse();
        acks.add(8, AcknowledgeType.RENEW);
        assertThat(acks.hasRenew()).isTrue();
        assertThat(acks.drain()).containsExactly(batch(7, 8, ACCEPT, (byte) 4));
        assertThat(acks.hasRenew()).isFalse();
        acks.add(9, AcknowledgeType.RENEW);
        acks.add(9, AcknowledgeType.RENEW);
        assertThat(acks.hasRenew()).isTrue();
        acks.add(9, AcknowledgeType.ACCEPT);
        assertThat(acks.hasRenew()).as("the renewal superseded").isFalse();
    }

    @Test
    void aFinalAcknowledgementSupersedesARenewalNotSentYet() {
        PartitionAcknowledgements acks = new PartitionAcknowledgements();
        acks.add(3, AcknowledgeType.RENEW);
        acks.add(3, AcknowledgeType.RENEW);
        acks.add(4, AcknowledgeType.RENEW);
        acks.add(3, AcknowledgeType.ACCEPT);
        assertThatThrownBy(() -> acks.addGap(4)).isInstanceOf(IllegalStateException.class);
        assertThat(acks.drain()).containsExactly(batch(3, 4, ACCEPT, (byte) 4));
    }

    @Test
    void anOffsetAcknowledgedTwiceBeforeSendingIsRefusedAndTheFirstKept() {
        PartitionAcknowledgements acks = new PartitionAcknowledgements();
        acks.add(3, AcknowledgeType.ACCEPT);
        assertThatThrownBy(() -> acks.add(3, AcknowledgeType.REJECT)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("offset 3 is already acknowledged");
        assertThatThrownBy(() -> acks.addGap(3)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> acks.add(-1, AcknowledgeType.ACCEPT)).isInstanceOf(IllegalArgumentException.class);
        assertThat(acks.drain()).containsExactly(batch(3, 3, ACCEPT));
    }

    /** Out of order: below the highest offset an acknowledgement is checked against all, and sorted at drain. */
    @Test
    void outOfOrderAcknowledgementsAreCheckedSortedAndTheStateStartsOverAfterADrain() {
        PartitionAcknowledgements acks = new PartitionAcknowledgements();
        acks.add(10, AcknowledgeType.ACCEPT);
        acks.add(7, AcknowledgeType.RENEW);
        acks.add(8, AcknowledgeType.ACCEPT);
        assertThatThrownBy(() -> acks.add(10, AcknowledgeType.REJECT)).as("above the last added, below the highest")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("offset 10");
        assertThatThrownBy(() -> acks.addGap(8)).isInstanceOf(IllegalStateException.class);
        acks.add(7, AcknowledgeType.RELEASE); // supersedes the renewal not sent yet, out of order
        assertThat(acks.hasRenew()).isFalse();
        acks.addGap(9);
        assertThat(acks.drain()).containsExactly(batch(7, 10, RELEASE, ACCEPT, GAP, ACCEPT));
        assertThat(acks.isEmpty()).isTrue();

        acks.add(3, AcknowledgeType.ACCEPT); // below everything drained before: a fresh start, not a duplicate
        acks.add(4, AcknowledgeType.ACCEPT);
        assertThat(acks.drain()).containsExactly(batch(3, 4, ACCEPT));
    }

    /** Many acknowledgements in one burst (more than the arrays start with) come out as one batch. */
    @Test
    void aLongAscendingBurstGrowsAndIsOneBatch() {
        PartitionAcknowledgements acks = new PartitionAcknowledgements();
        for (long o = 100; o < 10_100; o++) {
            acks.add(o, AcknowledgeType.ACCEPT);
        }
        assertThat(acks.drain()).containsExactly(batch(100, 10_099, ACCEPT));
        acks.add(5, AcknowledgeType.REJECT);
        assertThat(acks.drain()).containsExactly(batch(5, 5, REJECT));
    }

    /** Whatever goes in, the batches say exactly the same types per offset and keep the broker's shape rule. */
    @Test
    void randomAcknowledgementsRoundTripThroughTheirBatches() {
        Random random = new Random(932);
        for (int round = 0; round < 500; round++) {
            TreeMap<Long, Byte> expected = new TreeMap<>();
            PartitionAcknowledgements acks = new PartitionAcknowledgements();
            List<Long> offsets = new ArrayList<>();
            long o = random.nextInt(1000);
            int n = 1 + random.nextInt(200);
            for (int i = 0; i < n; i++) {
                o += random.nextInt(10) < 8 ? 1 : 1 + random.nextInt(5);
                offsets.add(o);
            }
            Collections.shuffle(offsets, random);
            boolean runs = random.nextBoolean();
            byte runType = ACCEPT;
            for (long offset : offsets) {
                byte type = (byte) (runs && random.nextInt(10) < 9 ? runType : random.nextInt(5));
                expected.put(offset, type);
                if (type == GAP) {
                    acks.addGap(offset);
                } else {
                    acks.add(offset, AcknowledgeType.forId(type));
                }
            }
            TreeMap<Long, Byte> decoded = new TreeMap<>();
            long previousLast = Long.MIN_VALUE;
            for (AcknowledgementBatch b : acks.drain()) {
                assertThat(b.firstOffset()).isGreaterThan(previousLast).isLessThanOrEqualTo(b.lastOffset());
                long length = b.lastOffset() - b.firstOffset() + 1;
                assertThat(b.acknowledgeTypes().size()).as("types of %s", b).isIn(1, (int) length);
                for (long x = b.firstOffset(); x <= b.lastOffset(); x++) {
                    byte t = b.acknowledgeTypes().size() == 1 ? b.acknowledgeTypes().get(0)
                            : b.acknowledgeTypes().get((int) (x - b.firstOffset()));
                    decoded.put(x, t);
                }
                previousLast = b.lastOffset();
            }
            assertThat(decoded).as("round %d", round).isEqualTo(expected);
        }
    }
}
