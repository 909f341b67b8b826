package io.kflux.util;

import java.util.Objects;
import org.slf4j.MDC;

/**
 * Who a log line is about: the consumer's {@code client.id} and {@code group.id}, put into the SLF4J MDC (keys
 * {@value #CLIENT_ID_KEY} and {@value #GROUP_ID_KEY}) while a task of that consumer runs, so that the lines of
 * several consumers in one JVM can be told apart (a layout shows them with {@code %X{kflux.client.id}}).
 *
 * <p>Why the MDC and not a prefix in every message: kflux logs from a handful of places (the consumer's
 * {@link SerialExecutor}, the record emitter's worker, commit and connection callbacks), but from many classes; the
 * MDC is set at those few places instead of threading a prefix through every class. The MDC is per thread and
 * Reactor hops threads, so it is set around each task, never left behind: the previous values are restored.
 */
public final class LogContext {
    /** MDC key of the consumer's {@code client.id}. */
    public static final String CLIENT_ID_KEY = "kflux.client.id";
    /** MDC key of the consumer's {@code group.id} (absent without one). */
    public static final String GROUP_ID_KEY = "kflux.group.id";
    /** Sets nothing: for components used outside a consumer (tests, tools). */
    public static final LogContext NONE = new LogContext(null, null);

    private final String clientId;
    private final String groupId;

    /**
     * @param clientId the consumer's {@code client.id}, null for none
     * @param groupId  its {@code group.id}, null for none
     */
    public LogContext(String clientId, String groupId) {
        this.clientId = clientId;
        this.groupId = groupId;
    }

    /** Runs {@code task} with this context in the MDC, then restores what the thread had. */
    public void run(Runnable task) {
        if (clientId == null && groupId == null) {
            task.run();
            return;
        }
        String previousClient = MDC.get(CLIENT_ID_KEY);
        String previousGroup = MDC.get(GROUP_ID_KEY);
        boolean same = Objects.equals(previousClient, clientId) && Objects.equals(previousGroup, groupId);
        if (!same) {
            put(clientId, groupId);
        }
        try {
            task.run();
        } finally {
            if (!same) {
                put(previousClient, previousGroup);
            }
        }
    }

    /** {@code task} wrapped to run with this context. */
    public Runnable wrap(Runnable task) {
        return clientId == null && groupId == null ? task : () -> run(task);
    }

    private static void put(String clientId, String groupId) {
        if (clientId == null) {
            MDC.remove(CLIENT_ID_KEY);
        } else {
            MDC.put(CLIENT_ID_KEY, clientId);
        }
        if (groupId == null) {
            MDC.remove(GROUP_ID_KEY);
        } else {
            MDC.put(GROUP_ID_KEY, groupId);
        }
    }

    @Override
    public String toString() {
        return "client.id=" + clientId + (groupId == null ? "" : ", group.id=" + groupId);
    }
}
