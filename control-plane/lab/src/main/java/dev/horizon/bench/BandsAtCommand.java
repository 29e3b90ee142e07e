package dev.horizon.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.allocator.eta.StartBands;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.moment.ActiveJob;
import dev.horizon.allocator.moment.ClusterMoment;
import dev.horizon.api.JobJson;
import dev.horizon.simulation.DecisionObserver;
import dev.horizon.simulation.RecentArrivals;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.Simulator;
import dev.horizon.trace.Scenarios;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ./horizon bands-at}: how many of a scenario's waiting jobs the control plane could give a start time at chosen
 * moments of its first day, and how much that moves with the draw of the futures. Horizon decides the scenario in the
 * simulator; at each moment every waiting job's bands are computed as the service computes them (its futures with the
 * expected arrivals and the queue alone's, played on past the horizon), once per draw and per how far they are played on.
 * The lab's view of issue 35's live check, which {@code DemoIT} takes over processes: deterministic for a seed, and cheap
 * enough to ask "what if the futures played further".
 */
final class BandsAtCommand {
    static final String USAGE = """
            usage: ./horizon bands-at --scenario S --at HH:MM[,HH:MM...] [--draws K] [--beyond-hours H[,H...]] [--samples N]
                                      [any scenario option of ./horizon bench: --seed --gpus --days --load ...]
              Horizon decides the scenario in the simulator; at the first decision at or after each time HH:MM into the
              window (the demo's day starts at 00:00, so they are its clock's times), every waiting job's start-time bands are computed as the control plane computes them (N futures,
              default %d, played on H hours past the horizon, default %d), with K draws of the futures (default 1). Prints
              JSON: per moment the waiting jobs, those with a planned start, and per computation those with a P50, with a
              P90, with a planned start or both ends of a band (what the live check counts), and its CPU time."""
            .formatted(StartBands.SAMPLES, StartBands.BEYOND_HOURS);
    private static final Pattern CLOCK = Pattern.compile("([01]?[0-9]|2[0-3]):([0-5][0-9])");
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private BandsAtCommand() {
    }

    static int run(List<String> args, PrintStream out, PrintStream err) throws IOException {
        if (args.contains("--help")) {
            out.println(USAGE);
            return 0;
        }
        CliArgs a = new CliArgs("bands-at", args, BenchCommand.scenarioOptionsAnd("at", "draws", "beyond-hours", "samples"));
        if (!a.has("scenario") || !a.has("at")) throw new CliArgs.UsageException("bands-at needs --scenario S and --at HH:MM (see ./horizon bands-at --help)");
        long[] at = moments(a.get("at", ""));
        int[] beyondHours = beyondHours(a.get("beyond-hours", String.valueOf(StartBands.BEYOND_HOURS)));
        Integer drawsAsked = a.integer("draws"), samplesAsked = a.integer("samples");
        int draws = drawsAsked == null ? 1 : drawsAsked, samples = samplesAsked == null ? StartBands.SAMPLES : samplesAsked;
        if (draws < 1 || draws > 100) throw new CliArgs.UsageException("--draws must be between 1 and 100 (got " + draws + ")");
        if (samples < StartBands.MIN_LEFT) throw new CliArgs.UsageException("--samples must be at least " + StartBands.MIN_LEFT + ", the fewest a band is read from");
        Scenario scenario = Scenarios.build(a.get("scenario", null), BenchCommand.options(a));
        ObjectNode report = JobJson.mapper().createObjectNode();
        report.put("scenario", scenario.name()).put("samples", samples);
        ArrayNode looks = report.putArray("moments");
        Looks observer = new Looks(scenario, at, beyondHours, draws, samples, looks, err);
        Progress progress = new Progress(err);
        new Simulator(scenario, BenchPolicies.create("horizon")).observedBy(observer).run(f -> progress.show("horizon", f));
        if (looks.size() < at.length) err.println("bands-at: the window ended before " + (at.length - looks.size()) + " of the moments asked");
        out.println(report.toPrettyString());
        return 0;
    }

    /** The times asked, HH:MM into the window (the demo's day starts at 00:00, so they are its clock's), as seconds, in order. */
    static long[] moments(String text) {
        return Arrays.stream(text.split(",")).mapToLong(t -> {
            Matcher m = CLOCK.matcher(t.strip());
            if (!m.matches()) throw new CliArgs.UsageException("--at: '" + t + "' is not a time HH:MM into the window's first day (00:00 to 23:59), e.g. --at 18:30,21:45");
            return Integer.parseInt(m.group(1)) * 3600L + Integer.parseInt(m.group(2)) * 60L;
        }).sorted().toArray();
    }

