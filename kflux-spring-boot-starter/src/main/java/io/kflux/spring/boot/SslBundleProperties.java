package io.kflux.spring.boot;

import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslStoreBundle;

/**
 * Turns a Spring SSL bundle ({@code spring.ssl.bundle.*}) into kflux's own TLS properties, as PEM text
 * (KIP-651: {@code ssl.truststore.certificates}, {@code ssl.keystore.certificate.chain}, {@code ssl.keystore.key}, an
 * unencrypted PKCS#8 key), whatever format the bundle was loaded from (JKS, PKCS#12, PEM), plus the bundle's
 * protocol, enabled protocols and cipher suites. kflux treats the three PEM properties as passwords: never logged.
 */
final class SslBundleProperties {
    private static final Base64.Encoder PEM = Base64.getMimeEncoder(64, new byte[] {'\n'});

    private SslBundleProperties() {
    }

    /**
     * @param bundle the bundle
     * @return the Kafka TLS properties it stands for
     * @throws IllegalStateException when a store cannot be read (wrong key password, no key under the alias)
     */
    static Map<String, String> of(SslBundle bundle) {
        Map<String, String> props = new LinkedHashMap<>();
        SslStoreBundle stores = bundle.getStores();
        try {
            KeyStore trust = stores.getTrustStore();
            if (trust != null) {
                StringBuilder certificates = new StringBuilder();
                for (String alias : Collections.list(trust.aliases())) {
                    Certificate certificate = trust.getCertificate(alias);
                    if (certificate != null) {
                        certificates.append(pem("CERTIFICATE", certificate.getEncoded()));
                    }
                }
                props.put("ssl.truststore.type", "PEM");
                props.put("ssl.truststore.certificates", certificates.toString());
            }
            KeyStore keys = stores.getKeyStore();
            if (keys != null) {
                String alias = bundle.getKey().getAlias() != null ? bundle.getKey().getAlias() : firstKeyAlias(keys);
                String password = bundle.getKey().getPassword() != null ? bundle.getKey().getPassword()
                        : stores.getKeyStorePassword();
                Key key = keys.getKey(alias, password == null ? new char[0] : password.toCharArray());
                if (!(key instanceof PrivateKey)) {
                    throw new IllegalStateException("the SSL bundle's key store has no private key under alias " + alias);
                }
                StringBuilder chain = new StringBuilder();
                for (Certificate certificate : keys.getCertificateChain(alias)) {
                    chain.append(pem("CERTIFICATE", certificate.getEncoded()));
                }
                props.put("ssl.keystore.type", "PEM");
                props.put("ssl.keystore.certificate.chain", chain.toString());
                props.put("ssl.keystore.key", pem("PRIVATE KEY", key.getEncoded()));
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot read the SSL bundle's stores: " + e.getClass().getSimpleName(), e);
        }
        if (bundle.getProtocol() != null) {
            props.put("ssl.protocol", bundle.getProtocol());
        }
        if (bundle.getOptions().getEnabledProtocols() != null) {
            props.put("ssl.enabled.protocols", String.join(",", bundle.getOptions().getEnabledProtocols()));
        }
        if (bundle.getOptions().getCiphers() != null) {
            props.put("ssl.cipher.suites", String.join(",", bundle.getOptions().getCiphers()));
        }
        return props;
    }

    private static String firstKeyAlias(KeyStore keys) throws GeneralSecurityException {
        for (String alias : Collections.list(keys.aliases())) {
            if (keys.isKeyEntry(alias)) {
                return alias;
            }
        }
        throw new IllegalStateException("the SSL bundle's key store holds no key");
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + PEM.encodeToString(der) + "\n-----END " + type + "-----\n";
    }
}
