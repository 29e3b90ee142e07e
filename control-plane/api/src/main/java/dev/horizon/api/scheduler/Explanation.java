package dev.horizon.api.scheduler;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The control plane's account of a waiting job: its reason, when it is planned to start (epoch
 * seconds) and how many jobs of each team rank ahead of it.
 */
public record Explanation(String reason, Long plannedStart, Map<String, Long> rankedAheadByTeam) {
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm");

    public Explanation {
        rankedAheadByTeam = rankedAheadByTeam == null ? Map.of() : Map.copyOf(rankedAheadByTeam);
    }

    /** One line for a Kubernetes event or condition: "pending: team nlp ranks ahead; planned start 14:30". */
    public String sentence(ZoneId zone) {
        List<String> parts = new ArrayList<>();
        List<String> teams = rankedAheadByTeam.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .map(Map.Entry::getKey).toList();
        if (!teams.isEmpty()) parts.add((teams.size() == 1 ? "team " : "teams ") + String.join(", ", teams) + (teams.size() == 1 ? " ranks" : " rank") + " ahead");
        if (plannedStart != null) parts.add("planned start " + CLOCK.format(Instant.ofEpochSecond(plannedStart).atZone(zone)));
        if (parts.isEmpty() && reason != null && !reason.isBlank()) parts.add(reason);
        return "pending" + (parts.isEmpty() ? "" : ": " + String.join("; ", parts));
    }
}
