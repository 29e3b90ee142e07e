#!/usr/bin/env python3
"""Load benchmark for a running control plane: JOBS job submissions from CLIENTS concurrent clients.

Prints the submit latency each client saw (p50, p99, max) and throughput, then the planner's decision latency
as the control plane measured it (the horizon_decision_latency histogram on /q/metrics, on its management port: p50
and p99 over the run's plans, interpolated within the buckets as Prometheus's histogram_quantile does, and the count).
Run through ./horizon load, which can start a control plane for it.
"""
import argparse
import http.client
import json
import re
import sys
import threading
import time
import urllib.parse

CLASSES = [("BATCH_INFERENCE", 3600), ("TRAINING", 14400), ("QUANTIZATION", 1800), ("DEBUG", 600)]


def call(conn, method, path, token, body=None):
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    conn.request(method, path, body=body, headers=headers)
    r = conn.getresponse()
    return r.status, r.read().decode()


def percentile(sorted_values, q):
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def decision_metrics(metrics_url):
    u = urllib.parse.urlparse(metrics_url)
    conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=30)
    conn.request("GET", u.path or "/q/metrics")
    r = conn.getresponse()
    status, text = r.status, r.read().decode()
    if status != 200:
        sys.exit(f"horizon: load: {metrics_url} answered {status}")
    out = {"buckets": {}}
    for line in text.splitlines():
        m = re.match(r'horizon_decision_latency_seconds(_count|_max|_bucket\{.*le="([^"]+)".*\})\s+(\S+)', line)
        if m and m.group(2):
            out["buckets"][float(m.group(2))] = float(m.group(3))
        elif m:
            out[m.group(1)] = float(m.group(3))
    return out


def histogram_quantile(q, before, after):
    """The q-quantile of what was observed between two scrapes of a cumulative histogram, as Prometheus computes it."""
    bounds = sorted(after["buckets"])
    counts = [after["buckets"][b] - before["buckets"].get(b, 0) for b in bounds]
    if not counts or counts[-1] <= 0:
        return float("nan")
    rank, lower, below = q * counts[-1], 0.0, 0.0
    for bound, count in zip(bounds, counts):
        if count >= rank:
            if bound == float("inf"):
                return lower
            return lower + (bound - lower) * (rank - below) / max(count - below, 1e-12)
        lower, below = bound, count
    return lower


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", required=True)
    p.add_argument("--token", required=True, help="an admin token (the benchmark creates its team)")
    p.add_argument("--jobs", type=int, default=10000)
    p.add_argument("--clients", type=int, default=50)
    p.add_argument("--team", default="load")
    p.add_argument("--metrics-url", help="the Prometheus endpoint on the management port (default http://HOST:9000/q/metrics)")
    a = p.parse_args()
    u = urllib.parse.urlparse(a.url)
    host, port = u.hostname, u.port or 80
    metrics_url = a.metrics_url or f"http://{host}:9000/q/metrics"

    conn = http.client.HTTPConnection(host, port, timeout=30)
    status, body = call(conn, "POST", "/api/v1/teams", a.token, json.dumps({"name": a.team, "share": 1.0}))
    if status not in (201, 409):
        sys.exit(f"horizon: load: creating team {a.team} answered {status}: {body}")
    before = decision_metrics(metrics_url)

    latencies, errors, lock = [], [], threading.Lock()
    per_client = [a.jobs // a.clients + (1 if i < a.jobs % a.clients else 0) for i in range(a.clients)]

    def client(i):
        c = http.client.HTTPConnection(host, port, timeout=60)
        mine, failed = [], []
        for k in range(per_client[i]):
            cls, duration = CLASSES[(i + k) % len(CLASSES)]
            job = json.dumps({"name": f"load-{i}-{k}", "team": a.team, "class": cls, "perReplica": {"gpus": 1 + (k % 2)},
                              "durationEstimateSeconds": duration})
            t = time.perf_counter()
            try:
                status, text = call(c, "POST", "/api/v1/jobs", a.token, job)
            except (OSError, http.client.HTTPException) as e:
                status, text = 0, str(e)
                c = http.client.HTTPConnection(host, port, timeout=60)
            mine.append(time.perf_counter() - t)
            if status != 201:
                failed.append(f"{status}: {text[:200]}")
        with lock:
            latencies.extend(mine)
            errors.extend(failed)

    # daemon clients: Ctrl-C (KeyboardInterrupt in the main thread's join) ends the run at once; non-daemon ones kept the
    # interpreter submitting to the end, so the launcher never got to stop the control plane it started
    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(a.clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    time.sleep(2)  # the planner plans shortly after the last arrival
    after = decision_metrics(metrics_url)

    lat = sorted(x * 1000 for x in latencies)
    print(f"submitted {len(lat) - len(errors)} of {a.jobs} jobs from {a.clients} clients in {wall:.1f} s ({len(lat) / wall:.0f} jobs/s)")
    print(f"submit latency ms:   p50 {percentile(lat, 0.50):.1f}   p99 {percentile(lat, 0.99):.1f}   max {lat[-1]:.1f}")
    plans = after.get("_count", 0) - before.get("_count", 0)
    print(f"planner decisions:   {plans:.0f} plans during the run; decision latency ms from the control plane's histogram: "
          f"p50 {1000 * histogram_quantile(0.5, before, after):.1f}   p99 {1000 * histogram_quantile(0.99, before, after):.1f}"
          f"   max {1000 * after.get('_max', float('nan')):.1f}")
    if errors:
        print(f"{len(errors)} submissions failed; first: {errors[0]}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