    private static int[] beyondHours(String text) {
        try {
            int[] out = Arrays.stream(text.split(",")).mapToInt(h -> Integer.parseInt(h.strip())).toArray();
            for (int h : out) if (h < 0 || h > StartBands.MAX_BEYOND_HOURS) throw new NumberFormatException();
            return out;
        } catch (NumberFormatException e) {
            throw new CliArgs.UsageException("--beyond-hours: '" + text + "' must be hours between 0 and " + StartBands.MAX_BEYOND_HOURS
                    + ", comma-separated, as the control plane's horizon.eta.beyond-hours");
        }
    }

    /** Watches the decisions: keeps the arrivals of the last day, as the control plane's store does, and looks at each moment asked. */
    private static final class Looks implements DecisionObserver {
        private final long[] at;
        private final int[] beyondHours;
        private final int draws, samples;
        private final ArrayNode looks;
        private final PrintStream err;
        private final RecentArrivals arrivals;
        private int next;

        Looks(Scenario scenario, long[] at, int[] beyondHours, int draws, int samples, ArrayNode looks, PrintStream err) {
            this.at = at;
            this.beyondHours = beyondHours;
            this.draws = draws;
            this.samples = samples;
            this.looks = looks;
            this.err = err;
            this.arrivals = new RecentArrivals(scenario.priorArrivals());
        }

        @Override
        public void decided(ClusterMoment m, Decision d) {
            arrivals.saw(m);
            if (next >= at.length || m.now() < at[next]) return;
            while (next < at.length && at[next] <= m.now()) next++;
            look(m, d);
        }

        private void look(ClusterMoment m, Decision d) {
            Set<String> waiting = new LinkedHashSet<>();
            for (ActiveJob j : m.jobs()) if (!j.isRunning()) waiting.add(j.id());
            d.starts().forEach(s -> waiting.remove(s.jobId()));
            long planned = waiting.stream().filter(d.plannedStarts()::containsKey).count();
            ObjectNode look = looks.addObject();
            look.put("at", String.format("%02d:%02d", m.now() / 3600, m.now() / 60 % 60)).put("now", m.now())
                    .put("waiting", waiting.size()).put("planned", planned);
            ArrayNode computations = look.putArray("computations");
            for (int hours : beyondHours) {
                for (int draw = 0; draw < draws; draw++) computations.add(computation(m, d, waiting, hours, draw));
            }
        }

        /** One computation of every waiting job's bands, as the service makes it, and what it gave. */
        private ObjectNode computation(ClusterMoment m, Decision d, Set<String> waiting, int hours, int draw) {
            long cpu0 = THREADS.getCurrentThreadCpuTime();
            StartBands.Computed c = StartBands.computedWithQueueAlone(m, d, StartBands.Players.oneAtATime(BenchPolicies.create("horizon")),
                    arrivals.expected(m.now()), waiting, samples, m.now() + draw, StartBands.beyondSteps(hours, m.stepSeconds()),
                    first -> { });
            int p50 = 0, p90 = 0, answered = 0;
            for (String id : waiting) {
                StartBands.Band band = c.bands().get(id);
                boolean hasP90 = band != null && band.projected(0.9) != null;
                if (band != null && band.projected(0.5) != null) p50++;
                if (hasP90) p90++;
                if (hasP90 || d.plannedStarts().containsKey(id)) answered++;
            }
            long cpuMs = (THREADS.getCurrentThreadCpuTime() - cpu0) / 1_000_000;
            err.printf("bands-at: %ds into the window, %d waiting, %d h past the horizon, draw %d: %d with a P50, %d with a P90, %d with a planned"
                    + " start or both ends (%.0f%%), %.1f s of CPU%n", m.now(), waiting.size(), hours, draw, p50, p90, answered,
                    waiting.isEmpty() ? 100.0 : 100.0 * answered / waiting.size(), cpuMs / 1000.0);
            ObjectNode out = JobJson.mapper().createObjectNode();
            out.put("beyondHours", hours).put("draw", draw).put("withP50", p50).put("withP90", p90).put("plannedOrFullBand", answered).put("cpuMs", cpuMs);
            return out;
        }
    }
}
