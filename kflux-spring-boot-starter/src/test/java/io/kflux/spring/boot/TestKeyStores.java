package io.kflux.spring.boot;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** PKCS#12 stores made by the JDK's own keytool for the TLS tests (no certificate library needed). */
final class TestKeyStores {
    static final String PASSWORD = "bundle-pw-83";

    private TestKeyStores() {
    }

    /**
     * Makes a store with one self-signed EC key pair, valid two days, for {@code 127.0.0.1} and {@code localhost}.
     *
     * @param file  where to write it
     * @param alias the key's alias
     * @return {@code file}
     */
    static Path selfSigned(Path file, String alias) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", alias, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "2", "-storetype", "PKCS12",
                "-keystore", file.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD));
        Process keytool = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes());
        if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
            throw new IllegalStateException("keytool failed: " + output);
        }
        return file;
    }
}
