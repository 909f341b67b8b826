/**
 * Record batch v2 (magic 2) decoding for the fetch path: batch headers with CRC32C verification,
 * varint-encoded records and headers, control records, and decompression (gzip, snappy, lz4,
 * zstd) through their libraries.
 *
 * <p>Entry point: {@link io.kflux.protocol.record.RecordsReader}. Internal package, not API.
 */
package io.kflux.protocol.record;
