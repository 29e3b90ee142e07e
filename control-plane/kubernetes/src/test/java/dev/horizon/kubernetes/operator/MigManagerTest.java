package dev.horizon.kubernetes.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The MIG manager path against the fabric8 mock API server in CRUD mode; the test plays the MIG manager by setting the state label. */
@EnableKubernetesMockClient(crud = true)
class MigManagerTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final MigManager.Settings SETTINGS = new MigManager.Settings("gpu-operator", "horizon-mig-parted-config", Duration.ofMinutes(10));

    KubernetesClient client;
    private MigManager mig;

    @BeforeEach
    void setUp() {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("node-1").addToLabels("nvidia.com/mig.config", "all-disabled")
                .addToLabels("nvidia.com/mig.config.state", "success").endMetadata().build()).create();
        // the operator's own configs are there already and must survive Horizon's writes
        client.configMaps().inNamespace("gpu-operator").resource(new ConfigMapBuilder().withNewMetadata().withName("horizon-mig-parted-config")
                .endMetadata().addToData("config.yaml", "version: v1\nmig-configs:\n  all-disabled:\n    - devices: all\n      mig-enabled: false\n"
                        + "  all-1g.10gb:\n    - devices: all\n      mig-enabled: true\n      mig-devices:\n        1g.10gb: 7\n").build()).create();
        mig = new MigManager(client, SETTINGS);
    }

    private JsonNode configs() throws Exception {
        return YAML.readTree(client.configMaps().inNamespace("gpu-operator").withName("horizon-mig-parted-config").get().getData().get("config.yaml"))
                .path("mig-configs");
    }

    private Map<String, String> labels() {
        return client.nodes().withName("node-1").get().getMetadata().getLabels();
    }

    private void state(String state) {
        client.nodes().withName("node-1").edit(n -> {
            n.getMetadata().getLabels().put("nvidia.com/mig.config.state", state);
            return n;
        });
    }

    @Test
    void aLayoutIsANamedMigPartedConfigTheNodeLabelNamesAndItWaitsForTheStateLabel() throws Exception {
        MigLayoutConfig layout = MigLayoutConfig.off(8).with(2, Map.of("3g.40gb", 2));
        String name = mig.apply("node-1", layout);

        JsonNode config = configs();
        assertTrue(config.has("all-disabled") && config.has("all-1g.10gb"), "the operator's configs are kept: " + config);
        JsonNode entries = config.path(name);
        assertEquals("[0,1,3,4,5,6,7]", entries.get(0).path("devices").toString());
        assertFalse(entries.get(0).path("mig-enabled").asBoolean());
        assertEquals("[2]", entries.get(1).path("devices").toString());
        assertTrue(entries.get(1).path("mig-enabled").asBoolean());
        assertEquals(2, entries.get(1).path("mig-devices").path("3g.40gb").asInt());
        assertEquals(name, labels().get("nvidia.com/mig.config"));
        assertFalse(labels().containsKey("nvidia.com/mig.config.state"), "the old config's 'success' is not this layout's");

        assertInstanceOf(Progress.Waiting.class, mig.progress("node-1", 2, Map.of("3g.40gb", 2), Duration.ofSeconds(5)));
        state("pending");
        assertEquals(new Progress.Waiting("pending"), mig.progress("node-1", 2, Map.of("3g.40gb", 2), Duration.ofSeconds(30)));
        state("success");
        assertEquals(new Progress.Applied(), mig.progress("node-1", 2, Map.of("3g.40gb", 2), Duration.ofSeconds(60)));
        assertEquals(layout, mig.current("node-1").orElseThrow(), "read back from the ConfigMap the label points at");
        assertEquals(name, mig.apply("node-1", layout), "a layout the node has already changes nothing");
        assertEquals(new Progress.Applied(), mig.progress("node-1", 2, Map.of("3g.40gb", 2), Duration.ofSeconds(61)));
        assertEquals("success", labels().get("nvidia.com/mig.config.state"));
        String next = mig.apply("node-1", layout.with(5, Map.of("1g.10gb", 7)));
        assertEquals(new Progress.Waiting("not started"), mig.progress("node-1", 2, Map.of("3g.40gb", 2), Duration.ofSeconds(62)),
                "another GPU's change keeps GPU 2's layout: GPU 2 waits for the new config " + next);
    }

    @Test
    void aFailedOrStuckStateFailsWithItsReasonAndAskingAgainChangesTheLabel() throws Exception {
        MigLayoutConfig layout = MigLayoutConfig.off(8).with(0, Map.of("3g.40gb", 1, "4g.40gb", 1));
        String name = mig.apply("node-1", layout);
        state("failed");
        Progress failed = mig.progress("node-1", 0, Map.of("3g.40gb", 1, "4g.40gb", 1), Duration.ofSeconds(20));
        assertTrue(failed instanceof Progress.Failed f && f.reason().contains("nvidia.com/mig.config.state=failed for layout " + name + " on node node-1"),
                failed.toString());

        assertTrue(mig.current("node-1").isEmpty(), "a failed layout is no base for the next one");
        String again = mig.apply("node-1", layout);
        assertNotEquals(name, again, "the MIG manager acts on a label change only");
        assertTrue(configs().has(name) && configs().has(again), "both names hold the layout while a node names either");
        state("pending");
        Progress stuck = mig.progress("node-1", 0, Map.of("3g.40gb", 1, "4g.40gb", 1), Duration.ofMinutes(11));
        assertTrue(stuck instanceof Progress.Failed f && f.reason().startsWith("stuck: nvidia.com/mig.config.state on node node-1 is still 'pending' 660 s"),
                stuck.toString());

        client.nodes().withName("node-1").edit(n -> {
            n.getMetadata().getLabels().put("nvidia.com/mig.config", "all-1g.10gb");
            return n;
        });
        Progress replaced = mig.progress("node-1", 0, Map.of("3g.40gb", 1, "4g.40gb", 1), Duration.ofSeconds(1));
        assertTrue(replaced instanceof Progress.Failed f && f.reason().contains("is now 'all-1g.10gb', which does not hold Horizon's layout for GPU 0"), replaced.toString());
        mig.apply("node-1", MigLayoutConfig.off(8));
        assertFalse(configs().has(name) || configs().has(again), "Horizon's layouts no node names are pruned: " + configs());
    }
}
