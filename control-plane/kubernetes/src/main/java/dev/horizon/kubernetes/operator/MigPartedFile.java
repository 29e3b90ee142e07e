package dev.horizon.kubernetes.operator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The mig-parted configuration file ({@code config.yaml} in the MIG manager's ConfigMap): {@code version: v1} and
 * {@code mig-configs}, each a list of {@code {devices: [indexes] | all, mig-enabled, mig-devices: {profile: count}}}.
 * Horizon adds its named layouts beside the configs already there and removes only its own ones no node uses.
 */
final class MigPartedFile {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));

    private final ObjectNode root;

    private MigPartedFile(ObjectNode root) {
        this.root = root;
    }

    /** The file in the ConfigMap, or a new one holding the GPU Operator's default "all-disabled" when there is none. */
    static MigPartedFile parse(String text) {
        if (text == null || text.isBlank()) {
            MigPartedFile file = new MigPartedFile(YAML.createObjectNode().put("version", "v1"));
            file.configs().putArray("all-disabled").addObject().put("devices", "all").put("mig-enabled", false);
            return file;
        }
        try {
            JsonNode tree = YAML.readTree(text);
            if (!(tree instanceof ObjectNode o) || !o.path("mig-configs").isObject()) {
                throw new IllegalArgumentException("the mig-parted config has no mig-configs map");
            }
            return new MigPartedFile(o);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("the mig-parted config is not YAML: " + e.getOriginalMessage(), e);
        }
    }

    String render() {
        try {
            return YAML.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree always renders", e);
        }
    }

    void put(String name, MigLayoutConfig layout) {
        ArrayNode entries = configs().putArray(name);
        // every GPU is listed once: those without MIG explicitly off, so none keeps instances an older layout made
        ArrayNode off = JsonNodeFactory.instance.arrayNode();
        for (int gpu = 0; gpu < layout.gpuCount(); gpu++) {
            if (!layout.gpus().containsKey(gpu)) off.add(gpu);
        }
        if (!off.isEmpty()) entries.addObject().<ObjectNode>set("devices", off).put("mig-enabled", false);
        layout.gpus().forEach((gpu, counts) -> {
            ObjectNode entry = entries.addObject();
            entry.putArray("devices").add(gpu);
            entry.put("mig-enabled", true);
            ObjectNode devices = entry.putObject("mig-devices");
            counts.forEach(devices::put);
        });
    }

    /** Horizon's config by that name, read back (so a second change on a node builds on one not yet applied). */
    Optional<MigLayoutConfig> layout(String name) {
        JsonNode entries = configs().path(name);
        if (!name.startsWith(MigLayoutConfig.PREFIX) || !entries.isArray()) return Optional.empty();
        SortedMap<Integer, SortedMap<String, Integer>> gpus = new TreeMap<>();
        int count = 0;
        for (JsonNode entry : entries) {
            if (!entry.path("devices").isArray()) continue;
            for (JsonNode gpu : entry.get("devices")) count = Math.max(count, gpu.asInt() + 1);
            if (!entry.path("mig-enabled").asBoolean(false)) continue;
            SortedMap<String, Integer> counts = new TreeMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = entry.path("mig-devices").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                counts.put(e.getKey(), e.getValue().asInt());
            }
            for (JsonNode gpu : entry.get("devices")) gpus.put(gpu.asInt(), counts);
        }
        return Optional.of(new MigLayoutConfig(count, gpus));
    }

    /** Drops Horizon's configs no node's label names any more. */
    void prune(Set<String> inUse) {
        configs().properties().removeIf(e -> e.getKey().startsWith(MigLayoutConfig.PREFIX) && !inUse.contains(e.getKey()));
    }

    private ObjectNode configs() {
        return root.get("mig-configs") instanceof ObjectNode o ? o : root.putObject("mig-configs");
    }
}
