package dev.horizon.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Every field's documented limit (Limits, JsonLimits) is refused with a problem naming the field and the limit. */
class JobLimitsTest {
    private static String job(String name, String extra) {
        return "{\"name\":" + name + ",\"team\":\"t\",\"class\":\"DEBUG\",\"perReplica\":{\"gpus\":1}" + extra + "}";
    }

    private static String refusal(String json) {
        InvalidJobException e = assertThrows(InvalidJobException.class, () -> JobJson.parse(json));
        assertTrue(e.getMessage().length() < 400, "the message stays short, whatever the input: " + e.getMessage().length());
        return e.getMessage();
    }

    @Test
    void aNameUpToTheKubernetesLimitPassesAndOneMoreCharacterIsRefused() {
        JobJson.parse(job("\"" + "a".repeat(Limits.NAME) + "\"", ""));
        String m = refusal(job("\"" + "a".repeat(Limits.NAME + 1) + "\"", ""));
        assertTrue(m.contains("name is 254 characters; the limit is 253"), m);
    }

    @Test
    void controlCharactersAreRefusedWhereTheyAre() {
        assertTrue(refusal(job("\"a\\u0000b\"", "")).contains("name holds a control character (U+0000 at 1)"));
        assertTrue(refusal(job("\"ok\"", ",\"source\":{\"kind\":\"Py\\u001bTorchJob\"}")).contains("source.kind holds a control character"));
        assertTrue(refusal(job("\"a\\ud800\"", "")).contains("name holds a control character"), "an unpaired surrogate cannot be stored either");
        JobJson.parse(job("\"训练-é-🙂\"", ""));
    }

    @Test
    void invisibleAndDirectionChangingCharactersAndUndecodableBytesAreRefused() {
        // "Trojan Source": a right-to-left override (U+202E) makes a name display as another
        assertTrue(refusal(job("\"evil\\u202etxt\"", "")).contains("name holds an invisible or direction-changing character (U+202E at 4)"));
        assertTrue(refusal(job("\"ok\"", ",\"source\":{\"name\":\"a\\u200bb\"}")).contains("source.name holds an invisible"));
        assertTrue(refusal(job("\"a\\u2066b\"", "")).contains("U+2066"));
        assertTrue(refusal(job("\"\\ufeffbom\"", "")).contains("U+FEFF at 0"));
        assertTrue(refusal(job("\"bad\\ufffdbytes\"", "")).contains("name holds U+FFFD at 3, what bytes that are not UTF-8 decode to"));
    }

    @Test
    void aHugeSourceKindIsNamedWithoutBeingRepeated() {
        String m = refusal(job("\"ok\"", ",\"source\":{\"kind\":\"" + "K".repeat(10_000) + "\"}"));
        assertTrue(m.contains("source.kind is 10000 characters; the limit is 63"), m);
    }

    @Test
    void replicasTimesGpusCannotOverflowIntoASmallJob() {
        String m = refusal("{\"name\":\"big\",\"team\":\"t\",\"class\":\"TRAINING\",\"replicas\":2147483647,\"perReplica\":{\"gpus\":2147483647}}");
        assertTrue(m.contains("replicas must be between 1 and 10000"), m);
        assertTrue(m.contains("perReplica.gpus must be between 1 and 64"), m);
        String product = refusal("{\"name\":\"big\",\"team\":\"t\",\"class\":\"TRAINING\",\"replicas\":10000,\"perReplica\":{\"gpus\":64}}");
        assertTrue(product.contains("replicas x perReplica.gpus is 640000 GPUs; the limit is 100000"), product);
    }

    @Test
    void deepDuplicateAndMistypedJsonIsRefusedByTheParser() {
        String deep = "[".repeat(JsonLimits.MAX_DEPTH + 1) + "]".repeat(JsonLimits.MAX_DEPTH + 1);
        InvalidJobException tooDeep = assertThrows(InvalidJobException.class, () -> JsonLimits.read(deep, Object.class, "body"));
        assertEquals("body[0]: nested 33 levels deep; JSON is at most 32 levels deep", tooDeep.problems().get(0), "nesting beyond the limit");
        JsonLimits.read("[".repeat(JsonLimits.MAX_DEPTH) + "]".repeat(JsonLimits.MAX_DEPTH), Object.class, "body");
        assertTrue(refusal(job("\"a\"", ",\"name\":\"b\"")).contains("Duplicate field 'name'"));
        assertTrue(refusal(job("\"a\"", ",\"replicas\":1.5")).contains("replicas"), "a fraction is not a count");
        assertTrue(refusal(job("\"a\"", ",\"replicas\":\"2\"")).contains("replicas"), "a string is not a count");
        assertEquals("priority: a number of 100 digits; a number is at most 64 digits", refusal(job("\"a\"", ",\"priority\":" + "9".repeat(100))),
                "digits beyond the limit");
    }

