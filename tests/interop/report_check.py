#!/usr/bin/python3
"""The certify report as a person reads it, in a browser nobody here wrote (Debian's chromium,
headless, 1280 px wide).

  certify-good with --set fabric.pfc.headroom=8KiB --suggest (lab, under a second): test 5
  FAILs (the formula asks 40304 B), tests 1-2 are blocked by it, --suggest finds 40 KiB.

  - chromium lays report.html out at 1280 px: the page's scrollWidth (a copy of the report
    with a probe script appended, read back with --dump-dom) is at most 1280, no element's
    right edge passes 1280, no table or pre scrolls inside itself; every section is there
    (the what-ran table, the fix, the verdicts, tests 1-9, the suggestion's steps), and a
    --screenshot at 1280 px is written;
  - what ran: the profile's path, every --set, the version and the start date from
    result.json, the engine; the fix (the --set that passes) comes before the first test;
  - no raw JSON ({"), no exponent ticks (4.03e+04), booleans as yes/no;
  - every plot draws something: a bar of height > 0 or the words "every value is 0";
  - --set fabric.pfc.headroom=40303B, one byte short: "40303 B, below the 40304 B" (the
    reference said "39.36 KiB, below the 39.36 KiB").
Exit 77 (skip) when chromium is not installed (tools/bootstrap.sh installs it).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROCEPROBE, PROFILES = sys.argv[1], sys.argv[2]
CHROMIUM = shutil.which("chromium")
failed = []
PROBE = """<script>
(function () {
  var W = 1280, over = [], inner = [];
  document.querySelectorAll('body *').forEach(function (e) {
    var r = e.getBoundingClientRect();
    if (r.width > 0 && r.right > W + 0.5) over.push(e.tagName + ' ' + Math.round(r.right));
  });
  document.querySelectorAll('table, pre, figure, svg').forEach(function (e) {
    if (e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0) inner.push(e.tagName + ' ' + e.scrollWidth + '>' + e.clientWidth);
  });
  var ids = Array.prototype.map.call(document.querySelectorAll('section[id]'), function (s) { return s.id; });
  var p = document.createElement('pre');
  p.id = 'probe';
  p.textContent = JSON.stringify({scroll: document.documentElement.scrollWidth, over: over.slice(0, 10),
                                  inner: inner.slice(0, 10), sections: ids,
                                  ran: !!document.querySelector('table.ran'), fix: !!document.querySelector('.fix'),
                                  verdicts: !!document.querySelector('table.verdicts')});
  document.body.appendChild(p);
})();
</script>"""


def expect(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failed.append(what)


def certify(tmp, name, *args):
    out = os.path.join(tmp, name)
    p = subprocess.run([ROCEPROBE, "certify", os.path.join(PROFILES, "certify-good.yaml"), "-o", out, "-q", *args],
                       capture_output=True, text=True, timeout=300)
    assert os.path.exists(os.path.join(out, "report.html")), p.stderr
    return out, json.load(open(os.path.join(out, "result.json")))


def chromium(*args):
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           "--window-size=1280,1000", *args], capture_output=True, text=True, timeout=120)


if not CHROMIUM:
    print("chromium not installed: skipped (tools/bootstrap.sh installs it)")
    sys.exit(77)

with tempfile.TemporaryDirectory() as tmp:
    out, res = certify(tmp, "headroom", "--set", "fabric.pfc.headroom=8KiB", "--suggest")
    html = open(os.path.join(out, "report.html")).read()
    probe = os.path.join(tmp, "probe.html")
    open(probe, "w").write(html.replace("</body>", PROBE + "</body>"))
    p = chromium("--virtual-time-budget=2000", "--dump-dom", "file://" + probe)
    m = re.search(r"<pre id=\"probe\">(.*?)</pre>", p.stdout, re.S)
    got = json.loads(m.group(1).replace("&quot;", '"').replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&")) \
        if m else {}
    expect(bool(got), f"chromium ran the probe ({p.returncode}, {p.stderr.strip()[-200:] if not m else ''})")
    expect(got.get("scroll", 99999) <= 1280, f"the page's width at 1280 px: {got.get('scroll')} <= 1280")
    expect(got.get("over") == [] and got.get("inner") == [],
           f"nothing past 1280 px, nothing scrolling inside a table ({got.get('over')}, {got.get('inner')})")
    want = [f"t{i}" for i in range(1, 10)] + ["suggest"]
    expect(got.get("sections") == want and got.get("ran") and got.get("fix") and got.get("verdicts"),
           f"every section: what ran, fix, verdicts, tests 1-9, the suggestion ({got.get('sections')})")
    shot = os.path.join(tmp, "report.png")
    p = chromium("--screenshot=" + shot, "file://" + os.path.join(out, "report.html"))
    png = open(shot, "rb").read() if os.path.exists(shot) else b""
    expect(png[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(png[16:20], "big") == 1280,
           f"a screenshot 1280 px wide ({p.returncode})")

    env = res["environment"]
    at = html.find("<table class='ran'>")
    ran = html[at:html.find("</table>", at)] if at >= 0 else ""
    expect("profiles/certify-good.yaml" in ran and "--set fabric.pfc.headroom=8KiB" in ran and env["roceprobe"] in ran
           and env["started"] in ran and "lab" in ran, "what ran: profile, every --set, version, date, engine")
    fix, t1, verdicts = html.find("class='fix'"), html.find("<section id='t1'>"), html.find("table class='verdicts'")
    expect(0 <= fix < t1 and "--set fabric.pfc.headroom=40KiB" in html[fix:t1], "the fix (headroom=40KiB) before the tests")
    expect(0 <= verdicts < t1, "the verdicts before the tests")
    expect('{"' not in html and "{&quot;" not in html, "no raw JSON")
    ticks = re.findall(r"class='tk'[^>]*>([^<]*)<", html)
    expect(ticks and not [t for t in ticks if re.search(r"\de[+-]?\d", t)], f"no exponent ticks ({len(ticks)} ticks)")
    expect(">true<" not in html and ">false<" not in html and ": true" not in html and ": false" not in html,
           "booleans as words")
    for fig in re.findall(r"<svg.*?</svg>", html, re.S):
        heights = [float(h) for h in re.findall(r"<rect [^>]*height='([0-9.]+)'", fig)]
        drawn = any(h > 0 for h in heights) or "<polyline" in fig or "every value is 0" in fig
        expect(drawn, "a plot draws something (a bar, a line, or 'every value is 0')")

    out, res = certify(tmp, "short", "--set", "fabric.pfc.headroom=40303B")
    t5 = next(t for t in res["tests"] if t["id"] == 5)
    md = open(os.path.join(out, "report.md")).read()
    why = (t5.get("cause") or {}).get("text", "")
    expect("40303 B, below the 40304 B" in why and "40303 B, below the 40304 B" in md,
           f"one byte short, in bytes: {why[:80]}")
sys.exit(1 if failed else 0)
