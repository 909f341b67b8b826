package io.kflux;

import java.util.AbstractList;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.RandomAccess;
import java.util.function.Consumer;

/**
 * The unmodifiable list of a consumer's {@link RecordBatch}: the first {@code size} elements of an array the emitter
 * filled for this batch alone and never touches again, so no copy, no wrapper around a growable list and no
 * modification count to check while a subscriber walks it (issue #28: the walk is per record). Not API: users see it
 * as a {@link java.util.List} only; every mutator throws {@link UnsupportedOperationException} (from
 * {@link AbstractList}).
 */
final class OwnedRecords<E> extends AbstractList<E> implements RandomAccess {
    private final E[] items;
    private final int size;

    OwnedRecords(E[] items, int size) {
        Objects.checkFromIndexSize(0, size, items.length);
        this.items = items;
        this.size = size;
    }

    @Override
    public E get(int index) {
        return items[Objects.checkIndex(index, size)];
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public Iterator<E> iterator() {
        return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return next < size;
            }

            @Override
            public E next() {
                if (next >= size) {
                    throw new NoSuchElementException();
                }
                return items[next++];
            }
        };
    }

    @Override
    public void forEach(Consumer<? super E> action) {
        Objects.requireNonNull(action);
        for (int i = 0; i < size; i++) {
            action.accept(items[i]);
        }
    }
}
