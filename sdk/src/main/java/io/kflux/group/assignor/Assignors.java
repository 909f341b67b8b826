package io.kflux.group.assignor;

import io.kflux.ConfigException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Turns {@code partition.assignment.strategy} into assignor instances, and picks the rebalance protocol they
 * allow.
 */
public final class Assignors {

    /** The configuration key named in errors. */
    public static final String CONFIG_KEY = "partition.assignment.strategy";

    private static final String OFFICIAL_PACKAGE = "org.apache.kafka.clients.consumer.";
    private static final String OFFICIAL_SPI = "org.apache.kafka.clients.consumer.ConsumerPartitionAssignor";
    private static final String ALLOWED = "range, roundrobin, sticky, cooperative-sticky, the official client's "
            + "assignor class names, or the name of a public class implementing " + PartitionAssignor.class.getName()
            + " with a public no-argument constructor";

    private Assignors() {
    }

    /**
     * New assignor instances (stateful ones keep per-member state: one list per consumer), in preference order.
     * Accepts the built-in protocol names (any case), the official client's class names of the built-in
     * assignors ({@code org.apache.kafka.clients.consumer.RangeAssignor}, {@code RoundRobinAssignor},
     * {@code StickyAssignor}, {@code CooperativeStickyAssignor}), and class names of {@link PartitionAssignor}
     * implementations. An entry naming the same protocol as an earlier one is dropped.
     *
     * @param strategies the configured entries, in preference order
     * @param loader     where custom classes are loaded from; null means this library's class loader
     * @return the assignors, not empty
     * @throws ConfigException when the list is empty, an entry is unknown, not loadable, not a
     *                         {@link PartitionAssignor}, cannot be instantiated, or two different classes use
     *                         the same protocol name
     */
    public static List<PartitionAssignor> forNames(List<String> strategies, ClassLoader loader) {
        if (strategies == null || strategies.isEmpty()) {
            throw new ConfigException(CONFIG_KEY, strategies == null ? null : "", "a non-empty list: " + ALLOWED);
        }
        Map<String, PartitionAssignor> byName = new LinkedHashMap<>();
        for (String entry : strategies) {
            PartitionAssignor assignor = forName(entry, loader);
            PartitionAssignor earlier = byName.putIfAbsent(assignor.name(), assignor);
            if (earlier != null && earlier.getClass() != assignor.getClass()) {
                throw new ConfigException(CONFIG_KEY, entry, "assignors with distinct names; "
                        + earlier.getClass().getName() + " already uses the name '" + assignor.name() + "'");
            }
        }
        return List.copyOf(byName.values());
    }

