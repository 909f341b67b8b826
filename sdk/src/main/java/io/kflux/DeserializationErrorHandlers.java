package io.kflux;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The built-in handlers, named in {@code toString()} for {@link ConsumerOptions#toString()}. */
final class DeserializationErrorHandlers {
    private static final Logger log = LoggerFactory.getLogger(DeserializationErrorHandler.class);

    static final DeserializationErrorHandler FAIL = new DeserializationErrorHandler() {
        @Override
        public Decision handle(RecordDeserializationException error) {
            return Decision.FAIL;
        }

        @Override
        public String toString() {
            return "fail";
        }
    };

    static final DeserializationErrorHandler LOG_AND_SKIP = new DeserializationErrorHandler() {
        @Override
        public Decision handle(RecordDeserializationException error) {
            log.warn("skipping the record at offset {} of {}: its {} could not be deserialized ({})", error.offset(),
                    error.topicPartition(), error.origin().name().toLowerCase(java.util.Locale.ROOT),
                    String.valueOf(error.getCause()));
            return Decision.SKIP;
        }

        @Override
        public String toString() {
            return "logAndSkip";
        }
    };

    private DeserializationErrorHandlers() {
    }
}
