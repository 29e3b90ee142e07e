package dev.horizon.tests;

import java.util.ArrayList;
import java.util.List;

/**
 * Hostile REST requests, one per line of what could go wrong, for every endpoint and every field: oversized and
 * control-character text, numeric overflow, fractions and strings for counts, unknown enums, wrong types, duplicate
 * keys, deep and huge JSON. Each names the status it must get and a fragment (the field) the answer must name. Built
 * as code rather than files because most cases are one field of a valid body changed.
 */
final class HostileInputCorpus {
    /**
     * One request: token is a key of the test's tokens (admin, submitter, agent, node, none) or "raw:" and a header value;
     * header, when not null, one more header as "Name: value".
     */
    record Case(String what, String method, String path, String token, String body, int status, String fragment, String header) {
        @Override
        public String toString() {
            return method + " " + (path.length() > 60 ? path.substring(0, 60) + "..." : path) + " " + what + " -> " + status;
        }
    }

    static final String LONG_300 = "a".repeat(300);
    static final String LONG_10K = "k".repeat(10_000);
    static final String JOB = "/api/v1/jobs";
    /** The Idempotency-Key the test's submitter used for a first job before the corpus runs (HostileInput.start). */
    static final String REUSED_KEY = "hostile-reused-key";
    /** Control characters, then what makes a name display as another (bidi override, zero-width space, BOM), then U+FFFD (bytes that were not UTF-8). */
    private static final String[] CONTROL = {"\\u0000", "\\u001b", "\\n", "\\u007f", "\\ud800", "\\u202e", "\\u200b", "\\ufeff", "\\ufffd"};

    private final List<Case> cases = new ArrayList<>();

    private HostileInputCorpus() {
    }

    /** adminId: the id of the control plane's only admin token (the bootstrap one), which an admin tries to revoke. */
    static List<Case> all(String adminId) {
        HostileInputCorpus c = new HostileInputCorpus();
        c.jobs();
        c.jobQueriesAndOutcomes();
        c.teams();
        c.tokens();
        c.inferenceServices();
        c.migPolicies();
        c.nodeCommands();
        c.authAndTransport();
        c.retriesAndBreakGlass(adminId);
        return c.cases;
    }

    private void add(String what, String method, String path, String token, String body, int status, String fragment) {
        cases.add(new Case(what, method, path, token, body, status, fragment, null));
    }

    /** A valid job body with one field's raw JSON value replaced (or added). */
    static String job(String field, String rawValue) {
        String[][] fields = {{"name", "\"ok\""}, {"team", "\"alpha\""}, {"class", "\"TRAINING\""}, {"perReplica", "{\"gpus\":1}"}};
        StringBuilder out = new StringBuilder("{");
        boolean replaced = false;
        for (String[] f : fields) {
            String value = f[0].equals(field) ? rawValue : f[1];
            replaced |= f[0].equals(field);
            if (out.length() > 1) out.append(',');
            out.append('"').append(f[0]).append("\":").append(value);
        }
        if (!replaced) out.append(",\"").append(field).append("\":").append(rawValue);
        return out.append('}').toString();
    }

    private void badJob(String what, String field, String raw, int status, String fragment) {
        add(what, "POST", JOB, "submitter", job(field, raw), status, fragment);
    }

    /** Text fields: oversized, huge, each control character, and the wrong JSON types. */
    private void text(String field, int limit, java.util.function.BiConsumer<String, String> send) {
        send.accept(field + " over its limit", "\"" + "a".repeat(limit + 1) + "\"");
        send.accept(field + " of 10,000 characters", "\"" + LONG_10K + "\"");
        for (String c : CONTROL) send.accept(field + " holding " + c, "\"a" + c + "b\"");
        send.accept(field + " as a number", "12");
        send.accept(field + " as an object", "{\"a\":1}");
    }

