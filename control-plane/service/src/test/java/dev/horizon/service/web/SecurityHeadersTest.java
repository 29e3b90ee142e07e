package dev.horizon.service.web;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/** The web view and the API answer with a content security policy and refuse to be framed by another site. */
@QuarkusTest
class SecurityHeadersTest {
    @Test
    void theWebViewMayRunOnlyItsOwnScriptAndIsNeverFramed() {
        for (String path : new String[] {"/", "/horizon.js", "/api/v1/jobs"}) {
            given().get(path).then().header("Content-Security-Policy", containsString("script-src 'self'"))
                    .header("Content-Security-Policy", containsString("frame-ancestors 'none'")).header("X-Frame-Options", equalTo("DENY"))
                    .header("X-Content-Type-Options", equalTo("nosniff"));
        }
    }
}
