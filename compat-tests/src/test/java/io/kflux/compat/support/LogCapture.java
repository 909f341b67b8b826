package io.kflux.compat.support;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Records kflux's log lines (INFO and up, with the time they were logged) while open, so that a test can observe
 * what the client does not expose, e.g. when a group member lost and found its coordinator.
 */
public final class LogCapture implements AutoCloseable {

    /**
     * One log line; {@code nanos} is {@link System#nanoTime()} when it was appended; {@code context} the MDC it was
     * logged with (kflux puts {@code kflux.client.id} and {@code kflux.group.id} there).
     */
    public record Line(long nanos, String logger, String message, String level, Map<String, String> context) {
    }

    private final List<Line> lines = new CopyOnWriteArrayList<>();
    private final AbstractAppender appender;
    private final LoggerConfig config;

    /** Starts recording what the loggers under {@code prefix} (e.g. {@code io.kflux}) log at INFO and up. */
    public LogCapture(String prefix) {
        this(prefix, Level.INFO);
    }

    /**
     * Starts recording what the loggers under {@code prefix} log at {@code level} and up; the logger's own level must
     * let such lines through (see {@code Configurator.setLevel}).
     */
    public LogCapture(String prefix, Level level) {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        config = context.getConfiguration().getLoggerConfig(prefix);
        appender = new AbstractAppender("capture-" + System.nanoTime(), null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                if (event.getLoggerName().startsWith(prefix)) {
                    lines.add(new Line(System.nanoTime(), event.getLoggerName(),
                            event.getMessage().getFormattedMessage(), event.getLevel().name(),
                            Map.copyOf(event.getContextData().toMap())));
                }
            }
        };
        appender.start();
        config.addAppender(appender, level, null);
        context.updateLoggers();
    }

    /** Every line so far. */
    public List<Line> lines() {
        return List.copyOf(lines);
    }

    /** The lines so far whose message matches. */
    public List<Line> matching(Predicate<String> message) {
        return lines.stream().filter(l -> message.test(l.message())).toList();
    }

    /**
     * Waits until at least {@code count} lines match, and returns the matching lines then.
     *
     * @throws AssertionError naming what was logged, when fewer matched within {@code timeout}
     */
    public List<Line> await(Predicate<Line> match, int count, java.time.Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Line> found = List.of();
        while (System.nanoTime() < deadline) {
            found = lines.stream().filter(match).toList();
            if (found.size() >= count) {
                return found;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("expected " + count + " matching log lines, got " + found + " of " + lines());
    }

    @Override
    public void close() {
        config.removeAppender(appender.getName());
        appender.stop();
        ((LoggerContext) LogManager.getContext(false)).updateLoggers();
    }
}
