package dev.horizon.fairshare;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What each team is owed right now (Ai2's rule): at every level of the tree, capacity is split among
 * siblings by share, each capped at what its subtree asks for; what a capped sibling leaves passes to
 * the others in proportion to their shares (water-filling).
 */
public final class Entitlements {
    private Entitlements() {
    }

    /** GPUs owed per team, given the GPUs each team's jobs ask for now. */
    public static Map<String, Double> owed(BudgetTree tree, double capacity, Map<String, Double> askedByTeam) {
        Map<String, Double> asked = new HashMap<>();
        subtreeAsk(tree, BudgetTree.ROOT, askedByTeam, asked);
        Map<String, Double> owed = new HashMap<>();
        split(tree, BudgetTree.ROOT, Math.min(capacity, asked.get(BudgetTree.ROOT)), asked, owed);
        return owed;
    }

    private static double subtreeAsk(BudgetTree tree, String node, Map<String, Double> askedByTeam, Map<String, Double> out) {
        double sum = tree.childrenOf(node).isEmpty() ? askedByTeam.getOrDefault(node, 0.0) : 0;
        for (String c : tree.childrenOf(node)) sum += subtreeAsk(tree, c, askedByTeam, out);
        out.put(node, sum);
        return sum;
    }

    private static void split(BudgetTree tree, String node, double amount, Map<String, Double> asked, Map<String, Double> owed) {
        List<String> kids = tree.childrenOf(node);
        if (kids.isEmpty()) {
            owed.put(node, amount);
            return;
        }
        Map<String, Double> given = new HashMap<>();
        List<String> open = new ArrayList<>(kids);
        open.removeIf(k -> asked.get(k) <= 0);
        double left = amount;
        while (left > 1e-9 && !open.isEmpty()) {
            double shares = open.stream().mapToDouble(tree::shareOf).sum();
            double handed = 0;
            List<String> full = new ArrayList<>();
            for (String k : open) {
                double want = asked.get(k) - given.getOrDefault(k, 0.0);
                double take = Math.min(want, left * tree.shareOf(k) / shares);
                given.merge(k, take, Double::sum);
                handed += take;
                if (take >= want - 1e-9) full.add(k);
            }
            left -= handed;
            if (full.isEmpty()) break;
            open.removeAll(full);
        }
        for (String k : kids) split(tree, k, given.getOrDefault(k, 0.0), asked, owed);
    }
}
