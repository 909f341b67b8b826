package io.kflux.internal.security;

import io.kflux.AuthenticationException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import javax.security.auth.Subject;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.kerberos.KerberosPrincipal;
import javax.security.auth.kerberos.KerberosTicket;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;
import javax.security.auth.login.LoginContext;
import javax.security.auth.login.LoginException;
import io.kflux.network.BlockingScheduler;
import reactor.core.publisher.Mono;

/**
 * The JAAS login a GSSAPI consumer shares across its connections: the login module (normally the JDK's
 * {@code com.sun.security.auth.module.Krb5LoginModule} with a keytab) runs once, on a bounded-elastic thread
 * because it talks to the KDC, and its {@link Subject} (the TGT) is reused until
 * {@code sasl.kerberos.ticket.renew.window.factor} of the ticket's lifetime has passed; the next connection after
 * that logs in again, as the official client's Kerberos login thread would have done by then. A failed login is
 * not cached: the next connection attempt tries again.
 */
final class KerberosLogin {
    /** The JAAS application name the official client reads when {@code sasl.jaas.config} is not set. */
    static final String CONTEXT = "KafkaClient";

    private final Configuration configuration;
    private final String principal;
    private final double renewWindowFactor;
    private final Mono<Subject> subject;

    /**
     * @param entry             the login module entry of {@code sasl.jaas.config}, or null to use the JVM's JAAS
     *                          configuration file (its {@value #CONTEXT} entry)
     * @param renewWindowFactor fraction of a ticket's lifetime after which a new login is made
     */
    KerberosLogin(AppConfigurationEntry entry, double renewWindowFactor) {
        this.configuration = entry == null ? null : new Configuration() {
            @Override
            public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
                return new AppConfigurationEntry[] {entry};
            }
        };
        Object named = entry == null ? null : entry.getOptions().get("principal");
        this.principal = named == null ? "" : " of principal " + named;
        this.renewWindowFactor = renewWindowFactor;
        // the scheduler is looked up at each login, so a replaced one (SharedScheduler) is used, not a disposed one
        this.subject = Mono.defer(() -> Mono.fromCallable(this::login).subscribeOn(BlockingScheduler.shared()))
                .cache(this::validFor, e -> Duration.ZERO, () -> Duration.ZERO);
    }

    /** The logged-in subject; fails with {@link AuthenticationException} when the login module refuses. */
    Mono<Subject> subject() {
        return subject;
    }

    private Subject login() {
        try {
            LoginContext context = configuration == null
                    ? new LoginContext(CONTEXT, new Subject(), NO_PROMPTS)
                    : new LoginContext(CONTEXT, new Subject(), NO_PROMPTS, configuration);
            context.login();
            return context.getSubject();
        } catch (LoginException e) {
            // Krb5LoginModule's messages name the principal and the KDC's answer, never key material
            throw new AuthenticationException("GSSAPI: the Kerberos login" + principal + " (JAAS, "
                    + (configuration == null ? "the " + CONTEXT + " entry of java.security.auth.login.config"
                    : "sasl.jaas.config") + ") failed: " + e.getMessage());
        }
    }

    private Duration validFor(Subject s) {
        Set<KerberosTicket> tickets = s.getPrivateCredentials(KerberosTicket.class);
        long now = System.currentTimeMillis();
        long best = Long.MAX_VALUE;
        for (KerberosTicket t : tickets) {
            if (t.getServer().getName().startsWith("krbtgt/") && t.getEndTime() != null) {
                long start = t.getStartTime() == null ? t.getAuthTime().getTime() : t.getStartTime().getTime();
                long renewAt = start + (long) ((t.getEndTime().getTime() - start) * renewWindowFactor);
                best = Math.min(best, Math.max(0, renewAt - now));
            }
        }
        // no TGT in the subject (e.g. storeKey only): keys do not expire, an hour is the official client's re-login
        return Duration.ofMillis(best == Long.MAX_VALUE ? 3_600_000 : best);
    }

    /** The name of the subject's first Kerberos principal, sent as authorization id as the official client does. */
    static String principalName(Subject s) {
        return s.getPrincipals(KerberosPrincipal.class).stream().findFirst().map(KerberosPrincipal::getName).orElse(null);
    }

    /** The entry of {@code sasl.jaas.config} as JAAS wants it. */
    static AppConfigurationEntry entry(String loginModule, String flag, Map<String, String> options) {
        AppConfigurationEntry.LoginModuleControlFlag f = switch (flag) {
            case "requisite" -> AppConfigurationEntry.LoginModuleControlFlag.REQUISITE;
            case "sufficient" -> AppConfigurationEntry.LoginModuleControlFlag.SUFFICIENT;
            case "optional" -> AppConfigurationEntry.LoginModuleControlFlag.OPTIONAL;
            default -> AppConfigurationEntry.LoginModuleControlFlag.REQUIRED;
        };
        return new AppConfigurationEntry(loginModule, f, options);
    }

    /** A login module that asks for a name or password is misconfigured for a service: say so instead of hanging. */
    private static final CallbackHandler NO_PROMPTS = callbacks -> {
        for (Callback c : callbacks) {
            throw new UnsupportedCallbackException(c, "the login module asked for a " + c.getClass().getSimpleName()
                    + ", and kflux never prompts; with useKeyTab=true this means the keytab holds no key for the "
                    + "principal, otherwise use a keytab (useKeyTab=true keyTab=\"...\" principal=\"...\") or the "
                    + "ticket cache (useTicketCache=true);");
        }
    };

    @Override
    public String toString() {
        return "KerberosLogin[" + (configuration == null ? "JAAS file entry " + CONTEXT : "sasl.jaas.config") + "]";
    }
}
