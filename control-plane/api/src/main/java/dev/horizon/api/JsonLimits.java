package dev.horizon.api;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
        } catch (MismatchedInputException e) {
            if (e.getOriginalMessage().startsWith("Trailing token")) {
                throw refused("the body holds more than one JSON value" + at(e) + "; send one JSON object");
            }
            throw refused(path(e, root) + ": " + mismatch(e, json));
        } catch (JsonMappingException e) {
            if (e.getCause() instanceof StreamConstraintsException limit) throw refused(path(e, root) + ": " + overLimit(limit));
            throw refused(path(e, root) + ": " + e.getOriginalMessage());
        } catch (StreamConstraintsException e) {
            throw refused(field(e, json, root) + ": " + overLimit(e));
        } catch (JsonProcessingException e) {
            throw refused("the " + root + " is not valid JSON" + at(e) + ": " + e.getOriginalMessage());
        }
    }

    private static final Pattern GIVEN = Pattern.compile("\\((\\d+)\\)");

    /**
     * A limit of the parser's, in the API's words: Jackson's own names its settings ("from
     * `StreamReadConstraints.getMaxNumberLength()`"), which say nothing to a caller.
     */
    private static String overLimit(StreamConstraintsException e) {
        String m = e.getOriginalMessage();
        Matcher given = GIVEN.matcher(m);
        String size = given.find() ? given.group(1) + " " : "";
        if (m.startsWith("String value length")) return "a string of " + size + "characters; a string is at most " + MAX_STRING_LENGTH + " characters";
        if (m.startsWith("Number value length")) return "a number of " + size + "digits; a number is at most " + MAX_NUMBER_LENGTH + " digits";
        if (m.contains("nesting depth")) return "nested " + size + "levels deep; JSON is at most " + MAX_DEPTH + " levels deep";
        return m.replaceAll(",? from `[^`]*`", "");
    }

    /**
     * The field the limit was met in, as path() names it ("perReplica.gpus", "source[0]"); for too deep a nesting only
     * its first field, not the dozens of levels below it; root where it was at no field. The parser's exception does not
     * say where it stopped, so the body is read again, token by token, up to the limit.
     */
    private static String field(StreamConstraintsException e, String json, String root) {
        List<String> steps = new ArrayList<>();
        try (JsonParser walk = STRICT.getFactory().createParser(json)) {
            try {
                for (JsonToken t = walk.nextToken(); t != null; t = walk.nextToken()) {
                    if (t == JsonToken.VALUE_STRING) walk.getText(); // a string's length is checked when it is read
                }
            } catch (JsonProcessingException limit) {
                for (var c = walk.getParsingContext(); c != null && !c.inRoot(); c = c.getParent()) {
                    String step = c.inObject() ? c.getCurrentName() : "[" + Math.max(0, c.getCurrentIndex()) + "]";
                    if (step != null) steps.add(0, step);
                }
            }
        } catch (IOException unreadable) {
            return root;
        }
        if (e.getOriginalMessage().contains("nesting depth") && steps.size() > 1) steps = steps.subList(0, 1);
        String p = String.join(".", steps).replace(".[", "[");
        return p.isEmpty() || p.startsWith("[") ? root + p : p;
    }

    /**
     * What a value of the wrong kind is, and what the field wants, in the API's words: Jackson's own message names its
     * classes and settings ("Cannot coerce ... CoercionConfig"), which say nothing to a caller and nothing of the fix.
     */
    private static String mismatch(MismatchedInputException e, String json) {
        Class<?> type = e.getTargetType();
        if (type == null) return e.getOriginalMessage();
        if (e.getOriginalMessage().startsWith("Cannot map `null`")) return "missing or null; it must be " + wanted(type);
        return given(e, json) + " is not " + wanted(type);
    }

    private static String wanted(Class<?> type) {
        if (type.isEnum()) return "one of " + List.of(type.getEnumConstants());
        if (type == String.class || type == Character.class || type == char.class) return "a string";
        if (type == boolean.class || type == Boolean.class) return "true or false";
        if (type == int.class || type == long.class || type == short.class || type == Integer.class || type == Long.class
                || type == Short.class || type == java.math.BigInteger.class) return "a whole number";
        if (type.isPrimitive() || Number.class.isAssignableFrom(type)) return "a number";
        if (type.isArray() || Collection.class.isAssignableFrom(type)) return "a JSON array";
        return "a JSON object";
    }

    /** The value at the field the mapping failed on, as a caller wrote it (read again: the failed parser is closed). */
    private static String given(MismatchedInputException e, String json) {
        JsonNode value;
        try {
            value = STRICT.readTree(json).at(pointer(e));
        } catch (JsonProcessingException unreadable) {
            return e instanceof InvalidFormatException f ? Limits.quote(f.getValue()) : "the value";
        }
        if (value.isObject()) return "an object";
        if (value.isArray()) return "an array";
        if (value.isTextual()) return "the string " + Limits.quote(value.textValue());
        if (value.isNumber()) return "the number " + value.asText();
        return value.isMissingNode() ? "the value" : value.toString();
    }

    private static JsonPointer pointer(JsonMappingException e) {
        JsonPointer p = JsonPointer.empty();
        for (JsonMappingException.Reference r : e.getPath()) p = r.getFieldName() != null ? p.appendProperty(r.getFieldName()) : p.appendIndex(r.getIndex());
        return p;
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