    private void jobs() {
        text("name", 253, (what, raw) -> badJob(what, "name", raw, 400, "name"));
        text("team", 63, (what, raw) -> badJob(what, "team", raw, 400, "team"));
        for (String[] s : new String[][] {{"kind", "63"}, {"namespace", "63"}, {"name", "253"}}) {
            text("source." + s[0], Integer.parseInt(s[1]), (what, raw) -> badJob(what, "source", "{\"" + s[0] + "\":" + raw + "}", 400, s[0]));
        }
        for (String raw : new String[] {"\"SLEEP\"", "3", "\"\"", "\"" + LONG_10K + "\"", "null", "[\"TRAINING\"]"}) {
            badJob("class " + raw.substring(0, Math.min(raw.length(), 12)), "class", raw, 400, "class");
        }
        for (String raw : new String[] {"0", "-1", "10001", "2147483647", "2147483648", "1e400", "1.5", "\"2\"", "true", "[]"}) {
            badJob("replicas " + raw, "replicas", raw, 400, "replicas");
        }
        for (String raw : new String[] {"0", "-5", "65", "2147483647", "9223372036854775808", "1.5", "\"1\""}) {
            badJob("perReplica.gpus " + raw, "perReplica", "{\"gpus\":" + raw + "}", 400, "gpus");
        }
        badJob("replicas x gpus overflowing int", "perReplica", "{\"gpus\":2147483647},\"replicas\":2147483647", 400, "replicas");
        badJob("replicas x gpus over the job limit", "perReplica", "{\"gpus\":64},\"replicas\":10000", 400, "replicas x perReplica.gpus");
        for (String raw : new String[] {"-1", "100", "2147483648", "\"high\"", "1.5"}) badJob("priority " + raw, "priority", raw, 400, "priority");
        for (String raw : new String[] {"0", "-1", "99999999999", "1e400", "\"1h\""}) {
            badJob("durationEstimateSeconds " + raw, "durationEstimateSeconds", raw, 400, "durationEstimateSeconds");
        }
        badJob("minReplicas above replicas", "minReplicas", "2", 400, "minReplicas");
        badJob("migProfile unknown and long", "perReplica", "{\"migProfile\":\"" + LONG_10K + "\"}", 400, "perReplica.migProfile");
        badJob("migProfile with NUL", "perReplica", "{\"migProfile\":\"1g\\u0000.10gb\"}", 400, "perReplica.migProfile");
        badJob("gpuMilli over 1000", "perReplica", "{\"gpuMilli\":1001,\"memoryMiB\":100}", 400, "gpuMilli");
        badJob("memoryMiB overflow", "perReplica", "{\"gpuMilli\":500,\"memoryMiB\":2147483648}", 400, "memoryMiB");
        badJob("memoryMiB over 1 TiB", "perReplica", "{\"gpuMilli\":500,\"memoryMiB\":2000000}", 400, "memoryMiB");
        badJob("two shapes at once", "perReplica", "{\"gpus\":1,\"migProfile\":\"1g.10gb\"}", 400, "exactly one");
        badJob("gpuTypes with 17 models", "perReplica", "{\"gpus\":1,\"gpuTypes\":[" + "\"H100-80GB\",".repeat(16) + "\"H100-80GB\"]}", 400, "gpuTypes");
        badJob("gpuTypes entry with ESC", "perReplica", "{\"gpus\":1,\"gpuTypes\":[\"H100\\u001b\"]}", 400, "gpuTypes[0]");
        badJob("gpuTypes entry of 10,000 characters", "perReplica", "{\"gpus\":1,\"gpuTypes\":[\"" + LONG_10K + "\"]}", 400, "gpuTypes[0]");
        badJob("gpuTypes as a string", "perReplica", "{\"gpus\":1,\"gpuTypes\":\"H100-80GB\"}", 400, "gpuTypes");
        badJob("topology unknown", "topology", "\"" + LONG_300 + "\"", 400, "topology");
        badJob("gang as a string", "gang", "\"yes\"", 400, "gang");
        badJob("contract.minRuntimeSeconds above 8 h", "contract", "{\"minRuntimeSeconds\":999999,\"resumable\":true,\"checkpointCostSeconds\":1}", 400,
                "minRuntimeSeconds");
        badJob("contract.checkpointCostSeconds above a day", "contract", "{\"minRuntimeSeconds\":0,\"resumable\":true,\"checkpointCostSeconds\":9999999}",
                400, "checkpointCostSeconds");
        badJob("contract with null for a number", "contract", "{\"minRuntimeSeconds\":null,\"resumable\":true,\"checkpointCostSeconds\":1}", 400,
                "minRuntimeSeconds");
        badJob("unknown field", "colour", "\"red\"", 400, "colour");
        add("duplicate key", "POST", JOB, "submitter", "{\"name\":\"a\",\"name\":\"b\",\"team\":\"alpha\",\"class\":\"DEBUG\",\"perReplica\":{\"gpus\":1}}",
                400, "Duplicate field 'name'");
        add("nested 5,000 deep", "POST", JOB, "submitter", "{\"name\":" + "[".repeat(5000) + "]".repeat(5000) + "}", 400, "name");
        add("nested 5,000 deep in an unknown field", "POST", JOB, "submitter", "{\"x\":" + "{\"a\":".repeat(5000) + "1" + "}".repeat(5000) + "}", 400,
                "x");
        add("a string of 100,000 characters", "POST", JOB, "submitter", job("name", "\"" + "n".repeat(100_000) + "\""), 400, "a string is at most 65536 characters");
        add("two jobs in one body", "POST", JOB, "submitter", job("name", "\"a\"") + job("name", "\"b\""), 400, "more than one JSON value");
        add("truncated", "POST", JOB, "submitter", "{\"name\":\"a\",\"team\":", 400, "not valid JSON");
        add("JSON null", "POST", JOB, "submitter", "null", 400, "empty");
        add("an array of jobs", "POST", JOB, "submitter", "[" + job("name", "\"a\"") + "]", 400, "job");
        add("a job for another team", "POST", JOB, "submitter", job("team", "\"beta\""), 403, "team");
        add("a job for a team that does not exist", "POST", JOB, "admin", job("team", "\"no-such-team\""), 422, "no-such-team");
        add("a job larger than the cluster", "POST", JOB, "submitter", job("perReplica", "{\"gpus\":8},\"replicas\":3"), 422, "cluster");
    }

