package io.kflux.compat.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.AlgorithmParameters;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.PBEParameterSpec;

/**
 * Certificates made for one test run with the JDK's own {@code keytool}: a CA, a broker certificate signed by it
 * with {@code 127.0.0.1} and {@code localhost} in its SAN, one with a name that matches nothing, a client
 * certificate, a second CA that nobody trusts, and broker certificates that expired ten days ago ({@code expired})
 * or become valid only in ten days ({@code notyet}), each with a trust store holding just itself
 * ({@code expired-self.p12}, {@code notyet-self.p12}: a trusted leaf is not checked for validity, which lets the broker
 * pass its own start-up check). Every store exists as PKCS12, JKS and PEM (the client key also as encrypted PKCS#8),
 * so each keystore type can be tried.
 */
public final class TestCertificates {
    /** Password of every store and key made here. */
    public static final String PASSWORD = "store-secret-4711";

    private final Path dir;

    private TestCertificates(Path dir) {
        this.dir = dir;
    }

    /** Makes everything in a fresh temporary folder. */
    public static TestCertificates create() {
        try {
            TestCertificates c = new TestCertificates(Files.createTempDirectory("kflux-certs-"));
            c.makeAll();
            return c;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void makeAll() throws IOException {
        ca("ca", "CN=kflux-test-ca");
        ca("other-ca", "CN=kflux-untrusted-ca");
        signed("broker", "CN=localhost", "ca", "san=ip:127.0.0.1,dns:localhost");
        signed("mismatch", "CN=elsewhere.invalid", "ca", "san=dns:elsewhere.invalid");
        signed("client", "CN=kflux-client", "ca", null);
        signed("expired", "CN=localhost", "ca", "san=ip:127.0.0.1,dns:localhost", "-10d", "2");
        signed("notyet", "CN=localhost", "ca", "san=ip:127.0.0.1,dns:localhost", "+10d", "3");
        for (String leaf : List.of("expired", "notyet")) {
            keytool("-importcert", "-alias", leaf, "-file", path(leaf + "-cert.pem"), "-keystore", path(leaf + "-self.p12"),
                    "-storetype", "PKCS12", "-storepass", PASSWORD, "-noprompt");
        }
        for (String ca : List.of("ca", "other-ca")) {
            keytool("-importcert", "-alias", "ca", "-file", path(ca + ".pem"), "-keystore", path(ca + "-trust.jks"),
                    "-storetype", "JKS", "-storepass", PASSWORD, "-noprompt");
            keytool("-importcert", "-alias", "ca", "-file", path(ca + ".pem"), "-keystore", path(ca + "-trust.p12"),
                    "-storetype", "PKCS12", "-storepass", PASSWORD, "-noprompt");
        }
        keytool("-importkeystore", "-srckeystore", path("client.p12"), "-srcstoretype", "PKCS12", "-srcstorepass", PASSWORD,
                "-destkeystore", path("client.jks"), "-deststoretype", "JKS", "-deststorepass", PASSWORD,
                "-destkeypass", PASSWORD, "-noprompt");
        exportPem("client");
    }

    private void ca(String name, String dname) {
        keytool("-genkeypair", "-alias", "ca", "-dname", dname, "-keyalg", "RSA", "-keysize", "2048", "-validity", "3",
                "-ext", "bc:c", "-keystore", path(name + ".p12"), "-storetype", "PKCS12", "-storepass", PASSWORD);
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", path(name + ".p12"), "-storepass", PASSWORD,
                "-file", path(name + ".pem"));
    }

    private void signed(String name, String dname, String ca, String san) {
        signed(name, dname, ca, san, null, "3");
    }

    /** @param start keytool's {@code -startdate} ({@code -10d}: ten days ago), null for now */
    private void signed(String name, String dname, String ca, String san, String start, String validityDays) {
        String store = path(name + ".p12");
        keytool("-genkeypair", "-alias", name, "-dname", dname, "-keyalg", "RSA", "-keysize", "2048", "-validity", "3",
                "-keystore", store, "-storetype", "PKCS12", "-storepass", PASSWORD);
        keytool("-certreq", "-alias", name, "-keystore", store, "-storepass", PASSWORD, "-file", path(name + ".csr"));
        List<String> gencert = new ArrayList<>(List.of("-gencert", "-alias", "ca", "-keystore", path(ca + ".p12"),
                "-storepass", PASSWORD, "-infile", path(name + ".csr"), "-outfile", path(name + "-cert.pem"), "-rfc",
                "-validity", validityDays, "-ext", "eku=serverAuth,clientAuth"));
        if (start != null) {
            gencert.addAll(List.of("-startdate", start));
        }
        if (san != null) {
            gencert.addAll(List.of("-ext", san));
        }
        keytool(gencert.toArray(String[]::new));
        keytool("-importcert", "-alias", "ca", "-file", path(ca + ".pem"), "-keystore", store, "-storepass", PASSWORD,
                "-noprompt");
        keytool("-importcert", "-alias", name, "-file", path(name + "-cert.pem"), "-keystore", store, "-storepass",
                PASSWORD, "-noprompt");
    }

    /** {@code <name>-key.pem} (PKCS#8), {@code <name>-key-encrypted.pem}, {@code <name>-chain.pem}, {@code <name>.pem}. */
    private void exportPem(String name) throws IOException {
        try (InputStream in = Files.newInputStream(dir.resolve(name + ".p12"))) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(in, PASSWORD.toCharArray());
            PrivateKey key = (PrivateKey) store.getKey(name, PASSWORD.toCharArray());
            StringBuilder chain = new StringBuilder();
            for (Certificate c : store.getCertificateChain(name)) {
                chain.append(pem("CERTIFICATE", c.getEncoded()));
            }
            String plainKey = pem("PRIVATE KEY", key.getEncoded());
            String encryptedKey = pem("ENCRYPTED PRIVATE KEY", encrypt(key.getEncoded()));
            Files.writeString(dir.resolve(name + "-key.pem"), plainKey);
            Files.writeString(dir.resolve(name + "-key-encrypted.pem"), encryptedKey);
            Files.writeString(dir.resolve(name + "-chain.pem"), chain.toString());
            Files.writeString(dir.resolve(name + "-keystore.pem"), encryptedKey + chain);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** PKCS#8 encrypted with PBEWithSHA1AndDESede, which both the JDK and Netty read. */
    private static byte[] encrypt(byte[] pkcs8) throws java.security.GeneralSecurityException, IOException {
        String alg = "PBEWithSHA1AndDESede";
        byte[] salt = new byte[8];
        new SecureRandom().nextBytes(salt);
        PBEParameterSpec spec = new PBEParameterSpec(salt, 10_000);
        Cipher cipher = Cipher.getInstance(alg);
        cipher.init(Cipher.ENCRYPT_MODE, SecretKeyFactory.getInstance(alg).generateSecret(new PBEKeySpec(PASSWORD.toCharArray())),
                spec);
        byte[] encrypted = cipher.doFinal(pkcs8);
        AlgorithmParameters params = AlgorithmParameters.getInstance(alg);
        params.init(spec);
        return new EncryptedPrivateKeyInfo(params, encrypted).getEncoded();
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    /** A file made here, e.g. {@code ca-trust.jks}, {@code client.p12}, {@code broker.p12}, {@code ca.pem}. */
    public String path(String file) {
        return dir.resolve(file).toString();
    }

    /** The text of a file made here (PEM files, for the in-line KIP-651 settings). */
    public String text(String file) {
        try {
            return Files.readString(dir.resolve(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void keytool(String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("keytool " + args[0] + " failed: " + out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
