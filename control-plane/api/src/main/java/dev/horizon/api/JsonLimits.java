package dev.horizon.api;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.List;
import java.util.stream.Collectors;

/**
 * How every request body is read: JSON no deeper than {@value #MAX_DEPTH} levels, no string over
 * {@value #MAX_STRING_LENGTH} characters and no number over {@value #MAX_NUMBER_LENGTH} digits, no key twice in one
 * object, no unknown field, no number where text is wanted or a fraction or text where a count is, and nothing after the
 * first value. Each of these is a 400 naming the field (where the parser knows it), never a stack page.
 */
public final class JsonLimits {
    public static final int MAX_DEPTH = 32;
    public static final int MAX_STRING_LENGTH = 65_536;
    public static final int MAX_NUMBER_LENGTH = 64;

    private static final ObjectMapper STRICT = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).maxStringLength(MAX_STRING_LENGTH)
                            .maxNumberLength(MAX_NUMBER_LENGTH).build())
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, DeserializationFeature.FAIL_ON_TRAILING_TOKENS,
                    DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS, DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            // a number or boolean where text is wanted is a mistake, not a name "12"
            .withCoercionConfig(LogicalType.Textual, text -> text.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Float, CoercionAction.Fail).setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
            .build();

    private JsonLimits() {
    }

    /**
     * Reads one untrusted body as type; a body that is not one such value throws {@link InvalidJobException} with one
     * problem that names the field (its path from root, such as "job" or "body") and what is wrong.
     */
    public static <T> T read(String json, Class<T> type, String root) {
        try {
            return STRICT.readerFor(type).readValue(json);
        } catch (UnrecognizedPropertyException e) {
            throw refused(path(e, root) + ": unknown field; known fields are " + e.getKnownPropertyIds());
        } catch (InvalidFormatException e) {
            throw refused(path(e, root) + ": " + Limits.quote(e.getValue()) + " is not a valid " + e.getTargetType().getSimpleName()
                    + (e.getTargetType().isEnum() ? " (one of " + List.of(e.getTargetType().getEnumConstants()) + ")" : ""));
        } catch (JsonMappingException e) {
            if (e.getOriginalMessage().startsWith("Trailing token")) {
                throw refused("the body holds more than one JSON value" + at(e) + "; send one JSON object");
            }
            throw refused(path(e, root) + ": " + e.getOriginalMessage());
        } catch (JsonProcessingException e) {
            throw refused("the " + root + " is not valid JSON" + at(e) + ": " + e.getOriginalMessage());
        }
    }

    /** " (line L, column C)", or nothing where the parser gave no location (a limit it checks between tokens). */
    private static String at(JsonProcessingException e) {
        return e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")";
    }

    private static InvalidJobException refused(String problem) {
        return new InvalidJobException(List.of(problem));
    }

    private static String path(JsonMappingException e, String root) {
        String p = e.getPath().stream()
                .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                .collect(Collectors.joining("."));
        return p.isEmpty() ? root : p.replace(".[", "[");
    }
}