    private void jobQueriesAndOutcomes() {
        add("state unknown", "GET", JOB + "?state=SLEEPING", "admin", null, 400, "state");
        add("class unknown", "GET", JOB + "?class=" + LONG_300, "admin", null, 400, "class");
        add("limit not a number", "GET", JOB + "?limit=ten", "admin", null, 400, "limit");
        add("limit 0", "GET", JOB + "?limit=0", "admin", null, 400, "limit");
        add("limit overflowing int", "GET", JOB + "?limit=99999999999", "admin", null, 400, "limit");
        add("offset negative", "GET", JOB + "?offset=-1", "admin", null, 400, "offset");
        add("unknown job", "GET", JOB + "/" + LONG_300, "admin", null, 404, "no job");
        add("unknown job's explanation", "GET", JOB + "/nope/explanation", "admin", null, 404, "no job");
        add("cancelling an unknown job", "DELETE", JOB + "/nope", "admin", null, 404, "no job");
        add("outcome of an unknown job", "POST", JOB + "/nope/outcome", "admin", "{\"state\":\"SUCCEEDED\"}", 404, "no job");
        add("outcome state unknown", "POST", JOB + "/nope/outcome", "admin", "{\"state\":\"" + LONG_10K + "\"}", 400, "state");
        add("outcome CANCELLED", "POST", JOB + "/nope/outcome", "admin", "{\"state\":\"CANCELLED\"}", 400, "SUCCEEDED, FAILED or EVICTED");
        add("outcome state a number", "POST", JOB + "/nope/outcome", "admin", "{\"state\":1}", 400, "state");
        add("outcome by a submitter", "POST", JOB + "/nope/outcome", "submitter", "{\"state\":\"FAILED\"}", 403, "agent or admin");
        add("outcome with an unknown field", "POST", JOB + "/nope/outcome", "admin", "{\"state\":\"FAILED\",\"why\":1}", 400, "why");
        add("outcome by an enrollment token", "POST", JOB + "/nope/outcome", "agent", "{\"state\":\"FAILED\"}", 403, "enrollment token");
        add("audit limit not a number", "GET", "/api/v1/audit?limit=x", "admin", null, 400, "limit");
        add("audit limit too large", "GET", "/api/v1/audit?limit=100000", "admin", null, 400, "limit");
        add("audit before negative", "GET", "/api/v1/audit?before=-1", "admin", null, 400, "before");
        add("audit read by a submitter", "GET", "/api/v1/audit", "submitter", null, 403, "admin");
    }

