// SPDX-License-Identifier: MIT
/*
 * report_page.c - the report's page: its style, the one script (the
 * timeline's zoom and pan), and the sections around the charts
 */
#include <errno.h>
#include <inttypes.h>
#include <unistd.h>

#include "cli.h"
#include "report_internal.h"

/* ------------------------------------------------------------------- page */

static const char style[] =
	"body{font:14px/1.45 system-ui,-apple-system,\"Segoe UI\",sans-serif;color:#222;"
	"margin:0 auto;max-width:1060px;padding:0 16px 40px}"
	"h1{font-size:22px;margin:18px 0 4px}h2{font-size:18px;margin:28px 0 6px;"
	"border-bottom:1px solid #ddd}h3{font-size:14px;margin:6px 0}"
	".desc,.note{color:#666}.what{margin:0 0 8px}nav a{margin-right:12px}"
	".panels{display:flex;flex-wrap:wrap;gap:8px 20px}figure{margin:0}"
	".panel{flex:0 1 460px}.panel.wide{flex:1 1 100%}svg.chart{width:100%;height:auto;"
	"display:block}.scatter{max-width:460px}.residency,.histogram{max-width:760px}"
	".plot{fill:#fafafa;stroke:#ccc}.grid{stroke:#e4e4e4}.tick,.lane,.marker{font-size:10px;"
	"fill:#555}.lane{font-weight:600}.axis{font-size:11px;fill:#333}"
	".pt{stroke:#fff;stroke-width:1.5}.ptlabel{font-size:11px}.rowlabel{font-size:11px}"
	".inbar{font-size:10px;fill:#222}.inbar.dark{fill:#fff}"
	".hbar{fill:#7b8fa6}.target{stroke-width:1.5;stroke-dasharray:4 3}.lanetick{stroke-width:2}"
	".legend{margin:2px 0 6px;font-size:12px}.legend span{margin-right:10px;"
	"white-space:nowrap}.legend i,i.dot{display:inline-block;width:11px;height:11px;"
	"margin-right:4px;vertical-align:-1px;border:1px solid #0003}"
	"i.ivt{background:#b4b4b4}i.ivo{background:#555}i.above{border:2px solid #e00000}"
	".tl-wrap{position:relative}.tl-controls{margin:4px 0}.tl-controls button{"
	"min-width:30px;margin-right:4px}#tl-plot{cursor:grab}#tl-plot .bg{fill:#fff}"
	".iv.t{fill:#b4b4b4}.iv.o{fill:#555}.seg.a{stroke:#e00000;stroke-width:1.5px;"
	"vector-effect:non-scaling-stroke}.rowsep{stroke:#eee}line.tick{stroke:#888}"
	".tip{position:absolute;background:#fff;border:1px solid #aaa;padding:3px 6px;"
	"font-size:12px;pointer-events:none;white-space:nowrap;box-shadow:0 1px 3px #0002}"
	"table.numbers{border-collapse:collapse;font-size:12px;margin:6px 0}"
	".numbers th,.numbers td{border:1px solid #ddd;padding:2px 6px;text-align:right}"
	".numbers th{background:#f3f3f3}.numbers td{white-space:nowrap}"
	".numbers td:nth-child(-n+3){text-align:left}"
	".numbers td:last-child{white-space:normal;text-align:left}"
	"details{margin:8px 0}";

/*
 * The timeline: the script draws each row from its data-segs, and zooms
 * and pans by placing, in pixels, the rectangles in view (#tl's data-view:
 * its start and width in units of data-unit-ns; data-in-view: the choices
 * in it), redrawing the axis on every change.
 */
