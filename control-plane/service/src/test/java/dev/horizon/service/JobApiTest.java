package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;

import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@QuarkusTest
class JobApiTest {
    @BeforeEach
    void teams() {
        Api.team("vision", 0.5);
        Api.team("speech", 0.2);
    }

    @Test
    void submitIsStoredPendingAndReadable() {
        String id = as(ADMIN).body(Api.job("sft", "vision", "TRAINING", 2)).post("/api/v1/jobs").then().statusCode(201)
                .header("Location", containsString("/api/v1/jobs/")).body("state", equalTo("PENDING")).body("id", notNullValue())
                .extract().path("id");
        as(ADMIN).get("/api/v1/jobs/" + id).then().statusCode(200).body("state", notNullValue()).body("team", equalTo("vision"))
                .body("spec.perReplica.gpus", equalTo(2));
        as(ADMIN).get("/api/v1/jobs/" + id + "/explanation").then().statusCode(200).body("state", notNullValue()).body("reason", notNullValue());
    }

    @Test
    void listFiltersByStateTeamAndClass() {
        String debug = Api.submit(ADMIN, Api.job("dbg", "speech", "DEBUG", 1));
        String training = Api.submit(ADMIN, Api.job("big", "vision", "TRAINING", 1));
        as(ADMIN).queryParam("team", "speech").get("/api/v1/jobs").then().statusCode(200)
                .body("team", everyItem(equalTo("speech"))).body("id", hasItem(debug)).body("id", not(hasItem(training)));
        as(ADMIN).queryParam("class", "debug").get("/api/v1/jobs").then().statusCode(200)
                .body("class", everyItem(equalTo("DEBUG"))).body("id", hasItem(debug));
        as(ADMIN).body("").delete("/api/v1/jobs/" + training).then().statusCode(200).body("state", equalTo("CANCELLED"));
        as(ADMIN).queryParam("state", "cancelled").get("/api/v1/jobs").then().statusCode(200)
                .body("state", everyItem(equalTo("CANCELLED"))).body("id", hasItem(training));
        as(ADMIN).queryParam("state", "sleeping").get("/api/v1/jobs").then().statusCode(400).body("problems[0]", containsString("state"));
        as(ADMIN).queryParam("limit", 0).get("/api/v1/jobs").then().statusCode(400).body("problems[0]", containsString("limit"));
    }

    @Test
    void cancelTwiceIsAConflictAndUnknownJobIs404() {
        String id = Api.submit(ADMIN, Api.job("once", "vision", "DEBUG", 1));
        as(ADMIN).delete("/api/v1/jobs/" + id).then().statusCode(200).body("state", equalTo("CANCELLED"));
        as(ADMIN).delete("/api/v1/jobs/" + id).then().statusCode(409).body("error", containsString("already finished"));
        as(ADMIN).get("/api/v1/jobs/nope").then().statusCode(404).body("error", containsString("nope"));
        as(ADMIN).get("/api/v1/jobs/nope/explanation").then().statusCode(404);
    }

    @Test
    void badJobsAreRefusedNamingTheFieldAndTheFix() {
        record Case(String body, int status, String text) {
        }
        for (Case c : List.of(
                new Case("{\"name\": \"x\", ", 400, "not valid JSON"),
                new Case("", 400, "empty"),
                new Case("{\"name\":\"x\",\"team\":\"vision\",\"class\":\"TRAINING\",\"perReplica\":{\"gpus\":1},\"colour\":1}", 400, "colour"),
                new Case("{\"name\":\"x\",\"team\":\"vision\",\"class\":\"SLEEP\",\"perReplica\":{\"gpus\":1}}", 400, "class"),
                new Case("{\"name\":\"x\",\"team\":\"vision\",\"class\":\"TRAINING\",\"perReplica\":{\"migProfile\":\"9g.1tb\"}}", 400, "perReplica.migProfile"),
                new Case("{\"name\":\"x\",\"team\":\"vision\",\"class\":\"TRAINING\",\"replicas\":-2,\"perReplica\":{\"gpus\":1}}", 400, "replicas must be between 1 and 10000"),
                new Case("{\"name\":\"x\",\"team\":\"vision\",\"class\":\"TRAINING\",\"priority\":100000,\"perReplica\":{\"gpus\":1}}", 400, "priority"),
                new Case("{\"name\":\"x\",\"team\":\"vision\",\"class\":\"TRAINING\",\"durationEstimateSeconds\":99999999999,\"perReplica\":{\"gpus\":1}}", 400, "durationEstimateSeconds"),
                new Case(Api.job("x", "nobody", "TRAINING", 1), 422, "team 'nobody' does not exist"),
                new Case("{\"name\":\"x\",\"team\":\"vision\",\"class\":\"TRAINING\",\"replicas\":4,\"perReplica\":{\"gpus\":8}}", 422, "replicas: 32 GPUs is more than the 16 the cluster could ever give it"),
                // the declared cluster is H100-80GB only: an A100 profile or an absent GPU type would wait forever
                new Case("{\"name\":\"x\",\"team\":\"vision\",\"class\":\"TRAINING\",\"perReplica\":{\"migProfile\":\"1g.5gb\"}}", 422,
                        "no GPU model in the cluster [H100-80GB] offers '1g.5gb'"),
                new Case("{\"name\":\"x\",\"team\":\"vision\",\"class\":\"TRAINING\",\"perReplica\":{\"gpuMilli\":500,\"memoryMiB\":1000,"
                        + "\"gpuTypes\":[\"V100M16\"]}}", 422, "GPU type 'V100M16' is not in the cluster; it has [H100-80GB]"),
                new Case("{\"name\":\"x\",\"team\":\"vision\",\"class\":\"TRAINING\",\"perReplica\":{\"gpus\":1,\"gpuTypes\":[\"A100-80GB\"]}}",
                        422, "perReplica.gpuTypes: GPU type 'A100-80GB' is not in the cluster; it has [H100-80GB]"),
                // two 8-GPU nodes, each its own NVLink domain: 16 GPUs fit the cluster but no node or domain
                new Case("{\"name\":\"x\",\"team\":\"vision\",\"class\":\"TRAINING\",\"replicas\":2,\"perReplica\":{\"gpus\":8},\"topology\":\"same-node\"}",
                        422, "topology: same-node needs 16 GPUs on one node; the most one node could hold is 8"),
                new Case("{\"name\":\"x\",\"team\":\"vision\",\"class\":\"TRAINING\",\"replicas\":6,\"perReplica\":{\"gpus\":2},"
                        + "\"topology\":\"same-nvlink-domain\"}", 422, "topology: same-nvlink-domain needs 12 GPUs inside one NVLink domain; the most one domain could hold is 8"),
                new Case("{\"name\":\"x\",\"team\":\"vision\",\"class\":\"TRAINING\",\"perReplica\":{\"gpus\":16}}", 422,
                        "perReplica.gpus: 16 GPUs per replica is more than any node of an accepted model has (8)")
        )) {
            as(ADMIN).body(c.body()).post("/api/v1/jobs").then().statusCode(c.status()).body("problems[0]", containsString(c.text()));
        }
        as(ADMIN).contentType("text/plain").body("hello").post("/api/v1/jobs").then().statusCode(415).body("error", containsString("application/json"));
    }