    private void teams() {
        String teams = "/api/v1/teams";
        for (String name : new String[] {"\"UPPER\"", "\"" + "t".repeat(64) + "\"", "\"a\\u0000b\"", "\"../etc\"", "12", "null", "\"\""}) {
            add("team name " + name.substring(0, Math.min(12, name.length())), "POST", teams, "admin", "{\"name\":" + name + ",\"share\":0.1}", 400, "name");
        }
        text("parent", 63, (what, raw) -> add("team " + what, "POST", teams, "admin", "{\"name\":\"child\",\"parent\":" + raw + ",\"share\":0.1}", 400,
                "parent"));
        add("team parent unknown", "POST", teams, "admin", "{\"name\":\"child\",\"parent\":\"nobody\",\"share\":0.1}", 422, "parent");
        for (String share : new String[] {"5", "-0.1", "\"half\"", "1e400", "null"}) {
            add("team share " + share, "POST", teams, "admin", "{\"name\":\"s\",\"share\":" + share + "}", 400, "share");
        }
        add("team by a submitter", "POST", teams, "submitter", "{\"name\":\"s\",\"share\":0.1}", 403, "admin");
        add("budget of an unknown team", "PUT", teams + "/" + LONG_300 + "/budget", "admin", "{\"share\":0.1}", 404, "no team");
        add("budget share missing", "PUT", teams + "/alpha/budget", "admin", "{}", 400, "share");
        add("budget share 2", "PUT", teams + "/alpha/budget", "admin", "{\"share\":2}", 400, "share");
        add("unknown team", "GET", teams + "/" + LONG_300, "admin", null, 404, "no team");
    }

    private void tokens() {
        String tokens = "/api/v1/tokens";
        for (String role : new String[] {"\"root\"", "\"" + LONG_10K + "\"", "7", "null"}) {
            add("token role " + role.substring(0, Math.min(8, role.length())), "POST", tokens, "admin", "{\"role\":" + role + "}", 400, "role");
        }
        text("token label", 128, (what, raw) -> add(what, "POST", tokens, "admin", "{\"role\":\"admin\",\"label\":" + raw + "}", 400, "label"));
        text("token node", 253, (what, raw) -> add(what, "POST", tokens, "admin", "{\"role\":\"agent\",\"node\":" + raw + "}", 400, "node"));
        add("token team too long", "POST", tokens, "admin", "{\"role\":\"submitter\",\"team\":\"" + LONG_300 + "\"}", 400, "team");
        add("token team unknown", "POST", tokens, "admin", "{\"role\":\"submitter\",\"team\":\"ghosts\"}", 422, "team");
        add("token node on a submitter", "POST", tokens, "admin", "{\"role\":\"submitter\",\"team\":\"alpha\",\"node\":\"n\"}", 400, "node");
        for (String s : new String[] {"0", "-1", "315360001", "1.5", "\"60\"", "9223372036854775808"}) {
            add("token expiresInSeconds " + s, "POST", tokens, "admin", "{\"role\":\"admin\",\"expiresInSeconds\":" + s + "}", 400, "expiresInSeconds");
        }
        for (String name : new String[] {"../../etc", "%_", "node-1[0-1]+zz", "Node-1", "a..b"}) {
            add("token node " + name, "POST", tokens, "admin", "{\"role\":\"agent\",\"node\":\"" + name + "\"}", 400, "node must be a DNS-1123 subdomain");
        }
        for (String uses : new String[] {"0", "-1", "100001", "1.5", "\"2\"", "2147483648"}) {
            add("token maxUses " + uses, "POST", tokens, "admin", "{\"role\":\"agent\",\"maxUses\":" + uses + "}", 400, "maxUses");
        }
        add("token maxUses on a node credential", "POST", tokens, "admin", "{\"role\":\"agent\",\"node\":\"n\",\"maxUses\":1}", 400, "maxUses: only");
        add("token maxUses on an admin token", "POST", tokens, "admin", "{\"role\":\"admin\",\"maxUses\":1}", 400, "maxUses: only");
        add("token requireApproval on a submitter", "POST", tokens, "admin", "{\"role\":\"submitter\",\"team\":\"alpha\",\"requireApproval\":true}", 400,
                "requireApproval: only");
        add("token requireApproval as a string", "POST", tokens, "admin", "{\"role\":\"agent\",\"requireApproval\":\"yes\"}", 400, "requireApproval");
        add("token by a submitter", "POST", tokens, "submitter", "{\"role\":\"admin\"}", 403, "admin");
        add("tokens listed by a submitter", "GET", tokens, "submitter", null, 403, "admin");
        add("revoking an unknown token", "DELETE", tokens + "/" + LONG_300, "admin", null, 404, "no token");
        add("reading an unknown token", "GET", tokens + "/0123456789abcdef", "admin", null, 404, "no token");
    }

