#!/usr/bin/env python3
"""roceprobe run --metrics, scraped by a real Prometheus (issue 28).

    prometheus (127.0.0.1:P, scrape every 1 s with the key, its TSDB in a temp dir)
        | GET /metrics
        v
    roceprobe run --metrics 127.0.0.1:M --metrics-linger 8s --metrics-key-file K
        tx --pair:l0--> rx   (a 2 s flow; rx also sends 100 PFC frames, prio 3, to tx)

Expectations: Prometheus' own query results for the flow's tx/rx/lost and tx's port's PFC
frames equal result.json's; `promtool check metrics` finds nothing in a scrape; a scrape
during the run already counts packets; a second roceprobe on the same port is one line and
exit 2; a bad --metrics (every address: 0.0.0.0, [::]; an address others reach without a
key) is one line and exit 2. The run has a key (--metrics-key-file): Prometheus scrapes
with it (authorization: credentials_file), a scrape without it or with another is 401.
Skipped (77) without Debian's prometheus package.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import expect, finish, free_port  # noqa: E402

ROCEPROBE = sys.argv[1]
PROFILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "profiles")
DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "metrics")
PROMETHEUS, PROMTOOL = shutil.which("prometheus"), shutil.which("promtool")

PROFILE = """name: metrics
defaults: {speed: 10G, opcode: write, message_size: 1024, mtu: 1024, dscp: 26, ecn: ect0}
hosts:
  - {name: tx, mac: "02:00:00:00:00:01", ipv4: 192.0.2.1, port: "pair:l0:0"}
  - {name: rx, mac: "02:00:00:00:00:02", ipv4: 192.0.2.2, port: "pair:l0:1", respond: {cnp: on, ack: on}}
traffic:
  - {name: f, pattern: flow, src: tx, dst: rx, rate: 200M, messages: 40000}
  - {name: p, kind: pfc, host: rx, frame: pfc, priorities: [3], quanta: 1000, fps: 1000, duration: 100ms}
"""


def get(url, timeout=5, token=None):
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.read().decode()


def status(url, token=None):
    """The HTTP status of a GET (401 for a scrape without the key)."""
    try:
        get(url, timeout=2, token=token)
        return 200
    except urllib.error.HTTPError as e:
        return e.code


def scrape_until(port, want, tries=300, pause=0.1, token=None):
    """Scrapes 127.0.0.1:port/metrics until a scrape holds every line of want (the last one
    read either way; "" if none answered): want "\nroceprobe_done 1\n" waits for the final values."""
    text = ""
    for _ in range(tries):
        try:
            text = get(f"http://127.0.0.1:{port}/metrics", timeout=2, token=token)
            if all(w in text for w in want):
                return text
        except OSError:
            pass
        time.sleep(pause)
    return text


FINAL = ("\nroceprobe_done 1\n",)


def query(prom, q):
    """Prometheus' instant query: {labels-as-tuple: value}."""
    j = json.loads(get(f"http://127.0.0.1:{prom}/api/v1/query?" + urllib.parse.urlencode({"query": q})))
    if j.get("status") != "success":
        raise RuntimeError(f"query {q}: {j}")
    return {tuple(sorted((k, v) for k, v in r["metric"].items() if k not in ("__name__", "instance", "job"))):
            float(r["value"][1]) for r in j["data"]["result"]}


