package io.kflux.internal.config;

/** {@code group.protocol}: which group membership protocol to speak. */
public enum GroupProtocol {
    /** JoinGroup / SyncGroup / Heartbeat with client-side assignment (the protocol before KIP-848). */
    CLASSIC,
    /** ConsumerGroupHeartbeat with broker-side assignment (KIP-848; Kafka 4.0+ brokers). */
    CONSUMER
}
