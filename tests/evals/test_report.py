"""The run report: numbers and labels in report.md, hostile text kept inert in report.md and
report.html, and the HTML file rendered by a real Chromium (one bar per provider, a grid
cell opening its trajectory, no request but the file itself, no script but its own)."""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from rich.console import Console
from webrefs import Tab
from webrefs.evals.reports.report import (
    BASELINE_LABEL,
    provider_label,
    render_html,
    render_markdown,
    script_json,
    terminal_table,
    write_report,
)
from webrefs.evals.reports.results import ProviderSummary, Results

from tests.evals.factories import (
    HOSTILE,
    IMG_ONERROR,
    SCRIPT_BREAK,
    episode,
    hostile,
    results_of,
    sample,
)
from tests.helpers.actions import ref


# -- helpers ------------------------------------------------------------------------------------
def md_rows(text: str, first_header: str) -> dict[str, list[str]]:
    """The rows of the markdown table whose header starts with ``first_header``, by their
    first cell (cells split on unescaped pipes, escapes kept)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header} |"))
    rows: dict[str, list[str]] = {}
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells, cell, escaped = [], "", False
        for ch in line.strip()[1:-1]:
            if ch == "|" and not escaped:
                cells.append(cell.strip())
                cell = ""
            else:
                cell += ch
            escaped = ch == "\\" and not escaped
        cells.append(cell.strip())
        rows[cells[0]] = cells
    return rows


class Tags(HTMLParser):
    """Every start tag of a document with its attributes, and the text of each <script>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.scripts: list[str] = []
        self.in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))
        if tag == "script":
            self.in_script = True
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self.in_script = False

    def handle_data(self, data: str) -> None:
        if self.in_script:
            self.scripts[-1] += data


def parse(doc: str) -> Tags:
    tags = Tags()
    tags.feed(doc)
    tags.close()
    return tags


# -- markdown -----------------------------------------------------------------------------------
def test_markdown_has_the_run_facts() -> None:
    text = render_markdown(sample())
    assert text.startswith("# Eval report: demo\n")
    assert "- **suite**: demo (c0ffeec0ffee), 4 tasks" in text
    assert "c0ffeec0ffeec0" not in text  # a prefix of the hash, not all of it
    assert "- **webrefs**: 0.1.0" in text
    assert "- **git commit**: 1234567890ab\n" in text
    assert "- **browser**: chromium 131.0 (Playwright 1.49.0)" in text
    assert "- **pages**: replayed from recordings" in text
    assert '- **options**: {"max\\_tokens": 4000}' in text
    assert "- **started**: 2025-01-02T10:00:00+00:00" in text
    assert "- **duration**: 3m 07s" in text
    live = render_markdown(results_of([episode("t", "p")], pages="live"))
    assert "- **pages**: live (served by the site server during the run)" in live


def test_markdown_provider_table_has_the_numbers() -> None:
    rows = md_rows(render_markdown(sample()), "provider")
    assert list(rows) == ["gpt", "local", "reference"]
    assert rows["gpt"] == ["gpt", "gpt-4o-mini", "4", "2",
                           "66.7% (20.8–93.8%) + 1 invalid of 4", "1", "0",
                           "2,150", "500", "2", "stale\\_ref 2"]
    # local reports no usage: its tokens per success stay blank, never 0 or a guess
    assert rows["local"] == ["local", "llama 3.1 8b", "4", "3",
                             "100.0% (43.9–100.0%) + 1 error of 4", "0",
                             "1", "", "600", "2", ""]
    assert rows["reference"][1] == "model-free baseline: the reference solutions"
    assert rows["reference"][7] == ""


