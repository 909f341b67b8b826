package io.kflux.compat.support.telemetryreceiver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;
import org.apache.kafka.server.telemetry.ClientTelemetry;
import org.apache.kafka.server.telemetry.ClientTelemetryPayload;
import org.apache.kafka.server.telemetry.ClientTelemetryReceiver;

/**
 * Runs inside the forked broker (a {@code metric.reporters} entry; KIP-714's broker plugin): appends each client
 * telemetry push it receives to the file named by the broker JVM's system property {@value #FILE_PROPERTY}, one line
 * per push: receipt time (ms), client id, client instance id, terminating, content type, base64 payload. Uses only
 * what the broker's own class path has.
 */
public final class RecordingTelemetryReceiver implements MetricsReporter, ClientTelemetry, ClientTelemetryReceiver {
    public static final String FILE_PROPERTY = "kflux.telemetry.received";

    @Override
    public ClientTelemetryReceiver clientReceiver() {
        return this;
    }

    @Override
    public synchronized void exportMetrics(AuthorizableRequestContext context, ClientTelemetryPayload payload) {
        ByteBuffer data = payload.data().duplicate();
        byte[] bytes = new byte[data.remaining()];
        data.get(bytes);
        String line = System.currentTimeMillis() + " " + context.clientId() + " " + payload.clientInstanceId() + " "
                + payload.isTerminating() + " " + payload.contentType() + " " + Base64.getEncoder().encodeToString(bytes)
                + "\n";
        try {
            Files.writeString(Path.of(System.getProperty(FILE_PROPERTY)), line, StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void init(List<KafkaMetric> metrics) {
    }

    @Override
    public void metricChange(KafkaMetric metric) {
    }

    @Override
    public void metricRemoval(KafkaMetric metric) {
    }

    @Override
    public void close() {
    }

    @Override
    public void configure(Map<String, ?> configs) {
    }
}
