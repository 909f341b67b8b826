package io.kflux.network;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockingOperationError;
import reactor.core.scheduler.Schedulers;

/** Shows that the BlockHound set up for these tests does catch blocking on a kflux-io thread. */
class BlockHoundTest {

    @BeforeAll
    static void install() {
        BlockHoundSupport.install();
    }

    @Test
    void sleepingOnAKfluxEventLoopIsCaught() throws Exception {
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        IoLoops.shared().onClient(true).next().execute(() -> {
            try {
                Thread.sleep(1);
                outcome.complete(null);
            } catch (Throwable t) {
                outcome.complete(t);
            }
        });

        assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOf(BlockingOperationError.class);
        assertThat(BlockHoundSupport.VIOLATIONS).anySatisfy(v -> assertThat(v).contains("sleep"));
        BlockHoundSupport.VIOLATIONS.removeIf(v -> v.contains("sleep"));
    }

    /**
     * Only kflux-io threads are checked: the test's own thread and a Reactor parallel thread (which Reactor's own
     * integration would mark non-blocking, a predicate BlockHoundSupport replaces) sleep without an error or a record.
     */
    @Test
    void otherThreadsMayStillBlock() throws Exception {
        Thread.sleep(1);
        CompletableFuture<String> outcome = new CompletableFuture<>();
        Schedulers.parallel().schedule(() -> {
            try {
                Thread.sleep(1);
                outcome.complete(Thread.currentThread().getName());
            } catch (Throwable t) {
                outcome.completeExceptionally(t);
            }
        });

        assertThat(outcome.get(10, TimeUnit.SECONDS)).as("the thread that slept").startsWith("parallel-");
        assertThat(BlockHoundSupport.VIOLATIONS).noneMatch(v -> v.contains(" on main") || v.contains(" on parallel-"));
    }
}
