package io.kflux.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a suite run does (each drain case in each CPU mode with its contenders, the e2e and the scale case, with
 * their rounds) and how long that is expected to take, printed before the run starts and compared with what it
 * took as it goes.
 *
 * <p>Without {@code --clients}, each drain case gets the contenders that its figures are for, so that the whole
 * default run takes about 100 minutes on a 2-core machine instead of about 260 (BENCHMARKS.md, "Running it", has
 * the timed run this comes from): with a spare core cases 1 and 2-lz4 (the cases of issue #17's CPU and throughput
 * targets) have kflux, the official client and the official client with {@code group.protocol=consumer}, on one
 * core kflux and the official client; with a spare core case 1
 * also has raw (a ceiling only where records are not compressed: raw never decompresses) and 2-lz4 reactor-kafka
 * (on case 1 its window stretches to about 40 s, about 68 stalls of about 500 ms after seeks, so that each of its
 * JVMs takes about a minute: 15 minutes over 15 rounds); 4-keys, 2-zstd and 3 have kflux and the official client.
 * {@code --clients} puts the contenders it names into every case and mode.
 *
 * <p>The estimate is a model of one forked JVM's wall time, fitted to a timed run on a 2-core machine (JVM start and
 * exit, consumer creation and close, the end of the pass a partition is in when a window is over): a drain JVM
 * takes its warm-up and its window plus {@link #DRAIN_JVM_SECONDS}; passes-based warm-up is counted at
 * {@link #WARMUP_PASS_SECONDS} a pass. A contender that stalls (reactor-kafka) takes longer. It is a guide for
 * planning a run, not a measurement.
 */
final class SuitePlan {

    /** Contenders of cases 1 and 2-lz4 with a spare core by default: the targets' two, and the other two-thread client. */
    static final List<String> TARGET_CLIENTS = List.of("kflux", "official", "official-kip848");
    /** Contenders of cases 4-keys, 2-zstd and 3, and of the one-core run, by default. */
    static final List<String> PAIR = List.of("kflux", "official");
    /** Runs per contender of the e2e case by default: the fewest whose median interval reaches 95 % (96.9 %). */
    static final int E2E_ROUNDS = 6;

    // Fitted to a timed run (commit of this class, 2-core VM, another agent's load beside it): JVM start 0.2-0.4 s,
    // pause 0.3 s, set-up 0.03-0.4 s, window 0.3-0.9 s past --window-seconds, close 0.5 s (a Fetch waiting
    // fetch.max.wait.ms on partitions all at their end), exit and output 0.1-0.5 s; a time-based warm-up's own
    // consumer adds its set-up, the end of its passes and its close.
    /** A drain JVM's wall time beyond its warm-up seconds and its window seconds, s. */
    static final double DRAIN_JVM_SECONDS = 3.5;
    /** A one-pass warm-up drain (the {@code --warmup N} method), s: 2.6-7.2, about 4 on the mean. */
    static final double WARMUP_PASS_SECONDS = 4.0;
    /** An e2e JVM's wall time beyond its warm-up and its measured seconds, s. */
    static final double E2E_JVM_SECONDS = 1.2;
    /** A scale JVM's wall time beyond its warm-up and its measured seconds, s, plus per consumer. */
    static final double SCALE_JVM_SECONDS = 2.5;
    static final double SCALE_SECONDS_PER_CONSUMER = 0.01;
    /** Starting the embedded broker, s. */
    static final double BROKER_SECONDS = 10;
    /** Filling a topic: 11 s for case 1, 3-11 s for 2-lz4, 2-zstd and 4-keys, 52 s for the 200 partitions of 3. */
    static final double FILL_SECONDS = 2;
    static final double FILL_SECONDS_PER_RECORD = 2e-6;
    static final double FILL_SECONDS_PER_PARTITION = 0.25;

    /** One drain case in one CPU mode with its contenders. */
    record Step(String mode, String caseName, List<String> clients) {
    }

    private final BenchmarkSuite.Settings settings;
    private final List<Step> drains = new ArrayList<>();
    private final List<String> e2eClients;
    private final List<String> scaleClients;
    private final int e2eRounds;
    private final int scaleRounds;
    /** Unmeasured JVMs before the scale case's rounds (one per warm-up round, ScaleCase). */
    private final int scaleWarmupJvms;
    /** Estimated seconds of each drain step, its case's fill included when the step is the first of its case. */
    private final Map<Step, Double> stepSeconds = new LinkedHashMap<>();
    private final long startNanos = System.nanoTime();

    SuitePlan(BenchmarkSuite.Settings s, boolean clientsNamed, double scale) {
        this.settings = s;
        for (String mode : s.cpuModes()) {
            for (String name : s.cases()) {
                if (name.equals("e2e") || name.equals("scale")
                        || (mode.equals("one-core") && !s.oneCoreCases().contains(name))) {
                    continue;
                }
                List<String> clients = clientsNamed ? s.clients() : defaultClients(mode, name, s.clients());
                drains.add(new Step(mode, name, clients));
            }
        }
        List<String> filled = new ArrayList<>();
        for (Step step : drains) {
            BenchmarkSuite.Case c = BenchmarkSuite.Case.of(step.caseName(), scale);
            double fill = filled.contains(c.name()) ? 0 : fillSeconds(c);
            filled.add(c.name());
            stepSeconds.put(step, drainSeconds(step) + fill);
        }
        e2eClients = s.cases().contains("e2e")
                ? s.clients().stream().filter(c -> !c.equals("raw")).toList() : List.of();
        scaleClients = s.cases().contains("scale")
                ? ScaleCase.CLIENTS.stream().filter(s.clients()::contains).toList() : List.of();
        e2eRounds = Integer.parseInt(s.opts().getOrDefault("--e2e-rounds", Integer.toString(E2E_ROUNDS)));
        scaleRounds = Integer.parseInt(s.opts().getOrDefault("--scale-rounds", "5"));
        scaleWarmupJvms = scaleClients.isEmpty() ? 0 : ScaleCase.warmupRounds(s.opts());
    }

    private static List<String> defaultClients(String mode, String caseName, List<String> all) {
        // one core: the CPU targets' two (official-kip848's one-core rows would add about 11 minutes)
        List<String> chosen = new ArrayList<>(switch (caseName) {
            case "1", "2-lz4" -> mode.equals("one-core") ? PAIR : TARGET_CLIENTS;
            default -> PAIR;
        });
        if (mode.equals("spare") && caseName.equals("1")) {
            chosen.add("raw");
        }
        if (mode.equals("spare") && caseName.equals("2-lz4")) {
            chosen.add("reactor-kafka");
        }
        return all.stream().filter(chosen::contains).toList();
    }

    List<Step> drains(String mode) {
        return drains.stream().filter(d -> d.mode().equals(mode)).toList();
    }

    List<String> e2eClients() {
        return e2eClients;
    }

    int e2eRounds() {
        return e2eRounds;
    }

    /** Every contender of the plan, in the suite's order, for the tables. */
    List<String> allClients() {
        List<String> all = new ArrayList<>();
        for (String c : settings.clients()) {
            if (drains.stream().anyMatch(d -> d.clients().contains(c)) || e2eClients.contains(c)
                    || scaleClients.contains(c)) {
                all.add(c);
            }
        }
        return all;
    }

    /** Estimated seconds of a drain step, its case's fill included when it is the first step of its case. */
    double stepSeconds(Step step) {
        return stepSeconds.get(step);
    }

    private double drainSeconds(Step step) {
        double warmup = settings.warmup() > 0 ? settings.warmup() * WARMUP_PASS_SECONDS
                : Math.max(settings.warmupSeconds(), WARMUP_PASS_SECONDS);
        return (double) settings.rounds() * step.clients().size()
                * (warmup + settings.windowSeconds() + DRAIN_JVM_SECONDS);
    }

    private static double fillSeconds(BenchmarkSuite.Case c) {
        return FILL_SECONDS + c.records() * FILL_SECONDS_PER_RECORD + c.partitions() * FILL_SECONDS_PER_PARTITION;
    }

    double e2eSeconds() {
        if (e2eClients.isEmpty()) {
            return 0;
        }
        double perJvm = (e2eWarmupMillis() + e2eMeasureMillis()) / 1000.0 + E2E_JVM_SECONDS;
        return e2eLeadMillis() / 1000.0 + (double) e2eRounds * e2eClients.size() * perJvm;
    }

    /** {@code --e2e-lead-seconds} (default 20): how long the producer runs alone before the first e2e run, ms. */
    long e2eLeadMillis() {
        return e2eOption("--e2e-lead-seconds", "20");
    }

    /** {@code --e2e-warmup-seconds} (default 5): each e2e run's unmeasured start, ms. */
    long e2eWarmupMillis() {
        return e2eOption("--e2e-warmup-seconds", "5");
    }

    /** {@code --e2e-seconds} (default 20): each e2e run's measured time, ms. */
    long e2eMeasureMillis() {
        return e2eOption("--e2e-seconds", "20");
    }

    /** The run and the estimate read the e2e durations here, so the two cannot disagree on a default. */
    private long e2eOption(String option, String defaultSeconds) {
        return Long.parseLong(settings.opts().getOrDefault(option, defaultSeconds)) * 1000;
    }

    double scaleSeconds() {
        if (scaleClients.isEmpty()) {
            return 0;
        }
        int consumers = Integer.parseInt(settings.opts().getOrDefault("--scale-consumers", "100"));
        double perJvm = Double.parseDouble(settings.opts().getOrDefault("--scale-warmup-seconds", "10"))
                + Double.parseDouble(settings.opts().getOrDefault("--scale-seconds", "30")) + SCALE_JVM_SECONDS
                + consumers * SCALE_SECONDS_PER_CONSUMER;
        return (double) (scaleRounds * scaleClients.size() + scaleWarmupJvms) * perJvm;
    }

    /** Prints the plan, step by step, with its estimated duration. */
    void print(boolean embeddedBroker) {
        System.out.println("plan (estimated durations from a model of one JVM's wall time, see SuitePlan):");
        double total = embeddedBroker ? BROKER_SECONDS : 0;
        int jvms = 0;
        for (Step step : drains) {
            double seconds = stepSeconds(step);
            total += seconds;
            jvms += settings.rounds() * step.clients().size();
            System.out.printf("  case %-6s %-8s %d rounds x %s: %d JVMs, about %s%n", step.caseName(), step.mode(),
                    settings.rounds(), step.clients(), settings.rounds() * step.clients().size(), minutes(seconds));
        }
        if (!e2eClients.isEmpty()) {
            total += e2eSeconds();
            jvms += e2eRounds * e2eClients.size();
            System.out.printf("  case e2e    spare    %d rounds x %s: %d JVMs, about %s%n", e2eRounds, e2eClients,
                    e2eRounds * e2eClients.size(), minutes(e2eSeconds()));
        }
        if (!scaleClients.isEmpty()) {
            total += scaleSeconds();
            jvms += scaleRounds * scaleClients.size() + scaleWarmupJvms;
            System.out.printf("  case scale  spare    %d rounds x %s and %d unmeasured: %d JVMs, about %s%n", scaleRounds,
                    scaleClients, scaleWarmupJvms, scaleRounds * scaleClients.size() + scaleWarmupJvms,
                    minutes(scaleSeconds()));
        }
        System.out.printf("  in all %d JVMs, estimated %s%n", jvms, minutes(total));
    }

    /** Prints how long a step took against its estimate, and the time elapsed since the plan was made. */
    void progress(String step, long startedNanos, double estimatedSeconds) {
        long now = System.nanoTime();
        System.out.printf("  %s took %s (estimated %s); suite elapsed %s%n", step,
                minutes((now - startedNanos) / 1e9), minutes(estimatedSeconds), minutes((now - startNanos) / 1e9));
    }

    /** Seconds since the plan was made. */
    double elapsedSeconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    static String minutes(double seconds) {
        return seconds < 120 ? String.format("%.0f s", seconds) : String.format("%.1f min", seconds / 60);
    }
}
