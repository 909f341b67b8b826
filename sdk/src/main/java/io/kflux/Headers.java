package io.kflux;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * The headers of one record (KIP-82), in wire order. Immutable: there is no add or remove, so a record can be
 * handed to another thread without copying.
 *
 * <p>A key may appear several times; {@link #lastHeader(String)} gives the last one (the convention of the
 * official client), {@link #headers(String)} all of them.
 */
public final class Headers implements Iterable<Header> {

    private static final Header[] NONE = new Header[0];
    private static final Headers EMPTY = new Headers(NONE);

    private final Header[] headers;

    private Headers(Header[] headers) {
        this.headers = headers;
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
     * Takes {@code headers} as they are, without the copy {@link #of(Header...)} makes: for the consumer, which builds
     * the array for each record and hands it on (through {@link io.kflux.internal.Records}), never touching it again.
     */
    static Headers owning(Header[] headers) {
        return headers.length == 0 ? EMPTY : new Headers(headers);
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
        for (int i = headers.length - 1; i >= 0; i--) {
            if (headers[i].key().equals(key)) {
                return headers[i];
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
        for (Header h : headers) {
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
        return headers.length;
    }

    /**
     * Returns whether there are no headers.
     *
     * @return {@code size() == 0}
     */
    public boolean isEmpty() {
        return headers.length == 0;
    }

    /**
     * Returns all headers in wire order.
     *
     * @return an unmodifiable list
     */
    public List<Header> toList() {
        return List.of(headers);
    }

    /**
     * Iterates all headers in wire order; {@link Iterator#remove()} is not supported.
     *
     * @return an iterator
     */
    @Override
    public Iterator<Header> iterator() {
        // over the array itself: toList() would copy it for every loop over a record's headers
        return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return next < headers.length;
            }

            @Override
            public Header next() {
                if (next >= headers.length) {
                    throw new NoSuchElementException();
                }
                return headers[next++];
            }
        };
    }

    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof Headers other && Arrays.equals(headers, other.headers));
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(headers);
    }

    @Override
    public String toString() {
        return "Headers" + Arrays.toString(headers);
    }
}
