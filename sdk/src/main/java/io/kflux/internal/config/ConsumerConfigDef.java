package io.kflux.internal.config;

import static io.kflux.PropertyDescription.Support.HONOURED;
import static io.kflux.PropertyDescription.Support.IGNORED;
import static io.kflux.PropertyDescription.Support.REJECTED;

import io.kflux.PropertyDescription.Support;
import java.util.List;

/**
 * Every consumer property kflux knows: the official Java consumer's names (kafka-clients 4.x), types and
 * defaults, with kflux's own descriptions and its level of support. Defaults are checked against the official
 * client in the tests. A new property needs its definition here and a {@link ConsumerConfig#value} call where it is
 * read; parsing, validation, "did you mean", the effective-configuration log and the documentation check follow
 * from the definition (DESIGN.md, "Adding a property").
 */
public final class ConsumerConfigDef {

    /** {@value}. */
    public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
    /** {@value} (KIP-909). */
    public static final String BOOTSTRAP_RESOLVE_TIMEOUT_MS = "bootstrap.resolve.timeout.ms";
    /** {@value}. */
    public static final String CLIENT_DNS_LOOKUP = "client.dns.lookup";
    /** {@value}. */
    public static final String CLIENT_ID = "client.id";
    /** {@value}. */
    public static final String CLIENT_RACK = "client.rack";
    /** {@value}. */
    public static final String GROUP_ID = "group.id";
    /** {@value}. */
    public static final String GROUP_INSTANCE_ID = "group.instance.id";
    /** {@value}. */
    public static final String GROUP_PROTOCOL = "group.protocol";
    /** {@value}. */
    public static final String GROUP_REMOTE_ASSIGNOR = "group.remote.assignor";
    /** {@value}. */
    public static final String SESSION_TIMEOUT_MS = "session.timeout.ms";
    /** {@value}. */
    public static final String HEARTBEAT_INTERVAL_MS = "heartbeat.interval.ms";
    /** {@value}. */
    public static final String MAX_POLL_INTERVAL_MS = "max.poll.interval.ms";
    /** {@value}. */
    public static final String MAX_POLL_RECORDS = "max.poll.records";
    /** {@value}. */
    public static final String AUTO_OFFSET_RESET = "auto.offset.reset";
    /** {@value}. */
    public static final String ENABLE_AUTO_COMMIT = "enable.auto.commit";
    /** {@value}. */
    public static final String AUTO_COMMIT_INTERVAL_MS = "auto.commit.interval.ms";
    /** {@value}. */
    public static final String ISOLATION_LEVEL = "isolation.level";
    /** {@value}. */
    public static final String FETCH_MIN_BYTES = "fetch.min.bytes";
    /** {@value}. */
    public static final String FETCH_MAX_BYTES = "fetch.max.bytes";
    /** {@value}. */
    public static final String FETCH_MAX_WAIT_MS = "fetch.max.wait.ms";
    /** {@value}. */
    public static final String MAX_PARTITION_FETCH_BYTES = "max.partition.fetch.bytes";
    /** {@value}. */
    public static final String PARTITION_ASSIGNMENT_STRATEGY = "partition.assignment.strategy";
    /** {@value}. */
    public static final String REQUEST_TIMEOUT_MS = "request.timeout.ms";
    /** {@value}. */
    public static final String DEFAULT_API_TIMEOUT_MS = "default.api.timeout.ms";
    /** {@value}. */
    public static final String RETRY_BACKOFF_MS = "retry.backoff.ms";
    /** {@value}. */
    public static final String RETRY_BACKOFF_MAX_MS = "retry.backoff.max.ms";
    /** {@value}. */
    public static final String RECONNECT_BACKOFF_MS = "reconnect.backoff.ms";
    /** {@value}. */
    public static final String RECONNECT_BACKOFF_MAX_MS = "reconnect.backoff.max.ms";
    /** {@value}. */
    public static final String SOCKET_CONNECTION_SETUP_TIMEOUT_MS = "socket.connection.setup.timeout.ms";
    /** {@value}. */
    public static final String SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS = "socket.connection.setup.timeout.max.ms";
    /** {@value}. */
    public static final String CONNECTIONS_MAX_IDLE_MS = "connections.max.idle.ms";
    /** {@value}. */
    public static final String METADATA_MAX_AGE_MS = "metadata.max.age.ms";
    /** {@value}. */
    public static final String METADATA_CLUSTER_CHECK_ENABLE = "metadata.cluster.check.enable";
    /** {@value}. */
    public static final String METADATA_RECOVERY_STRATEGY = "metadata.recovery.strategy";
    /** {@value}. */
    public static final String METADATA_RECOVERY_REBOOTSTRAP_TRIGGER_MS = "metadata.recovery.rebootstrap.trigger.ms";
    /** {@value}. */
    public static final String RECEIVE_BUFFER_BYTES = "receive.buffer.bytes";
    /** {@value}. */
    public static final String SEND_BUFFER_BYTES = "send.buffer.bytes";
    /** {@value}. */
    public static final String CHECK_CRCS = "check.crcs";
    /** {@value}. */
    public static final String ENABLE_METRICS_PUSH = "enable.metrics.push";
    /** {@value}. */
    public static final String ALLOW_AUTO_CREATE_TOPICS = "allow.auto.create.topics";
    /** {@value}. */
    public static final String EXCLUDE_INTERNAL_TOPICS = "exclude.internal.topics";
    /** {@value}. */
    public static final String KEY_DESERIALIZER = "key.deserializer";
    /** {@value}. */
    public static final String VALUE_DESERIALIZER = "value.deserializer";
    /** {@value}. */
    public static final String SECURITY_PROTOCOL = "security.protocol";
    /** {@value}. */
    public static final String SASL_MECHANISM = "sasl.mechanism";
    /** {@value}. */
    public static final String SASL_JAAS_CONFIG = "sasl.jaas.config";
    /** {@value}. */
    public static final String SSL_PROTOCOL = "ssl.protocol";
    /** {@value}. */
    public static final String SSL_ENABLED_PROTOCOLS = "ssl.enabled.protocols";
    /** {@value}. */
    public static final String SSL_CIPHER_SUITES = "ssl.cipher.suites";
    /** {@value}. */
    public static final String SSL_PROVIDER = "ssl.provider";
    /** {@value}. */
    public static final String SSL_TRUSTSTORE_LOCATION = "ssl.truststore.location";
    /** {@value}. */
    public static final String SSL_TRUSTSTORE_PASSWORD = "ssl.truststore.password";
    /** {@value}. */
    public static final String SSL_TRUSTSTORE_TYPE = "ssl.truststore.type";
    /** {@value}. */
    public static final String SSL_KEYSTORE_LOCATION = "ssl.keystore.location";
    /** {@value}. */
    public static final String SSL_KEYSTORE_PASSWORD = "ssl.keystore.password";
    /** {@value}. */
    public static final String SSL_KEYSTORE_TYPE = "ssl.keystore.type";
    /** {@value}. */
    public static final String SSL_KEY_PASSWORD = "ssl.key.password";
    /** {@value}. */
    public static final String SSL_KEYMANAGER_ALGORITHM = "ssl.keymanager.algorithm";
    /** {@value}. */
    public static final String SSL_TRUSTMANAGER_ALGORITHM = "ssl.trustmanager.algorithm";
    /** {@value}. */
    public static final String SSL_ENDPOINT_IDENTIFICATION_ALGORITHM = "ssl.endpoint.identification.algorithm";
    /** {@value}. */
    public static final String SSL_SECURE_RANDOM_IMPLEMENTATION = "ssl.secure.random.implementation";
    /** {@value} (KIP-651). */
    public static final String SSL_TRUSTSTORE_CERTIFICATES = "ssl.truststore.certificates";
    /** {@value} (KIP-651). */
    public static final String SSL_KEYSTORE_CERTIFICATE_CHAIN = "ssl.keystore.certificate.chain";
    /** {@value} (KIP-651). */
    public static final String SSL_KEYSTORE_KEY = "ssl.keystore.key";