def test_markdown_task_table_and_failures() -> None:
    text = render_markdown(sample())
    tasks = md_rows(text, "task")
    assert tasks["login"] == ["login", "✗ failure", "✓ success", "✓ success"]
    assert tasks["cart"] == ["cart", "✓ success", "! error", "✓ success"]
    assert tasks["form"] == ["form", "⚠ invalid", "✓ success", "✓ success"]
    failures = text.split("## Episodes that did not succeed")[1]
    assert "- **gpt** · login: failure after 2 steps: the answer was wrong\n" \
           "  - ✗ answer: the answer '1999' does not contain '1887'" in failures
    assert "- **gpt** · form: invalid after 2 steps: left the recorded pages" in failures
    assert "- **local** · cart: error after 2 steps: rate limited" in failures
    assert "url" not in failures  # the check that held is not listed
    assert "search" not in failures


def test_markdown_marks_tasks_a_provider_did_not_run() -> None:
    results = results_of([episode("a", "p"), episode("b", "p"), episode("a", "q")])
    assert md_rows(render_markdown(results), "task")["b"] == ["b", "✓ success", "—"]


def test_baselines_are_labelled_as_such() -> None:
    assert provider_label(ProviderSummary(baseline=True)) == BASELINE_LABEL
    assert provider_label(ProviderSummary(baseline=True, label="the reference")) == \
        "model-free baseline: the reference"
    already = ProviderSummary(baseline=True, label="Model-free baseline: reference solutions")
    assert provider_label(already) == "Model-free baseline: reference solutions"
    assert provider_label(ProviderSummary(label="gpt-4o")) == "gpt-4o"


def test_markdown_keeps_hostile_text_inert() -> None:
    text = render_markdown(hostile())
    rendered = MarkdownIt("commonmark").enable("table").render(text)
    for live in ("<script", "<img", "<a ", "<!--", "<strong>x</strong>"):
        assert live not in rendered
    assert "&lt;/script&gt;&lt;script&gt;window.__pwned = 1; alert(1)&lt;/script&gt;" in rendered
    assert "\u2028" not in text  # folded like other whitespace
    assert len(md_rows(text, "provider")["gpt"]) == 11  # a pipe in the label split no cell


# -- terminal -----------------------------------------------------------------------------------
def test_terminal_table_shows_each_provider() -> None:
    results = sample()
    results.providers["local"].label = "[bold red]not markup[/]"
    table = terminal_table(results)
    assert table.row_count == 3
    assert len(table.columns) == 11
    console = Console(record=True, width=260, color_system=None)
    console.print(table)
    out = console.export_text()
    assert "66.7% (20.8–93.8%)" in out and "2,150" in out
    assert "[bold red]not markup[/]" in out
    assert "model-free baseline: the reference solutions" in out


# -- HTML, read as text ---------------------------------------------------------------------------
def test_script_json_is_inert_inside_a_script_element() -> None:
    value = {"x": "</script><!-- & \u2028\u2029 é \ud800"}
    text = script_json(value)
    for bad in ("<", ">", "&", "\u2028", "\u2029"):
        assert bad not in text
    assert text.isascii()
    assert json.loads(text) == value


def test_html_keeps_hostile_text_inert() -> None:
    results = hostile()
    doc = render_html(results)
    tags = parse(doc)
    names = [t for t, _ in tags.tags]
    assert names.count("script") == 2
    assert doc.count("</script>") == 2
    assert not {"img", "iframe", "object", "embed", "form", "svg:script"} & set(names)
    assert "<img" not in doc
    for tag, attrs in tags.tags:
        assert not any(k.startswith("on") for k in attrs), (tag, attrs)
        assert "src" not in attrs
        assert not attrs.get("href", "#").startswith(("http", "//", "javascript")), attrs
    assert "\u2028" not in tags.scripts[0]
    data = json.loads(tags.scripts[0])
    assert data == [e.model_dump(mode="json") for e in results.episodes]
    assert data[0]["trajectory"][0]["output"] == HOSTILE
    # the hostile label is text in the provider table
    assert "&lt;/script&gt;&lt;script&gt;window.__pwned = 1; alert(1)&lt;/script&gt;" in doc


