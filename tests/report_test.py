#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""report_test.py CPUIDLE OUTDIR - the HTML report, opened in headless Chromium.

Writes reports of the bundled trace with "cpuidle sim --report" and
"cpuidle sweep --report", loads each with file://, and checks that the page
logs no error, that every chart has its elements (one point per governor and
platform, one bar per governor and state with residency, the histogram's bars
and the target-residency markers, the timeline's choices: as many as the
replay made), that the timeline zooms and pans (buttons, wheel, drag), and
that text is escaped (a trace named with < > & and quotes).  Saves a
screenshot, OUTDIR/report.png, and, with CPUIDLE_REPORT_SCREENSHOT=PATH,
another copy there (doc/report.png for the README).

Needs chromium, chromedriver and Python's selenium (Debian: chromium,
chromium-driver, python3-selenium); without them it skips (exit 77), unless
CPUIDLE_BROWSER_TESTS=1 (CI), which makes their absence a failure.
Chromium gets generous timeouts and is always stopped at the end, by
process id.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

STRICT = os.environ.get("CPUIDLE_BROWSER_TESTS") == "1"


def skip(why):
    print(("FAIL (CPUIDLE_BROWSER_TESTS=1): " if STRICT else "SKIP: ") + why)
    sys.exit(1 if STRICT else 77)


try:
    import selenium  # noqa: F401
except ImportError:
    # Debian's python3-selenium is for /usr/bin/python3; another python3
    # may come first on PATH (pyenv, a virtualenv): run with Debian's.
    deb = "/usr/bin/python3"
    if (not os.environ.get("REPORT_TEST_REEXEC") and os.access(deb, os.X_OK) and
            os.path.realpath(sys.executable) != os.path.realpath(deb)):
        os.environ["REPORT_TEST_REEXEC"] = "1"
        os.execv(deb, [deb] + sys.argv)
    skip("no Python selenium (Debian: python3-selenium)")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

LOAD_TIMEOUT = 120      # seconds: a loaded 2-core CI machine
WAIT = 30
WATCHDOG = 420          # the whole test; meson's timeout is longer

failures = []


def check(cond, what):
    if cond:
        print("ok   " + what)
    else:
        print("FAIL " + what)
        failures.append(what)
    return cond


def find_chromium():
    for path in ("/usr/lib/chromium/chromium", shutil.which("chromium"),
                 shutil.which("chromium-browser"), shutil.which("google-chrome")):
        if path and os.access(path, os.X_OK):
            return path
    return None


def find_chromedriver():
    for path in (shutil.which("chromedriver"), "/usr/lib/chromium/chromedriver"):
        if path and os.access(path, os.X_OK):
            return path
    return None


def run(cli, *args, cwd=None):
    p = subprocess.run([cli] + list(args), capture_output=True, text=True, timeout=300, cwd=cwd)
    if p.returncode:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout


def platform_targets(cli, name):
    """{state: target residency in us} of a bundled platform."""
    out, states, table = run(cli, "platform", "show", name), {}, False
    for line in out.splitlines():
        if line.startswith("index name"):
            table = True
            continue
        f = line.split()
        if table and len(f) >= 4 and f[0].isdigit():
            states[f[1]] = float(f[3])
        elif table and not f:
            break
    return states


def kill_ours(marker):
    """Chromium processes whose command line holds @marker (our profile dir)."""
    me = os.getpid()
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == me:
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if marker.encode() in cmd:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass


