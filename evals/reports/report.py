"""Reports of an eval run, as pure functions of a :class:`~.results.Results`.

- :func:`render_markdown` gives ``report.md``: the run's facts, one row per provider, a task ×
  provider status table and every episode that did not succeed, with its reason and the
  checks that failed.
- :func:`render_html` gives ``report.html``: ONE self-contained file (inline CSS, JavaScript
  and SVG; no fonts, scripts, images or requests from anywhere) with the same facts, a chart
  of success rates with their 95% intervals, a chart of tokens per success, and a task ×
  provider grid whose cells open that episode's trajectory.
- :func:`write_report` writes both into a folder; :func:`terminal_table` is the provider table
  for a terminal (``rich``).

The numbers are the providers' summaries as stored (a provider with episodes but no summary
is summarised from them). Nothing is guessed: unknown tokens stay blank (``not reported`` in
the HTML). A model-free baseline is always labelled ``model-free baseline``, never shown as a
model.

Everything that came from pages, models or suites is hostile text. Markdown escapes its
punctuation; HTML escapes every text and attribute; the episodes ride along as JSON in a
``<script type="application/json">`` block with ``<``, ``>``, ``&``, U+2028 and U+2029
escaped, and the page script shows them with ``textContent`` only. A Content-Security-Policy
admits only this file's own script and style (by hash) and no network at all, so even a
mistake here could not load or run anything else.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..suite.redact import redact_urls
from .results import Episode, ProviderSummary, Results, Status, summarize

if TYPE_CHECKING:
    from rich.table import Table

__all__ = [
    "BASELINE_LABEL",
    "provider_label",
    "render_html",
    "render_markdown",
    "terminal_table",
    "write_report",
]

BASELINE_LABEL = "model-free baseline"
HUMAN_LABEL = "human baseline"
"""How a provider whose actions a person typed is always described."""

_STATUSES: tuple[Status, ...] = ("success", "failure", "invalid", "error")
_SYMBOL = {"success": "✓", "failure": "✗", "invalid": "⚠", "error": "!"}
_PAGES = {
    "live": "live (served by the site server during the run)",
    "replay": "replayed from recordings",
    "record": "live, recorded for replay",
}


# -- the data every view shares ---------------------------------------------------------------
@dataclass(frozen=True)
class _Provider:
    name: str
    summary: ProviderSummary
    label: str


def provider_label(summary: ProviderSummary) -> str:
    """How a provider is described: a baseline always says ``model-free baseline``."""
    label = " ".join(summary.label.split())
    if summary.human and not label.lower().startswith(HUMAN_LABEL):
        return f"{HUMAN_LABEL}: {label}" if label else HUMAN_LABEL
    if not summary.baseline:
        return label
    if label.lower().startswith(BASELINE_LABEL):
        return label
    return f"{BASELINE_LABEL}: {label}" if label else BASELINE_LABEL


def _providers(results: Results) -> list[_Provider]:
    """Summarised providers in the file's order, then any that only have episodes."""
    names = list(results.providers)
    names += [n for n in dict.fromkeys(e.provider for e in results.episodes) if n not in names]
    out = []
    for name in names:
        summary = results.providers.get(name)
        if summary is None:
            summary = summarize(e for e in results.episodes if e.provider == name)
        out.append(_Provider(name, summary, provider_label(summary)))
    return out


def _tasks(results: Results) -> list[str]:
    return list(dict.fromkeys(e.task for e in results.episodes))


def _cells(results: Results) -> dict[tuple[str, str], int]:
    """``(task, provider)`` → index of its episode (the last one when repeated)."""
    return {(e.task, e.provider): i for i, e in enumerate(results.episodes)}


def _not_succeeded(results: Results) -> list[tuple[int, Episode]]:
    eps = [(i, e) for i, e in enumerate(results.episodes) if e.status != "success"]
    return sorted(eps, key=lambda pair: (pair[1].provider, pair[1].task))


