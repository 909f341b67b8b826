package io.kflux.network;

import io.netty.util.concurrent.EventExecutor;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * Installs BlockHound once per JVM, checking only the kflux-io event loops: blocking anywhere else
 * (a test's main thread, the fake broker's loops, other modules' tests in the same JVM) stays
 * allowed, so installing it here cannot change the outcome of other engineers' tests. Netty's and
 * Reactor's integrations are kept for their allowances (their own internal, known-safe waits); their
 * thread predicates are replaced by ours. Every violation is recorded as well as thrown, since an
 * error thrown on an event loop may only be logged.
 */
final class BlockHoundSupport {
    static final List<String> VIOLATIONS = new CopyOnWriteArrayList<>();
    private static boolean installed;

    private BlockHoundSupport() {
    }

    static synchronized void install() {
        if (installed) {
            return;
        }
        BlockHound.Builder builder = BlockHound.builder();
        List<BlockHoundIntegration> integrations = new ArrayList<>();
        for (BlockHoundIntegration i : ServiceLoader.load(BlockHoundIntegration.class)) {
            String name = i.getClass().getName();
            // BlockHound's own StandardOutputIntegration would flag console logging; not our concern here.
            if (name.startsWith("io.netty.") || name.startsWith("reactor.core.")) {
                integrations.add(i);
            }
        }
        integrations.sort(null);
        integrations.forEach(builder::with);
        builder.nonBlockingThreadPredicate(previous -> t -> t.getName().startsWith(IoLoops.THREAD_PREFIX));
        builder.blockingMethodCallback(m -> {
            VIOLATIONS.add(m + " on " + Thread.currentThread().getName());
            throw new reactor.blockhound.BlockingOperationError(m);
        });
        builder.install();
        forgetStateCachedDuringInstall();
        installed = true;
    }

    /**
     * BlockHound caches, per thread and on first use, whether that thread is checked; while install() runs it
     * briefly checks only its own test thread. A kflux-io loop already running (started by an earlier test class
     * in this JVM) that passes an instrumented method in that window caches "not checked" for good, so its
     * blocking calls would go unreported. Dropping each loop thread's cached state once install() is done makes
     * the next check use the final predicate.
     */
    private static void forgetStateCachedDuringInstall() {
        ThreadLocal<?> state;
        try {
            Field field = Class.forName("reactor.blockhound.BlockHoundRuntime", true, null).getDeclaredField("STATE");
            field.setAccessible(true);
            state = (ThreadLocal<?>) field.get(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("BlockHound's runtime changed shape; update BlockHoundSupport", e);
        }
        for (EventExecutor loop : IoLoops.shared().onClient(true)) {
            try {
                loop.submit(state::remove).get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("could not reach " + loop, e);
            }
        }
    }
}