def start_browser(chromium, chromedriver, profile, logdir):
    opts = Options()
    opts.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--disable-extensions", "--no-first-run", "--no-default-browser-check",
              "--disable-background-networking", "--hide-scrollbars",
              "--force-device-scale-factor=1", "--window-size=1200,900",
              "--user-data-dir=" + profile):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # the sanitizers' and meson's settings are for our binaries, not Chromium's
    env = {k: v for k, v in os.environ.items()
           if k not in ("MALLOC_PERTURB_", "ASAN_OPTIONS", "UBSAN_OPTIONS", "TSAN_OPTIONS",
                        "LSAN_OPTIONS", "MSAN_OPTIONS", "LD_PRELOAD")}
    service = Service(executable_path=chromedriver,
                      log_path=os.path.join(logdir, "chromedriver.log"), env=env)
    driver = webdriver.Chrome(service=service, options=opts)
    driver.set_page_load_timeout(LOAD_TIMEOUT)
    driver.set_script_timeout(LOAD_TIMEOUT)
    return driver, service


def load(driver, path):
    driver.get("file://" + os.path.abspath(path))
    WebDriverWait(driver, LOAD_TIMEOUT).until(
        lambda d: d.execute_script("return document.readyState") == "complete")
    errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    check(not errors, "%s: no console errors %s" % (os.path.basename(path), errors or ""))


def js(driver, script, *args):
    return driver.execute_script(script, *args)


def view(driver):
    """The timeline's view: start, width, choices in it (checked against those drawn)."""
    x, w = (float(v) for v in js(driver, "return document.getElementById('tl')"
                                         ".getAttribute('data-view')").split())
    n = int(js(driver, "return document.getElementById('tl').getAttribute('data-in-view')"))
    drawn = js(driver, "return Array.from(document.querySelectorAll('#tl-plot rect.seg'))"
                       ".filter(r => r.style.display !== 'none').length")
    check(drawn == n, "timeline: the %d choices in view drawn, no other (%d)" % (n, drawn))
    return x, w, n


def wait_view(driver, before, what):
    try:
        WebDriverWait(driver, WAIT).until(lambda d: view(d) != before)
    except Exception:
        pass
    after = view(driver)
    return after