    /**
     * One new assignor instance; see {@link #forNames}.
     *
     * @param strategy a built-in name or a class name
     * @param loader   where custom classes are loaded from; null means this library's class loader
     * @return the assignor
     * @throws ConfigException when the entry cannot be turned into an assignor
     */
    public static PartitionAssignor forName(String strategy, ClassLoader loader) {
        if (strategy == null || strategy.isBlank()) {
            throw new ConfigException(CONFIG_KEY, strategy, ALLOWED);
        }
        String entry = strategy.trim();
        PartitionAssignor builtIn = builtIn(entry);
        if (builtIn != null) {
            return builtIn;
        }
        ClassLoader cl = loader != null ? loader : Assignors.class.getClassLoader();
        Class<?> type;
        try {
            type = Class.forName(entry, true, cl);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new ConfigException(CONFIG_KEY, entry, ALLOWED + " (class not found)", e);
        }
        if (!PartitionAssignor.class.isAssignableFrom(type)) {
            String why = implementsOfficialSpi(type)
                    ? " (this class implements the official client's ConsumerPartitionAssignor, which kflux cannot run;"
                      + " implement " + PartitionAssignor.class.getName() + " instead)"
                    : " (" + type.getName() + " does not implement it)";
            throw new ConfigException(CONFIG_KEY, entry, ALLOWED + why);
        }
        if (type.isInterface() || Modifier.isAbstract(type.getModifiers())) {
            throw new ConfigException(CONFIG_KEY, entry, ALLOWED + " (the class is abstract)");
        }
        PartitionAssignor assignor;
        try {
            assignor = (PartitionAssignor) type.getConstructor().newInstance();
        } catch (NoSuchMethodException e) {
            throw new ConfigException(CONFIG_KEY, entry, ALLOWED + " (no public no-argument constructor)", e);
        } catch (InvocationTargetException e) {
            throw new ConfigException(CONFIG_KEY, entry, ALLOWED + " (its constructor failed: " + e.getCause() + ")",
                    e.getCause());
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            throw new ConfigException(CONFIG_KEY, entry, ALLOWED + " (cannot be instantiated: " + e + ")", e);
        }
        String name = assignor.name();
        if (name == null || name.isEmpty()) {
            throw new ConfigException(CONFIG_KEY, entry, ALLOWED + " (its name() is empty)");
        }
        List<RebalanceProtocol> protocols = assignor.supportedProtocols();
        if (protocols == null || protocols.isEmpty()) {
            throw new ConfigException(CONFIG_KEY, entry, ALLOWED + " (its supportedProtocols() is empty)");
        }
        return assignor;
    }

    private static PartitionAssignor builtIn(String entry) {
        switch (entry.toLowerCase(Locale.ROOT)) {
            case RangeAssignor.NAME:
                return new RangeAssignor();
            case RoundRobinAssignor.NAME:
                return new RoundRobinAssignor();
            case StickyAssignor.NAME:
                return new StickyAssignor();
            case CooperativeStickyAssignor.NAME:
                return new CooperativeStickyAssignor();
            default:
                break;
        }
        // the official class names, so configurations written for KafkaConsumer work unchanged
        switch (entry) {
            case OFFICIAL_PACKAGE + "RangeAssignor":
                return new RangeAssignor();
            case OFFICIAL_PACKAGE + "RoundRobinAssignor":
                return new RoundRobinAssignor();
            case OFFICIAL_PACKAGE + "StickyAssignor":
                return new StickyAssignor();
            case OFFICIAL_PACKAGE + "CooperativeStickyAssignor":
                return new CooperativeStickyAssignor();
            default:
                return null;
        }
    }

    private static boolean implementsOfficialSpi(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Class<?> i : c.getInterfaces()) {
                if (i.getName().equals(OFFICIAL_SPI) || implementsOfficialSpi(i)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The rebalance protocol for a member with these assignors, decided as the official client does: the latest
     * ({@link RebalanceProtocol#COOPERATIVE} over {@link RebalanceProtocol#EAGER}) protocol that <em>every</em>
     * assignor supports. So the default {@code [range, cooperative-sticky]} is eager, and a group moves to
     * cooperative rebalancing only once {@code range} is removed (the KIP-429 upgrade path).
     *
     * @param assignors the configured assignors
     * @return the protocol
     * @throws ConfigException when the list is empty or the assignors have no protocol in common
     */
    public static RebalanceProtocol commonProtocol(List<PartitionAssignor> assignors) {
        Objects.requireNonNull(assignors, "assignors");
        if (assignors.isEmpty()) {
            throw new ConfigException(CONFIG_KEY, "", "at least one assignor");
        }
        List<RebalanceProtocol> common = new ArrayList<>(assignors.get(0).supportedProtocols());
        for (PartitionAssignor assignor : assignors) {
            common.retainAll(assignor.supportedProtocols());
        }
        if (common.isEmpty()) {
            List<String> names = assignors.stream().map(PartitionAssignor::name).toList();
            throw new ConfigException(CONFIG_KEY, names, "assignors that support a common rebalance protocol");
        }
        return common.stream().max(Enum::compareTo).orElseThrow();
    }
}
