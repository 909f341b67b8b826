package io.kflux.network;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.message.ApiVersionsResponse;
import io.kflux.protocol.message.ApiVersionsResponse.ApiVersion;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The API version ranges one broker announced in its ApiVersions response, and the version choice
 * made from them: the highest version both the broker and kflux's codec support. Immutable.
 */
public final class BrokerApiVersions {
    private final Map<Short, ApiVersion> byKey;

    private BrokerApiVersions(Map<Short, ApiVersion> byKey) {
        this.byKey = byKey;
    }

    /** The ranges of a successful ApiVersions response. */
    public static BrokerApiVersions of(ApiVersionsResponse response) {
        return of(response.apiKeys());
    }

    /** The ranges of a list of (apiKey, min, max) entries; a key listed twice keeps its last entry. */
    public static BrokerApiVersions of(List<ApiVersion> ranges) {
        Map<Short, ApiVersion> map = new HashMap<>();
        if (ranges != null) {
            for (ApiVersion v : ranges) {
                map.put(v.apiKey(), v);
            }
        }
        return new BrokerApiVersions(Map.copyOf(map));
    }

    /** Whether the broker offers {@code key} in any version. */
    public boolean supports(ApiKey key) {
        return byKey.containsKey(key.id);
    }

    /** The lowest version of {@code key} the broker accepts, or -1 when it does not offer the API. */
    public short min(ApiKey key) {
        ApiVersion v = byKey.get(key.id);
        return v == null ? -1 : v.minVersion();
    }

    /** The highest version of {@code key} the broker accepts, or -1 when it does not offer the API. */
    public short max(ApiKey key) {
        ApiVersion v = byKey.get(key.id);
        return v == null ? -1 : v.maxVersion();
    }

    /**
     * The highest version of {@code spec}'s API that both the broker and kflux support, or -1 when
     * the ranges do not overlap or the broker does not offer the API.
     */
    public short highestCommon(MessageSpec<?> spec) {
        return highestCommon(spec, spec.highestVersion());
    }

    /**
     * As {@link #highestCommon(MessageSpec)} for a request that can be written at {@code requestMax} at most
     * (see {@link io.kflux.protocol.ApiRequest#maxVersion()}).
     */
    public short highestCommon(MessageSpec<?> spec, short requestMax) {
        ApiVersion v = byKey.get(spec.apiKey().id);
        if (v == null) {
            return -1;
        }
        short highest = (short) Math.min(v.maxVersion(), Math.min(spec.highestVersion(), requestMax));
        short lowest = (short) Math.max(v.minVersion(), spec.lowestVersion());
        return highest >= lowest ? highest : -1;
    }

    /** Describes the broker's range for {@code key}, for error messages. */
    String describe(ApiKey key) {
        ApiVersion v = byKey.get(key.id);
        return v == null ? "not offered by the broker" : "broker supports " + v.minVersion() + "-" + v.maxVersion();
    }

    @Override
    public String toString() {
        return "BrokerApiVersions" + byKey.values();
    }
}
