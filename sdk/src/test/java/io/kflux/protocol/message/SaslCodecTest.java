package io.kflux.protocol.message;

import static io.kflux.protocol.message.OracleEquivalence.assertEquivalent;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.junit.jupiter.api.Test;

class SaslCodecTest {
    private static final byte[] CLIENT_FIRST = "n,,n=alice,r=fyko+d2lbbFgONRv9qkxdawL".getBytes(StandardCharsets.UTF_8);
    private static final byte[] SERVER_FIRST = "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096"
            .getBytes(StandardCharsets.UTF_8);

    @Test
    void versionRangesAreTheSpecs() {
        assertThat(SaslHandshakeRequest.SPEC.lowestVersion()).isEqualTo(SaslHandshakeRequestData.LOWEST_SUPPORTED_VERSION);
        assertThat(SaslHandshakeRequest.SPEC.highestVersion()).isEqualTo(SaslHandshakeRequestData.HIGHEST_SUPPORTED_VERSION);
        assertThat(SaslHandshakeResponse.SPEC.lowestVersion()).isEqualTo(SaslHandshakeResponseData.LOWEST_SUPPORTED_VERSION);
        assertThat(SaslHandshakeResponse.SPEC.highestVersion()).isEqualTo(SaslHandshakeResponseData.HIGHEST_SUPPORTED_VERSION);
        assertThat(SaslAuthenticateRequest.SPEC.lowestVersion()).isEqualTo(SaslAuthenticateRequestData.LOWEST_SUPPORTED_VERSION);
        assertThat(SaslAuthenticateRequest.SPEC.highestVersion()).isEqualTo(SaslAuthenticateRequestData.HIGHEST_SUPPORTED_VERSION);
        assertThat(SaslAuthenticateResponse.SPEC.lowestVersion()).isEqualTo(SaslAuthenticateResponseData.LOWEST_SUPPORTED_VERSION);
        assertThat(SaslAuthenticateResponse.SPEC.highestVersion()).isEqualTo(SaslAuthenticateResponseData.HIGHEST_SUPPORTED_VERSION);
    }

    @Test
    void handshakeMatchesOfficialBytesInEveryVersion() {
        for (short v : OracleEquivalence.versions(SaslHandshakeRequest.SPEC)) {
            short version = v;
            OracleEquivalence.check(SaslHandshakeRequest.SPEC, new SaslHandshakeRequest("SCRAM-SHA-512"),
                    new SaslHandshakeRequestData().setMechanism("SCRAM-SHA-512"), v, a -> new SaslHandshakeRequestData(a, version));
            for (List<String> mechanisms : List.of(List.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"), List.<String>of())) {
                OracleEquivalence.check(SaslHandshakeResponse.SPEC, new SaslHandshakeResponse((short) 33, mechanisms),
                        new SaslHandshakeResponseData().setErrorCode((short) 33).setMechanisms(mechanisms), v,
                        a -> new SaslHandshakeResponseData(a, version));
            }
        }
    }

    @Test
    void authenticateMatchesOfficialBytesInEveryVersion() {
        for (short v : OracleEquivalence.versions(SaslAuthenticateRequest.SPEC)) {
            short version = v;
            for (byte[] token : new byte[][] {CLIENT_FIRST, new byte[0]}) {
                OracleEquivalence.check(SaslAuthenticateRequest.SPEC, new SaslAuthenticateRequest(token),
                        new SaslAuthenticateRequestData().setAuthBytes(token), v, a -> new SaslAuthenticateRequestData(a, version));
            }
            for (String errorMessage : new String[] {null, "", "Authentication failed: Invalid username or password"}) {
                SaslAuthenticateResponse ours = new SaslAuthenticateResponse((short) 58, errorMessage, SERVER_FIRST,
                        v >= 1 ? 3_600_000L : 0L);
                SaslAuthenticateResponseData official = new SaslAuthenticateResponseData().setErrorCode((short) 58)
                        .setErrorMessage(errorMessage).setAuthBytes(SERVER_FIRST);
                if (v >= 1) {
                    official.setSessionLifetimeMs(3_600_000L);
                }
                OracleEquivalence.check(SaslAuthenticateResponse.SPEC, ours, official, v,
                        a -> new SaslAuthenticateResponseData(a, version));
            }
        }
    }

    @Test
    void defaultsMatchTheOfficialOnes() {
        assertEquivalent(SaslHandshakeRequest.SPEC.schema().defaults(), new SaslHandshakeRequestData(), "hs request");
        assertEquivalent(SaslHandshakeResponse.SPEC.schema().defaults(), new SaslHandshakeResponseData(), "hs response");
        assertEquivalent(SaslAuthenticateRequest.SPEC.schema().defaults(), new SaslAuthenticateRequestData(), "auth request");
        assertEquivalent(SaslAuthenticateResponse.SPEC.schema().defaults(), new SaslAuthenticateResponseData(), "auth response");
    }
}
