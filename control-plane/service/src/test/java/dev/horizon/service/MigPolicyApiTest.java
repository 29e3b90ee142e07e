package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;

import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import org.junit.jupiter.api.Test;

@QuarkusTest
class MigPolicyApiTest {
    private static final String POLICY = "{\"partitionableModels\":[\"H100-80GB\"],\"allowedProfiles\":[\"3g.40gb\",\"1g.10gb\"],"
            + "\"layout\":\"dynamic\",\"drainTimeSeconds\":300,\"maxConcurrentReconfigurations\":2}";

    @Test
    void adminsPutReplaceAndDeleteAPoolsPolicyAndSubmittersReadIt() {
        as(ADMIN).body(POLICY).put("/api/v1/mig-policies/inference-pool").then().statusCode(201)
                .header("Location", containsString("/api/v1/mig-policies/inference-pool")).body("pool", equalTo("inference-pool"))
                .body("layout", equalTo("DYNAMIC")).body("allowedProfiles", equalTo(List.of("1g.10gb", "3g.40gb")))
                .body("drainTimeSeconds", equalTo(300));
        as(ADMIN).body(POLICY.replace("dynamic", "FIXED")).put("/api/v1/mig-policies/inference-pool").then().statusCode(200)
                .body("layout", equalTo("FIXED"));

        Api.team("mig-readers", 0.1);
        String submitter = Api.token("submitter", "mig-readers");
        as(submitter).get("/api/v1/mig-policies").then().statusCode(200).body("pool", hasItem("inference-pool"));
        as(submitter).get("/api/v1/mig-policies/inference-pool").then().statusCode(200).body("layout", equalTo("FIXED"))
                .body("maxConcurrentReconfigurations", equalTo(2));

        as(ADMIN).delete("/api/v1/mig-policies/inference-pool").then().statusCode(204);
        as(ADMIN).get("/api/v1/mig-policies/inference-pool").then().statusCode(404);
        as(ADMIN).get("/api/v1/mig-policies").then().statusCode(200).body("pool", not(hasItem("inference-pool")));
        as(ADMIN).delete("/api/v1/mig-policies/inference-pool").then().statusCode(404);
    }

    @Test
    void unknownModelsProfilesAndNumbersAreRefusedNamingTheFieldAndTheChoices() {
        as(ADMIN).body(POLICY.replace("H100-80GB", "T4")).put("/api/v1/mig-policies/p").then().statusCode(400)
                .body("problems", hasItem(containsString("partitionableModels: 'T4' has no MIG; use models from [A100-40GB")));
        as(ADMIN).body(POLICY.replace("3g.40gb", "3g.20gb")).put("/api/v1/mig-policies/p").then().statusCode(400)
                .body("problems[0]", containsString("allowedProfiles: unknown MIG profile '3g.20gb'"))
                .body("problems[0]", containsString("use one of [1g.10gb, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb]"));
        as(ADMIN).body(POLICY.replace("dynamic", "sometimes").replace("300", "-1").replace(":2}", ":0}")).put("/api/v1/mig-policies/p")
                .then().statusCode(400).body("problems", hasItem(containsString("layout: one of FIXED")))
                .body("problems", hasItem(containsString("drainTimeSeconds"))).body("problems", hasItem(containsString("maxConcurrentReconfigurations")));
        as(ADMIN).body("{\"partitionableModels\":[\"H100-80GB\"],\"colour\":1}").put("/api/v1/mig-policies/p").then().statusCode(400)
                .body("problems[0]", containsString("colour: unknown field"));
        as(ADMIN).body("{not json").put("/api/v1/mig-policies/p").then().statusCode(400);
        as(ADMIN).body(POLICY).put("/api/v1/mig-policies/Bad Pool").then().statusCode(400).body("problems[0]", containsString("pool"));
        as(ADMIN).get("/api/v1/mig-policies/p").then().statusCode(404);
    }

    @Test
    void onlyAdminsWriteAndEveryCallNeedsAToken() {
        Api.team("mig-writers", 0.1);
        String submitter = Api.token("submitter", "mig-writers");
        as(submitter).body(POLICY).put("/api/v1/mig-policies/p").then().statusCode(403).body("error", containsString("admin"));
        as(submitter).delete("/api/v1/mig-policies/p").then().statusCode(403);
        as(Api.token("agent", null)).body(POLICY).put("/api/v1/mig-policies/p").then().statusCode(403);
        given().get("/api/v1/mig-policies").then().statusCode(401);
        as("wrong").body(POLICY).put("/api/v1/mig-policies/p").then().statusCode(401);
    }
}
