package io.kflux.compat.support.saslserver;

import java.security.Provider;
import java.security.Security;
import java.util.Map;
import javax.security.auth.Subject;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.spi.LoginModule;

/**
 * The login module the broker's JAAS entry for {@value PluggedPlainServer#MECHANISM} names: loading it registers
 * {@link PluggedPlainServer.Factory} with the JVM's security providers (Kafka finds SASL servers there); it
 * authenticates nothing itself.
 */
public final class PluggedPlainLogin implements LoginModule {
    static {
        Security.addProvider(new Provider("KfluxTestSasl", "1.0", "SASL server for " + PluggedPlainServer.MECHANISM) {
            {
                put("SaslServerFactory." + PluggedPlainServer.MECHANISM, PluggedPlainServer.Factory.class.getName());
            }
        });
    }

    @Override
    public void initialize(Subject subject, CallbackHandler callbackHandler, Map<String, ?> sharedState,
                           Map<String, ?> options) {
    }

    @Override
    public boolean login() {
        return true;
    }

    @Override
    public boolean commit() {
        return true;
    }

    @Override
    public boolean abort() {
        return false;
    }

    @Override
    public boolean logout() {
        return true;
    }
}
