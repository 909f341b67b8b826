package io.kflux.protocol.record;

/**
 * One record header, copied out of the batch.
 *
 * @param key header key (UTF-8 decoded, never null)
 * @param value header value bytes, or null; compared by reference in {@code equals}
 */
public record RecordHeader(String key, byte[] value) {
}
