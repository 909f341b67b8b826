package io.kflux.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.KafkaProtocolException;
import io.kflux.group.CoordinatorIo.CoordinatorChannel;
import io.kflux.network.UnsupportedVersionException;
import io.kflux.protocol.ApiKey;
import io.kflux.protocol.Errors;
import io.kflux.protocol.MalformedMessageException;
import io.kflux.util.StateTransitions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.test.scheduler.VirtualTimeScheduler;

/** The one coordinator manager the member (both protocols) and commits share, against a scripted FindCoordinator. */
class CoordinatorManagerTest {
    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final FakeGroupIo io = new FakeGroupIo();
    private final CoordinatorManager manager = new CoordinatorManager("g", io, time, 100, 1_000);

    @Test
    void concurrentCallersShareOneLookupAndGetTheSameChannel() {
        List<CoordinatorChannel> got = new ArrayList<>();
        manager.channel().subscribe(got::add);
        manager.channel().subscribe(got::add);
        assertThat(manager.state()).isEqualTo(CoordinatorState.DISCOVERING);
        assertThat(io.findCount).isEqualTo(1);
        io.answerFind(3);
        assertThat(got).hasSize(2).allMatch(ch -> ch == got.get(0));
        assertThat(got.get(0).nodeId()).isEqualTo(3);
        assertThat(manager.state()).isEqualTo(CoordinatorState.KNOWN);
        manager.channel().subscribe(got::add);
        assertThat(got).hasSize(3);
        assertThat(io.findCount).as("a known coordinator is handed out without a lookup").isEqualTo(1);
    }

    @Test
    void aBatchedAnswerWithoutTheGroupIsRetriedNotDereferenced() {
        List<CoordinatorChannel> got = new ArrayList<>();
        List<Throwable> errors = new ArrayList<>();
        manager.channel().subscribe(got::add, errors::add);
        io.failFind(new MalformedMessageException("FindCoordinator response has no entry for group g"));
        assertThat(errors).isEmpty();
        time.advanceTimeBy(Duration.ofMillis(120));
        assertThat(io.findCount).isEqualTo(2);
        io.answerFind(1);
        assertThat(got).hasSize(1);
    }

    @Test
    void aNonRetriableAnswerFailsEveryWaiterTypedAndTheNextCallAsksAgain() {
        List<Throwable> errors = new ArrayList<>();
        manager.channel().subscribe(ch -> { }, errors::add);
        manager.channel().subscribe(ch -> { }, errors::add);
        io.answerFind(1, Errors.GROUP_AUTHORIZATION_FAILED);
        assertThat(errors).hasSize(2).allSatisfy(e -> assertThat(e).isInstanceOfSatisfying(
                KafkaProtocolException.class, k -> assertThat(k.errorCode()).isEqualTo(Errors.GROUP_AUTHORIZATION_FAILED.code())));
        assertThat(manager.state()).isEqualTo(CoordinatorState.UNKNOWN);
        manager.channel().subscribe(ch -> { }, errors::add);
        assertThat(io.findCount).isEqualTo(2);
    }

    @Test
    void anUnsupportedVersionIsThePublicType() {
        List<Throwable> errors = new ArrayList<>();
        manager.connection().subscribe(c -> { }, errors::add);
        io.failFind(new UnsupportedVersionException("FindCoordinator v0 not supported", ApiKey.FIND_COORDINATOR));
        assertThat(errors).singleElement().isInstanceOf(io.kflux.UnsupportedVersionException.class);
    }

    @Test
    void retriesStopWhenNobodyWaitsAnyMore() {
        Disposable waiting = manager.channel().subscribe();
        io.answerFind(1, Errors.COORDINATOR_NOT_AVAILABLE);
        waiting.dispose(); // e.g. a commit's timeout
        time.advanceTimeBy(Duration.ofSeconds(10));
        assertThat(io.findCount).as("the retry already scheduled still runs").isLessThanOrEqualTo(2);
        if (io.findCount == 2) {
            io.answerFind(1, Errors.COORDINATOR_NOT_AVAILABLE);
        }
        int before = io.findCount;
        time.advanceTimeBy(Duration.ofSeconds(10));
        assertThat(io.findCount).isEqualTo(before);
        assertThat(manager.state()).isEqualTo(CoordinatorState.UNKNOWN);
    }

    @Test
    void aLossIsToldToListenersOnceAndOnlyForTheCurrentCoordinator() {
        List<CoordinatorChannel> lost = new ArrayList<>();
        manager.onLost(lost::add);
        CoordinatorChannel[] first = new CoordinatorChannel[1];
        manager.channel().subscribe(ch -> first[0] = ch);
        io.answerFind(1);
        manager.markUnavailable(first[0], "NOT_COORDINATOR");
        manager.markUnavailable(first[0], "NOT_COORDINATOR again, from a second request");
        assertThat(lost).containsExactly(first[0]);
        assertThat(manager.state()).isEqualTo(CoordinatorState.UNKNOWN);

        manager.channel().subscribe();
        io.answerFind(2);
        manager.markUnavailable(first[0], "a late report about the old coordinator");
        assertThat(manager.state()).isEqualTo(CoordinatorState.KNOWN);
        io.channel().drop(); // the new coordinator's connection closes
        assertThat(lost).hasSize(2);
        assertThat(lost.get(1).nodeId()).isEqualTo(2);
        assertThat(manager.state()).isEqualTo(CoordinatorState.UNKNOWN);
    }

    @Test
    void closeFailsWaitersAndLaterCalls() {
        List<Throwable> errors = new ArrayList<>();
        manager.channel().subscribe(ch -> { }, errors::add);
        manager.close();
        assertThat(errors).singleElement().isInstanceOf(IllegalStateException.class);
        io.answerFind(1);
        assertThat(manager.state()).isEqualTo(CoordinatorState.CLOSED);
        manager.connection().subscribe(c -> { }, errors::add);
        assertThat(errors).hasSize(2);
    }

    @Test
    void transitionsAreChecked() {
        assertThat(StateTransitions.check(CoordinatorState.UNKNOWN, CoordinatorState.DISCOVERING))
                .isEqualTo(CoordinatorState.DISCOVERING);
        assertThatThrownBy(() -> StateTransitions.check(CoordinatorState.UNKNOWN, CoordinatorState.KNOWN))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("UNKNOWN -> KNOWN");
        assertThatThrownBy(() -> StateTransitions.check(CoordinatorState.CLOSED, CoordinatorState.UNKNOWN))
                .isInstanceOf(IllegalStateException.class);
    }
}
