package dev.horizon.nvml.smi;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** A boxed text table in the style of nvidia-smi; columns take the width of their widest cell. */
final class TextTable {
    private final List<String> headers;
    private final List<Boolean> rightAligned;
    private final List<List<String>> rows = new ArrayList<>();

    private TextTable(List<String> headers, List<Boolean> rightAligned) {
        this.headers = headers;
        this.rightAligned = rightAligned;
    }

    /** Headers starting with '>' are right-aligned (numbers); the '>' is not printed. */
    static TextTable of(String... headers) {
        List<String> names = new ArrayList<>();
        List<Boolean> right = new ArrayList<>();
        for (String h : headers) {
            right.add(h.startsWith(">"));
            names.add(h.startsWith(">") ? h.substring(1) : h);
        }
        return new TextTable(names, right);
    }

    TextTable row(Object... cells) {
        if (cells.length != headers.size()) throw new IllegalArgumentException("expected " + headers.size() + " cells");
        List<String> row = new ArrayList<>();
        for (Object cell : cells) row.add(cell == null ? "N/A" : cell.toString());
        rows.add(row);
        return this;
    }

    boolean isEmpty() {
        return rows.isEmpty();
    }

    String render() {
        int[] widths = new int[headers.size()];
        for (int c = 0; c < widths.length; c++) {
            widths[c] = headers.get(c).length();
            for (List<String> row : rows) widths[c] = Math.max(widths[c], row.get(c).length());
        }
        StringBuilder out = new StringBuilder();
        String rule = rule(widths, '-');
        out.append(rule).append(line(headers, widths)).append(rule(widths, '='));
        for (List<String> row : rows) out.append(line(row, widths));
        return out.append(rule).toString();
    }

    private static String rule(int[] widths, char fill) {
        StringBuilder out = new StringBuilder("+");
        for (int w : widths) out.append(String.join("", Collections.nCopies(w + 2, String.valueOf(fill)))).append('+');
        return out.append('\n').toString();
    }

    private String line(List<String> cells, int[] widths) {
        StringBuilder out = new StringBuilder("|");
        for (int c = 0; c < widths.length; c++) {
            String cell = cells.get(c);
            String pad = " ".repeat(widths[c] - cell.length());
            out.append(' ').append(rightAligned.get(c) ? pad + cell : cell + pad).append(" |");
        }
        return out.append('\n').toString();
    }
}
