package dev.horizon.fairshare;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Who owns which share of the cluster's GPU-time: a tree (org -> program -> team, any depth) under an
 * implicit root. A share is a node's part of its parent, relative to its siblings. Jobs belong to
 * leaves (teams).
 *
 * <p>YAML form, one entry per node, parents before children:
 * <pre>
 * teams:
 *   - {name: research, share: 0.6}
 *   - {name: nlp, parent: research, share: 0.5}
 * </pre>
 *
 * <p>Optionally the tree ages waiting work ({@link #withAgeDoubling}): a team's budget then ranks a job that has waited
 * above its own priority, so work over its team's share on a cluster kept full does not wait for ever.
 */
public final class BudgetTree {
    public static final String ROOT = "cluster";
    /** The longest age doubling an admin may set: a year. */
    public static final long MAX_AGE_DOUBLING_SECONDS = 365L * 86_400;

    /** One node of the tree. */
    public record Budget(String name, String parent, double share) {
    }

    private final Map<String, Budget> nodes = new LinkedHashMap<>();
    private final Map<String, List<String>> children = new LinkedHashMap<>();
    private final List<Budget> budgets;
    private final long ageDoublingSeconds;

    public BudgetTree(List<Budget> budgets) {
        this(budgets, 0);
    }

    private BudgetTree(List<Budget> budgets, long ageDoublingSeconds) {
        if (ageDoublingSeconds < 0 || ageDoublingSeconds > MAX_AGE_DOUBLING_SECONDS) {
            throw new IllegalArgumentException("the age doubling must be 0 (off) to " + MAX_AGE_DOUBLING_SECONDS / 3600 + " hours (got "
                    + ageDoublingSeconds / 3600.0 + " h)");
        }
        this.budgets = List.copyOf(budgets);
        this.ageDoublingSeconds = ageDoublingSeconds;
        children.put(ROOT, new ArrayList<>());
        for (Budget b : budgets) {
            if (b.name() == null || b.name().isBlank()) throw new IllegalArgumentException("a budget needs a name");
            if (b.name().equals(ROOT) || nodes.containsKey(b.name())) throw new IllegalArgumentException("budget '" + b.name() + "' is defined twice");
            String parent = b.parent() == null ? ROOT : b.parent();
            if (!children.containsKey(parent)) {
                throw new IllegalArgumentException("budget '" + b.name() + "': parent '" + parent + "' is not defined above it");
            }
            if (!(b.share() > 0 && b.share() <= 1)) {
                throw new IllegalArgumentException("budget '" + b.name() + "': share must be in (0, 1], got " + b.share());
            }
            nodes.put(b.name(), new Budget(b.name(), parent, b.share()));
            children.get(parent).add(b.name());
            children.put(b.name(), new ArrayList<>());
        }
        children.forEach((parent, kids) -> {
            double sum = kids.stream().mapToDouble(k -> nodes.get(k).share()).sum();
            if (sum > 1 + 1e-9) throw new IllegalArgumentException("the shares under '" + parent + "' add up to " + sum + ", more than 1");
        });
    }

    /** Reads the YAML form; a malformed file is rejected naming its line. */
    public static BudgetTree read(Reader yaml, String where) throws IOException {
        List<Budget> budgets = new ArrayList<>();
        try (JsonParser p = new YAMLFactory().createParser(yaml)) {
            expect(p, JsonToken.START_OBJECT, where, "a mapping with a 'teams' list");
            if (p.nextToken() != JsonToken.FIELD_NAME || !"teams".equals(p.currentName())) {
                throw new IllegalArgumentException(at(where, p.currentLocation()) + "expected 'teams:'");
            }
            expect(p, JsonToken.START_ARRAY, where, "a list of teams");
            while (p.nextToken() == JsonToken.START_OBJECT) {
                JsonLocation line = p.currentLocation();
                String name = null, parent = null;
                Double share = null;
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    p.nextToken();
                    switch (field) {
                        case "name" -> name = p.getValueAsString();
                        case "parent" -> parent = p.getValueAsString();
                        case "share" -> {
                            if (!p.currentToken().isNumeric()) throw new IllegalArgumentException(at(where, p.currentLocation()) + "share must be a number");
                            share = p.getDoubleValue();
                        }
                        default -> throw new IllegalArgumentException(at(where, p.currentLocation()) + "unknown field '" + field + "' (name, parent, share)");
                    }
                }
                if (name == null || share == null) throw new IllegalArgumentException(at(where, line) + "each team needs a name and a share");
                try {
                    budgets.add(new Budget(name, parent, share));
                    new BudgetTree(budgets);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(at(where, line) + e.getMessage());
                }
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException(at(where, e.getLocation()) + e.getOriginalMessage());
        }
        return new BudgetTree(budgets);
    }

    private static void expect(JsonParser p, JsonToken token, String where, String what) throws IOException {
        if (p.nextToken() != token) throw new IllegalArgumentException(at(where, p.currentLocation()) + "expected " + what);
    }

    private static String at(String where, JsonLocation l) {
        return where + " line " + (l == null ? "?" : l.getLineNr()) + ": ";
    }

    /**
     * The same tree, ageing waiting work: each ageDoublingSeconds a job has waited doubles the priority its team's budget
     * ranks it by, up to its team's most urgent work (Slurm's age factor in spirit, inside a team's budget only); 0: off.
     */
    public BudgetTree withAgeDoubling(long ageDoublingSeconds) {
        return new BudgetTree(budgets, ageDoublingSeconds);
    }

    /** How long waiting doubles the priority a team's budget ranks a job by (0: it never does). */
    public long ageDoublingSeconds() {
        return ageDoublingSeconds;
    }

    public boolean isTeam(String name) {
        return nodes.containsKey(name) && children.get(name).isEmpty();
    }

    /** The teams (leaves) in definition order. */
    public List<String> teams() {
        return nodes.keySet().stream().filter(this::isTeam).toList();
    }

    public List<String> childrenOf(String node) {
        return children.getOrDefault(node, List.of());
    }

    public double shareOf(String node) {
        return nodes.get(node).share();
    }

    /** The node's fixed fraction of the whole cluster: the product of the shares on its path. */
    public double clusterFraction(String node) {
        double f = 1;
        for (String n : pathOf(node)) f *= nodes.get(n).share();
        return f;
    }

    /** The team's path from the root's child down to itself. */
    public List<String> pathOf(String team) {
        List<String> path = new ArrayList<>();
        for (String n = team; n != null && !n.equals(ROOT); n = nodes.get(n).parent()) path.add(0, n);
        return path;
    }

    /** Fails with a clear message for a team that is not a leaf of this tree. */
    public void requireTeam(String team) {
        if (!isTeam(team)) {
            throw new IllegalArgumentException("unknown team '" + team + "': teams are " + teams() + " (add it to the budget file)");
        }
    }
}
