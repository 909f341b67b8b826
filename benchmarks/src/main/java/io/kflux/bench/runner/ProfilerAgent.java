package io.kflux.bench.runner;

/**
 * Drives async-profiler in this JVM through {@code jcmd JVMTI.agent_load}, so that a benchmark profiles only the part
 * of a run it measures (the agent given at JVM start would profile start-up and warm-up too). JDK only, as the rest
 * of the contender harness.
 */
public final class ProfilerAgent {
    private ProfilerAgent() {
    }

    /**
     * Loads {@code agent} (the path of {@code libasyncProfiler.so}) into this JVM with {@code options} (e.g.
     * {@code start,event=cpu,interval=1ms,threads} or {@code stop,file=out.collapsed,collapsed}) and waits for it;
     * a failure is printed, not thrown: a benchmark goes on without its profile.
     */
    public static void command(String agent, String options) {
        String pid = Long.toString(ProcessHandle.current().pid());
        try {
            // quoted: jcmd's argument parser would otherwise cut the options at their first comma
            Process jcmd = new ProcessBuilder("jcmd", pid, "JVMTI.agent_load", agent, '"' + options + '"')
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            System.out.println("profile " + options + ": jcmd exit " + jcmd.waitFor());
        } catch (java.io.IOException | InterruptedException e) {
            System.out.println("profile " + options + " failed: " + e);
        }
    }
}