def check_sim_report(driver, path, sim, targets):
    govs = [r["governor"] for r in sim["runs"]]
    load(driver, path)
    # (a) one point per governor, on the one platform
    pts = js(driver, "return Array.from(document.querySelectorAll('svg.scatter circle.pt'))"
                     ".map(c => [c.dataset.governor, c.dataset.platform])")
    check(sorted(pts) == sorted([g, "laptop"] for g in govs),
          "scatter: one point per governor %s" % pts)
    check(js(driver, "return Array.from(document.querySelectorAll('circle.pt')).every("
                     "c => { const b = c.getBoundingClientRect(); return b.width > 0; })"),
          "scatter: points drawn")
    # (b) one bar per governor and state with residency
    bars = js(driver, "return Array.from(document.querySelectorAll('svg.residency rect.bar'))"
                      ".map(r => [r.dataset.governor, r.dataset.state, r.getBBox().width])")
    want = sorted([r["governor"], s["name"]] for r in sim["runs"] for s in r["states"]
                  if s["time_ns"] > 0)
    check(sorted([g, s] for g, s, _ in bars) == want,
          "residency: one bar per governor x state with residency (%d)" % len(want))
    check(all(w > 0 for _, _, w in bars), "residency: bars have a width")
    widths = {}
    for g, _, w in bars:
        widths[g] = widths.get(g, 0) + w
    check(max(widths.values()) - min(widths.values()) < 1, "residency: bars stack to 100%")
    # (c) the histogram's bars and the platform's target residencies
    hb = js(driver, "return Array.from(document.querySelectorAll('#histogram rect.hbar'))"
                    ".map(r => r.getBBox().height)")
    check(len(hb) >= 5 and all(h > 0 for h in hb), "histogram: %d bars" % len(hb))
    marks = js(driver, "return Array.from(document.querySelectorAll('#histogram line.target'))"
                       ".map(l => l.dataset.state)")
    check(sorted(marks) == sorted(s for s, t in targets.items() if t > 0),
          "histogram: target residency markers %s" % marks)
    # (d) the timeline: the true intervals, then every choice of each governor
    # (the bundled trace idles CPU 0 only, and the window holds all of it)
    rows = js(driver, "return Array.from(document.querySelectorAll('#tl-plot g.row')).map("
                      "g => [g.dataset.name, g.querySelectorAll('rect').length])")
    check(rows[0] == ["true idle", sim["runs"][0]["intervals"]],
          "timeline: one true interval per interval %s" % rows[0])
    check(rows[1:] == [[r["governor"], r["entries"]] for r in sim["runs"]],
          "timeline: one segment per idle entry, per governor %s" % rows[1:])
    total = sum(n for _, n in rows[1:])
    x0, w0, n0 = view(driver)
    check(x0 == 0 and n0 == total, "timeline: whole window in view (%d choices)" % n0)
    # zoom in with the button, the wheel; pan by dragging; zoom out; reset
    driver.find_element(By.ID, "tl-in").click()
    x1, w1, n1 = wait_view(driver, (x0, w0, n0), "zoom in")
    check(abs(w1 - w0 / 2) < 1e-6 * w0 and n1 < n0,
          "timeline: + halves the view (%g -> %g) with fewer choices (%d -> %d)" %
          (w0, w1, n0, n1))
    plot = driver.find_element(By.ID, "tl-plot")
    ActionChains(driver).scroll_from_origin(ScrollOrigin.from_element(plot), 0, -200).perform()
    x2, w2, n2 = wait_view(driver, (x1, w1, n1), "wheel")
    check(w2 < w1 and n2 <= n1, "timeline: the wheel zooms in (%g -> %g)" % (w1, w2))
    ActionChains(driver).move_to_element(plot).click_and_hold().move_by_offset(-150, 0) \
        .release().perform()
    x3, w3, n3 = wait_view(driver, (x2, w2, n2), "drag")
    check(x3 > x2 and abs(w3 - w2) < 1e-6 * w0, "timeline: dragging pans (%g -> %g)" % (x2, x3))
    driver.find_element(By.ID, "tl-out").click()
    x4, w4, n4 = wait_view(driver, (x3, w3, n3), "zoom out")
    check(w4 > w3 and n4 >= n3, "timeline: - zooms out (%g -> %g)" % (w3, w4))
    driver.find_element(By.ID, "tl-reset").click()
    check(wait_view(driver, (x4, w4, n4), "reset") == (0, w0, n0),
          "timeline: reset shows the whole window")
    ticks = js(driver, "return document.querySelectorAll('#tl-axis text').length")
    check(ticks >= 3, "timeline: an axis (%d ticks)" % ticks)
    # a segment under the pointer says what it is
    seg = js(driver, "const s = Array.from(document.querySelectorAll('#tl-plot rect.seg'));"
                     "return s.reduce((a, b) => a.getBoundingClientRect().width >= "
                     "b.getBoundingClientRect().width ? a : b);")
    ActionChains(driver).move_to_element(seg).perform()
    tip = js(driver, "const t = document.getElementById('tl-tip');"
                     "return t.hidden ? '' : t.textContent")
    check(any(tip.startswith(g + ":") for g in govs), "timeline: a tooltip (%r)" % tip)
    # (e) the numbers
    cells = js(driver, "return Array.from(document.querySelectorAll('#numbers tr')).slice(1)"
                       ".map(r => r.cells[1].textContent)")
    check(cells == govs, "table: a row per governor %s" % cells)
    check(not js(driver, "return document.querySelector('.tl-controls').offsetParent === null"),
          "timeline controls visible")


