package io.kflux.protocol;

import io.kflux.protocol.consumer.ConsumerProtocolAssignment;
import io.kflux.protocol.consumer.ConsumerProtocolSubscription;
import io.kflux.protocol.consumer.CooperativeStickyAssignorUserData;
import io.kflux.protocol.consumer.StickyAssignorUserData;
import io.kflux.protocol.message.OracleCodec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.TimestampType;

/**
 * Writes the seed inputs of the fuzz targets ({@code ResponseFuzzTest}, {@code RecordsFuzzTest},
 * {@code ConsumerProtocolFuzzTest}) into their Jazzer inputs directories: valid encodings to start mutating from.
 * Every response spec at every version it supports (defaults written by kflux, Fetch with real batches written by
 * kafka-clients), record batches in every codec plus a transaction marker, and each embedded consumer format.
 * Run once from {@code sdk/} (see README, "Fuzzing"); the files it writes are committed with the corpus.
 */
public final class FuzzSeeds {
    private FuzzSeeds() {
    }

    public static void main(String[] args) throws IOException {
        Path resources = Path.of(args.length > 0 ? args[0] : "src/test/resources");
        List<byte[]> batches = batches();
        responses(resources.resolve("io/kflux/network/ResponseFuzzTestInputs/responses"), batches);
        records(resources.resolve("io/kflux/protocol/record/RecordsFuzzTestInputs/records"), batches);
        embedded(resources.resolve("io/kflux/protocol/consumer/ConsumerProtocolFuzzTestInputs/embedded"));
    }

