package io.kflux.internal.config;

/** {@code client.dns.lookup}: how host names are resolved (KIP-235, KIP-302). */
public enum ClientDnsLookup {
    /** Resolve every address of a name and try them in turn until one connects. */
    USE_ALL_DNS_IPS,
    /**
     * Bootstrap entries are first expanded to their canonical names (one per address), then treated as
     * {@link #USE_ALL_DNS_IPS}; needed for some Kerberos/TLS setups behind DNS aliases.
     */
    RESOLVE_CANONICAL_BOOTSTRAP_SERVERS_ONLY
}
