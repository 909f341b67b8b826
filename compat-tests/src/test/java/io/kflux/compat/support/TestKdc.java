package io.kflux.compat.support;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kerby.kerberos.kerb.KrbException;
import org.apache.kerby.kerberos.kerb.server.SimpleKdcServer;

/**
 * A Kerberos KDC for the test JVM (Apache Kerby's {@code SimpleKdcServer}, TCP on loopback, realm {@link #REALM}),
 * with principals and keytabs made on demand and a {@code krb5.conf} for the test JVM and the forked broker. The
 * {@code krb5.conf} turns off DNS canonicalization and reverse lookups inside Kerberos, so the service principal is
 * {@code kafka/localhost} on every machine. One KDC serves the whole JVM and stops with it: the JDK reads its
 * Kerberos configuration once per JVM, so a second KDC on another port would never be asked.
 */
public final class TestKdc {
    public static final String REALM = "KFLUX.TEST";

    private final SimpleKdcServer kdc;
    private final Path dir;
    private final Path krb5Conf;
    private final java.util.Set<String> principals = new java.util.HashSet<>();
    private static TestKdc shared;

    private TestKdc(SimpleKdcServer kdc, Path dir, Path krb5Conf) {
        this.kdc = kdc;
        this.dir = dir;
        this.krb5Conf = krb5Conf;
    }

    /** The JVM's KDC, started on first use; it also sets {@code java.security.krb5.conf} for this JVM. */
    public static synchronized TestKdc shared() {
        if (shared == null) {
            shared = start();
            System.setProperty("java.security.krb5.conf", shared.krb5Conf());
            Runtime.getRuntime().addShutdownHook(new Thread(shared::stop, "test-kdc-stop"));
        }
        return shared;
    }

    private static TestKdc start() {
        try {
            Path dir = Files.createTempDirectory("kflux-kdc-");
            int port = freePort();
            SimpleKdcServer kdc = new SimpleKdcServer();
            kdc.setWorkDir(dir.toFile());
            kdc.setKdcRealm(REALM);
            kdc.setKdcHost("127.0.0.1");
            kdc.setAllowUdp(false);
            kdc.setAllowTcp(true);
            kdc.setKdcTcpPort(port);
            kdc.init();
            kdc.start();
            Path conf = dir.resolve("kflux-krb5.conf");
            Files.writeString(conf, """
                    [libdefaults]
                        default_realm = %1$s
                        udp_preference_limit = 1
                        dns_lookup_kdc = false
                        dns_lookup_realm = false
                        dns_canonicalize_hostname = false
                        rdns = false
                        ticket_lifetime = 24h
                        forwardable = true
                    [realms]
                        %1$s = {
                            kdc = 127.0.0.1:%2$d
                        }
                    [domain_realm]
                        localhost = %1$s
                        127.0.0.1 = %1$s
                    """.formatted(REALM, port));
            return new TestKdc(kdc, dir, conf);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (KrbException e) {
            throw new IllegalStateException("the test KDC did not start", e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** The {@code krb5.conf} pointing at this KDC, for {@code -Djava.security.krb5.conf}. */
    public String krb5Conf() {
        return krb5Conf.toString();
    }

    /**
     * Creates {@code principal} (without realm, e.g. {@code kafka/localhost}) with a random key and exports it.
     *
     * @return the keytab's path
     */
    public synchronized String keytab(String principal) {
        File keytab = dir.resolve(principal.replace('/', '_') + "-" + System.nanoTime() + ".keytab").toFile();
        try {
            if (principals.add(principal)) {
                kdc.createPrincipal(principal);
            }
            kdc.exportPrincipal(principal, keytab);
        } catch (KrbException e) {
            throw new IllegalStateException("could not create " + principal, e);
        }
        return keytab.getPath();
    }

    /** Gives {@code principal} a new key: keytabs exported before no longer work. */
    public synchronized void rekey(String principal) {
        try {
            kdc.deletePrincipal(principal);
            kdc.createPrincipal(principal);
        } catch (KrbException e) {
            throw new IllegalStateException("could not re-create " + principal, e);
        }
    }

    /** A {@code sasl.jaas.config} logging in as {@code principal} from {@code keytab} with the JDK's login module. */
    public static String keytabJaas(String principal, String keytab) {
        return "com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab=\""
                + keytab + "\" principal=\"" + principal + "@" + REALM + "\";";
    }

    private void stop() {
        try {
            kdc.stop();
        } catch (KrbException e) {
            // the JVM is exiting; nothing is left to clean up but the temporary folder
        }
    }
}