    private static void responses(Path dir, List<byte[]> batches) throws IOException {
        List<MessageSpec<?>> specs = specs();
        for (int s = 0; s < specs.size(); s++) {
            MessageSpec<?> spec = specs.get(s);
            for (short v = spec.lowestVersion(); v <= spec.highestVersion(); v++) {
                ByteBuf frame = Unpooled.buffer();
                ResponseHeader.write(frame, 7, ResponseHeader.headerVersion(spec.apiKey(), spec.isFlexible(v)));
                writeDefaults(spec, frame, v);
                write(dir, "seed-" + spec.apiKey() + "-v" + v, (byte) s, (byte) (v - spec.lowestVersion()), bytes(frame));
                if (spec.apiKey() == ApiKey.FETCH) {
                    ByteBuf fetch = Unpooled.buffer();
                    ResponseHeader.write(fetch, 7, ResponseHeader.headerVersion(spec.apiKey(), spec.isFlexible(v)));
                    fetch.writeBytes(OracleCodec.officialBytes(fetchWithRecords(batches, v), v));
                    write(dir, "seed-FETCH-records-v" + v, (byte) s, (byte) (v - spec.lowestVersion()), bytes(fetch));
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> void writeDefaults(MessageSpec<T> spec, ByteBuf frame, short v) {
        spec.write(frame, spec.schema().defaults(), v);
    }

    private static FetchResponseData fetchWithRecords(List<byte[]> batches, short version) {
        FetchResponseData.FetchableTopicResponse topic = new FetchResponseData.FetchableTopicResponse()
                .setTopic("orders").setTopicId(new org.apache.kafka.common.Uuid(1L, 2L));
        for (int p = 0; p < batches.size(); p++) {
            topic.partitions().add(new FetchResponseData.PartitionData().setPartitionIndex(p).setHighWatermark(100L)
                    .setLastStableOffset(100L).setLogStartOffset(0L)
                    .setRecords(MemoryRecords.readableRecords(ByteBuffer.wrap(batches.get(p)))));
        }
        FetchResponseData data = new FetchResponseData().setSessionId(version >= 7 ? 1 : 0);
        data.responses().add(topic);
        return data;
    }

    private static void records(Path dir, List<byte[]> batches) throws IOException {
        for (int i = 0; i < batches.size(); i++) {
            write(dir, "seed-batch-" + i, (byte) 0, batches.get(i));
            write(dir, "seed-batch-" + i + "-crc-direct", (byte) 3, batches.get(i));
        }
    }

    /** A mixed batch in each codec (headers, null key and value, empty arrays), then a COMMIT marker. */
    static List<byte[]> batches() {
        List<byte[]> out = new ArrayList<>();
        for (Compression c : List.of(Compression.NONE, Compression.gzip().build(), Compression.snappy().build(),
                Compression.lz4().build(), Compression.zstd().build())) {
            MemoryRecordsBuilder b = MemoryRecords.builder(ByteBuffer.allocate(1024), RecordBatch.MAGIC_VALUE_V2, c,
                    TimestampType.CREATE_TIME, 40L, -1L, 4711L, (short) 3, 17, false, 9);
            b.append(1_700_000_000_000L, utf8("k0"), utf8("v0"));
            b.append(1_700_000_000_005L, (byte[]) null, utf8("value with null key"));
            b.append(1_700_000_000_010L, utf8("tombstone"), (byte[]) null);
            b.append(1_700_000_000_011L, new byte[0], new byte[0]);
            b.append(1_700_000_000_012L, utf8("h"), utf8("with headers"), new Header[] {
                new RecordHeader("trace-id", utf8("abc")), new RecordHeader("null-value", (byte[]) null)});
            out.add(array(b.build().buffer()));
        }
        out.add(array(MemoryRecords.withEndTransactionMarker(45L, 1_700_000_000_020L, 9, 4711L, (short) 3,
                new EndTransactionMarker(ControlRecordType.COMMIT, 5)).buffer()));
        return out;
    }

    private static void embedded(Path dir) throws IOException {
        List<ConsumerProtocolSubscription.TopicPartition> owned = List.of(
                new ConsumerProtocolSubscription.TopicPartition("orders", List.of(0, 2)));
        ConsumerProtocolSubscription subscription = new ConsumerProtocolSubscription(List.of("orders", "payments"),
                utf8("user"), owned, 5, "rack-a");
        ConsumerProtocolAssignment assignment = new ConsumerProtocolAssignment(List.of(
                new ConsumerProtocolAssignment.TopicPartition("orders", List.of(0, 1, 2))), utf8("user"));
        for (short v = 0; v <= ConsumerProtocolSubscription.HIGHEST_VERSION; v++) {
            write(dir, "seed-subscription-v" + v, (byte) 0, subscription.serialize(v));
        }
        for (short v = 0; v <= ConsumerProtocolAssignment.HIGHEST_VERSION; v++) {
            write(dir, "seed-assignment-v" + v, (byte) 1, assignment.serialize(v));
        }
        write(dir, "seed-sticky", (byte) 2, new StickyAssignorUserData(List.of(
                new StickyAssignorUserData.TopicPartition("orders", List.of(1, 3))), 4).serialize());
        write(dir, "seed-cooperative-sticky", (byte) 3, CooperativeStickyAssignorUserData.serialize(4));
    }

    private static List<MessageSpec<?>> specs() {
        try {
            Class<?> test = Class.forName("io.kflux.network.ResponseFuzzTest");
            java.lang.reflect.Field f = test.getDeclaredField("SPECS");
            f.setAccessible(true);
            @SuppressWarnings("unchecked")
            List<MessageSpec<?>> specs = (List<MessageSpec<?>>) f.get(null);
            return specs;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void write(Path dir, String name, byte first, byte[] rest) throws IOException {
        Files.createDirectories(dir);
        byte[] all = new byte[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        Files.write(dir.resolve(name), all);
    }

    private static void write(Path dir, String name, byte first, byte second, byte[] rest) throws IOException {
        byte[] all = new byte[rest.length + 1];
        all[0] = second;
        System.arraycopy(rest, 0, all, 1, rest.length);
        write(dir, name, first, all);
    }

    private static byte[] bytes(ByteBuf buf) {
        byte[] out = new byte[buf.readableBytes()];
        buf.readBytes(out);
        buf.release();
        return out;
    }

    private static byte[] array(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

}
