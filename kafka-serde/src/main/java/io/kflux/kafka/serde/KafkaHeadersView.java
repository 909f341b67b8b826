package io.kflux.kafka.serde;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * kflux's record headers seen as Kafka {@link Headers}, made for every record a Kafka deserializer reads, so it
 * copies nothing up front: reads go to kflux's immutable headers, each header wrapped when it is handed out. The
 * first {@link #add} or {@link #remove} (some deserializers annotate records) copies them into a Kafka
 * {@link RecordHeaders} that takes over; the consumer's record keeps its own headers either way.
 *
 * <p>Not thread-safe (a Kafka deserializer gets its own view per record). Also used by
 * {@code kflux-reactor-kafka-compat} for the headers of the Kafka {@code ConsumerRecord}s it hands out.
 */
public final class KafkaHeadersView implements Headers {

    private final io.kflux.Headers source;
    private RecordHeaders copy;

    /**
     * Views kflux headers as Kafka headers.
     *
     * @param source the record's headers, never {@code null}
     * @throws NullPointerException if {@code source} is {@code null}
     */
    public KafkaHeadersView(io.kflux.Headers source) {
        this.source = Objects.requireNonNull(source, "source");
    }

    /**
     * A kflux header as kafka-clients' own {@link RecordHeader} (the value array shared, as kflux's {@code Header}
     * shares it), so it compares and prints as any Kafka header does.
     */
    private static Header kafka(io.kflux.Header h) {
        return h == null ? null : new RecordHeader(h.key(), h.value());
    }

    private RecordHeaders writable() {
        if (copy == null) {
            copy = new RecordHeaders(toArray());
        }
        return copy;
    }

    @Override
    public Headers add(Header header) {
        writable().add(header);
        return this;
    }

    @Override
    public Headers add(String key, byte[] value) {
        writable().add(key, value);
        return this;
    }

    @Override
    public Headers remove(String key) {
        writable().remove(key);
        return this;
    }

    @Override
    public Header lastHeader(String key) {
        return copy != null ? copy.lastHeader(key) : kafka(source.lastHeader(key));
    }

    @Override
    public Iterable<Header> headers(String key) {
        if (copy != null) {
            return copy.headers(key);
        }
        List<Header> out = new ArrayList<>();
        for (io.kflux.Header h : source.headers(key)) {
            out.add(kafka(h));
        }
        return out;
    }

    @Override
    public Header[] toArray() {
        if (copy != null) {
            return copy.toArray();
        }
        Header[] out = new Header[source.size()];
        int i = 0;
        for (io.kflux.Header h : source) {
            out[i++] = kafka(h);
        }
        return out;
    }

    @Override
    public Iterator<Header> iterator() {
        if (copy != null) {
            return copy.iterator();
        }
        Iterator<io.kflux.Header> it = source.iterator();
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public Header next() {
                return kafka(it.next());
            }
        };
    }

    @Override
    public String toString() {
        return "KafkaHeadersView" + List.of(toArray());
    }
}
