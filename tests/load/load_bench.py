#!/usr/bin/env python3
"""Load benchmark for a running control plane: JOBS job submissions from CLIENTS concurrent clients.

Prints the submit latency each client saw (p50, p99, max) and throughput, then the planner's decision latency
as the control plane measured it (horizon_decision_latency on /q/metrics, on its management port: its own p50 and
p99 over the run's plans, and the count). Run through ./horizon load, which can start a control plane for it.
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
    out = {}
    for line in text.splitlines():
        m = re.match(r'horizon_decision_latency_seconds(_count|_max|\{.*quantile="([0-9.]+)".*\})\s+(\S+)', line)
        if m:
            out[m.group(2) or m.group(1)] = float(m.group(3))
    return out


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

    threads = [threading.Thread(target=client, args=(i,)) for i in range(a.clients)]
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
    print(f"planner decisions:   {plans:.0f} plans during the run; decision latency ms as the control plane reports it "
          f"(its recent window): p50 {1000 * after.get('0.5', float('nan')):.1f}   p99 {1000 * after.get('0.99', float('nan')):.1f}"
          f"   max {1000 * after.get('_max', float('nan')):.1f}")
    if errors:
        print(f"{len(errors)} submissions failed; first: {errors[0]}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
