package dev.horizon.nvml.smi;

import dev.horizon.nvml.error.NvmlException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** `horizon smi --json`: the facade's records as JSON, field names as the records name them. */
public final class SmiJson {
    private SmiJson() {}

    static String render(SmiReport report) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("driver", tree(report.driver()));
        List<Object> gpus = new ArrayList<>();
        for (SmiReport.Entry entry : report.gpus()) {
            Map<String, Object> gpu = new LinkedHashMap<>();
            gpu.put("index", entry.index());
            if (entry.gpu() != null) gpu.putAll(asMap(tree(entry.gpu())));
            gpu.put("migDevices", tree(entry.migDevices()));
            gpu.put("processes", tree(entry.processes()));
            gpu.put("error", tree(entry.error()));
            gpus.add(gpu);
        }
        root.put("gpus", gpus);
        return Json.write(root);
    }

    /** Records become maps of their components, enums their names, lists lists. */
    public static Object tree(Object value) {
        if (value == null || value instanceof String || value instanceof Number || value instanceof Boolean) return value;
        if (value instanceof Enum) return ((Enum<?>) value).name();
        if (value instanceof List) {
            List<Object> out = new ArrayList<>();
            for (Object item : (List<?>) value) out.add(tree(item));
            return out;
        }
        if (value instanceof NvmlException) {
            NvmlException e = (NvmlException) value;
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("code", e.code());
            out.put("name", e.errorName());
            out.put("function", e.function());
            out.put("detail", e.detail());
            out.put("hint", e.hint());
            return out;
        }
        if (value instanceof Record) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (RecordComponent component : value.getClass().getRecordComponents()) {
                try {
                    out.put(component.getName(), tree(component.getAccessor().invoke(value)));
                } catch (IllegalAccessException | InvocationTargetException e) {
                    throw new IllegalStateException("cannot read " + component, e);
                }
            }
            return out;
        }
        return value.toString();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asMap(Object tree) {
        return (Map<String, Object>) tree;
    }
}