def check_sweep_report(driver, path, trace_name):
    load(driver, path)
    pts = js(driver, "return Array.from(document.querySelectorAll('svg.scatter')).map(s => "
                     "[s.dataset.platform, Array.from(s.querySelectorAll('circle.pt'))"
                     ".map(c => c.dataset.governor)])")
    check(pts == [["laptop", ["menu", "teo", "oracle"]], ["skylake", ["menu", "teo", "oracle"]]],
          "sweep scatter: a panel per platform, a point per governor %s" % pts)
    lanes = js(driver, "return Array.from(new Set(Array.from(document.querySelectorAll("
                       "'#histogram line.target')).map(l => l.dataset.platform)))")
    check(lanes == ["laptop", "skylake"], "sweep histogram: markers of both platforms")
    title = js(driver, "return document.title")
    check(trace_name in title, "escaping: the trace's name in the title (%r)" % title)
    check(js(driver, "return document.querySelectorAll('#numbers tr').length") == 7,
          "sweep table: a row per platform x governor")
    check(js(driver, "return document.querySelectorAll('#tl-plot rect.seg').length") > 0,
          "sweep timeline: segments")


def check_stats_report(driver, path, stats, targets):
    """stats --report: a residency segment per unit and state with time,
    a histogram per state entered, each with a mark per target residency,
    the timeline's stays (each unit's first ones), the table's rows"""
    load(driver, path)
    cpus = [c for c in stats["cpus"] if c["states"]]     # -w lists a CPU of wake-ups only too
    units = [c["name"] + " (all idle)" for c in stats["clusters"]] + \
        ["cpu%d" % c["cpu"] for c in cpus]
    want = sorted((u, st["index"]) for u, states in
                  zip(units, [c["states"] for c in stats["clusters"]] +
                      [c["states"] for c in cpus])
                  for st in states if st["time_ns"] > 0)
    got = sorted((r[0], int(r[1])) for r in js(
        driver, "return Array.from(document.querySelectorAll('svg.residency rect.res'))"
                ".map(r => [r.dataset.unit, r.dataset.state])"))
    check(got == want, "stats residency: a segment per unit and state with time (%d)" % len(got))
    entered = sorted({st["index"] for c in stats["cpus"] for st in c["states"] if st["usage"]})
    hists = js(driver, "return Array.from(document.querySelectorAll('svg.stays')).map(s => "
                       "[+s.dataset.state, s.querySelectorAll('rect.bin').length, "
                       "s.querySelectorAll('line.marker').length])")
    check([h[0] for h in hists] == entered and all(h[1] > 0 for h in hists),
          "stats histograms: one per state entered, with bins %s" % hists)
    marks = sum(1 for t in targets.values() if t > 0)
    check(all(h[2] == marks for h in hists), "stats histograms: %d target marks each" % marks)
    stays = js(driver, "return document.querySelectorAll('#timeline rect.stay').length")
    check(0 < stays <= 300 * len(units), "stats timeline: %d stays" % stays)
    rows = js(driver, "return document.querySelectorAll('table:not(.wakeups) tr').length") - 1
    check(rows == len(units) * len(cpus[0]["states"]),
          "stats table: a row per unit and state (%d)" % rows)
    sources = sum(len(c.get("wakeups", [])) for c in stats["cpus"])
    got = js(driver, "return document.querySelectorAll('table.wakeups tr.wake').length")
    check(sources > 0 and got == sources,
          "stats wake-ups: a row per CPU and source as stats -w has them (%d)" % got)


def check_diff_report(driver, path, diff):
    """diff --report: the verdicts' table, a chart per unit and figure,
    each change drawn with its interval"""
    load(driver, path)
    verdicts = sum(1 for r in diff["rows"] if r["verdict"])
    got = js(driver, "return document.querySelectorAll('tr.higher, tr.lower').length")
    # each verdict twice: the summary's table and its unit's
    check(got == 2 * verdicts, "diff: the %d verdicts' rows (%d)" % (verdicts, got))
    dots = js(driver, "return document.querySelectorAll('svg circle').length")
    check(dots == sum(1 for r in diff["rows"] if r["change"] is not None),
          "diff charts: a dot per change (%d)" % dots)