def test_html_policy_admits_only_its_own_script_and_style() -> None:
    doc = render_html(sample())
    tags = parse(doc)
    meta = next(a for t, a in tags.tags if t == "meta" and "http-equiv" in a)
    policy = dict(p.strip().split(" ", 1) for p in meta["content"].split(";"))
    digest = base64.b64encode(hashlib.sha256(tags.scripts[1].encode()).digest()).decode()
    assert policy["default-src"] == "'none'"
    assert policy["script-src"] == f"'sha256-{digest}'"
    assert policy["style-src"].startswith("'sha256-")
    assert not [a for t, a in tags.tags if t == "link" and a.get("rel") != "icon"]


def test_html_charts_and_grid_from_the_summaries() -> None:
    tags = parse(render_html(sample()))
    bars = [a for t, a in tags.tags if t == "rect" and a.get("class", "").startswith("bar")]
    assert [b["data-provider"] for b in bars] == ["gpt", "local", "reference"]
    assert [float(b["width"]) for b in bars] == [pytest.approx(0.6667 * 560, abs=0.1),
                                                 560.0, 560.0]
    assert bars[2]["class"] == "bar baseline"
    token_bars = {a["data-provider"]: a for t, a in tags.tags
                  if t == "rect" and a.get("class") == "tbar"}
    assert list(token_bars) == ["gpt"]  # the others did not report tokens: no bar
    unknown = [a["data-provider"] for t, a in tags.tags
               if t == "text" and "unknown tbar" in a.get("class", "")]
    assert unknown == ["local", "reference"]
    cells = [a for t, a in tags.tags if t == "td" and "cell" in a.get("class", "").split()]
    assert len(cells) == 12
    login_gpt = next(c for c in cells if c["data-task"] == "login" and c["data-provider"] == "gpt")
    assert login_gpt["class"] == "cell failure" and login_gpt["data-episode"] == "1"


def test_write_report_writes_both_files(tmp_path: Path) -> None:
    results = results_of([episode("t", "p", answer="half a pair \ud800 of surrogates")])
    paths = write_report(results, tmp_path / "out")
    assert [p.name for p in paths] == ["report.md", "report.html"]
    assert all(p.is_file() for p in paths)
    assert paths[1].read_text(encoding="utf-8").startswith("<!doctype html>")


