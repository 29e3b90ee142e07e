package dev.horizon.tests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The fuzz half of the hostile-input test: valid request bodies of every endpoint, and one random change to one of them
 * (a field's value replaced by random text, control characters, extreme or fractional numbers, another type, deep
 * nesting; a field dropped or added or given twice; the text cut or a character inserted), drawn from a seeded Random.
 */
final class BodyMutations {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** A valid request: which token sends it, where, and its body. */
    record Template(String method, String path, String token, String body) {
    }

    /** One change to a template: kind picks what; text, number and size feed it. */
    record Mutation(Template template, int kind, String text, long number, int size) {
        @Override
        public String toString() {
            return template.method() + " " + template.path() + " kind " + kind + " size " + size + " number " + number + " text " + Horizon.JSON
                    .valueToTree(text.length() > 60 ? text.substring(0, 60) : text);
        }
    }

    private BodyMutations() {
    }

    /** A valid body for every endpoint that takes one; job is a job of team alpha for the outcome, service one for the demand. */
    static List<Template> templates(String job, String service) {
        return List.of(
                new Template("POST", "/api/v1/jobs", "submitter", "{\"name\":\"llama-sft-7b\",\"team\":\"alpha\",\"class\":\"TRAINING\",\"priority\":3,"
                        + "\"replicas\":2,\"minReplicas\":1,\"perReplica\":{\"gpus\":4,\"gpuTypes\":[\"H100-80GB\"]},\"gang\":true,\"topology\":\"same-node\","
                        + "\"durationEstimateSeconds\":14400,\"contract\":{\"minRuntimeSeconds\":3600,\"resumable\":true,\"checkpointCostSeconds\":120},"
                        + "\"source\":{\"kind\":\"PyTorchJob\",\"namespace\":\"ml\",\"name\":\"llama-sft-7b\"}}"),
                new Template("POST", "/api/v1/jobs", "submitter", "{\"name\":\"share\",\"team\":\"alpha\",\"class\":\"DEBUG\",\"perReplica\":{\"gpuMilli\":500,"
                        + "\"memoryMiB\":20000}}"),
                new Template("POST", "/api/v1/teams", "admin", "{\"name\":\"fz-team\",\"parent\":\"beta\",\"share\":0.25}"),
                new Template("PUT", "/api/v1/teams/alpha/budget", "admin", "{\"share\":0.3}"),
                new Template("POST", "/api/v1/tokens", "admin", "{\"role\":\"submitter\",\"team\":\"alpha\",\"label\":\"ci\",\"expiresInSeconds\":60}"),
                new Template("POST", "/api/v1/tokens", "admin", "{\"role\":\"agent\",\"node\":\"fz-node\",\"label\":\"x\"}"),
                new Template("POST", "/api/v1/inference-services", "admin", "{\"name\":\"fz-svc\",\"team\":\"alpha\",\"weightPerGpuHour\":20,\"swapCapGpus\":2,"
                        + "\"servedBy\":[\"node-0\"]}"),
                new Template("POST", "/api/v1/inference-services/" + service + "/demand", "admin", "{\"gpus\":[3.5,4,4.2],\"heldGpus\":4}"),
                new Template("PUT", "/api/v1/mig-policies/fz-pool", "admin", "{\"partitionableModels\":[\"H100-80GB\"],\"allowedProfiles\":[\"1g.10gb\","
                        + "\"3g.40gb\"],\"layout\":\"DYNAMIC\",\"drainTimeSeconds\":300,\"maxConcurrentReconfigurations\":2}"),
                new Template("POST", "/api/v1/nodes/node-0/commands", "admin", "{\"setSharing\":{\"gpuUuid\":\"GPU-x\",\"mode\":\"MPS\",\"replicas\":4,"
                        + "\"activeThreadPercentage\":50,\"memoryLimitMiB\":1000}}"),
                new Template("POST", "/api/v1/nodes/" + HostileInput.NODE + "/commands", "admin", "{\"applyMigLayout\":{\"gpuUuid\":\"GPU-"
                        + HostileInput.NODE + "-3\",\"slots\":[{\"profile\":\"3g.40gb\",\"start\":0},{\"profile\":\"3g.40gb\",\"start\":4}]}}"),
                new Template("POST", "/api/v1/jobs/" + job + "/outcome", "admin", "{\"state\":\"SUCCEEDED\"}"));
    }