# -- formatting -------------------------------------------------------------------------------
def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _rate(summary: ProviderSummary) -> str:
    """The success rate over valid episodes, with the invalid and error episodes beside it
    (a task that became invalid on replay must not leave a rate that reads as 100%)."""
    apart = [f"{n} {what}" for n, what in ((summary.invalid, "invalid"),
                                           (summary.errors, "error" if summary.errors == 1
                                            else "errors")) if n]
    beside = f" + {', '.join(apart)} of {summary.tasks}" if apart else ""
    if summary.success_rate is None:
        return f"— ({', '.join(apart)} of {summary.tasks})" if apart else ""
    text = _pct(summary.success_rate)
    if summary.ci95 is not None:
        lo, hi = summary.ci95
        text += f" ({100 * lo:.1f}–{100 * hi:.1f}%)"
    return text + beside


def _num(x: float | None) -> str:
    return "" if x is None else f"{x:,.0f}"


def _steps(x: float | None) -> str:
    return "" if x is None else f"{x:g}"


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))


def _compact_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(", ", ": "))


def _duration(started: str, finished: str) -> str:
    try:
        seconds = (datetime.fromisoformat(finished) - datetime.fromisoformat(started))
    except (ValueError, TypeError):
        return ""
    total = int(seconds.total_seconds())
    if total < 0:
        return ""
    hours, rest = divmod(total, 3600)
    return f"{hours}h {rest // 60:02d}m {rest % 60:02d}s" if hours else \
        f"{rest // 60}m {rest % 60:02d}s"


def _facts(results: Results) -> list[tuple[str, str]]:
    """The run's facts as (name, value) pairs, in reading order."""
    suite, run = results.suite, results.run
    suite_text = suite.name + (f" ({suite.content_hash[:12]})" if suite.content_hash else "")
    if suite.tasks:
        suite_text += f", {suite.tasks} tasks"
    browser = run.browser or "unknown"
    if run.playwright:
        browser += f" (Playwright {run.playwright})"
    facts = [
        ("suite", suite_text),
        ("webrefs", run.webrefs or "unknown"),
        ("git commit", run.git_commit[:12] if run.git_commit else "unknown"),
        ("browser", browser),
        ("python", run.python or "unknown"),
        ("pages", _PAGES.get(run.pages, run.pages)),
        ("options", _compact_json(run.options) if run.options else "defaults"),
        ("seed", str(run.seed)),
    ]
    if run.shard:
        facts.append(("shard", run.shard))
    facts += [("started", run.started or "unknown"), ("finished", run.finished or "unknown")]
    took = _duration(run.started, run.finished)
    if took:
        facts.append(("duration", took))
    if run.interrupted:
        facts.append(("interrupted", "yes: the run stopped early, results are partial"))
    return facts


def _failed_checks(episode: Episode) -> list[str]:
    return [f"{c.type}: {c.why or 'failed'}" for c in episode.checks if not c.ok]


# -- markdown ---------------------------------------------------------------------------------
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|&#~!])")


