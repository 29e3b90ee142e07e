package dev.horizon.fairshare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BudgetTreeTest {
    private static final String YAML = """
            teams:
              - {name: research, share: 0.6}
              - {name: product, share: 0.4}
              - {name: nlp, parent: research, share: 0.5}
              - {name: vision, parent: research, share: 0.5}
              - {name: search, parent: product, share: 1.0}
            """;

    @Test
    void readsTheTreeAndItsTeams() throws Exception {
        BudgetTree tree = BudgetTree.read(new StringReader(YAML), "budgets.yaml");
        assertEquals(List.of("nlp", "vision", "search"), tree.teams());
        assertEquals(0.3, tree.clusterFraction("nlp"), 1e-9);
        assertEquals(List.of("research", "nlp"), tree.pathOf("nlp"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> tree.requireTeam("speech"));
        assertTrue(e.getMessage().contains("unknown team 'speech'"), e.getMessage());
    }

    @Test
    void malformedFilesNameTheLine() {
        String unknownParent = "teams:\n  - {name: a, share: 0.5}\n  - {name: b, parent: nope, share: 0.5}\n";
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BudgetTree.read(new StringReader(unknownParent), "b.yaml"));
        assertTrue(e.getMessage().startsWith("b.yaml line 3: "), e.getMessage());
        assertTrue(e.getMessage().contains("parent 'nope'"), e.getMessage());
        String tooMuch = "teams:\n  - {name: a, share: 0.7}\n  - {name: b, share: 0.7}\n";
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BudgetTree.read(new StringReader(tooMuch), "b.yaml"))
                .getMessage().contains("add up to"));
        String badShare = "teams:\n  - {name: a, share: lots}\n";
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BudgetTree.read(new StringReader(badShare), "b.yaml"))
                .getMessage().startsWith("b.yaml line 2: share must be a number"));
        String notYaml = "teams: [ {name: a\n";
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BudgetTree.read(new StringReader(notYaml), "b.yaml"))
                .getMessage().startsWith("b.yaml line "));
    }

    @Test
    void unusedSharesPassToSiblingsInProportionAtEveryLevel() throws Exception {
        BudgetTree tree = BudgetTree.read(new StringReader(YAML), "budgets.yaml");
        // 100 GPUs; vision asks for little, search asks for nothing
        Map<String, Double> owed = Entitlements.owed(tree, 100, Map.of("nlp", 80.0, "vision", 10.0));
        assertEquals(10.0, owed.get("vision"), 1e-9);
        assertEquals(80.0, owed.get("nlp"), 1e-9, "research gets all 100 as product asks nothing; nlp takes what vision leaves, up to its ask");
        Map<String, Double> contended = Entitlements.owed(tree, 100, Map.of("nlp", 100.0, "vision", 100.0, "search", 100.0));
        assertEquals(30.0, contended.get("nlp"), 1e-9);
        assertEquals(40.0, contended.get("search"), 1e-9);
    }

    @Test
    void anAgeDoublingIsOffByDefaultAndRefusedOutOfRange() {
        BudgetTree tree = new BudgetTree(List.of(new BudgetTree.Budget("a", null, 1.0)));
        assertEquals(0, tree.ageDoublingSeconds());
        assertEquals(43_200, tree.withAgeDoubling(43_200).ageDoublingSeconds());
        assertEquals(List.of("a"), tree.withAgeDoubling(43_200).teams());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> tree.withAgeDoubling(-1));
        assertTrue(e.getMessage().contains("0 (off) to 8760 hours"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> tree.withAgeDoubling(BudgetTree.MAX_AGE_DOUBLING_SECONDS + 1));
    }
}
