CREATE TABLE IF NOT EXISTS orders (
    kafka_partition INT NOT NULL,
    kafka_offset BIGINT NOT NULL,
    order_id VARCHAR(64),
    body VARCHAR(4096),
    PRIMARY KEY (kafka_partition, kafka_offset)
);
