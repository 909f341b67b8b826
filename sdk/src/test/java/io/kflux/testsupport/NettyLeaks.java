package io.kflux.testsupport;

import io.netty.buffer.AbstractByteBuf;
import io.netty.util.ResourceLeakDetector;
import java.lang.reflect.Field;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Records the leaks Netty's buffer leak detector reports while open (the sdk's tests log through slf4j-simple, so
 * the detector's log lines cannot be captured there): a {@link ResourceLeakDetector.LeakListener} on the detector of
 * every {@code ByteBuf}, which Netty keeps in a package-private static of {@link AbstractByteBuf} (read by reflection).
 * The listener hears exactly the reports the detector logs, whatever the logging backend. One open at a time; close
 * to remove it.
 */
public final class NettyLeaks implements AutoCloseable {
    private final List<String> reports = new CopyOnWriteArrayList<>();
    private final ResourceLeakDetector<?> detector;

    /** Starts listening. */
    public NettyLeaks() {
        try {
            Field field = AbstractByteBuf.class.getDeclaredField("leakDetector");
            field.setAccessible(true);
            detector = (ResourceLeakDetector<?>) field.get(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Netty's ByteBuf leak detector moved: update this test helper", e);
        }
        detector.setLeakListener((resourceType, records) -> reports.add(resourceType + ": " + records));
    }

    /** The leak reports so far, each the resource type and its access records. */
    public List<String> reports() {
        return List.copyOf(reports);
    }

    @Override
    public void close() {
        detector.setLeakListener(null);
    }
}
