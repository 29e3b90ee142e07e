package dev.horizon.api.scheduler;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The control plane's account of a waiting job: its reason, when the current plan starts it and the band it likely
 * starts in (all epoch seconds, read from the API's ISO-8601 times), how many jobs of each team rank ahead of it, who is planned before it on the GPUs it
 * needs, and what change to the job would start it sooner. A control plane older than the bands sends none of them.
 *
 * @param plannedStart  the current plan's start; null when the plan has none for it (see beyondHorizon)
 * @param startP50At    the start it reaches with odds 1 in 2; null with no band yet (or beyond the horizon)
 * @param startP90At    the start it reaches with odds 9 in 10; null with the P50
 * @param bandsAt       when the band was computed: it may lag the plan by one step
 * @param beyondHorizon the plan has no start for it within the plan's horizon
 * @param startBandNote  why it has no band, or what to know of the one it has (played on past the horizon, read again
 *                       after its time passed, the plan's start outside it); null when there is nothing to add
 * @param queueAloneP50At where the band has no P90: the start the queue as it stands reaches with odds 1 in 2 were no
 *                        more work to arrive, a condition and not the band; null when not told (or not within the futures)
 * @param queueAloneP90At the same with odds 9 in 10; null with it, or past where those futures end
 */
public record Explanation(String reason, Long plannedStart, Map<String, Long> rankedAheadByTeam, Long startP50At, Long startP90At,
                          Long bandsAt, boolean beyondHorizon, List<Alternative> alternatives, List<Ahead> ahead, String startBandNote,
                          Long queueAloneP50At, Long queueAloneP90At) {
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm", Locale.ROOT);
    private static final DateTimeFormatter DAY_AND_CLOCK = DateTimeFormatter.ofPattern("EEE d MMM HH:mm", Locale.ROOT);
    private static final Pattern BAND = Pattern.compile(" \\(P50 [^)]*, P90 [^)]*\\)|; no start band: .*$");

    /** A change to the job that starts it sooner: field names the job JSON field it changes. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Alternative(String change, String field, @JsonDeserialize(using = IsoSeconds.class) Long plannedStartAt) {
    }

    /**
     * Work planned before the job on the GPUs it needs: a job (id only when another team's) or an inference service;
     * untilAt: a running job's estimated end (epoch seconds), null for the others and from older control planes.
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Ahead(String team, String job, String service, int gpus, String reason, @JsonDeserialize(using = IsoSeconds.class) Long untilAt) {
    }

    public Explanation {
        rankedAheadByTeam = rankedAheadByTeam == null ? Map.of() : Map.copyOf(rankedAheadByTeam);
        alternatives = alternatives == null ? List.of() : List.copyOf(alternatives);
        ahead = ahead == null ? List.of() : List.copyOf(ahead);
    }

    /** An explanation without a band, as a control plane older than the bands gives it. */
    public Explanation(String reason, Long plannedStart, Map<String, Long> rankedAheadByTeam) {
        this(reason, plannedStart, rankedAheadByTeam, null, null, null, false, List.of(), List.of());
    }

    /** An explanation with nothing to add to its band, as a control plane older than the bands' notes gives it. */
    public Explanation(String reason, Long plannedStart, Map<String, Long> rankedAheadByTeam, Long startP50At, Long startP90At,
                       Long bandsAt, boolean beyondHorizon, List<Alternative> alternatives, List<Ahead> ahead) {
        this(reason, plannedStart, rankedAheadByTeam, startP50At, startP90At, bandsAt, beyondHorizon, alternatives, ahead, null);
    }

    /** An explanation without a queue-alone start, as a control plane older than it gives it. */
    public Explanation(String reason, Long plannedStart, Map<String, Long> rankedAheadByTeam, Long startP50At, Long startP90At,
                       Long bandsAt, boolean beyondHorizon, List<Alternative> alternatives, List<Ahead> ahead, String startBandNote) {
        this(reason, plannedStart, rankedAheadByTeam, startP50At, startP90At, bandsAt, beyondHorizon, alternatives, ahead, startBandNote, null, null);
    }

    /**
     * One line for a Kubernetes event or condition: "pending: team nlp ranks ahead; planned start 14:30 (P50 14:40, P90
     * 15:20)", in clock's zone, with the day for a time not on clock's today. Without a planned start the band is shown
     * all the same ("not planned to start within the plan's horizon (P50 ..., P90 ...)"), a P50 whose P90 the futures do not
     * reach as "(P50 ..., P90 later)" (with, where the queue alone would start it, "(P50 ..., P90 later; if no more work
     * arrives P50 ..., P90 ...)"), and without a P50 the reason there is none ("no start band: ...", which says the queue
     * alone's start in words).
     */
    public String sentence(Clock clock) {
        List<String> parts = new ArrayList<>();
        List<String> teams = rankedAheadByTeam.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .map(Map.Entry::getKey).toList();
        if (!teams.isEmpty()) parts.add((teams.size() == 1 ? "team " : "teams ") + String.join(", ", teams) + (teams.size() == 1 ? " ranks" : " rank") + " ahead");
        // a P50 whose P90 lies past where the futures end is a band open at its end, as ./horizon jobs shows it
        String band = startP50At == null ? "" : " (P50 " + time(startP50At, clock) + ", P90 " + (startP90At == null ? "later" + ifNoMoreArrives(clock) : time(startP90At, clock)) + ")";
        if (plannedStart != null) {
            parts.add("planned start " + time(plannedStart, clock) + band);
        } else {
            if (teams.isEmpty() && reason != null && !reason.isBlank()) parts.add(reason);
            if (beyondHorizon) parts.add("not planned to start within the plan's horizon" + band);
            else if (!band.isEmpty()) parts.add("likely start" + band);
        }
        String line = "pending" + (parts.isEmpty() ? "" : ": " + String.join("; ", parts));
        return band.isEmpty() && startBandNote != null && !startBandNote.isBlank() ? line + "; no start band: " + startBandNote : line;
    }

    /**
     * A {@link #sentence} without its band: the band moves with every plan's samples, so adapters write it into the
     * condition but raise an event only when this part changes.
     */
    public static String withoutBand(String sentence) {
        return sentence == null ? null : BAND.matcher(sentence).replaceFirst("");
    }

    /** Beside a band open at its end: when the queue alone would start the job (empty: not told), without a parenthesis, which ends the band. */
    private String ifNoMoreArrives(Clock clock) {
        if (queueAloneP50At == null) return "";
        return "; if no more work arrives P50 " + time(queueAloneP50At, clock) + ", P90 " + (queueAloneP90At == null ? "later" : time(queueAloneP90At, clock));
    }

    /** "14:30" today, "Wed 2 Dec 14:30" on another day. */
    private static String time(long epochSeconds, Clock clock) {
        ZonedDateTime at = Instant.ofEpochSecond(epochSeconds).atZone(clock.getZone());
        return (at.toLocalDate().equals(LocalDate.now(clock)) ? CLOCK : DAY_AND_CLOCK).format(at);
    }
}
