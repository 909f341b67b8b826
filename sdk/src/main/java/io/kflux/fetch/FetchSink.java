package io.kflux.fetch;

/** Where the fetcher delivers data and fatal errors (the record emitter, through the consumer). */
public interface FetchSink {
    /** A partition's records, to be emitted in order and then handed back through {@link Fetcher#onConsumed}. */
    void accept(CompletedFetch fetch);

    /** A fatal error: the consumer's flux ends with it. */
    void fail(Throwable error);
}
