package io.kflux;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.function.Function;

/**
 * The headers of one record (KIP-82), in wire order. Immutable: there is no add or remove, so a record can be
 * handed to another thread without copying.
 *
 * <p>A consumer's records keep their headers in wire form and decode them when first read (any method but
 * {@link #size()} and {@link #isEmpty()}), on the reading thread: an application that never looks at a record's
 * headers pays one array copy for them instead of a key string and a value array per header (issue #28). Threads
 * reading at once may each decode, but one result is kept: every read of a record's headers sees the same
 * {@link Header} objects. The official client's {@code RecordHeader} defers its key's decoding and its value's copy
 * likewise, though it makes its header objects up front.
 *
 * <p>A key may appear several times; {@link #lastHeader(String)} gives the last one (the convention of the
 * official client), {@link #headers(String)} all of them.
 */
public final class Headers implements Iterable<Header> {

    private static final Header[] NONE = new Header[0];
    private static final Headers EMPTY = new Headers(NONE);

    private static final VarHandle DECODED;

    static {
        try {
            DECODED = MethodHandles.lookup().findVarHandle(Headers.class, "decoded", Header[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int size;
    /** Headers made from {@link Header}s; null for a consumer's, which decode theirs into {@link #decoded}. */
    private final Header[] built;
    /** A consumer's headers in wire form; kept after decoding (a record's, small and as short-lived as it). */
    private final byte[] section;
    private final Function<byte[], Header[]> decoder;
    /** A consumer's headers once decoded: set once, so every read sees the same objects (see {@link #all()}). */
    private volatile Header[] decoded;

    private Headers(Header[] built) {
        this.size = built.length;
        this.built = built;
        this.section = null;
        this.decoder = null;
    }

    private Headers(int size, byte[] section, Function<byte[], Header[]> decoder) {
        this.size = size;
        this.built = null;
        this.section = section;
        this.decoder = decoder;
    }

    /**
     * Returns the shared empty instance.
     *
     * @return headers with {@link #size()} 0
     */
    public static Headers empty() {
        return EMPTY;
    }

    /**
     * Creates headers from the given ones, in the given order. The array is copied.
     *
     * @param headers headers, none {@code null}
     * @return the headers ({@link #empty()} when none are given)
     * @throws NullPointerException if the array or any element is {@code null}
     */
    public static Headers of(Header... headers) {
        Objects.requireNonNull(headers, "headers");
        if (headers.length == 0) {
            return EMPTY;
        }
        Header[] copy = headers.clone();
        for (Header h : copy) {
            Objects.requireNonNull(h, "header");
        }
        return new Headers(copy);
    }

    /**
     * Headers a consumer read: {@code size} of them in wire form, which {@code decoder} turns into exactly that many
     * {@link Header}s when they are first read (through {@link io.kflux.internal.Records}; the decoder is stateless and
     * shared, so this is the one object per record besides the section).
     */
    static Headers decodedWhenRead(int size, byte[] section, Function<byte[], Header[]> decoder) {
        return size == 0 ? EMPTY : new Headers(size, section, decoder);
    }

    /**
     * The headers, decoded now if this is their first read. Records cross threads: threads that find them undecoded at
     * once each decode, and the first to publish its array wins (compare-and-exchange), so a {@link Header} or its
     * value array never changes identity between reads. Built headers sit in a final field, safe however the
     * instance was shared.
     */
    private Header[] all() {
        Header[] h = built;
        if (h != null) {
            return h;
        }
        h = decoded;
        if (h == null) {
            Header[] mine = decoder.apply(section);
            Header[] first = (Header[]) DECODED.compareAndExchange(this, null, mine);
            h = first == null ? mine : first;
        }
        return h;
    }

    /**
     * Creates headers from a collection, in iteration order. The collection is copied.
     *
     * @param headers headers, none {@code null}
     * @return the headers ({@link #empty()} when the collection is empty)
     * @throws NullPointerException if the collection or any element is {@code null}
     */
    public static Headers of(Collection<Header> headers) {
        Objects.requireNonNull(headers, "headers");
        return of(headers.toArray(NONE));
    }

    /**
     * Returns the last header with this key.
     *
     * @param key header key
     * @return the last matching header, or {@code null} when there is none (as in the official client, so
     *         migrated code keeps working)
     */
    public Header lastHeader(String key) {
        Header[] all = all();
        for (int i = all.length - 1; i >= 0; i--) {
            if (all[i].key().equals(key)) {
                return all[i];
            }
        }
        return null;
    }

    /**
     * Returns every header with this key, in wire order.
     *
     * @param key header key
     * @return an unmodifiable list, empty when there is none
     */
    public List<Header> headers(String key) {
        List<Header> out = null;
        for (Header h : all()) {
            if (h.key().equals(key)) {
                if (out == null) {
                    out = new ArrayList<>(2);
                }
                out.add(h);
            }
        }
        return out == null ? List.of() : Collections.unmodifiableList(out);
    }

    /**
     * Returns the number of headers, counting repeated keys.
     *
     * @return the count, {@code >= 0}
     */
    public int size() {
        return size;
    }

    /**
     * Returns whether there are no headers.
     *
     * @return {@code size() == 0}
     */
    public boolean isEmpty() {
        return size == 0;
    }

    /**
     * Returns all headers in wire order.
     *
     * @return an unmodifiable list
     */
    public List<Header> toList() {
        return List.of(all());
    }

    /**
     * Iterates all headers in wire order; {@link Iterator#remove()} is not supported.
     *
     * @return an iterator
     */
    @Override
    public Iterator<Header> iterator() {
        // over the array itself: toList() would copy it for every loop over a record's headers
        Header[] all = all();
        return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return next < all.length;
            }

            @Override
            public Header next() {
                if (next >= all.length) {
                    throw new NoSuchElementException();
                }
                return all[next++];
            }
        };
    }

    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof Headers other && Arrays.equals(all(), other.all()));
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(all());
    }

    @Override
    public String toString() {
        return "Headers" + Arrays.toString(all());
    }
}