    private void inferenceServices() {
        String services = "/api/v1/inference-services";
        String valid = "\"team\":\"alpha\",\"weightPerGpuHour\":20,\"swapCapGpus\":2";
        for (String name : new String[] {"\"Chat\"", "\"" + LONG_300 + "\"", "\"c\\u0000\"", "1"}) {
            add("service name " + name.substring(0, Math.min(8, name.length())), "POST", services, "admin", "{\"name\":" + name + "," + valid + "}", 400,
                    "name");
        }
        add("service team too long", "POST", services, "admin", "{\"name\":\"s1\",\"team\":\"" + LONG_300 + "\",\"weightPerGpuHour\":20,\"swapCapGpus\":2}",
                400, "team");
        for (String w : new String[] {"0", "-1", "1e400", "\"x\"", "1e7"}) {
            add("service weightPerGpuHour " + w, "POST", services, "admin", "{\"name\":\"s2\",\"team\":\"alpha\",\"weightPerGpuHour\":" + w
                    + ",\"swapCapGpus\":2}", 400, "weightPerGpuHour");
        }
        for (String cap : new String[] {"0", "2147483648", "1.5"}) {
            add("service swapCapGpus " + cap, "POST", services, "admin", "{\"name\":\"s3\",\"team\":\"alpha\",\"weightPerGpuHour\":2,\"swapCapGpus\":"
                    + cap + "}", 400, "swapCapGpus");
        }
        add("service servedBy of 201 nodes", "POST", services, "admin", "{\"name\":\"s4\"," + valid + ",\"servedBy\":[" + "\"n\",".repeat(200) + "\"n\"]}",
                400, "servedBy");
        add("service servedBy with NUL", "POST", services, "admin", "{\"name\":\"s5\"," + valid + ",\"servedBy\":[\"n\\u0000\"]}", 400, "servedBy[0]");
        add("service servedBy entry of 300 characters", "POST", services, "admin", "{\"name\":\"s6\"," + valid + ",\"servedBy\":[\"" + LONG_300 + "\"]}",
                400, "servedBy[0]");
        add("service servedBy a name that would break a placement", "POST", services, "admin", "{\"name\":\"s8\"," + valid
                + ",\"servedBy\":[\"node-1[0-1]+zz\"]}", 400, "servedBy[0] must be a DNS-1123 subdomain");
        String held = services + "/fz-served/held";
        add("held naming a GPU not on the node", "PUT", held, "node", "{\"gpuUuids\":[\"GPU-" + HostileInput.NODE + "-0\",\"GPU-elsewhere\"]}", 403,
                "gpuUuids[1]: GPU 'GPU-elsewhere' is not on node " + HostileInput.NODE);
        add("held by a node the service is not served by", "PUT", services + "/kept/held", "node", "{\"gpuUuids\":[]}", 403, "not on that node");
        add("demand holding more GPUs than the serving nodes registered", "POST", services + "/fz-served/demand", "node", "{\"gpus\":[1],\"heldGpus\":9}",
                403, "heldGpus: 9");
        add("service for another team", "POST", services, "submitter", "{\"name\":\"s7\",\"team\":\"beta\",\"weightPerGpuHour\":2,\"swapCapGpus\":2}", 403,
                "team");
        String demand = services + "/kept/demand";
        for (String[] d : new String[][] {{"[]", "gpus"}, {"[-1]", "gpus[0]"}, {"[100001]", "gpus[0]"}, {"[1e400]", "gpus"}, {"[\"x\"]", "gpus"},
                {"[null]", "gpus[0]"}, {"[" + "1,".repeat(2688) + "1]", "gpus"}}) {
            add("demand gpus " + d[0].substring(0, Math.min(8, d[0].length())), "POST", demand, "admin", "{\"gpus\":" + d[0] + "}", 400, d[1]);
        }
        add("demand heldGpus negative", "POST", demand, "admin", "{\"gpus\":[1],\"heldGpus\":-1}", 400, "heldGpus");
        add("demand heldGpus overflowing", "POST", demand, "admin", "{\"gpus\":[1],\"heldGpus\":2147483648}", 400, "heldGpus");
        add("demand for an unknown service", "POST", services + "/nope/demand", "admin", "{\"gpus\":[1]}", 404, "nope");
        add("demand from a node that does not serve it", "POST", demand, "node", "{\"gpus\":[100000]}", 403, "not on that node");
        add("demand from a submitter", "POST", demand, "submitter", "{\"gpus\":[1]}", 403, "agent or admin");
        add("deleting an unknown service", "DELETE", services + "/" + LONG_300, "admin", null, 404, "inference service");
    }