    private static final String OAUTH_UNUSED = "kflux's OAUTHBEARER has no jwt-bearer grant; JWKS and validation are the broker's";

    /** The definitions. */
    public static final ConfigDef DEF = build();

    private ConsumerConfigDef() {
    }

    private static ConfigDef build() {
        ConfigDef d = new ConfigDef();
        // --- connection and identity
        d.define(new ConfigKey(BOOTSTRAP_SERVERS, ConfigType.LIST, null, true, ConsumerConfig.BOOTSTRAP_VALIDATOR,
            "Brokers (host:port, comma-separated) contacted first to discover the cluster; any subset will do.",
            HONOURED));
        h(d, BOOTSTRAP_RESOLVE_TIMEOUT_MS, ConfigType.LONG, 0L, Validator.atLeast(0),
          "How long, in ms, the first bootstrap goes on while no bootstrap.servers name resolves; then the consumer ends "
          + "with a ConfigException naming it. 0 fails the first attempt in which none resolves (KIP-909).");
        h(d, CLIENT_DNS_LOOKUP, ConfigType.STRING, "use_all_dns_ips",
          Validator.oneOf("use_all_dns_ips", "resolve_canonical_bootstrap_servers_only"),
          "How host names are resolved: try every address of a name, or first canonicalise bootstrap names.");
        h(d, CLIENT_ID, ConfigType.STRING, "", Validator.of("a string of at most " + Short.MAX_VALUE
                + " characters (a request header's string)", v -> ((String) v).length() <= Short.MAX_VALUE),
          "Name sent with every request for broker logs and quotas; empty generates consumer-<group.id>-<n>, as the official client.");
        h(d, CLIENT_RACK, ConfigType.STRING, "", null,
          "Rack of this client, sent in Fetch so a broker may direct it to a nearby replica (KIP-392).");
        h(d, SECURITY_PROTOCOL, ConfigType.STRING, "PLAINTEXT",
          Validator.oneOfIgnoreCase("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"),
          "Transport security: PLAINTEXT, SSL (TLS), SASL_PLAINTEXT or SASL_SSL.");
        h(d, REQUEST_TIMEOUT_MS, ConfigType.INT, 30000, Validator.atLeast(1),
          "Longest wait for the answer to one request, in ms, before it fails and the connection is dropped.");
        h(d, DEFAULT_API_TIMEOUT_MS, ConfigType.INT, 60000, Validator.atLeast(0),
          "Time budget, in ms, of commit, committed, offsetsForTimes and seeks to beginning/end, retries included.");
        h(d, RETRY_BACKOFF_MS, ConfigType.LONG, 100L, Validator.atLeast(0),
          "First wait, in ms, before retrying a failed request; doubles per attempt up to retry.backoff.max.ms.");
        h(d, RETRY_BACKOFF_MAX_MS, ConfigType.LONG, 1000L, Validator.atLeast(0),
          "Upper bound, in ms, of the growing wait between retries of a failed request.");
        h(d, RECONNECT_BACKOFF_MS, ConfigType.LONG, 50L, Validator.atLeast(0),
          "First wait, in ms, before reconnecting to a broker; grows per failure up to reconnect.backoff.max.ms.");
        h(d, RECONNECT_BACKOFF_MAX_MS, ConfigType.LONG, 1000L, Validator.atLeast(0),
          "Upper bound, in ms, of the growing wait between reconnection attempts to one broker.");
        h(d, SOCKET_CONNECTION_SETUP_TIMEOUT_MS, ConfigType.LONG, 10000L, Validator.between(1, Integer.MAX_VALUE),
          "Longest wait, in ms, for a TCP connection to be established; grows per failure up to the max.");
        h(d, SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS, ConfigType.LONG, 30000L, Validator.between(0, Integer.MAX_VALUE),
          "Upper bound, in ms, of the growing connection setup timeout.");
        h(d, CONNECTIONS_MAX_IDLE_MS, ConfigType.LONG, 540000L, null,
          "Connections unused for this long, in ms, are closed; a negative value keeps them open.");
        h(d, METADATA_RECOVERY_STRATEGY, ConfigType.STRING, "rebootstrap", Validator.oneOfIgnoreCase("none", "rebootstrap"),
          "rebootstrap: ask bootstrap.servers again (names resolved anew) when no known broker can be connected or "
          + "answers Metadata for metadata.recovery.rebootstrap.trigger.ms, or one answers REBOOTSTRAP_REQUIRED; "
          + "none: bootstrap.servers only until a broker is known (KIP-899, KIP-1102).");
        h(d, METADATA_RECOVERY_REBOOTSTRAP_TRIGGER_MS, ConfigType.LONG, 300000L, Validator.atLeast(0),
          "How long, in ms, Metadata attempts may go unanswered by the known brokers before the rebootstrap (KIP-1102).");
        h(d, METADATA_CLUSTER_CHECK_ENABLE, ConfigType.BOOLEAN, Boolean.TRUE, null,
          "Name the cluster and node meant in every connection to a known broker, so that a broker of another cluster "
          + "refuses it (Kafka 4.4+, KIP-1242); only with metadata.recovery.strategy=rebootstrap.");
        h(d, METADATA_MAX_AGE_MS, ConfigType.LONG, 300000L, Validator.atLeast(0),
          "Cluster metadata is refreshed at least this often, in ms, even without errors.");
        // -1, not the official client's 65536: a fixed SO_RCVBUF turns off the kernel's receive-window auto-tuning,
        // capping every connection's window (BENCHMARKS.md, "The receive buffer"); librdkafka and franz-go leave it too
        h(d, RECEIVE_BUFFER_BYTES, ConfigType.INT, -1, Validator.osDefaultOrPositive(),
          "TCP receive buffer size (SO_RCVBUF) in bytes; -1 (the default) leaves the operating system default and its "
          + "auto-tuning.");
        h(d, SEND_BUFFER_BYTES, ConfigType.INT, 131072, Validator.osDefaultOrPositive(),
          "TCP send buffer size (SO_SNDBUF) in bytes; -1 leaves the operating system default.");

        // --- group membership
        h(d, GROUP_ID, ConfigType.STRING, null, null,
          "Consumer group to join; required to subscribe and to commit offsets.");
        h(d, GROUP_INSTANCE_ID, ConfigType.STRING, null, Validator.nonEmpty(),
          "Static member identity (KIP-345): a restart within session.timeout.ms keeps the partitions; unique per process.");
        h(d, GROUP_PROTOCOL, ConfigType.STRING, "classic", Validator.oneOfIgnoreCase("classic", "consumer"),
          "Group protocol: classic (client-side assignment) or consumer (broker-side assignment, KIP-848).");
        h(d, GROUP_REMOTE_ASSIGNOR, ConfigType.STRING, null, null,
          "With group.protocol=consumer, the name of the broker-side assignor to use; null lets the broker choose.");
        h(d, SESSION_TIMEOUT_MS, ConfigType.INT, 45000, Validator.atLeast(1),
          "Classic protocol: the coordinator removes the member after this many ms without a heartbeat. Both protocols: "
          + "after this many ms without an answer from the coordinator the member treats its partitions as lost "
          + "(stops emitting and fetching them) and joins again; with group.protocol=consumer set it to the broker's "
          + "group.consumer.session.timeout.ms (or the group's consumer.session.timeout.ms), which KIP-848 does not "
          + "send to the client.");
        h(d, HEARTBEAT_INTERVAL_MS, ConfigType.INT, 3000, Validator.atLeast(1),
          "Classic protocol: time between heartbeats, in ms; must be below session.timeout.ms.");
        h(d, MAX_POLL_INTERVAL_MS, ConfigType.INT, 300000, Validator.atLeast(1),
          "The member leaves the group when records were emitted but no more were requested for this many ms.");
        h(d, PARTITION_ASSIGNMENT_STRATEGY, ConfigType.LIST, List.of("range", "cooperative-sticky"),
          ConsumerConfig.ASSIGNOR_VALIDATOR,
          "Classic protocol assignors in preference order: range, roundrobin, sticky, cooperative-sticky or a class name.");

        // --- offsets and commits
        h(d, AUTO_OFFSET_RESET, ConfigType.STRING, "latest", ConsumerConfig.AUTO_OFFSET_RESET_VALIDATOR,
          "Start position without a valid committed offset: earliest, latest, none (fail) or by_duration:<ISO-8601>.");
        h(d, ENABLE_AUTO_COMMIT, ConfigType.BOOLEAN, Boolean.TRUE, null,
          "Commit acknowledged offsets periodically, on revocation and on close; off by default without group.id.");
        h(d, AUTO_COMMIT_INTERVAL_MS, ConfigType.INT, 5000, Validator.atLeast(0),
          "Time between automatic commits of acknowledged offsets, in ms.");

        // --- fetching
        h(d, ISOLATION_LEVEL, ConfigType.STRING, "read_uncommitted",
          Validator.oneOf("read_uncommitted", "read_committed"),
          "read_committed returns only records of committed transactions, up to the last stable offset (KIP-98).");
        h(d, FETCH_MIN_BYTES, ConfigType.INT, 1, Validator.atLeast(0),
          "The broker holds a fetch until it has at least this many bytes, or fetch.max.wait.ms passed.");
        h(d, FETCH_MAX_BYTES, ConfigType.INT, 52428800, Validator.atLeast(0),
          "Soft upper bound, in bytes, of one fetch response (a larger first batch is still returned, KIP-74).");
        h(d, FETCH_MAX_WAIT_MS, ConfigType.INT, 500, Validator.atLeast(0),
          "Longest time, in ms, the broker holds a fetch waiting for fetch.min.bytes.");
        h(d, MAX_PARTITION_FETCH_BYTES, ConfigType.INT, 1048576, Validator.atLeast(0),
          "Soft upper bound, in bytes, of the data returned for one partition per fetch.");
        h(d, MAX_POLL_RECORDS, ConfigType.INT, 500, Validator.atLeast(1),
          "The most records one batch of receiveBatches() holds; receive() hands over one record per unit of demand, so it is unaffected.");
        h(d, CHECK_CRCS, ConfigType.BOOLEAN, Boolean.TRUE, null,
          "Verify the CRC32C of every fetched record batch; a mismatch fails with CorruptRecordException.");
        h(d, ENABLE_METRICS_PUSH, ConfigType.BOOLEAN, Boolean.TRUE, null,
          "Push this client's metrics to the brokers when the cluster has a matching client-metrics subscription "
          + "(KIP-714), as the official client does; false sends no telemetry request at all.");
        h(d, ALLOW_AUTO_CREATE_TOPICS, ConfigType.BOOLEAN, Boolean.TRUE, null,
          "Let Metadata requests for subscribed topics create missing ones, if the broker allows it.");
        h(d, EXCLUDE_INTERNAL_TOPICS, ConfigType.BOOLEAN, Boolean.TRUE, null,
          "Pattern subscriptions do not match internal topics such as __consumer_offsets.");
        h(d, KEY_DESERIALIZER, ConfigType.CLASS, null, null,
          "Key deserializer class for ConsumerOptions.fromProperties; ignored when a Deserializer is passed.");
        h(d, VALUE_DESERIALIZER, ConfigType.CLASS, null, null,
          "Value deserializer class for ConsumerOptions.fromProperties; ignored when a Deserializer is passed.");

        // --- SASL
        h(d, SASL_MECHANISM, ConfigType.STRING, "GSSAPI", null,
          "SASL mechanism for SASL_* protocols: GSSAPI (the default, as in the official client), PLAIN, SCRAM-SHA-256, "
          + "SCRAM-SHA-512, OAUTHBEARER or a plugged-in one.");
        h(d, SASL_JAAS_CONFIG, ConfigType.PASSWORD, null, null,
          "JAAS login module entry with the mechanism's options (username/password, OAUTHBEARER's token settings).");
        h(d, "sasl.oauthbearer.token.endpoint.url", ConfigType.STRING, null, null,
          "OAUTHBEARER: OAuth token endpoint for the client credentials grant (KIP-768).");
        h(d, "sasl.oauthbearer.scope", ConfigType.STRING, null, null,
          "OAUTHBEARER: scope asked for when the JAAS entry has none.");
        h(d, "sasl.oauthbearer.sub.claim.name", ConfigType.STRING, "sub", null,
          "OAUTHBEARER: the token claim naming the principal.");
        h(d, "sasl.oauthbearer.client.credentials.client.id", ConfigType.STRING, null, null,
          "OAUTHBEARER: client id when the JAAS entry has no clientId.");
        h(d, "sasl.oauthbearer.client.credentials.client.secret", ConfigType.PASSWORD, null, null,
          "OAUTHBEARER: client secret when the JAAS entry has no clientSecret.");
        h(d, "sasl.login.connect.timeout.ms", ConfigType.INT, null, null,
          "OAUTHBEARER: connect timeout to the token endpoint, in ms (10000 when unset).");
        h(d, "sasl.login.read.timeout.ms", ConfigType.INT, null, null,
          "OAUTHBEARER: response timeout of the token endpoint, in ms (10000 when unset).");
        h(d, "sasl.login.callback.handler.class", ConfigType.CLASS, null,
          Validator.oneOf("org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
                          "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler"),
          "OAUTHBEARER: the official client-credentials handler is accepted (kflux has it built in); others are refused.");
        h(d, "sasl.kerberos.service.name", ConfigType.STRING, null, null,
          "GSSAPI: the Kerberos service name of the brokers (the first part of their principal, usually kafka).");
        h(d, "sasl.kerberos.ticket.renew.window.factor", ConfigType.DOUBLE, 0.8, null,
          "GSSAPI: the next connection logs in again once this fraction of the ticket's lifetime has passed.");
        h(d, "sasl.login.refresh.window.factor", ConfigType.DOUBLE, 0.8, null,
          "OAUTHBEARER: a token is replaced once this fraction of its lifetime has passed.");

        // --- TLS
        h(d, SSL_PROTOCOL, ConfigType.STRING, "TLSv1.3", null,
          "Protocol name used to create the SSLContext.");
        h(d, SSL_ENABLED_PROTOCOLS, ConfigType.LIST, List.of("TLSv1.2", "TLSv1.3"), null,
          "TLS protocol versions enabled on connections.");
        h(d, SSL_CIPHER_SUITES, ConfigType.LIST, null, null,
          "Cipher suites enabled on connections; null keeps the JVM defaults.");
        h(d, SSL_PROVIDER, ConfigType.STRING, null, null,
          "Security provider of the SSLContext; null uses the JVM default.");
        h(d, SSL_TRUSTSTORE_LOCATION, ConfigType.STRING, null, null,
          "Trust store file with the certificates that may sign broker certificates; null uses the JVM default.");
        h(d, SSL_TRUSTSTORE_PASSWORD, ConfigType.PASSWORD, null, null,
          "Password of the trust store file.");
        h(d, SSL_TRUSTSTORE_TYPE, ConfigType.STRING, "JKS", null,
          "Format of the trust store (JKS, PKCS12, PEM).");
        h(d, SSL_TRUSTSTORE_CERTIFICATES, ConfigType.PASSWORD, null, null,
          "Trusted certificates as PEM text, with ssl.truststore.type=PEM (KIP-651).");
        h(d, SSL_KEYSTORE_CERTIFICATE_CHAIN, ConfigType.PASSWORD, null, null,
          "Client certificate chain as PEM text, with ssl.keystore.type=PEM and ssl.keystore.key (KIP-651).");
        h(d, SSL_KEYSTORE_KEY, ConfigType.PASSWORD, null, null,
          "Client private key as PKCS#8 PEM text, encrypted with ssl.key.password or not (KIP-651).");
        h(d, SSL_KEYSTORE_LOCATION, ConfigType.STRING, null, null,
          "Key store file with this client's certificate and private key, for TLS client authentication.");
        h(d, SSL_KEYSTORE_PASSWORD, ConfigType.PASSWORD, null, null,
          "Password of the key store file.");
        h(d, SSL_KEYSTORE_TYPE, ConfigType.STRING, "JKS", null,
          "Format of the key store (JKS, PKCS12, PEM).");
        h(d, SSL_KEY_PASSWORD, ConfigType.PASSWORD, null, null,
          "Password of the private key inside the key store, when it differs from the store password.");
        h(d, SSL_KEYMANAGER_ALGORITHM, ConfigType.STRING, "SunX509", null,
          "KeyManagerFactory algorithm for the key store.");
        h(d, SSL_TRUSTMANAGER_ALGORITHM, ConfigType.STRING, "PKIX", null,
          "TrustManagerFactory algorithm for the trust store.");
        h(d, SSL_ENDPOINT_IDENTIFICATION_ALGORITHM, ConfigType.STRING, "https", null,
          "https checks that the broker certificate matches its host name; empty turns the check off.");
        h(d, "share.lock.renewal.max.ms", ConfigType.LONG, 300000L, Validator.atLeast(0),
          "Share consumers: how long, in ms after a record was acquired, its acquisition lock is renewed (KIP-1222 "
          + "RENEW, at half of each lock) while it is neither accepted, released nor rejected; 0 never renews. Only "
          + "brokers with ShareAcknowledge v2 take RENEW; elsewhere a record expires with its lock and goes to "
          + "another member. kflux's own: the official share consumer renews only on acknowledge(record, RENEW).");
        h(d, SSL_SECURE_RANDOM_IMPLEMENTATION, ConfigType.STRING, null, null,
          "SecureRandom algorithm for TLS; null uses the JVM default.");

        // --- accepted for compatibility, not acted on
        ig(d, "interceptor.classes", ConfigType.LIST, List.of(), "consumer interceptors are not supported");
        ig(d, "metric.reporters", ConfigType.LIST, List.of("org.apache.kafka.common.metrics.JmxReporter"),
           "Kafka metrics reporters are not supported; kflux publishes Micrometer meters (withMeterRegistry)");
        ig(d, "metrics.num.samples", ConfigType.INT, 2, "kflux's Micrometer meters always use 2 samples");
        ig(d, "metrics.recording.level", ConfigType.STRING, "INFO", "kflux's Micrometer meters have no recording levels");
        ig(d, "metrics.sample.window.ms", ConfigType.LONG, 30000L, "kflux's Micrometer meters always use 30 s windows");
        ig(d, "internal.leave.group.on.close", ConfigType.BOOLEAN, Boolean.TRUE, "internal to the official client");
        ig(d, "internal.throw.on.fetch.stable.offset.unsupported", ConfigType.BOOLEAN, Boolean.FALSE,
           "internal to the official client");
        ig(d, "share.acknowledgement.mode", ConfigType.STRING, "implicit", "applies to share consumers only");
        ig(d, "sasl.kerberos.kinit.cmd", ConfigType.STRING, "/usr/bin/kinit",
           "GSSAPI logs in through JAAS (keytab or the ticket cache), never by running kinit");
        ig(d, "sasl.kerberos.min.time.before.relogin", ConfigType.LONG, 60000L,
           "GSSAPI logs in again after sasl.kerberos.ticket.renew.window.factor of the ticket lifetime");
        ig(d, "sasl.kerberos.ticket.renew.jitter", ConfigType.DOUBLE, 0.05,
           "GSSAPI logs in again after sasl.kerberos.ticket.renew.window.factor of the ticket lifetime");
        ig(d, "sasl.login.refresh.buffer.seconds", ConfigType.SHORT, (short) 300, "tokens are refreshed by sasl.login.refresh.window.factor");
        ig(d, "sasl.login.refresh.min.period.seconds", ConfigType.SHORT, (short) 60, "tokens are refreshed by sasl.login.refresh.window.factor");
        ig(d, "sasl.login.refresh.window.jitter", ConfigType.DOUBLE, 0.05, "tokens are refreshed by sasl.login.refresh.window.factor");
        ig(d, "sasl.login.retry.backoff.ms", ConfigType.LONG, 100L, "kflux does not retry token requests");
        ig(d, "sasl.login.retry.backoff.max.ms", ConfigType.LONG, 10000L, "kflux does not retry token requests");
        for (String k : List.of("sasl.oauthbearer.assertion.algorithm", "sasl.oauthbearer.assertion.claim.aud",
                                "sasl.oauthbearer.assertion.claim.iss", "sasl.oauthbearer.assertion.claim.sub",
                                "sasl.oauthbearer.assertion.file", "sasl.oauthbearer.assertion.private.key.file",
                                "sasl.oauthbearer.assertion.template.file",
                                "sasl.oauthbearer.expected.issuer",
                                "sasl.oauthbearer.jwks.endpoint.url", "sasl.oauthbearer.scope.claim.name")) {
            ig(d, k, ConfigType.STRING, null, OAUTH_UNUSED);
        }
        for (String k : List.of("sasl.oauthbearer.assertion.claim.exp.seconds",
                                "sasl.oauthbearer.assertion.claim.nbf.seconds", "sasl.oauthbearer.clock.skew.seconds")) {
            ig(d, k, ConfigType.INT, null, OAUTH_UNUSED);
        }
        for (String k : List.of("sasl.oauthbearer.jwks.endpoint.refresh.ms",
                                "sasl.oauthbearer.jwks.endpoint.retry.backoff.ms",
                                "sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms")) {
            ig(d, k, ConfigType.LONG, null, OAUTH_UNUSED);
        }
        for (String k : List.of("sasl.oauthbearer.assertion.claim.jti.include", "sasl.oauthbearer.header.urlencode")) {
            ig(d, k, ConfigType.BOOLEAN, null, OAUTH_UNUSED);
        }
        ig(d, "sasl.oauthbearer.expected.audience", ConfigType.LIST, null, OAUTH_UNUSED);
        ig(d, "sasl.oauthbearer.jwt.retriever.class", ConfigType.CLASS, null, OAUTH_UNUSED);
        ig(d, "sasl.oauthbearer.jwt.validator.class", ConfigType.CLASS, null, OAUTH_UNUSED);
        ig(d, "sasl.oauthbearer.assertion.private.key.passphrase", ConfigType.PASSWORD, null,
           OAUTH_UNUSED);

        // --- would change security behaviour if silently ignored
        rj(d, "sasl.client.callback.handler.class", ConfigType.CLASS, "custom SASL callback handlers");
        rj(d, "sasl.login.class", ConfigType.CLASS, "custom SASL login classes");
        rj(d, "ssl.engine.factory.class", ConfigType.CLASS, "custom SSL engine factories");
        rj(d, "security.providers", ConfigType.STRING, "custom security provider creators");
        return d;
    }

    private static void h(ConfigDef d, String name, ConfigType type, Object def, Validator v, String doc) {
        d.define(new ConfigKey(name, type, def, false, v, doc, HONOURED));
    }

    private static void ig(ConfigDef d, String name, ConfigType type, Object def, String why) {
        d.define(new ConfigKey(name, type, def, false, null, "ignored: " + why, IGNORED));
    }

    private static void rj(ConfigDef d, String name, ConfigType type, String what) {
        d.define(new ConfigKey(name, type, null, false, null, "rejected: kflux does not support " + what,
                               Support.REJECTED));
    }
}