    /** One random change to one random template: the kind, some random text, a number (often an extreme one) and a size. */
    static Mutation next(Random random, List<Template> templates) {
        long[] extremes = {0, -1, 2147483647L, 2147483648L, Long.MAX_VALUE, Long.MIN_VALUE};
        long number = random.nextBoolean() ? extremes[random.nextInt(extremes.length)] : random.nextLong();
        return new Mutation(templates.get(random.nextInt(templates.size())), random.nextInt(12), text(random, random.nextInt(300)), number,
                random.nextInt(3000));
    }

    /** Random text: mostly printable, with control characters, non-Latin letters and surrogate halves mixed in. */
    private static String text(Random random, int length) {
        StringBuilder out = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            int pick = random.nextInt(10);
            out.append(pick < 6 ? (char) (0x20 + random.nextInt(0x5f)) : pick < 8 ? (char) random.nextInt(0x20) : pick < 9
                    ? (char) (0x4e00 + random.nextInt(0x500)) : (char) (0xd800 + random.nextInt(0x800)));
        }
        return out.toString();
    }

    /** The template's body with m's one change. */
    static String apply(Mutation m) throws Exception {
        String body = m.template().body();
        switch (m.kind()) {
            case 9:
                return body.substring(0, Math.min(body.length(), m.size() % (body.length() + 1)));
            case 10:
                int at = m.size() % (body.length() + 1);
                return body.substring(0, at) + (m.text().isEmpty() ? "\u0000" : m.text().substring(0, 1)) + body.substring(at);
            case 11:
                // the first key twice: once with the random text, then with its own value
                java.util.regex.Matcher first = java.util.regex.Pattern.compile("\\{\"(\\w+)\":").matcher(body);
                if (!first.find()) return body;
                return body.substring(0, first.end()) + Horizon.JSON.writeValueAsString(m.text()) + ",\"" + first.group(1) + "\":"
                        + body.substring(first.end());
            default:
                ObjectNode tree = (ObjectNode) Horizon.JSON.readTree(body);
                List<ObjectNode> parents = new ArrayList<>();
                collect(tree, parents);
                ObjectNode parent = parents.get(m.size() % parents.size());
                List<String> names = new ArrayList<>();
                parent.fieldNames().forEachRemaining(names::add);
                String field = names.get((int) Math.floorMod(m.number(), (long) names.size()));
                change(parent, field, m);
                return Horizon.JSON.writeValueAsString(tree);
        }
    }

    private static void collect(ObjectNode node, List<ObjectNode> out) {
        out.add(node);
        node.elements().forEachRemaining(child -> {
            if (child instanceof ObjectNode o) collect(o, out);
        });
    }

    private static void change(ObjectNode parent, String field, Mutation m) {
        switch (m.kind()) {
            case 0 -> parent.put(field, m.text());
            case 1 -> parent.put(field, m.text().repeat(Math.max(1, 10_000 / Math.max(1, m.text().length()))));
            case 2 -> parent.put(field, m.number());
            case 3 -> parent.put(field, m.number() / 7.0);
            case 4 -> parent.set(field, deep(m.size() % 500));
            case 5 -> parent.remove(field);
            case 6 -> parent.put(m.text().isEmpty() ? "x" : m.text(), m.number());
            case 7 -> parent.set(field, m.number() % 2 == 0 ? NODES.nullNode() : NODES.booleanNode(true));
            default -> parent.set(field, NODES.arrayNode().add(m.text()).add(m.number()));
        }
    }

    private static JsonNode deep(int depth) {
        ArrayNode root = NODES.arrayNode();
        ArrayNode at = root;
        for (int i = 0; i < depth; i++) at = at.addArray();
        return root;
    }
}
