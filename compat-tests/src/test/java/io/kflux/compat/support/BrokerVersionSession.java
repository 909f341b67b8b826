package io.kflux.compat.support;

import io.kflux.test.KafkaTestExtension;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Makes the test kit's {@code @KafkaTest} clusters run the broker version these tests are run against
 * ({@code kflux.broker.version}, see {@link BrokerVersion}): registered through
 * {@code META-INF/services}, it sets the kit's broker class path property when the test run starts.
 */
public final class BrokerVersionSession implements LauncherSessionListener {

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        if (System.getProperty(KafkaTestExtension.BROKER_CLASSPATH_PROPERTY) == null) {
            System.setProperty(KafkaTestExtension.BROKER_CLASSPATH_PROPERTY, BrokerVersion.current().classpath());
        }
    }
}
