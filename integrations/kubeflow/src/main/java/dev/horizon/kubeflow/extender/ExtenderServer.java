package dev.horizon.kubeflow.extender;

import com.fasterxml.jackson.databind.node.TextNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.UnaryOperator;

/**
 * Serves {@link SchedulerExtender} over HTTP for kube-scheduler's extender configuration:
 * urlPrefix http://HOST:PORT, filterVerb "filter", prioritizeVerb "prioritize", bindVerb "bind",
 * managedResources nvidia.com/gpu (and the MIG resources) so only GPU pods are sent.
 */
public final class ExtenderServer implements AutoCloseable {
    private final HttpServer server;

    public ExtenderServer(SchedulerExtender extender, InetSocketAddress address) throws IOException {
        server = HttpServer.create(address, 0);
        server.createContext("/filter", exchange -> answer(exchange, extender::filter));
        server.createContext("/prioritize", exchange -> answer(exchange, extender::prioritize));
        server.createContext("/bind", exchange -> answer(exchange, extender::bind));
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void answer(HttpExchange exchange, UnaryOperator<String> verb) throws IOException {
        try (exchange) {
            int status;
            String body;
            if (!"POST".equals(exchange.getRequestMethod())) {
                status = 405;
                body = "{\"error\":\"extender verbs are POSTed\"}";
            } else {
                try {
                    body = verb.apply(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                    status = 200;
                } catch (IllegalArgumentException e) {
                    status = 400;
                    body = "{\"error\":" + TextNode.valueOf(e.getMessage()) + "}";
                }
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, bytes.length);
            exchange.getResponseBody().write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