def main():
    if len(sys.argv) != 3:
        print("usage: report_test.py CPUIDLE OUTDIR", file=sys.stderr)
        return 2
    cli, outdir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    trace = os.path.join(src, "traces", "io-menu.perf.txt.xz")
    chromium, chromedriver = find_chromium(), find_chromedriver()
    if not chromium:
        skip("no chromium (Debian: chromium)")
    if not chromedriver:
        skip("no chromedriver (Debian: chromium-driver)")
    os.makedirs(outdir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="cpuidle-report-")
    profile = os.path.join(work, "profile")

    def watchdog(signum, frame):
        raise TimeoutError("the browser test took over %d s" % WATCHDOG)

    signal.signal(signal.SIGALRM, watchdog)
    signal.alarm(WATCHDOG)
    driver = service = None
    try:
        sim_html = os.path.join(outdir, "report.html")
        # from the source tree: the page names traces/io-menu.perf.txt.xz
        run(cli, "sim", "-p", "laptop", "--report", sim_html, "traces/io-menu.perf.txt.xz",
            cwd=src)
        sim = json.loads(run(cli, "sim", "-p", "laptop", "--json", trace))
        odd = os.path.join(work, "io <b>&\"'.perf.txt.xz")
        shutil.copy(trace, odd)
        sweep_html = os.path.join(outdir, "report-sweep.html")
        run(cli, "sweep", "-g", "menu,teo,oracle", "-p", "laptop,skylake", "-o", os.devnull,
            "--report", sweep_html, odd)
        print("report sizes: sim %d bytes, sweep %d bytes" %
              (os.path.getsize(sim_html), os.path.getsize(sweep_html)))
        stats_html = os.path.join(outdir, "report-stats.html")
        run(cli, "stats", "-p", "laptop", "--report", stats_html, trace)
        stats = json.loads(run(cli, "stats", "-w", "-p", "laptop", "--json", trace))
        diff_html = os.path.join(outdir, "report-diff.html")
        mixed = os.path.join(src, "traces", "mixed-nodriver.perf.txt.xz")
        run(cli, "diff", "-q", "-p", "laptop", "--report", diff_html, trace, mixed)
        diff = json.loads(run(cli, "diff", "-q", "-p", "laptop", "--json", trace, mixed))

        t = time.monotonic()
        driver, service = start_browser(chromium, chromedriver, profile, outdir)
        print("chromium started in %.1f s" % (time.monotonic() - t))
        check_sim_report(driver, sim_html, sim, platform_targets(cli, "laptop"))

        # the screenshot: the whole page, at the top
        driver.find_element(By.ID, "tl-reset").click()
        js(driver, "window.scrollTo(0, 0)")
        height = js(driver, "return document.documentElement.scrollHeight")
        driver.set_window_size(1200, min(max(height, 900), 8000))
        time.sleep(0.5)
        png = os.path.join(outdir, "report.png")
        check(driver.save_screenshot(png) and os.path.getsize(png) > 10000,
              "screenshot %s" % png)
        extra = os.environ.get("CPUIDLE_REPORT_SCREENSHOT")
        if extra:
            shutil.copy(png, extra)
            print("screenshot copied to " + extra)
        driver.set_window_size(1200, 900)

        check_sweep_report(driver, sweep_html, "io <b>&\"'.perf.txt.xz")
        check_stats_report(driver, stats_html, stats, platform_targets(cli, "laptop"))
        check_diff_report(driver, diff_html, diff)
    finally:
        signal.alarm(0)
        if driver:
            try:
                driver.quit()
            except Exception as e:      # noqa: BLE001
                print("driver.quit: %s" % e)
        if service:
            try:
                service.stop()
            except Exception as e:      # noqa: BLE001
                print("service.stop: %s" % e)
            proc = getattr(service, "process", None)
            if proc and proc.poll() is None:
                proc.kill()
        kill_ours(profile)      # anything of ours still running
        shutil.rmtree(work, ignore_errors=True)
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