def start_prometheus(tmp, prom, target, key):
    """Prometheus scraping target with the run's key (authorization: credentials_file)."""
    cfg = os.path.join(tmp, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write(f"""global: {{scrape_interval: 1s, scrape_timeout: 1s}}
scrape_configs:
  - job_name: roceprobe
    authorization: {{credentials_file: {key}}}
    static_configs: [{{targets: ["127.0.0.1:{target}"]}}]
""")
    log = open(os.path.join(tmp, "prometheus.log"), "w")
    p = subprocess.Popen([PROMETHEUS, f"--config.file={cfg}", f"--storage.tsdb.path={tmp}/tsdb",
                          f"--web.listen-address=127.0.0.1:{prom}", "--log.level=warn"],
                         stdout=log, stderr=subprocess.STDOUT)
    for _ in range(150):
        try:
            if "Ready" in get(f"http://127.0.0.1:{prom}/-/ready", timeout=1):
                return p
        except OSError:
            pass
        if p.poll() is not None:
            break
        time.sleep(0.2)
    p.kill()
    sys.exit(f"prometheus did not become ready: {open(log.name).read()[-2000:]}")


def main():
    if not PROMETHEUS or not PROMTOOL:
        print("metrics: Debian's prometheus package is not installed (tools/bootstrap.sh --tests)")
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="rp-metrics-")
    prom_port, port = free_port(), free_port()
    keyfile = os.path.join(tmp, "metrics.key")
    with open(keyfile, "w") as f:  # the run and Prometheus share it; nobody else may scrape
        f.write("a burn-in's own metrics secret\n")
    os.chmod(keyfile, 0o600)
    token = "a burn-in's own metrics secret"
    prom = start_prometheus(tmp, prom_port, port, keyfile)
    try:
        path, out = os.path.join(tmp, "p.yaml"), os.path.join(tmp, "out")
        with open(path, "w") as f:
            f.write(PROFILE)
        run = subprocess.Popen([ROCEPROBE, "run", path, "-o", out, "--metrics", f"127.0.0.1:{port}",
                                "--metrics-linger", "8s", "--metrics-key-file", keyfile], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # A scrape while traffic flows (the run sends for about 2 s).
        live = scrape_until(port, ("\nroceprobe_done 0\n", "roceprobe_flow_tx_packets_total{"), tries=100, token=token)
        url = f"http://127.0.0.1:{port}/metrics"
        expect(status(url) == 401 and status(url, "not the key") == 401 and status(url, token) == 200,
               f"with a key, a scrape without it or with another is 401, with it 200 "
               f"({status(url)}, {status(url, 'not the key')}, {status(url, token)})")
        expect("\nroceprobe_done 0\n" in live, "a scrape during the run serves the flow's counters with roceprobe_done 0")
        final_text = scrape_until(port, FINAL, tries=100, pause=0.2, token=token)  # the final values, during the linger
        expect("\nroceprobe_done 1\n" in final_text, "after the run the scrape says roceprobe_done 1")
        # While it lingers, Prometheus scrapes the final values (once the target is gone its
        # series are marked stale: the queries below run before that).
        done = None
        for _ in range(50):
            done = next(iter(query(prom_port, "roceprobe_done").values()), None)
            if done == 1:
                break
            time.sleep(0.2)
        expect(done == 1, "Prometheus scraped roceprobe_done 1 during the linger")
        with open(os.path.join(out, "result.json")) as f:
            j = json.load(f)
        fl = j["flows"][0]
        tx = next(p for p in j["ports"] if p["node"] == "tx")
        p3 = next(q for q in tx["prio"] if q["prio"] == 3)

        def one(q):
            r = query(prom_port, q)
            return next(iter(r.values())) if len(r) == 1 else None

        lbl = '{flow="0",src="tx",dst="rx",prio="3"}'
        for name, key in (("tx_packets", "tx_packets"), ("rx_packets", "rx_packets"), ("lost_packets", "lost")):
            v = one(f"roceprobe_flow_{name}_total{lbl}")
            expect(v == fl[key], f"Prometheus' roceprobe_flow_{name}_total {v} == result.json flows[0].{key} {fl[key]}")
        v = one('roceprobe_port_pfc_rx_frames_total{host="tx",prio="3"}')
        expect(v == p3["pfc_rx"] and v > 0,
               f"Prometheus' roceprobe_port_pfc_rx_frames_total{{host=tx,prio=3}} {v} == result.json {p3['pfc_rx']} (> 0)")
        v = one('roceprobe_port_paused_seconds_total{host="tx",prio="3"}')
        expect(v is not None and abs(v - p3["paused_ns"] / 1e9) < 1e-9,
               f"paused seconds {v} == result.json paused_ns {p3['paused_ns']} / 1e9")
        n = one('roceprobe_flow_latency_seconds_count{dst="rx",prio="3"}')
        lat = fl["latency_ns"]
        expect(n == lat["count"], f"the latency histogram's count {n} == result.json latency_ns.count {lat['count']}")
        # Prometheus' own quantile from the buckets brackets result.json's p99 (edges 2^k-1, 1.5x2^k-1 ns).
        q99 = one('histogram_quantile(0.99, roceprobe_flow_latency_seconds_bucket{dst="rx",prio="3"})')
        expect(q99 is not None and lat["p99"] / 2 <= q99 * 1e9 <= lat["p99"] * 2,
               f"histogram_quantile(0.99) {q99} s is within a bucket's factor of result.json p99 {lat['p99']} ns")
        # The shipped Grafana dashboard: every query is valid PromQL to this Prometheus, and
        # every run-side series it names is in the run's scrape.
        dash = json.load(open(os.path.join(DOCS, "grafana-burnin.json")))
        exprs = [t["expr"] for p in dash["panels"] for t in p["targets"]]
        bad = []
        for e in exprs:
            try:
                query(prom_port, e)
            except (RuntimeError, OSError) as x:
                bad.append(f"{e}: {x}")
        expect(exprs and not bad, f"the dashboard's {len(exprs)} queries are valid PromQL ({bad[:1]})")
        names = set(re.findall(r"roceprobe_[a-z_]+", " ".join(exprs)))
        missing = [n for n in names if not n.startswith(("roceprobe_lab_", "roceprobe_switch_"))
                   and re.sub(r"_(bucket|sum|count)$", "", n) not in final_text]
        expect(not missing, f"every run series the dashboard names is served ({missing})")
        _, err = run.communicate(timeout=60)
        expect(run.returncode == 0, f"run exits 0 after the linger (got {run.returncode}: {err.strip()[-300:]})")
        expect(f"metrics at http://127.0.0.1:{port}/metrics (scrapes prove the key)" in err,
               "run says where its metrics are, and that scrapes prove the key")
        for what, text in (("live", live), ("final", final_text)):
            c = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True, text=True)
            expect(c.returncode == 0 and not (c.stdout + c.stderr).strip(),
                   f"promtool check metrics: the {what} scrape is clean ({(c.stdout + c.stderr).strip()[:300]})")
        # A port in use, a bad spec: one line, exit 2, no DIR.
        holder = subprocess.Popen([ROCEPROBE, "run", path, "-o", os.path.join(tmp, "o2"), "--metrics", str(port),
                                   "--metrics-linger", "5s"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True)
        for _ in range(100):
            try:
                get(f"http://127.0.0.1:{port}/", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        second = subprocess.run([ROCEPROBE, "run", path, "-o", os.path.join(tmp, "o3"), "--metrics", str(port)],
                                capture_output=True, text=True, timeout=60)
        lines = [l for l in second.stderr.splitlines() if l.startswith("roceprobe run:")]
        expect(second.returncode == 2 and len(lines) == 1 and "cannot listen on 127.0.0.1:" in lines[0],
               f"a second run on the same port: one line, exit 2 ({second.returncode}: {second.stderr.strip()[:200]})")
        expect(not os.path.exists(os.path.join(tmp, "o3")), "... and no output directory")
        holder.send_signal(2)
        holder.communicate(timeout=60)
        # gen: the final scrape's flows and ports == its own --json report (its numbers, which
        # tests/lab/gen_check.py holds against tshark and net_pcap files).
        gport = free_port()
        gen = subprocess.Popen([ROCEPROBE, "gen", path, "--duration", "1", "--json", "--metrics", str(gport),
                                "--metrics-linger", "4s", "--set", "hosts.0.port=net_null0",
                                "--set", "hosts.1.port=net_null1"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        gtext = scrape_until(gport, FINAL, tries=150)
        gout, gerr = gen.communicate(timeout=60)
        gj = json.loads(gout)
        served = {m.group(1): int(m.group(2)) for m in
                  re.finditer(r'^roceprobe_flow_tx_packets_total\{flow="(\d+)"[^}]*\} (\d+)$', gtext, re.M)}
        want = {str(f["id"]): f["tx_packets"] for f in gj["flows"]}
        expect(gen.returncode == 0 and served == want and sum(want.values()) > 0,
               f"gen: the final scrape's flow tx packets {served} == its --json {want}")
        ptx = {m.group(1): int(m.group(2)) for m in
               re.finditer(r'^roceprobe_port_tx_packets_total\{host="(\w+)"\} (\d+)$', gtext, re.M)}
        expect(ptx == {p["node"]: p["tx_packets"] for p in gj["ports"]},
               f"gen: the ports' tx packets {ptx} == its --json")
        # lab: the final scrape (every flow of a 9-host incast) == result.json, and its
        # virtual time and events == result.json's lab section.
        lport = free_port()
        lout = os.path.join(tmp, "lab")
        lab = subprocess.Popen([ROCEPROBE, "lab", os.path.join(PROFILES, "incast-8to1.yaml"), "-o", lout, "--metrics",
                                str(lport), "--metrics-linger", "4s"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
        ltext = scrape_until(lport, FINAL)
        lab.communicate(timeout=120)
        lj = json.load(open(os.path.join(lout, "result.json")))
        sv = {(m.group(1), m.group(2)): int(m.group(3)) for m in re.finditer(
            r'^roceprobe_flow_(tx_packets|rx_packets|lost_packets)_total\{flow="(\d+)"[^}]*\} (\d+)$', ltext, re.M)}
        want = {(k, str(f["id"])): f[j] for f in lj["flows"]
                for k, j in (("tx_packets", "tx_packets"), ("rx_packets", "rx_packets"), ("lost_packets", "lost"))}
        expect(lab.returncode == 0 and sv == want and len(want) == 3 * len(lj["flows"]) > 0,
               f"lab: the final scrape's {len(sv)} flow values == result.json's {len(want)}")
        vm = re.search(r"^roceprobe_lab_virtual_seconds (\S+)$", ltext, re.M)
        em = re.search(r"^roceprobe_lab_events_total (\d+)$", ltext, re.M)
        expect(vm and round(float(vm.group(1)) * 1e9) == lj["lab"]["virtual_ns"] and em and
               int(em.group(1)) == lj["lab"]["events"],
               f"lab: virtual time and events == result.json lab.virtual_ns, lab.events ({vm and vm.group(1)}, {em and em.group(1)})")
        expect('roceprobe_lab_stage{stage="done"} 1' in ltext, "lab: the stage is done once final")
        # certify: the verdicts served == result.json's tests[] (a profile that fails some).
        cport = free_port()
        cout = os.path.join(tmp, "cert")
        cert = subprocess.Popen([ROCEPROBE, "certify", os.path.join(PROFILES, "headroom-too-small.yaml"), "-o", cout,
                                 "--metrics", str(cport), "--metrics-linger", "3s", "-q"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        ctext = scrape_until(cport, FINAL, tries=600)
        cert.communicate(timeout=300)
        cj = json.load(open(os.path.join(cout, "result.json")))
        code = {"PASS": 1, "FAIL": 0}
        want = {str(t["id"]): code.get(t["verdict"], -1) for t in cj["tests"]}
        got = {m.group(1): int(float(m.group(2))) for m in re.finditer(
            r'^roceprobe_certify_verdict\{test="(\d+)",name="[a-z-]+"\} (\S+)$', ctext, re.M)}
        expect(got == want and 0 in want.values(),
               f"certify: the verdicts served {got} == result.json's {want} (some FAIL)")
        m = re.search(r"^roceprobe_certify_tests_done (\d+)$", ctext, re.M)
        expect(m and int(m.group(1)) == len(cj["tests"]), f"certify: tests done {m and m.group(1)} == {len(cj['tests'])}")
        for bad in ("host:9100", "0", "70000", "[::1]", "0.0.0.0:9464", "[::]:9464", "192.0.2.1:9464"):
            b = subprocess.run([ROCEPROBE, "run", path, "-o", os.path.join(tmp, "o4"), "--metrics", bad],
                               capture_output=True, text=True, timeout=30)
            expect(b.returncode == 2 and b.stderr.count("\n") == 1 and "--metrics: " in b.stderr,
                   f"--metrics {bad}: one line, exit 2 ({b.stderr.strip()})")
    finally:
        prom.terminate()
        try:
            prom.wait(timeout=20)
        except subprocess.TimeoutExpired:
            prom.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    finish("metrics")


main()