    private void migPolicies() {
        String pool = "/api/v1/mig-policies/pool-a";
        String rest = "\"allowedProfiles\":[\"1g.10gb\"],\"layout\":\"DYNAMIC\",\"drainTimeSeconds\":60,\"maxConcurrentReconfigurations\":1";
        add("MIG policy pool upper-case", "PUT", "/api/v1/mig-policies/POOL", "admin", "{\"partitionableModels\":[\"H100-80GB\"]," + rest + "}", 400, "pool");
        add("MIG policy pool of 300 characters", "PUT", "/api/v1/mig-policies/" + LONG_300, "admin", "{\"partitionableModels\":[\"H100-80GB\"]," + rest + "}",
                400, "pool");
        add("MIG policy unknown model", "PUT", pool, "admin", "{\"partitionableModels\":[\"" + LONG_10K + "\"]," + rest + "}", 400, "partitionableModels");
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 40; i++) many.append(i == 0 ? "" : ",").append("\"m").append(i).append('"');
        add("MIG policy 40 models", "PUT", pool, "admin", "{\"partitionableModels\":[" + many + "]," + rest + "}", 400, "partitionableModels");
        add("MIG policy unknown profile", "PUT", pool, "admin", "{\"partitionableModels\":[\"H100-80GB\"],\"allowedProfiles\":[\"9g\\u0000\"],"
                + "\"layout\":\"DYNAMIC\",\"drainTimeSeconds\":60,\"maxConcurrentReconfigurations\":1}", 400, "allowedProfiles");
        add("MIG policy layout unknown", "PUT", pool, "admin", "{\"partitionableModels\":[\"H100-80GB\"],\"allowedProfiles\":[\"1g.10gb\"],"
                + "\"layout\":\"SOMETIMES\",\"drainTimeSeconds\":60,\"maxConcurrentReconfigurations\":1}", 400, "layout");
        add("MIG policy drain overflowing", "PUT", pool, "admin", "{\"partitionableModels\":[\"H100-80GB\"],\"allowedProfiles\":[\"1g.10gb\"],"
                + "\"layout\":\"DYNAMIC\",\"drainTimeSeconds\":9223372036854775808,\"maxConcurrentReconfigurations\":1}", 400, "drainTimeSeconds");
        add("MIG policy reconfigurations 0", "PUT", pool, "admin", "{\"partitionableModels\":[\"H100-80GB\"],\"allowedProfiles\":[\"1g.10gb\"],"
                + "\"layout\":\"DYNAMIC\",\"drainTimeSeconds\":60,\"maxConcurrentReconfigurations\":0}", 400, "maxConcurrentReconfigurations");
        add("MIG policy by a submitter", "PUT", pool, "submitter", "{}", 403, "admin");
        add("deleting an unknown MIG policy", "DELETE", "/api/v1/mig-policies/nope", "admin", null, 404, "nope");
    }

    private void nodeCommands() {
        String commands = "/api/v1/nodes/node-0/commands";
        add("command for an unknown node", "POST", "/api/v1/nodes/" + LONG_300 + "/commands", "admin", "{\"drain\":{\"reason\":\"x\"}}", 404, "no node");
        add("command of two kinds", "POST", commands, "admin", "{\"drain\":{},\"setSharing\":{}}", 400, "exactly one");
        add("command MIG layout on an unknown GPU", "POST", commands, "admin", "{\"applyMigLayout\":{\"gpuUuid\":\"" + LONG_10K + "\",\"slots\":[]}}", 400,
                "applyMigLayout.gpuUuid");
        add("command sharing mode unknown", "POST", commands, "admin", "{\"setSharing\":{\"gpuUuid\":\"x\",\"mode\":\"" + LONG_300 + "\"}}", 400,
                "setSharing.mode");
        add("command drain reason of 10,000 characters", "POST", commands, "admin", "{\"drain\":{\"reason\":\"" + LONG_10K + "\"}}", 400, "drain.reason");
        add("command drain reason with NUL", "POST", commands, "admin", "{\"drain\":{\"reason\":\"a\\u0000\"}}", 400, "drain.reason");
        add("command slots as a string", "POST", commands, "admin", "{\"applyMigLayout\":{\"gpuUuid\":\"x\",\"slots\":\"all\"}}", 400, "slots");
        add("command by a submitter", "POST", commands, "submitter", "{\"drain\":{}}", 403, "admin");
        add("unknown node", "GET", "/api/v1/nodes/" + LONG_300, "submitter", null, 404, "no node");
        add("approving a node by a submitter", "POST", "/api/v1/nodes/" + HostileInput.NODE + "/approval", "submitter", null, 403, "admin");
        add("approving a node by its own credential", "POST", "/api/v1/nodes/" + HostileInput.NODE + "/approval", "node", null, 403, "admin");
        add("approving a node that does not wait", "POST", "/api/v1/nodes/" + HostileInput.NODE + "/approval", "admin", null, 409, "not waiting");
        add("approving an unknown node", "POST", "/api/v1/nodes/" + LONG_300 + "/approval", "admin", null, 404, "no node");
        String drain = "/api/v1/nodes/" + HostileInput.NODE + "/drain";
        add("draining a node by a submitter", "PUT", drain, "submitter", "{\"reason\":\"x\"}", 403, "admin");
        add("draining a node by its own credential", "PUT", drain, "node", "{\"reason\":\"x\"}", 403, "admin");
        add("drain without a reason", "PUT", drain, "admin", "{}", 400, "reason: required");
        add("drain reason of 10,000 characters", "PUT", drain, "admin", "{\"reason\":\"" + LONG_10K + "\"}", 400, "reason is 10000 characters");
        add("drain reason with NUL", "PUT", drain, "admin", "{\"reason\":\"a\\u0000\"}", 400, "reason holds a control character");
        add("draining an unknown node", "PUT", "/api/v1/nodes/" + LONG_300 + "/drain", "admin", "{\"reason\":\"x\"}", 404, "no node");
        add("undraining a node that is not drained", "DELETE", drain, "admin", null, 409, "is not drained");
    }

    private void authAndTransport() {
        add("no token", "GET", JOB, "none", null, 401, "missing bearer token");
        add("unknown token", "GET", JOB, "raw:Bearer not-a-token", null, 401, "unknown token");
        add("token of 4,000 characters", "GET", JOB, "raw:Bearer " + "t".repeat(4000), null, 401, "unknown token");
        add("Basic scheme", "GET", JOB, "raw:Basic YWRtaW46YWRtaW4=", null, 401, "Bearer");
        add("empty bearer", "GET", JOB, "raw:Bearer ", null, 401, "Bearer");
        add("an enrollment token on REST", "GET", "/api/v1/nodes", "agent", null, 403, "enrollment token");
        add("a job as form data", "POST", JOB, "submitter", "name=a&team=alpha", 400, "not valid JSON");
        add("PUT on the jobs collection", "PUT", JOB, "admin", "{}", 405, "method not allowed");
        add("an unknown API path", "GET", "/api/v1/" + LONG_300, "admin", null, 404, "no such resource");
        add("a body of 2 MiB", "POST", JOB, "submitter", job("name", "\"" + "x".repeat(2 * 1024 * 1024) + "\""), 413, "larger than");
    }

    /** Idempotency keys that are malformed or reused for another job, and an admin revoking the last admin token. */
    private void retriesAndBreakGlass(String adminId) {
        for (String key : new String[] {"two words", "k".repeat(256), "tab\there"}) {
            cases.add(new Case("Idempotency-Key " + key.substring(0, Math.min(10, key.length())), "POST", JOB, "submitter", job("name", "\"ok\""), 400,
                    "Idempotency-Key", "Idempotency-Key: " + key));
        }
        cases.add(new Case("Idempotency-Key reused for another job", "POST", JOB, "submitter", job("name", "\"another\""), 422,
                "was used for another job", "Idempotency-Key: " + REUSED_KEY));
        add("revoking the last admin token", "DELETE", "/api/v1/tokens/" + adminId, "admin", null, 409, "last live admin token");
    }
}