    /** The parser's own limits are said in the API's words with the field, never in Jackson's ("StreamReadConstraints.getMaxStringLength()"). */
    @Test
    void theParsersLimitsNameTheFieldAndTheLimitOnly() {
        assertEquals("name: a string of 70000 characters; a string is at most 65536 characters", refusal(job("\"" + "n".repeat(70_000) + "\"", "")));
        assertEquals("source.name: a string of 70000 characters; a string is at most 65536 characters",
                refusal(job("\"a\"", ",\"source\":{\"name\":\"" + "s".repeat(70_000) + "\"}")));
        assertEquals("durationEstimateSeconds: a number of 71 digits; a number is at most 64 digits",
                refusal(job("\"a\"", ",\"durationEstimateSeconds\":1" + "0".repeat(70))));
        assertEquals("contract: nested 33 levels deep; JSON is at most 32 levels deep",
                refusal(job("\"a\"", ",\"contract\":" + "{\"a\":".repeat(40) + "1" + "}".repeat(40))));
        assertEquals("body[0][0]: a number of 65 digits; a number is at most 64 digits",
                assertThrows(InvalidJobException.class, () -> JsonLimits.read("[[" + "1".repeat(65) + "]]", Object.class, "body")).problems().get(0));
    }

    /** A value of the wrong kind is named in the API's words, never in Jackson's ("CoercionConfig", "FAIL_ON_NULL_FOR_PRIMITIVES"). */
    record Share(String name, double share, java.util.List<String> models, Boolean mixed) {
    }

    private static String wrongKind(String json) {
        return assertThrows(InvalidJobException.class, () -> JsonLimits.read(json, Share.class, "body")).problems().get(0);
    }

    @Test
    void aValueOfTheWrongKindSaysWhatWasGivenAndWhatTheFieldWants() {
        assertEquals("share: missing or null; it must be a number", wrongKind("{\"name\":\"ml\"}"));
        assertEquals("share: missing or null; it must be a number", wrongKind("{\"name\":\"ml\",\"share\":null}"));
        assertEquals("share: the string 'half' is not a number", wrongKind("{\"share\":\"half\"}"));
        assertEquals("share: an object is not a number", wrongKind("{\"share\":{}}"));
        assertEquals("name: the number 3 is not a string", wrongKind("{\"name\":3,\"share\":1}"));
        assertEquals("models: the string 'a' is not a JSON array", wrongKind("{\"share\":1,\"models\":\"a\"}"));
        assertEquals("models[1]: the number 2 is not a string", wrongKind("{\"share\":1,\"models\":[\"a\",2]}"));
        assertEquals("mixed: the string 'yes' is not true or false", wrongKind("{\"share\":1,\"mixed\":\"yes\"}"));
        assertEquals("body: an array is not a JSON object", wrongKind("[1]"));
        assertEquals("replicas: the string '2' is not a whole number", refusal(job("\"a\"", ",\"replicas\":\"2\"")));
        assertEquals("replicas: the number 1.5 is not a whole number", refusal(job("\"a\"", ",\"replicas\":1.5")));
        String unknownClass = refusal("{\"name\":\"a\",\"team\":\"t\",\"class\":\"TRAIN\",\"perReplica\":{\"gpus\":1}}");
        assertTrue(unknownClass.startsWith("class: the string 'TRAIN' is not one of [TRAINING, "), unknownClass);
    }

    @Test
    void quotesAreCutAndEscaped() {
        assertEquals("'a\\u0000b'", Limits.quote("a\u0000b"));
        assertEquals("'" + "x".repeat(40) + "'... (41 characters)", Limits.quote("x".repeat(41)));
    }
}
