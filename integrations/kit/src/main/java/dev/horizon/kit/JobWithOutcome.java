package dev.horizon.kit;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;
import java.util.Set;

/**
 * Optional extra for a {@link HeldWorkload} whose own status says when it ended, so its GPUs go back to the plan as soon
 * as it is done rather than when its estimate runs out.
 */
public interface JobWithOutcome {
    /** Empty while the workload runs; true when it succeeded, false when it failed. */
    Optional<Boolean> succeeded();

    /** The outcome the object's status conditions give: a True condition of one of {@code succeeded}, or Failed. */
    static Optional<Boolean> fromConditions(JsonNode object, Set<String> succeeded) {
        for (JsonNode c : object.path("status").path("conditions")) {
            if (!"True".equals(c.path("status").asText())) continue;
            String type = c.path("type").asText();
            if (succeeded.contains(type)) return Optional.of(true);
            if ("Failed".equals(type)) return Optional.of(false);
        }
        return Optional.empty();
    }
}
