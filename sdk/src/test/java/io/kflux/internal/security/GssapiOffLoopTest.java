package io.kflux.internal.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.AuthenticationException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.security.auth.Subject;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.login.LoginException;
import javax.security.auth.spi.LoginModule;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * The GSSAPI mechanism never runs its JAAS login or a SASL step on the caller's thread (an event loop, in kflux): both
 * may talk to the KDC. A login module of this test records where it runs; the JDK's GSSAPI client then finds no
 * Kerberos credentials and the exchange fails with a typed error naming broker and service principal.
 */
class GssapiOffLoopTest {
    static final List<String> LOGIN_THREADS = new CopyOnWriteArrayList<>();

    /** Logs in nobody; records the thread. */
    public static final class RecordingLogin implements LoginModule {
        private Map<String, ?> options;

        @Override
        public void initialize(Subject subject, CallbackHandler handler, Map<String, ?> sharedState, Map<String, ?> options) {
            this.options = options;
        }

        @Override
        public boolean login() throws LoginException {
            LOGIN_THREADS.add(Thread.currentThread().getName());
            if ("true".equals(options.get("refuse"))) {
                throw new LoginException("refused by the test module");
            }
            return true;
        }

        @Override
        public boolean commit() {
            return true;
        }

        @Override
        public boolean abort() {
            return true;
        }

        @Override
        public boolean logout() {
            return true;
        }
    }

    private static GssapiMechanism mechanism(Map<String, String> options) {
        return new GssapiMechanism("kafka", new KerberosLogin(KerberosLogin.entry(RecordingLogin.class.getName(),
                "required", options), 0.8));
    }

    @Test
    void theLoginAndTheFirstStepRunOffTheCallingThreadAndFailTyped() {
        LOGIN_THREADS.clear();
        GssapiMechanism gssapi = mechanism(Map.of());
        Throwable error = gssapi.newExchange("localhost").respond(new byte[0]).then(Mono.<Throwable>empty())
                .onErrorResume(Mono::just).block(Duration.ofSeconds(30));
        assertThat(LOGIN_THREADS).singleElement().asString().startsWith(io.kflux.network.BlockingScheduler.THREAD_PREFIX);
        assertThat(error).isExactlyInstanceOf(AuthenticationException.class)
                .hasMessageContaining("GSSAPI exchange with broker localhost")
                .hasMessageContaining("service principal kafka/localhost");
        // the login is shared: a second exchange (another connection) does not log in again
        gssapi.newExchange("localhost").respond(new byte[0]).onErrorResume(e -> Mono.empty()).block(Duration.ofSeconds(30));
        assertThat(LOGIN_THREADS).hasSize(1);
    }

    @Test
    void aRefusedLoginIsAnAuthenticationErrorAndIsTriedAgainNextTime() {
        LOGIN_THREADS.clear();
        GssapiMechanism gssapi = mechanism(Map.of("refuse", "true", "principal", "app@EXAMPLE.COM"));
        for (int attempt = 1; attempt <= 2; attempt++) {
            Throwable error = gssapi.newExchange("localhost").respond(new byte[0]).then(Mono.<Throwable>empty())
                    .onErrorResume(Mono::just).block(Duration.ofSeconds(30));
            assertThat(error).isExactlyInstanceOf(AuthenticationException.class)
                    .hasMessageContaining("Kerberos login of principal app@EXAMPLE.COM")
                    .hasMessageContaining("refused by the test module");
        }
        assertThat(LOGIN_THREADS).hasSize(2).allMatch(t -> t.startsWith(io.kflux.network.BlockingScheduler.THREAD_PREFIX));
    }
}
