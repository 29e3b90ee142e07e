package dev.horizon.fairshare;

import java.util.Map;

/**
 * What the planner sees of fair share: the budget tree, the GPUs each team is owed now, and each
 * team's occupancy / owed over the sliding window (below 1: under-served).
 */
public record FairShareView(BudgetTree tree, Map<String, Double> owedNow, Map<String, Double> ratio) {
}
