package dev.horizon.service.planning;

import dev.horizon.fairshare.BudgetTree;
import dev.horizon.service.teams.Team;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The stored teams as the allocator's budget tree. The service allows a share of 0 and siblings whose shares add up to
 * more than 1, which the tree does not: a team with no share (and what is under it) is owed nothing, and siblings are
 * scaled to add up to 1, which leaves the water-filling unchanged since it splits by relative share. A tree with no
 * team in it means the cluster has no budgets: jobs then weigh their priority, as the simulator's do without budgets.
 */
final class TeamTree {
    private TeamTree() {
    }

    static BudgetTree of(List<Team> teams) {
        Map<String, List<Team>> children = new HashMap<>();
        for (Team t : teams) children.computeIfAbsent(t.parent() == null ? BudgetTree.ROOT : t.parent(), k -> new ArrayList<>()).add(t);
        List<BudgetTree.Budget> budgets = new ArrayList<>();
        addChildren(BudgetTree.ROOT, children, budgets);
        return new BudgetTree(budgets);
    }

    private static void addChildren(String parent, Map<String, List<Team>> children, List<BudgetTree.Budget> out) {
        List<Team> kids = children.getOrDefault(parent, List.of()).stream().filter(t -> t.share() > 0).toList();
        double sum = kids.stream().mapToDouble(Team::share).sum();
        for (Team t : kids) {
            out.add(new BudgetTree.Budget(t.name(), BudgetTree.ROOT.equals(parent) ? null : parent, sum > 1 ? t.share() / sum : t.share()));
            addChildren(t.name(), children, out);
        }
    }
}
