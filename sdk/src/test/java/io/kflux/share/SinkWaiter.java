package io.kflux.share;

import reactor.core.publisher.MonoSink;

/** A test's acknowledgement waiter over a {@code Mono.create} sink. */
record SinkWaiter(long offset, MonoSink<Void> sink) implements ShareBroker.Waiter {
    @Override
    public void success() {
        sink.success();
    }

    @Override
    public void error(RuntimeException e) {
        sink.error(e);
    }
}
