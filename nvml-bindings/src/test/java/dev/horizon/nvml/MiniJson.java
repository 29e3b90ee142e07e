package dev.horizon.nvml;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A strict little JSON reader, so the tests check that smi --json is JSON and not just text. */
public final class MiniJson {
    private final String text;
    private int pos;

    private MiniJson(String text) {
        this.text = text;
    }

    public static Object parse(String text) {
        MiniJson reader = new MiniJson(text);
        Object value = reader.value();
        reader.space();
        if (reader.pos != text.length()) throw reader.error("trailing text");
        return value;
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> object(Object value) {
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    public static List<Object> array(Object value) {
        return (List<Object>) value;
    }

    private Object value() {
        space();
        if (pos >= text.length()) throw error("unexpected end");
        char c = text.charAt(pos);
        if (c == '{') return objectValue();
        if (c == '[') return arrayValue();
        if (c == '"') return string();
        if (text.startsWith("true", pos)) return literal("true", Boolean.TRUE);
        if (text.startsWith("false", pos)) return literal("false", Boolean.FALSE);
        if (text.startsWith("null", pos)) return literal("null", null);
        return number();
    }

    private Map<String, Object> objectValue() {
        Map<String, Object> map = new LinkedHashMap<>();
        pos++;
        space();
        if (peek('}')) return map;
        do {
            space();
            String key = string();
            space();
            expect(':');
            map.put(key, value());
            space();
        } while (consume(','));
        expect('}');
        return map;
    }

    private List<Object> arrayValue() {
        List<Object> list = new ArrayList<>();
        pos++;
        space();
        if (peek(']')) return list;
        do {
            list.add(value());
            space();
        } while (consume(','));
        expect(']');
        return list;
    }

    private String string() {
        expect('"');
        StringBuilder out = new StringBuilder();
        while (text.charAt(pos) != '"') {
            char c = text.charAt(pos++);
            if (c == '\\') {
                char e = text.charAt(pos++);
                switch (e) {
                    case 'n': out.append('\n'); break;
                    case 't': out.append('\t'); break;
                    case 'r': out.append('\r'); break;
                    case 'u': out.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16)); pos += 4; break;
                    default: out.append(e);
                }
            } else {
                out.append(c);
            }
        }
        pos++;
        return out.toString();
    }

    private Object number() {
        int start = pos;
        while (pos < text.length() && "-+.eE0123456789".indexOf(text.charAt(pos)) >= 0) pos++;
        String n = text.substring(start, pos);
        if (n.isEmpty()) throw error("unexpected character");
        return n.contains(".") || n.contains("e") || n.contains("E") ? (Object) Double.parseDouble(n) : (Object) Long.parseLong(n);
    }

    private Object literal(String word, Object value) {
        pos += word.length();
        return value;
    }

    private void space() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) pos++;
    }

    private boolean peek(char c) {
        if (pos < text.length() && text.charAt(pos) == c) {
            pos++;
            return true;
        }
        return false;
    }

    private boolean consume(char c) {
        return peek(c);
    }

    private void expect(char c) {
        if (!peek(c)) throw error("expected '" + c + "'");
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException(what + " at " + pos + ": " + text.substring(pos, Math.min(text.length(), pos + 30)));
    }
}
