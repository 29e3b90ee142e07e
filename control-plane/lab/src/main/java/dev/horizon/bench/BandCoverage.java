package dev.horizon.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.JobJson;
import dev.horizon.simulation.EtaCalibration;
import dev.horizon.simulation.Simulator;
import dev.horizon.trace.ScenarioOptions;
import dev.horizon.trace.Scenarios;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * How well bands read from a given number of futures come true on the bench's Philly windows: what `./horizon eta-cost
 * --coverage` prints beside the bands' cost, so a cheaper band is priced and held to account in one run. Each window is
 * the bench's `--scenario philly --seed S --trace-start-day D --load 1.5 --policies horizon --eta on` (Horizon's inference
 * knob calibrated on the day before, as the bench does by default); the pooled coverage weighs each window by its banded jobs.
 */
final class BandCoverage {
    /** The load the bench's calibration windows are played at. */
    static final double LOAD = 1.5;

    /** One Philly window: the log's seed and the day it starts at. */
    record Window(long seed, int traceStartDay) {
        /** Windows written as S/D, comma-separated; a bad one is a usage error naming it and the form. */
        static List<Window> parse(String list) {
            List<Window> out = new ArrayList<>();
            for (String w : list.split(",")) {
                String[] sd = w.strip().split("/");
                try {
                    if (sd.length != 2) throw new NumberFormatException();
                    out.add(new Window(Long.parseLong(sd[0]), Integer.parseInt(sd[1])));
                } catch (NumberFormatException e) {
                    throw new CliArgs.UsageException("--coverage: '" + w + "' is not a Philly window; write SEED/TRACE-START-DAY, comma-separated (e.g. 70/17,71/45)");
                }
            }
            return out;
        }
    }

    /** A window's banded jobs and the share of them whose calibrated P50 and P90 came true. */
    record Covered(Window window, int jobs, double p50, double p90, double medianAbsErrorSeconds) {
    }

    private BandCoverage() {
    }

    /**
     * Plays each window with bands of samples futures, saying on err which window it is on; traceDir: where the Philly
     * traces are, checked by the caller with {@link #requireTraces} before it measures anything.
     */
    static List<Covered> of(List<Window> windows, int samples, Path traceDir, PrintStream err) {
        List<Covered> out = new ArrayList<>();
        for (Window w : windows) {
            err.println("coverage on Philly window " + (out.size() + 1) + " of " + windows.size() + " (seed " + w.seed() + ", day " + w.traceStartDay() + ") ...");
            ScenarioOptions options = new ScenarioOptions(w.seed(), null, null, LOAD, ScenarioOptions.DEFAULT_RT_PEAK_SHARE, w.traceStartDay(), traceDir);
            try {
                BenchCommand.Outcome o = BenchCommand.bench("philly", options, List.of("horizon"), Simulator.DEFAULT_RECLAIM_SECONDS, Engine.SIMULATOR,
                        samples, SloCalibration.DEFAULT_TARGET, 0, err);
                EtaCalibration.Report r = o.eta().get("horizon");
                // a window in which no job ever waited has no bands
                out.add(r == null ? new Covered(w, 0, Double.NaN, Double.NaN, Double.NaN)
                        : new Covered(w, r.jobs(), r.coverageP50(), r.coverageP90(), r.medianAbsErrorSeconds()));
            } catch (IOException e) {
                throw new UncheckedIOException("Philly window seed " + w.seed() + " day " + w.traceStartDay() + ": " + e.getMessage(), e);
            }
        }
        return out;
    }

    /** Fails at once, before minutes of measuring, when a trace the windows read (the log, the GenAI demand) is not where it is looked for. */
    static void requireTraces(Path traceDir) {
        Scenarios.missingPhillyTrace(traceDir).ifPresent(missing -> {
            throw new CliArgs.UsageException("--coverage plays Philly windows: no " + missing + " under " + traceDir + "; give --trace-dir the traces folder");
        });
    }

    /** The JSON eta-cost prints: each window's figures and the job-weighted pool of them. */
    static ObjectNode json(List<Covered> covered) {
        ObjectNode n = JobJson.mapper().createObjectNode();
        ArrayNode windows = n.putArray("windows");
        int jobs = 0;
        double p50 = 0, p90 = 0;
        for (Covered c : covered) {
            ObjectNode w = windows.addObject();
            w.put("seed", c.window().seed());
            w.put("traceStartDay", c.window().traceStartDay());
            w.put("jobs", c.jobs());
            // a window without bands says so with nulls, and counts for nothing in the pool
            if (c.jobs() == 0) {
                w.putNull("coverageP50").putNull("coverageP90").putNull("medianAbsErrorSeconds");
                continue;
            }
            w.put("coverageP50", c.p50());
            w.put("coverageP90", c.p90());
            w.put("medianAbsErrorSeconds", c.medianAbsErrorSeconds());
            jobs += c.jobs();
            p50 += c.jobs() * c.p50();
            p90 += c.jobs() * c.p90();
        }
        n.put("jobs", jobs);
        if (jobs == 0) return n.putNull("coverageP50").putNull("coverageP90");
        n.put("coverageP50", p50 / jobs);
        n.put("coverageP90", p90 / jobs);
        return n;
    }
}
