package io.kflux.examples;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;

/**
 * The examples' command line: {@code --name value} pairs. A problem goes to the example's {@code usage}, which prints
 * it with the example's usage text and exits.
 */
final class ExampleArgs {
    private ExampleArgs() {
    }

    /** The options in {@code args}, by name; an unknown name or a missing value goes to {@code usage}. */
    static Map<String, String> parse(String[] args, Collection<String> known, Consumer<String> usage) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!known.contains(args[i])) {
                usage.accept("unknown argument: " + args[i]);
            }
            if (i + 1 == args.length) {
                usage.accept(args[i] + " needs a value");
            }
            options.put(args[i], args[++i]);
        }
        return options;
    }

    /**
     * The client properties of {@code --command-config FILE}, a properties file as the Kafka CLI tools take it
     * (e.g. {@code security.protocol}, {@code sasl.*}, {@code ssl.*}), for kflux and the official Admin alike;
     * empty without the option. An unreadable file goes to {@code usage}.
     */
    static Map<String, Object> commandConfig(Map<String, String> options, Consumer<String> usage) {
        String file = options.get("--command-config");
        Map<String, Object> out = new HashMap<>();
        if (file == null) {
            return out;
        }
        Properties props = new Properties();
        try (Reader in = Files.newBufferedReader(Path.of(file))) {
            props.load(in);
        } catch (IOException e) {
            usage.accept("cannot read --command-config " + file + ": " + e.getMessage());
        }
        props.forEach((k, v) -> out.put((String) k, v));
        return out;
    }

    /**
     * The client properties to connect with: those of {@code --command-config FILE} (see {@link #commandConfig})
     * plus {@code bootstrap.servers}.
     */
    static Map<String, Object> client(Map<String, String> options, String bootstrapServers, Consumer<String> usage) {
        Map<String, Object> client = commandConfig(options, usage);
        client.put("bootstrap.servers", bootstrapServers);
        return client;
    }

    /** Option {@code name} as a number, {@code defaultValue} when absent; not a number goes to {@code usage}. */
    static int intOption(Map<String, String> options, String name, int defaultValue, Consumer<String> usage) {
        try {
            return Integer.parseInt(options.getOrDefault(name, Integer.toString(defaultValue)));
        } catch (NumberFormatException e) {
            usage.accept(name + " needs a number, got " + options.get(name));
            return defaultValue;
        }
    }
}
