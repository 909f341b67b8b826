package io.kflux.protocol;

import io.netty.util.ReferenceCounted;
import java.lang.reflect.RecordComponent;
import java.util.Collection;

/** Releases the reference-counted buffers inside a (partially) decoded message. */
final class ReferenceCounting {
    private ReferenceCounting() {
    }

    /** Walks lists and records (only on the failure path, so reflection is fine) and releases every buffer found. */
    static void releaseAll(Object value) {
        if (value instanceof ReferenceCounted rc) {
            if (rc.refCnt() > 0) {
                rc.release();
            }
        } else if (value instanceof Collection<?> c) {
            for (Object o : c) {
                releaseAll(o);
            }
        } else if (value instanceof Record r) {
            for (RecordComponent component : r.getClass().getRecordComponents()) {
                Class<?> type = component.getType();
                if (type.isPrimitive() || type == String.class || type == byte[].class) {
                    continue;
                }
                try {
                    releaseAll(component.getAccessor().invoke(r));
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }
}