static const char script[] =
	"(function () {\n"
	"  'use strict';\n"
	"  var outer = document.getElementById('tl');\n"
	"  var plot = document.getElementById('tl-plot');\n"
	"  if (!outer || !plot) return;\n"
	"  var NS = 'http://www.w3.org/2000/svg';\n"
	"  var span = parseFloat(outer.getAttribute('data-span'));\n"
	"  var U = parseFloat(outer.getAttribute('data-unit-ns')) / 1000;\n"
	"  var rows = parseInt(outer.getAttribute('data-rows'), 10);\n"
	"  var names = outer.getAttribute('data-states').split('|');\n"
	"  var targets = outer.getAttribute('data-targets').split('|').map(parseFloat);\n"
	"  var axis = document.getElementById('tl-axis');\n"
	"  var status = document.getElementById('tl-status');\n"
	"  var tip = document.getElementById('tl-tip');\n"
	"  var L = 120, W = 1000 - 120 - 16, Y = rows * 28 + 2;\n"
	"  // Each row's rectangles from its data-segs (\"KIND,GAP,WIDTH\" in units of\n"
	"  // data-unit-ns); their times are kept here, in double precision, and\n"
	"  // only those in view are drawn, in pixels (browsers lose precision, and\n"
	"  // clamp, far out in a zoomed coordinate space).\n"
	"  var items = [];\n"
	"  Array.prototype.forEach.call(plot.querySelectorAll('g.row'), function (g) {\n"
	"    var data = g.getAttribute('data-segs'), iv = g.getAttribute('data-kind') === 'iv';\n"
	"    var end = 0, frag = document.createDocumentFragment();\n"
	"    if (!data) return;\n"
	"    data.split(' ').forEach(function (item) {\n"
	"      var p = item.split(','), x = end + parseInt(p[1], 10), w = parseInt(p[2], 10);\n"
	"      var r = document.createElementNS(NS, 'rect');\n"
	"      end = x + w;\n"
	"      r.setAttribute('class', iv ? 'iv ' + p[0] :\n"
	"        'seg s' + parseInt(p[0], 10) + (p[0].slice(-1) === 'a' ? ' a' : ''));\n"
	"      r.setAttribute('height', iv ? 0.6 : 0.7);\n"
	"      r.style.display = 'none';\n"
	"      r.tlItem = { r: r, x: x, w: w, seg: !iv, shown: false };\n"
	"      items.push(r.tlItem);\n"
	"      frag.appendChild(r);\n"
	"    });\n"
	"    g.appendChild(frag);\n"
	"  });\n"
	"  document.getElementById('tl-nojs').hidden = true;\n"
	"  var minW = Math.min(span, 1 / U);\n"
	"  var view = { x: 0, w: span };\n"
	"  function fmt(u) {\n"
	"    var us = u * U;\n"
	"    if (us >= 1e6) return +(us / 1e6).toFixed(4) + ' s';\n"
	"    if (us >= 1e3) return +(us / 1e3).toFixed(3) + ' ms';\n"
	"    return +us.toFixed(1) + ' us';\n"
	"  }\n"
	"  function niceStep(range) {\n"
	"    var raw = range / 8, mag = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / mag;\n"
	"    return (f > 5 ? 10 : f > 2 ? 5 : f > 1 ? 2 : 1) * mag;\n"
	"  }\n"
	"  function drawAxis() {\n"
	"    while (axis.firstChild) axis.removeChild(axis.firstChild);\n"
	"    var wus = view.w * U, step = niceStep(wus);\n"
	"    var div = wus >= 2e6 ? 1e6 : wus >= 2e3 ? 1e3 : 1;\n"
	"    var unit = div === 1 ? ' us' : div === 1e3 ? ' ms' : ' s';\n"
	"    var dec = Math.max(0, -Math.floor(Math.log10(step / div) + 1e-9));\n"
	"    var x0 = view.x * U;\n"
	"    for (var t = Math.ceil(x0 / step) * step; t <= x0 + wus + step * 1e-6; t += step) {\n"
	"      var x = L + (t - x0) / wus * W;\n"
	"      var line = document.createElementNS(NS, 'line');\n"
	"      line.setAttribute('class', 'tick');\n"
	"      line.setAttribute('x1', x);\n"
	"      line.setAttribute('x2', x);\n"
	"      line.setAttribute('y1', Y);\n"
	"      line.setAttribute('y2', Y + 5);\n"
	"      var text = document.createElementNS(NS, 'text');\n"
	"      text.setAttribute('class', 'tick');\n"
	"      text.setAttribute('x', x);\n"
	"      text.setAttribute('y', Y + 17);\n"
	"      text.setAttribute('text-anchor', 'middle');\n"
	"      text.textContent = (t / div).toFixed(dec) + unit;\n"
	"      axis.appendChild(line);\n"
	"      axis.appendChild(text);\n"
	"    }\n"
	"  }\n"
	"  function apply() {\n"
	"    view.w = Math.min(Math.max(view.w, minW), span);\n"
	"    view.x = Math.min(Math.max(view.x, 0), span - view.w);\n"
	"    var end = view.x + view.w, n = 0, k = W / view.w;\n"
	"    items.forEach(function (it) {\n"
	"      var show = it.x < end && it.x + it.w > view.x;\n"
	"      if (show) {\n"
	"        var a = Math.max((it.x - view.x) * k, -2);\n"
	"        var b = Math.min((it.x + it.w - view.x) * k, W + 2);\n"
	"        it.r.setAttribute('x', a);\n"
	"        it.r.setAttribute('width', Math.max(b - a, 0));\n"
	"        if (it.seg) n++;\n"
	"      }\n"
	"      if (show !== it.shown) {\n"
	"        it.r.style.display = show ? '' : 'none';\n"
	"        it.shown = show;\n"
	"      }\n"
	"    });\n"
	"    outer.setAttribute('data-view', view.x + ' ' + view.w);\n"
	"    outer.setAttribute('data-in-view', n);\n"
	"    status.textContent = fmt(view.x) + ' to ' + fmt(end) + ' of ' + fmt(span) +\n"
	"      ': ' + n + ' choices in view (wheel: zoom, drag: pan)';\n"
	"    drawAxis();\n"
	"  }\n"
	"  function zoom(f, at) {\n"
	"    var w = Math.min(Math.max(view.w * f, minW), span);\n"
	"    view.x = at - (at - view.x) * w / view.w;\n"
	"    view.w = w;\n"
	"    apply();\n"
	"  }\n"
	"  function timeAt(clientX) {\n"
	"    var b = plot.getBoundingClientRect();\n"
	"    return view.x + (clientX - b.left) / b.width * view.w;\n"
	"  }\n"
	"  plot.addEventListener('wheel', function (e) {\n"
	"    e.preventDefault();\n"
	"    zoom(e.deltaY > 0 ? 1.25 : 0.8, timeAt(e.clientX));\n"
	"  }, { passive: false });\n"
	"  var drag = null;\n"
	"  plot.addEventListener('pointerdown', function (e) {\n"
	"    drag = { x: e.clientX, vx: view.x };\n"
	"    plot.setPointerCapture(e.pointerId);\n"
	"  });\n"
	"  plot.addEventListener('pointermove', function (e) {\n"
	"    if (drag) {\n"
	"      var b = plot.getBoundingClientRect();\n"
	"      view.x = drag.vx - (e.clientX - drag.x) / b.width * view.w;\n"
	"      apply();\n"
	"      return;\n"
	"    }\n"
	"    var r = e.target;\n"
	"    if (!r.tlItem) {\n"
	"      tip.hidden = true;\n"
	"      return;\n"
	"    }\n"
	"    var x = r.tlItem.x, w = r.tlItem.w;\n"
	"    var text = r.parentNode.getAttribute('data-name') + ': ';\n"
	"    if (r.classList.contains('seg')) {\n"
	"      var s = parseInt(/s(\\d+)/.exec(r.getAttribute('class'))[1], 10);\n"
	"      text += names[s] + ' for ' + fmt(w);\n"
	"      if (r.classList.contains('a'))\n"
	"        text += ' (too deep: target residency ' + fmt(targets[s] / U) + ')';\n"
	"    } else {\n"
	"      text += 'idle ' + fmt(w) + (r.classList.contains('t') ? ', ended by a timer' :\n"
	"        ', ended by an interrupt, an IPI or a task');\n"
	"    }\n"
	"    tip.textContent = text + ', at ' + fmt(x);\n"
	"    var box = outer.parentNode.getBoundingClientRect();\n"
	"    tip.style.left = (e.clientX - box.left + 12) + 'px';\n"
	"    tip.style.top = (e.clientY - box.top + 12) + 'px';\n"
	"    tip.hidden = false;\n"
	"  });\n"
	"  function release() { drag = null; }\n"
	"  plot.addEventListener('pointerup', release);\n"
	"  plot.addEventListener('pointercancel', release);\n"
	"  plot.addEventListener('pointerleave', function () { tip.hidden = true; });\n"
	"  Array.prototype.forEach.call(document.querySelectorAll('[data-zoom]'), function (b) {\n"
	"    b.addEventListener('click', function () {\n"
	"      var z = b.getAttribute('data-zoom'), mid = view.x + view.w / 2;\n"
	"      if (z === 'in') zoom(0.5, mid);\n"
	"      else if (z === 'out') zoom(2, mid);\n"
	"      else if (z === 'left') { view.x -= view.w / 2; apply(); }\n"
	"      else if (z === 'right') { view.x += view.w / 2; apply(); }\n"
	"      else { view.x = 0; view.w = span; apply(); }\n"
	"    });\n"
	"  });\n"
	"  apply();\n"
	"})();\n";

