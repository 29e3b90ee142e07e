package dev.horizon.service.planning;

import dev.horizon.service.fractional.JobGpus;
import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.teams.Team;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Hierarchical fair share reduced to one weight per job: teams rank by the GPU time they used over
 * the last 7 days against their budgeted share (the most under-served first), and priority orders
 * jobs only inside a team. The team part is quantised to whole percent so that the small shift one
 * start or preemption causes does not reorder teams and make the plan flap.
 */
final class TeamWeights {
    static final long WINDOW_SECONDS = 7 * 86_400L;
    private static final int PRIORITY_BAND = 100;

    private final Map<String, Double> teamWeight = new HashMap<>();

    /** jobs: every job that ran inside the window (finished or running); gpuSeconds is the cluster's capacity over it. */
    TeamWeights(List<Team> teams, List<JobRow> jobs, long now, double gpuSecondsInWindow) {
        Map<String, Double> used = new HashMap<>();
        long from = now - WINDOW_SECONDS;
        for (JobRow j : jobs) {
            if (j.startedAt() == null) continue;
            long end = j.endedAt() != null ? j.endedAt() : now;
            long ran = end - Math.max(from, j.startedAt());
            if (ran > 0) used.merge(j.team(), ran * JobGpus.of(j), Double::sum);
        }
        for (Team t : teams) {
            double usedShare = gpuSecondsInWindow <= 0 ? 0 : used.getOrDefault(t.name(), 0.0) / gpuSecondsInWindow;
            teamWeight.put(t.name(), t.share() <= 0 ? 0 : Math.round(100 * t.share() / (t.share() + usedShare)) / 100.0);
        }
    }

    double teamWeight(String team) {
        return teamWeight.getOrDefault(team, 0.0);
    }

    /** Team first (a team's weight outranks every priority), then the job's priority, capped inside its band. */
    double jobWeight(String team, int priority) {
        return 1 + teamWeight(team) * 100 * PRIORITY_BAND + Math.min(priority, PRIORITY_BAND - 1);
    }
}
