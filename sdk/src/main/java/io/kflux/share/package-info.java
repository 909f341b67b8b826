/**
 * Share groups (KIP-932) below the public API: the per-broker share session ({@link io.kflux.share.ShareSession})
 * and the acknowledgements of one partition in their wire shape ({@link io.kflux.share.PartitionAcknowledgements}).
 * Layer 5, beside {@code io.kflux.fetch}; pure bookkeeping, no I/O.
 */
package io.kflux.share;