int report_write(struct report *r, const char *cmd)
{
	const struct cpuidle_platform *plats[64];
	unsigned int np = report_platforms_of(r, plats, 64), i;
	FILE *f = r->f;
	int ret;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n"
	      "<head>\n<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" "
	      "content=\"width=device-width, initial-scale=1\"/>\n<meta name=\"generator\" "
	      "content=\"" CLI_NAME " " CPUIDLE_VERSION "\"/>\n<title>cpuidle: governor "
	      "comparison", f);
	if (r->nr_traces == 1) {
		fputs(", ", f);
		esc(f, r->traces[0]);
	}
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
	fputs("<h1>Governor comparison</h1>\n<p class=\"what\">", f);
	esc(f, r->what ? r->what : "");
	fputs("</p>\n<nav><a href=\"#tradeoff\">energy and latency</a><a href=\"#residency\">"
	      "residency</a><a href=\"#idle-lengths\">idle lengths</a><a href=\"#timeline\">"
	      "timeline</a><a href=\"#numbers-section\">numbers</a></nav>\n", f);
	if (r->dropped_groups)
		fprintf(f, "<p class=\"note\">Only the first %d combinations of platform, governor "
			"and settings are charted; %zu runs of others are left out.</p>\n",
			MAX_GROUPS, r->dropped_groups);

	fputs("<section id=\"tradeoff\">\n<h2>Energy against wake-up latency</h2>\n<p>One point "
	      "per governor and platform: the energy spent over the clairvoyant oracle's (the "
	      "floor), against the 99th percentile of the exit latency added to the wake-ups "
	      "that needed the CPU. Down and to the left is better.</p>\n<div class=\"panels\">\n",
	      f);
	for (i = 0; i < np; i++)
		report_chart_scatter(f, r, plats[i], i);
	fputs("</div>\n</section>\n", f);

	fputs("<section id=\"residency\">\n<h2>Where the idle time went</h2>\n<p>Each "
	      "governor's share of the idle time in each state, shallow (light) to deep "
	      "(dark).</p>\n<div class=\"panels\">\n", f);
	for (i = 0; i < np; i++)
		report_chart_residency(f, r, plats[i], i);
	fputs("</div>\n</section>\n", f);

	fprintf(f, "<section id=\"idle-lengths\">\n<h2>True idle lengths</h2>\n<p>How long the "
		"CPUs really stayed idle, entry to the wake-up that needed them: %" PRIu64
		" complete intervals%s. The dashed lines are the target residencies: a state "
		"pays off only for stays longer than its line.</p>\n", r->hist_total,
		r->nr_traces > 1 ? ", every trace" : "");
	report_chart_histogram(f, r);
	fputs("</section>\n", f);

	fputs("<section id=\"timeline\">\n<h2>Timeline</h2>\n<p class=\"what\">", f);
	if (r->nivs) {
		fprintf(f, "CPU %u of ", r->o.cpu);
		esc(f, r->tl_trace);
		fprintf(f, ": its first %zu complete idle intervals (of %" PRIu64 "), %s from "
			"trace "
			"time %s s; above them, what each governor chose, entry by entry.",
			r->nivs, r->cpu_intervals, DUR(r->t1 - r->t0),
			NUM((double)r->t0 / 1e9, 6));
		if (np > 1 && r->tl_platform) {
			fputs(" Platform ", f);
			esc(f, r->tl_platform->name);
			fputc('.', f);
		}
	}
	fputs("</p>\n", f);
	report_chart_timeline(f, r);
	fputs("</section>\n", f);

	fputs("<section id=\"numbers-section\">\n<h2>Numbers</h2>\n", f);
	report_chart_table(f, r);
	fputs("<p class=\"note\">above: entries into a state deeper than the stay paid for; "
	      "below: a deeper state would have paid; latency: exit latency added to each "
	      "real wake-up; QoS violations: entries into a state slower than the latency "
	      "limit while one within it was enabled.</p>\n</section>\n", f);
	fprintf(f, "<script>//<![CDATA[\n%s//]]></script>\n</body>\n</html>\n", script);

	r->f = NULL;
	ret = cli_out_commit(cmd, &r->out);
	if (ret)
		return ret;
	r->written = true;
	return 0;
}
