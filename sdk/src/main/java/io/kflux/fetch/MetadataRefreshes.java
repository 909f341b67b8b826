package io.kflux.fetch;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fetcher's metadata refreshes, at most one per {@code retry.backoff.ms}: a partition whose topic or leader stays
 * unknown makes every plan ask again, and without this limit that was a tight Metadata loop (or, with an answer
 * served from the refresh still completing, a spin on the I/O thread that never returned). A request within the
 * backoff is not dropped: one refresh goes out when it ends. The round trips themselves are
 * {@link io.kflux.metadata.MetadataManager}'s (concurrent ones share one); this is when the fetcher asks, on its own
 * clock (virtual time in tests). Loop only.
 */
final class MetadataRefreshes {
    /** The fetcher's log category, kept for these lines (log configurations name it). */
    private static final Logger log = LoggerFactory.getLogger(Fetcher.class);

    private final FetchIo io;
    private final FetchLoop loop;
    private final long retryBackoffMs;
    private final Runnable plan;
    private final Runnable retryLater;
    /** A refresh is under way or scheduled. */
    private boolean inFlight;
    /** On the fetcher's clock (ns, odd so never 0 once set): when the last refresh went out; 0 before one. */
    private long lastNanos;

    /**
     * @param plan       plans again once a refresh brought a snapshot
     * @param retryLater plans again after {@code retry.backoff.ms} (after a failed refresh)
     */
    MetadataRefreshes(FetchIo io, FetchLoop loop, long retryBackoffMs, Runnable plan, Runnable retryLater) {
        this.io = io;
        this.loop = loop;
        this.retryBackoffMs = retryBackoffMs;
        this.plan = plan;
        this.retryLater = retryLater;
    }

    /** Refreshes now, or once {@code retry.backoff.ms} passed since the last refresh; nothing when one is pending. */
    void request() {
        if (inFlight || loop.isClosed()) {
            return;
        }
        long sinceLastMs = (loop.nowNanos() - lastNanos) / 1_000_000L;
        if (lastNanos != 0L && sinceLastMs < retryBackoffMs) {
            inFlight = true;
            loop.schedule(retryBackoffMs - sinceLastMs, () -> {
                inFlight = false;
                request();
            });
            return;
        }
        inFlight = true;
        lastNanos = loop.nowNanos() | 1L;
        io.refreshMetadata().subscribe(c -> loop.execute(() -> {
                    inFlight = false;
                    plan.run();
                }),
                e -> loop.execute(() -> {
                    inFlight = false;
                    log.debug("metadata refresh failed: {}", e.toString());
                    retryLater.run();
                }));
    }
}