    @Test
    void tokensAreRequiredAndRolesAndTeamsAreEnforced() {
        given().get("/api/v1/jobs").then().statusCode(401).header("WWW-Authenticate", containsString("Bearer"))
                .body("error", containsString("missing bearer token"));
        given().header("Authorization", "Basic abc").get("/api/v1/jobs").then().statusCode(401).body("error", containsString("Bearer <token>"));
        as("not-a-token").get("/api/v1/jobs").then().statusCode(401).body("error", containsString("unknown"));

        String speech = Api.token("submitter", "speech");
        String id = Api.submit(speech, Api.job("mine", "speech", "DEBUG", 1));
        as(speech).body(Api.job("theirs", "vision", "DEBUG", 1)).post("/api/v1/jobs").then().statusCode(403)
                .body("error", containsString("bound to team 'speech'"));
        String visionJob = Api.submit(ADMIN, Api.job("v", "vision", "DEBUG", 1));
        as(speech).delete("/api/v1/jobs/" + visionJob).then().statusCode(403);
        as(speech).delete("/api/v1/jobs/" + id).then().statusCode(200);
        as(speech).body("{\"name\":\"x\",\"share\":0.1}").post("/api/v1/teams").then().statusCode(403).body("error", containsString("admin"));

        String agent = Api.token("agent", null);
        as(agent).body(Api.job("a", "speech", "DEBUG", 1)).post("/api/v1/jobs").then().statusCode(403).body("error", containsString("agent"));
        as(speech).body("{\"role\":\"admin\"}").post("/api/v1/tokens").then().statusCode(403);
        as(ADMIN).body("{\"role\":\"root\"}").post("/api/v1/tokens").then().statusCode(400).body("problems[0]", containsString("role"));
        as(ADMIN).body("{\"role\":\"submitter\",\"team\":\"ghosts\"}").post("/api/v1/tokens").then().statusCode(422)
                .body("problems[0]", containsString("team"));
    }

    /**
     * A manifest submitted without --team is for the team its metadata.namespace names, 'default' where it names none: the
     * refusal says so and what to change, where it said only "cannot act for team 'default'".
     */
    @Test
    void aManifestsJobForATeamTheTokenMayNotActForSaysTheTeamCameFromItsNamespace() {
        String speech = Api.token("submitter", "speech");
        String fromManifest = "{\"name\":\"llama\",\"team\":\"default\",\"class\":\"TRAINING\",\"perReplica\":{\"gpus\":1},"
                + "\"source\":{\"kind\":\"PyTorchJob\",\"namespace\":\"default\",\"name\":\"llama\"}}";
        as(speech).body(fromManifest).post("/api/v1/jobs").then().statusCode(403).body("error", equalTo("submitting a job for team 'default': this"
                + " token is bound to team 'speech' and cannot act for team 'default' (taken from the PyTorchJob's metadata.namespace, 'default'"
                + " when the manifest gives none): pass --team speech to ./horizon submit (or set the job's team), or set metadata.namespace, or a"
                + " queue label such as kueue.x-k8s.io/queue-name, to a team this token may act for"));
        // a team named otherwise than the namespace (by a queue label, or --team) is refused as before: its origin is not the namespace
        as(speech).body(fromManifest.replace("\"team\":\"default\"", "\"team\":\"vision\"")).post("/api/v1/jobs").then().statusCode(403)
                .body("error", equalTo("submitting a job for team 'vision': this token is bound to team 'speech' and cannot act for team 'vision'"));
    }

    @Test
    void outcomeEndsARunningJobOnlyForAgentsAndAdmins() {
        String id = Api.submit(ADMIN, Api.job("short", "vision", "DEBUG", 1));
        String speech = Api.token("submitter", "speech");
        as(speech).body("{\"state\":\"SUCCEEDED\"}").post("/api/v1/jobs/" + id + "/outcome").then().statusCode(403);
        as(ADMIN).body("{\"state\":\"CANCELLED\"}").post("/api/v1/jobs/" + id + "/outcome").then().statusCode(400);
    }
}