# -- HTML, in a real browser ---------------------------------------------------------------
@dataclass
class Served:
    base: str
    paths: list[str]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """The report of :func:`hostile` written to a folder served on 127.0.0.1."""
    write_report(hostile(), tmp_path)
    paths: list[str] = []

    class Handler(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            paths.append(self.path)

    server = ThreadingHTTPServer(("127.0.0.1", 0),
                                 partial(Handler, directory=str(tmp_path)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Served(f"http://127.0.0.1:{server.server_address[1]}/", paths)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@dataclass
class PageLog:
    problems: list[str] = field(default_factory=list)
    """Console errors and warnings, uncaught page errors, dialogs."""
    requests: list[str] = field(default_factory=list)


def listen(tab: Tab) -> PageLog:
    log = PageLog()

    async def attach() -> None:
        page = tab.page
        page.on("console", lambda m: log.problems.append(f"console.{m.type}: {m.text}")
                if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: log.problems.append(f"pageerror: {e}"))
        page.on("dialog", lambda d: log.problems.append(f"dialog: {d.message}"))
        page.on("request", lambda r: log.requests.append(r.url))

    tab.runner.run(attach())
    return log


INJECTED = ("[document.querySelectorAll('img, iframe, object, embed, a[href^=javascript]')"
            ".length, document.scripts.length, window.__pwned === undefined]")


def step_tools(tab: Tab) -> Any:
    return tab.evaluate("Array.from(document.querySelectorAll('#trajectory li.step .tool'))"
                        ".map(n => n.textContent)")


@pytest.mark.browser
def test_report_renders_in_chromium(tab: Tab, served: Served) -> None:
    log = listen(tab)
    url = served.base + "report.html"
    tab.goto(url)
    assert tab.title == "webrefs eval: demo"
    bars = tab.evaluate("Array.from(document.querySelectorAll('#success-chart rect.bar'))"
                        ".map(r => r.dataset.provider)")
    assert bars == ["gpt", "reference"]
    box = tab.evaluate("(() => { const r = document.querySelector('#success-chart')"
                       ".getBoundingClientRect(); return [r.width, r.height]; })()")
    assert box[0] > 300 and box[1] > 50
    assert tab.evaluate("document.getElementById('trajectory').hidden") is True
    assert tab.evaluate(INJECTED) == [0, 2, True]
    assert tab.evaluate("performance.getEntriesByType('resource').length") == 0
    assert log.requests == [url]
    assert served.paths == ["/report.html"]
    assert log.problems == []


@pytest.mark.browser
def test_clicking_a_cell_opens_its_trajectory(tab: Tab, served: Served) -> None:
    log = listen(tab)
    tab.goto(served.base + "report.html")
    tab.evaluate("document.querySelector('td.cell[data-task=\"hostile-task\"]"
                 "[data-provider=\"gpt\"] button').click()")
    assert tab.evaluate("document.getElementById('trajectory').hidden") is False
    assert step_tools(tab) == ["web_snapshot", "web_get_text", "web_click"]
    outputs = tab.evaluate("Array.from(document.querySelectorAll('#trajectory pre.output'))"
                           ".map(n => n.textContent)")
    assert outputs == [HOSTILE, f"page says {HOSTILE}", "Clicked."]  # shown, as text
    args = tab.evaluate("Array.from(document.querySelectorAll('#trajectory pre.args'))"
                        ".map(n => JSON.parse(n.textContent))")
    assert args == [{}, {"query": HOSTILE}, {"target": "e7"}]
    assert tab.evaluate("Array.from(document.querySelectorAll('#trajectory .errcode'))"
                        ".map(n => n.textContent)") == ["blocked"]
    panel = tab.evaluate("document.getElementById('trajectory').textContent")
    assert f"text: {HOSTILE}" in panel  # the failed check and why
    assert "prompt tokens1,000" in panel and "wall time1.5 s" in panel
    assert tab.evaluate("document.querySelector('td.cell.selected').dataset.task") == \
        "hostile-task"
    assert tab.evaluate(INJECTED) == [0, 2, True]
    assert SCRIPT_BREAK in tab.evaluate("document.getElementById('trajectory').textContent")
    assert IMG_ONERROR in panel
    assert log.problems == []


@pytest.mark.browser
def test_a_real_click_and_a_link_open_trajectories(tab: Tab, served: Served) -> None:
    log = listen(tab)
    tab.goto(served.base + "report.html")
    tab.click(ref(tab, "button", "plain-task gpt success"))
    assert tab.evaluate("document.getElementById('trajectory').dataset.episode") == "1"
    assert step_tools(tab) == ["web_snapshot", "web_click"]
    tab.goto(served.base + "report.html#episode-2")
    assert tab.evaluate("document.getElementById('trajectory').hidden") is False
    assert tab.evaluate("document.querySelector('#trajectory h2').textContent") == \
        "hostile-task · reference success"
    assert log.problems == []


def test_results_without_episodes_still_render() -> None:
    empty = Results(suite=sample().suite)
    assert "No episodes were run." in render_markdown(empty)
    assert 'id="success-chart"' in render_html(empty)


def test_invalid_and_error_episodes_stand_beside_the_rate() -> None:
    """A task that became invalid on replay must not leave a rate that reads as 100% alone:
    the headline (markdown, HTML chart, terminal) says how many episodes were left out."""
    results = results_of([episode("a", "m"), episode("b", "m", "invalid", reason="diverged"),
                          episode("c", "m", "error", reason="rate limit")])
    text = render_markdown(results)
    assert "100.0% (20.6–100.0%) + 1 invalid, 1 error of 3" in md_rows(text, "provider")["m"]
    assert "100.0% (20.6–100.0%) + 1 invalid, 1 error of 3" in render_html(results)
    console = Console(width=250, record=True)
    console.print(terminal_table(results))
    assert "+ 1 invalid, 1 error of 3" in console.export_text()
    none_valid = results_of([episode("a", "m", "invalid", reason="diverged")])
    assert "— (1 invalid of 1)" in md_rows(render_markdown(none_valid), "provider")["m"]
