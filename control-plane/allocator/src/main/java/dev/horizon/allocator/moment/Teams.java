package dev.horizon.allocator.moment;

import dev.horizon.fairshare.BudgetTree;
import dev.horizon.fairshare.TeamUsage;
import java.util.Map;

/** The team tree with its budgets, and each team's GPU-seconds held and owed over the sliding window up to now. */
public record Teams(BudgetTree tree, Map<String, TeamUsage> window) {
    public Teams {
        window = Map.copyOf(window);
    }
}
