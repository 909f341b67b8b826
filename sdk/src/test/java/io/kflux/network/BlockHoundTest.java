package io.kflux.network;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockingOperationError;

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

    @Test
    void otherThreadsMayStillBlock() throws InterruptedException {
        Thread.sleep(1);
    }
}
