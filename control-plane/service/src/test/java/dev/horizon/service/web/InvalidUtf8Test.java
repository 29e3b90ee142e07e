package dev.horizon.service.web;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.hamcrest.Matchers.containsString;

import dev.horizon.service.Api;
import io.quarkus.test.junit.QuarkusTest;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A body whose bytes are not UTF-8 is refused with a 400 naming the field that held them, never stored as something else. */
@QuarkusTest
class InvalidUtf8Test {
    @Test
    void aNameWithBytesThatAreNotUtf8IsRefusedNamingTheField() {
        Api.team("bytes", 0.1);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes("{\"name\":\"ab".getBytes(StandardCharsets.UTF_8));
        body.writeBytes(new byte[] {(byte) 0xC3, (byte) 0x28}); // a lead byte followed by one that cannot continue it
        body.writeBytes("cd\",\"team\":\"bytes\",\"class\":\"DEBUG\",\"perReplica\":{\"gpus\":1}}".getBytes(StandardCharsets.UTF_8));
        as(ADMIN).body(body.toByteArray()).post("/api/v1/jobs").then().statusCode(400).body("problems[0]", containsString("name holds U+FFFD"));
    }
}