def _md(text: object, limit: int = 400) -> str:
    """One line of inert markdown: whitespace folded, punctuation that could start markup
    (links, HTML, emphasis, table pipes, entities) backslash-escaped, long text cut."""
    flat = " ".join(str(text).split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return _MD_SPECIAL.sub(r"\\\1", flat)


def _md_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


_PROVIDER_HEADER = (
    "provider", "label", "tasks", "succeeded", "success rate (95% CI)", "invalid", "errors",
    "tokens / success", "observation tokens / success", "median steps", "tool errors",
)


def _provider_cells(p: _Provider) -> list[str]:
    s = p.summary
    return [
        p.name, p.label, str(s.tasks), str(s.succeeded), _rate(s), str(s.invalid),
        str(s.errors), _num(s.tokens_per_success), _num(s.observation_tokens_per_success),
        _steps(s.median_steps), _counts(s.tool_errors),
    ]


def _md_status(status: str | None) -> str:
    return "—" if status is None else f"{_SYMBOL[status]} {status}"


def _md_failures(results: Results) -> list[str]:
    lines = []
    for _, e in _not_succeeded(results):
        head = f"- **{_md(e.provider)}** · {_md(e.task)}: {e.status} after {e.steps} steps"
        lines.append(head + (f": {_md(e.reason)}" if e.reason else ""))
        lines += [f"  - ✗ {_md(why)}" for why in _failed_checks(e)]
    if not results.episodes:
        return ["No episodes were run."]
    return lines or ["Every episode succeeded."]


def render_markdown(results: Results) -> str:
    """``report.md``: facts, the provider table, the task × provider table, the failures."""
    providers = _providers(results)
    cells = _cells(results)
    lines = [f"# Eval report: {_md(results.suite.name)}", ""]
    lines += [f"- **{name}**: {_md(value)}" for name, value in _facts(results)]
    lines += ["", "## Providers", ""]
    lines += _md_table(_PROVIDER_HEADER, ([_md(c) for c in _provider_cells(p)]
                                          for p in providers))
    lines += ["", "Success rates count valid episodes only (success or failure); invalid "
              "episodes and provider errors are counted apart. Tokens are blank when the "
              "provider did not report them."]
    settings = [(p.name, p.summary.settings) for p in providers if p.summary.settings]
    if settings:
        lines += ["", "Settings:", ""]
        lines += [f"- **{_md(name)}**: {_md(_compact_json(value))}" for name, value in settings]
    lines += ["", "## Tasks", ""]
    by_task = ([_md(task)] + [_md_status(_status_of(results, cells, task, p.name))
                              for p in providers] for task in _tasks(results))
    lines += _md_table(["task", *(_md(p.name) for p in providers)], by_task)
    lines += ["", "## Episodes that did not succeed", ""]
    lines += _md_failures(results)
    lines += ["", "The interactive report with every trajectory is report.html.", ""]
    return "\n".join(lines)


def _status_of(results: Results, cells: dict[tuple[str, str], int], task: str,
               provider: str) -> Status | None:
    index = cells.get((task, provider))
    return None if index is None else results.episodes[index].status


# -- HTML: text, JSON and the content security policy -------------------------------------------
def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def script_json(value: Any) -> str:
    """JSON that is inert inside ``<script>``: no ``<``, ``>``, ``&`` (so no ``</script>`` or
    ``<!--``), no U+2028/U+2029, every other non-ASCII character as ``\\uXXXX``."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _csp_hash(source: str) -> str:
    digest = hashlib.sha256(source.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


_CSS = """
:root { --ok: #2e7d32; --ok-bg: #d8efda; --fail: #c62828; --fail-bg: #fbdad7;
  --inv: #9a5b00; --inv-bg: #fdeebf; --err: #6a1b9a; --err-bg: #ecdcf5; --none-bg: #f0f0f0;
  --line: #d0d4da; --muted: #5f6670; --accent: #1f5fbf; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0;
  color: #1c1f24; background: #fafbfc; }
main { max-width: 1180px; margin: 0 auto; padding: 20px 24px 64px; }
h1 { font-size: 22px; margin: 0 0 12px; }
h2 { font-size: 17px; margin: 28px 0 10px; border-bottom: 1px solid var(--line);
  padding-bottom: 4px; }
h3 { font-size: 14px; margin: 16px 0 6px; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.warn { color: var(--inv); font-weight: 600; }
table { border-collapse: collapse; background: #fff; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f1f3f6; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.scroll { overflow-x: auto; max-width: 100%; }
.badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 12px;
  background: #e7eaee; color: #333; white-space: nowrap; }
.badge.baseline { background: #e3ecfa; color: #1d4b8f; }
.note { color: var(--muted); font-size: 13px; }
.charts { display: grid; grid-template-columns: 1fr; gap: 16px; }
figure { margin: 0; background: #fff; border: 1px solid var(--line); padding: 10px; }
figcaption { font-weight: 600; margin-bottom: 6px; }
svg { display: block; width: 100%; height: auto; }
svg text { font-size: 12px; fill: #1c1f24; }
svg .axis { stroke: #c3c8cf; stroke-width: 1; }
svg .tick { fill: var(--muted); font-size: 11px; }
svg .bar { fill: #4a7fd0; }
svg .bar.baseline { fill: #9aa3ae; }
svg .whisker { stroke: #1c1f24; stroke-width: 1.5; }
svg .tbar { fill: #e0913a; }
svg .obar { fill: #4ea79b; }
svg .muted { fill: var(--muted); }
.legend { display: flex; gap: 14px; font-size: 12px; color: var(--muted); margin-top: 4px; }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
.swatch.tbar { background: #e0913a; } .swatch.obar { background: #4ea79b; }
table.grid td.task { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px;
  white-space: nowrap; max-width: 320px; overflow: hidden; text-overflow: ellipsis; }
table.grid th.prov { writing-mode: horizontal-tb; font-size: 12px; }
td.cell { padding: 0; text-align: center; min-width: 64px; }
td.cell button { all: unset; box-sizing: border-box; display: block; width: 100%;
  padding: 4px 8px; cursor: pointer; font-weight: 600; }
td.cell button:focus-visible { outline: 2px solid var(--accent); outline-offset: -2px; }
td.cell.success { background: var(--ok-bg); color: var(--ok); }
td.cell.failure { background: var(--fail-bg); color: var(--fail); }
td.cell.invalid { background: var(--inv-bg); color: var(--inv); }
td.cell.error { background: var(--err-bg); color: var(--err); }
td.cell.none { background: var(--none-bg); color: var(--muted); }
td.cell.selected { box-shadow: inset 0 0 0 3px var(--accent); }
td.cell:hover { filter: brightness(0.95); }
.status { font-weight: 600; }
.status.success { color: var(--ok); } .status.failure { color: var(--fail); }
.status.invalid { color: var(--inv); } .status.error { color: var(--err); }
ul.failures { padding-left: 18px; } ul.failures li { margin: 4px 0; }
ul.failures a { color: var(--accent); }
#trajectory { background: #fff; border: 1px solid var(--line); padding: 12px 16px;
  margin-top: 20px; }
#trajectory .close { float: right; }
#trajectory dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; }
#trajectory dt { color: var(--muted); } #trajectory dd { margin: 0; overflow-wrap: anywhere; }
pre { background: #f5f6f8; border: 1px solid #e3e6ea; padding: 6px 8px; margin: 4px 0;
  white-space: pre-wrap; overflow-wrap: anywhere; max-height: 420px; overflow: auto;
  font: 12px/1.4 ui-monospace, Menlo, Consolas, monospace; }
ol.steps { padding-left: 24px; }
li.step { margin: 10px 0; }
.step-head { display: flex; gap: 10px; align-items: baseline; flex-wrap: wrap; }
.tool { font-weight: 600; font-family: ui-monospace, Menlo, Consolas, monospace; }
.errcode { background: var(--fail-bg); color: var(--fail); padding: 0 6px; border-radius: 8px;
  font-size: 12px; }
.label { color: var(--muted); font-size: 12px; }
ul.checks { list-style: none; padding-left: 0; }
li.check.ok::before { content: "✓ "; color: var(--ok); }
li.check.fail::before { content: "✗ "; color: var(--fail); }
"""

_JS = """
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("episodes-data").textContent);
  var panel = document.getElementById("trajectory");
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }
  function count(n) {
    return (n === null || n === undefined) ? "not reported" : Number(n).toLocaleString("en-US");
  }
  function facts(ep) {
    var dl = el("dl");
    var rows = [
      ["steps", String(ep.steps)],
      ["wall time", Number(ep.wall_s).toFixed(1) + " s"],
      ["prompt tokens", count(ep.prompt_tokens)],
      ["completion tokens", count(ep.completion_tokens)],
      ["observation tokens", count(ep.observation_tokens)],
      ["system prompt tokens", count(ep.system_prompt_tokens)],
      ["final URL", ep.final_url || ""],
      ["tool errors", Object.keys(ep.tool_errors).sort().map(function (k) {
        return k + " " + ep.tool_errors[k]; }).join(", ")],
      ["tags", ep.tags.join(", ")]
    ];
    rows.forEach(function (row) {
      if (!row[1]) { return; }
      dl.appendChild(el("dt", "", row[0]));
      dl.appendChild(el("dd", "", row[1]));
    });
    return dl;
  }
  function checks(ep) {
    var ul = el("ul", "checks");
    ep.checks.forEach(function (c) {
      ul.appendChild(el("li", "check " + (c.ok ? "ok" : "fail"),
        c.type + (c.ok ? "" : ": " + (c.why || "failed"))));
    });
    if (!ep.checks.length) { ul.appendChild(el("li", "note", "no checks ran")); }
    return ul;
  }
  function step(call, n) {
    var li = el("li", "step");
    var head = el("div", "step-head");
    head.appendChild(el("span", "tool", call.tool));
    if (call.error) { head.appendChild(el("span", "errcode", call.error)); }
    head.appendChild(el("span", "label", count(call.tokens) + " tokens"));
    li.appendChild(head);
    li.appendChild(el("div", "label", "args"));
    li.appendChild(el("pre", "args", JSON.stringify(call.args, null, 2)));
    li.appendChild(el("div", "label", "output the model saw"));
    li.appendChild(el("pre", "output", call.output));
    li.setAttribute("data-step", String(n + 1));
    return li;
  }
  function show(index, scroll) {
    var ep = data[index];
    if (!ep) { return; }
    var close = el("button", "close", "close");
    close.type = "button";
    close.addEventListener("click", function () {
      panel.hidden = true;
      select(null);
      document.getElementById("grid").scrollIntoView({block: "center"});
      try { history.replaceState(null, "", location.pathname + location.search); }
      catch (e) { /* opaque origin */ }
    });
    var title = el("h2", "", ep.task + " · " + ep.provider + " ");
    title.appendChild(el("span", "status " + ep.status, ep.status));
    var parts = [close, title];
    if (ep.reason) { parts.push(el("p", "reason", ep.reason)); }
    parts.push(facts(ep), el("h3", "", "Answer"), el("pre", "answer", ep.answer || ""));
    parts.push(el("h3", "", "Checks"), checks(ep));
    parts.push(el("h3", "", "Steps (" + ep.trajectory.length + ")"));
    var ol = el("ol", "steps");
    ep.trajectory.forEach(function (call, n) { ol.appendChild(step(call, n)); });
    parts.push(ol);
    panel.replaceChildren.apply(panel, parts);
    panel.setAttribute("data-episode", String(index));
    panel.hidden = false;
    select(index);
    if (scroll) { panel.scrollIntoView({block: "start"}); }
  }
  function select(index) {
    document.querySelectorAll("td.cell.selected").forEach(function (td) {
      td.classList.remove("selected");
    });
    if (index === null) { return; }
    var td = document.querySelector('td.cell[data-episode="' + index + '"]');
    if (td) { td.classList.add("selected"); }
  }
  document.addEventListener("click", function (event) {
    var target = event.target instanceof Element ? event.target.closest("[data-episode]") : null;
    if (!target || target === panel) { return; }
    event.preventDefault();
    var index = Number(target.getAttribute("data-episode"));
    show(index, true);
    try { history.replaceState(null, "", "#episode-" + index); } catch (e) { /* opaque origin */ }
  });
  function fromHash() {
    var linked = /^#episode-(\\d+)$/.exec(window.location.hash);
    if (linked) { show(Number(linked[1]), true); }
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
"""


# -- HTML: the charts ---------------------------------------------------------------------------
_LABEL_W, _PLOT_W, _ROW_H, _TOP, _RIGHT = 230, 560, 30, 24, 150


def _svg_label(p: _Provider, y: float) -> str:
    """The provider's name left of its row (``y``: the row's text baseline); a baseline gets
    a second line saying so, the pair centred on the row."""
    name = _e(p.name if len(p.name) <= 30 else p.name[:29] + "…")
    if p.summary.baseline:
        y -= 6
    text = f'<text x="{_LABEL_W - 8}" y="{y:.1f}" text-anchor="end">{name}'
    if p.summary.baseline:
        text += f'<tspan class="muted" x="{_LABEL_W - 8}" dy="12">{BASELINE_LABEL}</tspan>'
    return text + "</text>"


def _svg_axis(height: float, ticks: Sequence[tuple[float, str]]) -> list[str]:
    out = []
    for frac, label in ticks:
        x = _LABEL_W + frac * _PLOT_W
        out.append(f'<line class="axis" x1="{x:.1f}" y1="{_TOP - 6}" x2="{x:.1f}" '
                   f'y2="{height - 4:.1f}"/>')
        out.append(f'<text class="tick" x="{x:.1f}" y="{_TOP - 10}" '
                   f'text-anchor="middle">{_e(label)}</text>')
    return out


def _svg(body: list[str], height: float, label: str, svg_id: str) -> str:
    width = _LABEL_W + _PLOT_W + _RIGHT
    return (f'<svg id="{svg_id}" viewBox="0 0 {width} {height:.0f}" role="img" '
            f'aria-label="{_e(label)}" xmlns="http://www.w3.org/2000/svg">'
            + "".join(body) + "</svg>")


def _success_row(p: _Provider, y: float) -> list[str]:
    s, name = p.summary, _e(p.name)
    rate = s.success_rate or 0.0
    cls = "bar baseline" if s.baseline else "bar"
    valid = s.succeeded + s.failed
    tip = (f"{p.name}: {_rate(s)}, {s.succeeded}/{valid} valid episodes" if s.success_rate
           is not None else f"{p.name}: no valid episodes")
    out = [_svg_label(p, y + 15),
           f'<rect class="{cls}" data-provider="{name}" data-rate="{rate:.4f}" '
           f'x="{_LABEL_W}" y="{y + 4:.1f}" width="{rate * _PLOT_W:.1f}" height="{_ROW_H - 10}">'
           f"<title>{_e(tip)}</title></rect>"]
    if s.ci95 is not None:
        lo, hi = (_LABEL_W + v * _PLOT_W for v in s.ci95)
        mid = y + 4 + (_ROW_H - 10) / 2
        out.append(f'<g class="whisker" data-provider="{name}" data-lo="{s.ci95[0]:.4f}" '
                   f'data-hi="{s.ci95[1]:.4f}">'
                   f'<line class="whisker" x1="{lo:.1f}" y1="{mid:.1f}" x2="{hi:.1f}" '
                   f'y2="{mid:.1f}"/>'
                   + "".join(f'<line class="whisker" x1="{x:.1f}" y1="{mid - 6:.1f}" '
                             f'x2="{x:.1f}" y2="{mid + 6:.1f}"/>' for x in (lo, hi))
                   + "</g>")
    value = _rate(s) or "no valid episodes"
    out.append(f'<text x="{_LABEL_W + _PLOT_W + 8}" y="{y + 15:.1f}">{_e(value)}</text>')
    return out


def _success_chart(providers: Sequence[_Provider]) -> str:
    height = _TOP + _ROW_H * len(providers) + (12 if any(p.summary.baseline
                                                          for p in providers) else 4)
    ticks = [(f, f"{int(f * 100)}%") for f in (0, 0.25, 0.5, 0.75, 1)]
    body = _svg_axis(height, ticks)
    for i, p in enumerate(providers):
        body += _success_row(p, _TOP + i * _ROW_H)
    return _svg(body, height, "success rate per provider with its 95% interval",
                "success-chart")


def _nice_max(value: float) -> float:
    if value <= 0:
        return 1.0
    step = 10 ** (len(str(int(value))) - 1)
    return float(-(-value // step) * step)


def _token_row(p: _Provider, y: float, top: float) -> list[str]:
    s, name = p.summary, _e(p.name)
    out = [_svg_label(p, y + 15)]
    bars = (("tbar", s.tokens_per_success, "model tokens / success"),
            ("obar", s.observation_tokens_per_success, "observation tokens / success"))
    for k, (cls, value, what) in enumerate(bars):
        by = y + 3 + k * 11
        if value is None:
            out.append(f'<text class="muted unknown {cls}" data-provider="{name}" '
                       f'x="{_LABEL_W + 4}" y="{by + 9:.1f}">{_e(what)}: not reported</text>')
            continue
        width = value / top * _PLOT_W
        out.append(f'<rect class="{cls}" data-provider="{name}" data-value="{value:.1f}" '
                   f'x="{_LABEL_W}" y="{by:.1f}" width="{width:.1f}" height="10">'
                   f"<title>{_e(f'{p.name}: {_num(value)} {what}')}</title></rect>")
        out.append(f'<text class="tick" x="{_LABEL_W + width + 4:.1f}" y="{by + 9:.1f}">'
                   f"{_num(value)}</text>")
    return out


def _tokens_chart(providers: Sequence[_Provider]) -> str:
    known = [v for p in providers for v in (p.summary.tokens_per_success,
                                             p.summary.observation_tokens_per_success)
             if v is not None]
    top = _nice_max(max(known, default=0.0))
    height = _TOP + _ROW_H * len(providers) + (12 if any(p.summary.baseline
                                                          for p in providers) else 4)
    body = _svg_axis(height, [(f, _num(f * top)) for f in (0, 0.25, 0.5, 0.75, 1)])
    for i, p in enumerate(providers):
        body += _token_row(p, _TOP + i * _ROW_H, top)
    return _svg(body, height, "tokens per success per provider", "tokens-chart")


# -- HTML: sections -----------------------------------------------------------------------------
def _html_facts(results: Results) -> str:
    rows = []
    for name, value in _facts(results):
        cls = ' class="warn"' if name == "interrupted" else ""
        rows.append(f"<dt>{_e(name)}</dt><dd{cls}>{_e(value)}</dd>")
    return '<dl class="facts" id="facts">' + "".join(rows) + "</dl>"


def _html_label(p: _Provider) -> str:
    if not p.summary.baseline:
        return _e(p.label)
    rest = p.label[len(BASELINE_LABEL):].lstrip(": ")
    return (f'<span class="badge baseline">{BASELINE_LABEL}</span>'
            + (f" {_e(rest)}" if rest else ""))


def _html_providers(providers: Sequence[_Provider]) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in _PROVIDER_HEADER)
    rows = []
    for p in providers:
        cells = _provider_cells(p)
        tds = [f"<td>{_e(cells[0])}</td>", f"<td>{_html_label(p)}</td>"]
        tds += [f'<td class="num">{_e(c)}</td>' for c in cells[2:10]]
        tds.append(f"<td>{_e(cells[10])}</td>")
        rows.append(f'<tr data-provider="{_e(p.name)}">' + "".join(tds) + "</tr>")
    return (f'<div class="scroll"><table id="providers"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def _html_cell(results: Results, index: int | None, task: str, provider: str) -> str:
    attrs = f'data-task="{_e(task)}" data-provider="{_e(provider)}"'
    if index is None:
        return f'<td class="cell none" {attrs} title="not run">—</td>'
    e = results.episodes[index]
    tip = f"{task} · {provider}: {e.status}" + (f": {e.reason}" if e.reason else "")
    return (f'<td class="cell {e.status}" {attrs} data-episode="{index}" '
            f'data-status="{e.status}" title="{_e(tip[:300])}">'
            f'<button type="button" aria-label="{_e(f"{task} {provider} {e.status}")}">'
            f"{_SYMBOL[e.status]}</button></td>")


def _html_grid(results: Results, providers: Sequence[_Provider]) -> str:
    cells = _cells(results)
    head = "<th>task</th>" + "".join(f'<th class="prov">{_e(p.name)}</th>' for p in providers)
    rows = []
    for task in _tasks(results):
        tds = "".join(_html_cell(results, cells.get((task, p.name)), task, p.name)
                      for p in providers)
        rows.append(f'<tr data-task="{_e(task)}"><td class="task" title="{_e(task)}">'
                    f"{_e(task)}</td>{tds}</tr>")
    return (f'<div class="scroll"><table class="grid" id="grid"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def _cut(text: str, limit: int = 300) -> str:
    """Long text shortened for a list (the trajectory panel shows all of it)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _html_failures(results: Results) -> str:
    items = []
    for index, e in _not_succeeded(results):
        why = "".join(f"<li>✗ {_e(_cut(c))}</li>" for c in _failed_checks(e))
        reason = f": {_e(_cut(e.reason))}" if e.reason else ""
        items.append(
            f'<li><a href="#episode-{index}" data-episode="{index}">{_e(e.provider)} · '
            f'{_e(e.task)}</a> <span class="status {e.status}">{e.status}</span> after '
            f"{e.steps} steps{reason}" + (f"<ul>{why}</ul>" if why else "") + "</li>")
    if not items:
        done = "Every episode succeeded." if results.episodes else "No episodes were run."
        return f'<p class="note">{done}</p>'
    return '<ul class="failures" id="failures">' + "".join(items) + "</ul>"


def _legend() -> str:
    return ('<div class="legend"><span><span class="swatch tbar"></span>model tokens / success'
            '</span><span><span class="swatch obar"></span>observation tokens / success'
            "</span></div>")


def _html_body(results: Results) -> str:
    providers = _providers(results)
    return "".join([
        f"<h1>Eval report: {_e(results.suite.name)}</h1>",
        _html_facts(results),
        "<h2>Providers</h2>",
        _html_providers(providers),
        '<p class="note">Success rates count valid episodes only (success or failure); '
        "invalid episodes and provider errors are counted apart. The whisker is the 95% "
        "Wilson interval. Tokens are blank when the provider did not report them.</p>",
        '<div class="charts"><figure><figcaption>Success rate (95% interval)</figcaption>',
        _success_chart(providers),
        "</figure><figure><figcaption>Tokens per success</figcaption>",
        _tokens_chart(providers),
        _legend(),
        "</figure></div>",
        "<h2>Tasks</h2>",
        '<p class="note">Click a cell to see its trajectory: ✓ success, ✗ failure, '
        "⚠ invalid, ! provider error, — not run.</p>",
        _html_grid(results, providers),
        '<section id="trajectory" hidden aria-live="polite"></section>',
        "<h2>Episodes that did not succeed</h2>",
        _html_failures(results),
    ])


def render_html(results: Results) -> str:
    """``report.html``: one file that needs nothing else (see the module docstring)."""
    data = script_json([e.model_dump(mode="json") for e in results.episodes])
    csp = (f"default-src 'none'; script-src {_csp_hash(_JS)}; style-src {_csp_hash(_CSS)}; "
           "img-src data:; base-uri 'none'; form-action 'none'")
    return "\n".join([
        "<!doctype html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_e(csp)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="referrer" content="no-referrer">',
        '<link rel="icon" href="data:,">',
        f"<title>webrefs eval: {_e(results.suite.name)}</title>",
        f"<style>{_CSS}</style>",
        "</head>",
        "<body><main>",
        _html_body(results),
        "</main>",
        f'<script type="application/json" id="episodes-data">{data}</script>',
        f"<script>{_JS}</script>",
        "</body>",
        "</html>",
        "",
    ])


def write_report(results: Results, out_dir: Path) -> list[Path]:
    """Write ``report.md`` and ``report.html`` into ``out_dir`` (made when missing), every
    URL in them without credentials (``Results.redacted``)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    results = results.redacted()
    written = []
    for name, text in (("report.md", render_markdown(results)),
                       ("report.html", render_html(results))):
        path = out_dir / name
        # errors="replace": a lone surrogate from a page must not lose the whole report
        path.write_text(text, encoding="utf-8", errors="replace")
        written.append(path)
    return written


# -- terminal -----------------------------------------------------------------------------------
def terminal_table(results: Results) -> Table:
    """The providers side by side for a terminal. Cells are plain ``Text``: a label holding
    ``[bold]`` stays those characters, it is not read as markup. URLs are shown without
    credentials."""
    from rich.table import Table
    from rich.text import Text

    done = {"replay": "replayed", "record": "recorded", "live": "live"}
    how = (f"pages {done.get(results.run.pages, results.run.pages)}, model calls "
           f"{done.get(results.run.model_calls, results.run.model_calls)}")
    table = Table(title=Text(f"{results.suite.name} · webrefs {results.run.webrefs} · "
                             f"{how}".strip()),
                  title_justify="left")
    numeric = set(range(2, 10))
    for i, header in enumerate(_PROVIDER_HEADER):
        table.add_column(header, justify="right" if i in numeric else "left",
                         overflow="fold")
    for p in _providers(results):
        table.add_row(*(Text(redact_urls(c)) for c in _provider_cells(p)))
    return table
