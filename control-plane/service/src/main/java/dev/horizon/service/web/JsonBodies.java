package dev.horizon.service.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import java.util.List;
import java.util.stream.Collectors;

/** Reads small request bodies (teams, tokens) with 400s that name the field, as the job JSON does. */
public final class JsonBodies {
    private static final ObjectMapper MAPPER = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

    private JsonBodies() {
    }

    public static <T> T read(String body, Class<T> type, String example) {
        if (body == null || body.isBlank()) throw new ApiException(400, "the body is empty", List.of("send JSON such as " + example));
        try {
            // Trailing tokens fail: a second object pasted after the first must not be dropped unread.
            return MAPPER.readerFor(type).with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readValue(body);
        } catch (UnrecognizedPropertyException e) {
            throw new ApiException(400, "invalid body", List.of(path(e) + ": unknown field; known fields are " + e.getKnownPropertyIds()));
        } catch (JsonMappingException e) {
            if (e.getOriginalMessage().startsWith("Trailing token")) {
                throw new ApiException(400, "the body holds more than one JSON value", List.of("send one JSON object such as " + example));
            }
            throw new ApiException(400, "invalid body", List.of(path(e) + ": " + e.getOriginalMessage() + "; for example " + example));
        } catch (JsonProcessingException e) {
            throw new ApiException(400, "the body is not valid JSON", List.of(e.getOriginalMessage() + "; for example " + example));
        }
    }

    private static String path(JsonMappingException e) {
        String p = e.getPath().stream().map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                .collect(Collectors.joining("."));
        return p.isEmpty() ? "body" : p;
    }
}
