package io.kflux.network;

/**
 * How broker host names become addresses ({@code client.dns.lookup}, KIP-235 and KIP-302). Names are resolved by
 * the JDK resolver (so {@code /etc/hosts} and the JVM's DNS cache apply, as for the official client), off the
 * I/O threads, at every connect: a broker whose address changed is found again without a restart.
 */
public enum DnsLookup {
    /**
     * {@code use_all_dns_ips} (the official default since Kafka 3.0): every address of a name is tried in the order
     * the resolver returns them, until one connects; each attempt has its own setup timeout (KIP-302).
     */
    USE_ALL_DNS_IPS,
    /**
     * {@code resolve_canonical_bootstrap_servers_only}: each bootstrap name is first expanded to the canonical names
     * of its addresses (KIP-235, for a DNS alias in front of several brokers, e.g. with Kerberos); those names, and
     * broker names, are then connected through the first address the resolver returns, as the official client does.
     */
    RESOLVE_CANONICAL_BOOTSTRAP_SERVERS_ONLY;

    /** The value as {@code client.dns.lookup} spells it. */
    public String configValue() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * The value for a {@code client.dns.lookup} setting.
     *
     * @throws IllegalArgumentException for any other text
     */
    public static DnsLookup fromConfig(String value) {
        for (DnsLookup d : values()) {
            if (d.configValue().equals(value)) {
                return d;
            }
        }
        throw new IllegalArgumentException("client.dns.lookup must be use_all_dns_ips or "
                + "resolve_canonical_bootstrap_servers_only: " + value);
    }
}
