package io.kflux.internal.security;

import static io.kflux.internal.config.ConsumerConfigDef.SSL_KEYSTORE_CERTIFICATE_CHAIN;
import static io.kflux.internal.config.ConsumerConfigDef.SSL_KEYSTORE_KEY;
import static io.kflux.internal.config.ConsumerConfigDef.SSL_KEYSTORE_LOCATION;
import static io.kflux.internal.config.ConsumerConfigDef.SSL_TRUSTSTORE_CERTIFICATES;
import static io.kflux.internal.config.ConsumerConfigDef.SSL_TRUSTSTORE_LOCATION;

import io.kflux.ConfigException;
import io.kflux.internal.config.ConsumerConfig;
import io.kflux.internal.config.Password;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.Security;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The client {@link SslContext} of the {@code ssl.*} keys, on the JDK's {@code SSLEngine}, with the official
 * client's meaning: trust and key stores as {@code JKS}, {@code PKCS12} or {@code PEM} files, or PEM text in
 * {@code ssl.truststore.certificates}, {@code ssl.keystore.certificate.chain} and {@code ssl.keystore.key}
 * (KIP-651; a PKCS#8 key, encrypted with {@code ssl.key.password} or not). PEM is read by Netty.
 *
 * <p>{@code ssl.endpoint.identification.algorithm}: {@code https} (the default) checks the broker's certificate
 * against the host name connected to; empty does not. {@code ssl.protocol} must name an {@code SSLContext} protocol of the JVM (or of {@code ssl.provider}); the
 * versions offered are {@code ssl.enabled.protocols}, or {@code ssl.protocol} alone when that list is empty.
 */
final class TlsContexts {

    private TlsContexts() {
    }

    /**
     * @throws ConfigException naming the key whose value cannot be used (a missing or unreadable store, a wrong
     *                         store password, an unknown algorithm); never quoting a password or key
     */
    static SslContext build(ConsumerConfig c) {
        SslContextBuilder b = SslContextBuilder.forClient().sslProvider(SslProvider.JDK);
        java.security.Provider provider = null;
        if (c.sslProvider().isPresent()) {
            provider = Security.getProvider(c.sslProvider().get());
            if (provider == null) {
                throw new ConfigException("ssl.provider", c.sslProvider().get(), "the name of an installed security provider");
            }
            b.sslContextProvider(provider);
        }
        try {
            if (provider == null) {
                SSLContext.getInstance(c.sslProtocol());
            } else {
                SSLContext.getInstance(c.sslProtocol(), provider);
            }
        } catch (GeneralSecurityException e) {
            throw new ConfigException("ssl.protocol", c.sslProtocol(), "an SSLContext protocol of this JVM, e.g. TLSv1.3", e);
        }
        String identification = c.sslEndpointIdentificationAlgorithm();
        if (!identification.isEmpty() && !identification.equalsIgnoreCase("https")) {
            throw new ConfigException("ssl.endpoint.identification.algorithm", identification,
                    "https (check the broker's host name against its certificate) or empty (do not)");
        }
        // Netty's own default for clients is HTTPS; empty must really turn the check off.
        b.endpointIdentificationAlgorithm(identification.isEmpty() ? null : "HTTPS");
        List<String> protocols = c.sslEnabledProtocols().isEmpty() ? List.of(c.sslProtocol()) : c.sslEnabledProtocols();
        b.protocols(protocols);
        if (!c.sslCipherSuites().isEmpty()) {
            b.ciphers(c.sslCipherSuites());
        }
        if (c.sslSecureRandomImplementation().isPresent()) {
            try {
                b.secureRandom(SecureRandom.getInstance(c.sslSecureRandomImplementation().get()));
            } catch (GeneralSecurityException e) {
                throw new ConfigException("ssl.secure.random.implementation", c.sslSecureRandomImplementation().get(),
                        "a SecureRandom algorithm of this JVM", e);
            }
        }
        trust(c, b);
        keys(c, b);
        try {
            return b.build();
        } catch (javax.net.ssl.SSLException | IllegalArgumentException e) {
            throw new ConfigException("ssl.enabled.protocols", protocols, "protocols and cipher suites this JVM supports: "
                    + e.getMessage(), e);
        }
    }

    private static void trust(ConsumerConfig c, SslContextBuilder b) {
        Password inline = c.get(SSL_TRUSTSTORE_CERTIFICATES);
        String type = c.sslTruststoreType().toUpperCase(Locale.ROOT);
        String location = c.sslTruststoreLocation().orElse(null);
        if (inline != null) {
            if (location != null || !type.equals("PEM")) {
                throw new ConfigException(SSL_TRUSTSTORE_CERTIFICATES, Password.HIDDEN,
                        "set only with ssl.truststore.type=PEM and without ssl.truststore.location");
            }
            try {
                b.trustManager(pemStream(inline.value()));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(SSL_TRUSTSTORE_CERTIFICATES, Password.HIDDEN, "PEM certificates", e);
            }
            return;
        }
        if (location == null) {
            return; // the JVM's default trust store
        }
        if (type.equals("PEM")) {
            try {
                b.trustManager(readable(SSL_TRUSTSTORE_LOCATION, location));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(SSL_TRUSTSTORE_LOCATION, location, "a file of PEM certificates", e);
            }
            return;
        }
        KeyStore store = load(SSL_TRUSTSTORE_LOCATION, location, type,
                c.sslTruststorePassword().map(Password::value).orElse(null));
        try {
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(c.sslTrustmanagerAlgorithm());
            tmf.init(store);
            b.trustManager(tmf);
        } catch (GeneralSecurityException e) {
            throw new ConfigException("ssl.trustmanager.algorithm", c.sslTrustmanagerAlgorithm(),
                    "a TrustManagerFactory algorithm of this JVM, e.g. PKIX", e);
        }
    }

    private static void keys(ConsumerConfig c, SslContextBuilder b) {
        Password chain = c.get(SSL_KEYSTORE_CERTIFICATE_CHAIN);
        Password key = c.get(SSL_KEYSTORE_KEY);
        String type = c.sslKeystoreType().toUpperCase(Locale.ROOT);
        String location = c.sslKeystoreLocation().orElse(null);
        String keyPassword = c.sslKeyPassword().map(Password::value).orElse(null);
        if (chain != null || key != null) {
            if (chain == null || key == null || location != null || !type.equals("PEM")) {
                throw new ConfigException(chain == null ? SSL_KEYSTORE_CERTIFICATE_CHAIN : SSL_KEYSTORE_KEY, Password.HIDDEN,
                        "ssl.keystore.certificate.chain and ssl.keystore.key both set, with ssl.keystore.type=PEM and "
                                + "without ssl.keystore.location");
            }
            try {
                b.keyManager(pemStream(chain.value()), pemStream(key.value()), keyPassword);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(SSL_KEYSTORE_KEY, Password.HIDDEN, "a PEM certificate chain and a PKCS#8 private "
                        + "key (encrypted ones need ssl.key.password): " + safeMessage(e), e);
            }
            return;
        }
        if (location == null) {
            return; // no client certificate
        }
        if (type.equals("PEM")) {
            File file = readable(SSL_KEYSTORE_LOCATION, location);
            try {
                b.keyManager(file, file, keyPassword);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(SSL_KEYSTORE_LOCATION, location, "a PEM file holding a PKCS#8 private key and "
                        + "its certificate chain (encrypted keys need ssl.key.password): " + safeMessage(e), e);
            }
            return;
        }
        String storePassword = c.sslKeystorePassword().map(Password::value).orElse(null);
        KeyStore store = load(SSL_KEYSTORE_LOCATION, location, type, storePassword);
        String forKey = keyPassword != null ? keyPassword : storePassword;
        try {
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(c.sslKeymanagerAlgorithm());
            kmf.init(store, forKey == null ? new char[0] : forKey.toCharArray());
            b.keyManager(kmf);
        } catch (java.security.UnrecoverableKeyException e) {
            throw new ConfigException("ssl.key.password", Password.HIDDEN, "the password of the key in " + location, e);
        } catch (GeneralSecurityException e) {
            throw new ConfigException("ssl.keymanager.algorithm", c.sslKeymanagerAlgorithm(),
                    "a KeyManagerFactory algorithm of this JVM, e.g. SunX509", e);
        }
    }

    private static KeyStore load(String key, String location, String type, String password) {
        File file = readable(key, location);
        try (InputStream in = Files.newInputStream(file.toPath())) {
            KeyStore store = KeyStore.getInstance(type);
            store.load(in, password == null ? null : password.toCharArray());
            return store;
        } catch (java.security.KeyStoreException e) {
            throw new ConfigException(key.replace("location", "type"), type, "JKS, PKCS12 or PEM", e);
        } catch (java.io.IOException | GeneralSecurityException e) {
            // A wrong password shows as an IOException whose cause is an UnrecoverableKeyException.
            throw new ConfigException(key, location, "a readable " + type + " store whose password is "
                    + key.replace("location", "password") + " (" + e.getClass().getSimpleName() + ")", e);
        }
    }

    private static File readable(String key, String location) {
        Path path = Path.of(location);
        if (!Files.isReadable(path)) {
            throw new ConfigException(key, location, "a readable file");
        }
        return path.toFile();
    }

    private static InputStream pemStream(String text) {
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.US_ASCII));
    }

    /** Netty's messages about keys name what failed, not the key bytes; still, keep only the exception type. */
    private static String safeMessage(Exception e) {
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName();
    }
}
