"""The extractor as a string for other hosts, and parse_snapshot_json (pure and in a page)."""

from __future__ import annotations

import json
import random

import pytest
import webrefs
from webrefs import Tab, extractor_script, parse_snapshot_json
from webrefs.errors import SnapshotFormatError
from webrefs.models import Box, Node
from webrefs.snapshot.script import (
    QuickRead,
    _updates,
    is_rescrolled,
    is_retexted,
    quick_read,
    rescrolled_since,
    retexted_since,
    script_body,
    with_updates,
)

from tests.helpers.extracting import evaluate, find
from tests.helpers.server import SiteServer

VALID = {
    "version": 2,
    "url": "https://example.test/",
    "title": "Example",
    "viewport": {"width": 1280, "height": 720},
    "scroll": {"x": 0, "y": 40},
    "document": {"width": 1280, "height": 2000},
    "focusedRef": "e2",
    "nextRef": 3,
    "stats": {"domNodes": 10, "visitedNodes": 9, "emittedNodes": 3, "skippedHidden": 1,
              "jsTimeMs": 1.5, "truncated": False, "truncatedReasons": []},
    "root": {"tag": "body", "children": [
        {"tag": "a", "role": "link", "name": "Home", "ref": "e1", "attrs": {"href": "/"},
         "box": [1, 2, 30, 10], "inViewport": True},
        {"tag": "input", "role": "textbox", "name": "Query", "ref": "e2", "value": "cats",
         "states": {"focused": True}, "fontSize": 13.3},
        {"tag": "select", "role": "combobox", "ref": "e3",
         "options": [{"value": "a", "label": "A", "selected": True}]},
        {"text": "hello"},  # a run of text: no tag
    ]},
}


def test_exported() -> None:
    assert "extractor_script" in webrefs.__all__ and "parse_snapshot_json" in webrefs.__all__


def test_script_is_a_documented_versioned_function_expression() -> None:
    script = extractor_script()
    assert script.lstrip().startswith("/*") and "version 2" in script
    assert "(opts) =>" in script
    # what is evaluated in every frame (the function, without its doc comment and comment
    # lines) is kept small; a line is dropped as a comment only where no template literal
    # spans lines
    body = script_body()
    assert len(body.encode()) < 90_000
    assert all(line.count("`") % 2 == 0 for line in script.split("\n"))
    for key in ("maxNodes", "maxTextPerNode", "contentRefs", "prefix", "nextRef", "rootSelector"):
        assert key in script


def test_parse_valid() -> None:
    tree = parse_snapshot_json(json.dumps(VALID))
    assert tree.url == "https://example.test/" and tree.scroll.y == 40
    assert tree.document.height == 2000 and tree.viewport.width == 1280
    assert tree.focused_ref == "e2"
    link, box, select, text = tree.root.children
    assert link.role == "link" and link.box is not None and link.box.w == 30 and link.in_viewport
    assert box.value == "cats" and box.states["focused"] is True and box.font_size == 13.3
    assert select.options is not None and select.options[0].selected
    assert text.text == "hello" and text.tag == "#text"
    assert link.box == (1, 2, 30, 10) and (link.box.x, link.box.y, link.box.h) == (1, 2, 10)
    assert tree.stats.skipped_hidden == 1 and tree.stats.js_time_ms == 1.5


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "not valid JSON"),
        ("{not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        (json.dumps({**VALID, "version": 1}), "version 1"),
        (json.dumps({k: v for k, v in VALID.items() if k != "version"}), "version None"),
        (json.dumps({k: v for k, v in VALID.items() if k != "root"}), "root"),
        (json.dumps({**VALID, "root": {"tag": 5, "children": []}}), "root.tag"),
        (json.dumps({**VALID, "root": {"tag": "body", "box": ["left", 0, 1, 1]}}), "root.box"),
        (json.dumps({**VALID, "root": {"tag": "body", "box": [0, 0, 1]}}), "root.box"),
    ],
)
def test_parse_errors(text: str, words: str) -> None:
    with pytest.raises(SnapshotFormatError) as err:
        parse_snapshot_json(text)
    assert words in str(err.value)


def test_parse_rejects_non_string() -> None:
    with pytest.raises(SnapshotFormatError):
        parse_snapshot_json(b"{}")  # type: ignore[arg-type]


def test_another_host_can_run_the_script(tab: Tab, site: SiteServer) -> None:
    """A host that only evaluates JS and returns a string (as a WebView would)."""
    tab.goto(site.url("/extract/basic.html"))
    raw = evaluate(tab, f"() => ({extractor_script()})({{prefix: '', nextRef: 1}})")
    assert isinstance(raw, str)
    # format 2: boxes are [x, y, w, h] arrays of whole pixels, text runs carry no tag
    data = json.loads(raw)
    nodes, stack = [], [data["root"]]
    while stack:
        nodes.append(stack.pop())
        stack.extend(nodes[-1].get("children", ()))
    boxes = [n["box"] for n in nodes if "box" in n]
    assert boxes and all(len(b) == 4 and all(type(v) is int for v in b) for b in boxes)
    runs = [n for n in nodes if "tag" not in n]
    assert runs and all(set(n) == {"text"} for n in runs)
    tree = parse_snapshot_json(raw)
    assert tree.title == "Basic page"
    assert find(tree, role="button", name="Search").ref
    frame = find(tree, tag="iframe")  # this host does not read frames: the node stays empty
    assert frame.children == [] and frame.frame is not None and frame.frame.prefix is None
    # same document, second run: the page-side registry keeps the refs
    again = parse_snapshot_json(
        evaluate(tab, f"() => ({extractor_script()})({{nextRef: {json.loads(raw)['nextRef']}}})"))
    assert find(again, role="button", name="Search").ref == find(tree, role="button",
                                                                 name="Search").ref


def test_root_selector(tab: Tab, site: SiteServer) -> None:
    from webrefs.errors import InvalidArgumentError, NoMatchError

    from tests.helpers.extracting import extract, find_all

    tab.goto(site.url("/extract/basic.html"))
    tree = extract(tab, root_selector="form")
    assert find(tree, role="form").ref is None
    assert not find_all(tree, role="link") and find(tree, role="button", name="Search").ref
    with pytest.raises(NoMatchError):
        extract(tab, root_selector="#nothing-here")
    with pytest.raises(InvalidArgumentError):
        extract(tab, root_selector="div[[")


def test_quick_read_gives_the_tree_parse_gives() -> None:
    text = json.dumps({**VALID, "nextRef": 4})
    quick = quick_read(text)
    assert quick is not None
    assert quick.tree == parse_snapshot_json(text)
    assert quick.tree.model_dump(by_alias=True) == parse_snapshot_json(text).model_dump(
        by_alias=True)
    assert quick.next_ref == 4 and not quick.root_missing
    missing = quick_read(json.dumps({**VALID, "rootMissing": True}))
    assert missing is not None and missing.root_missing


@pytest.mark.parametrize("text", [
    json.dumps({**VALID, "iframes": 1}),  # iframe nodes: stitched by the general path
    json.dumps({**VALID, "version": 1}),
    json.dumps({**VALID, "nextRef": True}),
    json.dumps({key: value for key, value in VALID.items() if key != "nextRef"}),
    json.dumps({**VALID, "root": {"tag": 5, "children": []}}),
    '{"version": 2, "root": ',
    "[]",
])
def test_quick_read_leaves_what_it_cannot_vouch_for_to_the_general_path(text: str) -> None:
    assert quick_read(text) is None


def test_quick_read_takes_only_text() -> None:
    assert quick_read(VALID) is None


def test_quick_read_finds_the_iframe_nodes_stitching_needs() -> None:
    frame = {"tag": "iframe", "role": "iframe", "name": 'x "frame":{"key":9,"cx":1,"cy":1}',
             "box": [5, 6, 100, 50], "frame": {"key": 2, "cx": 15, "cy": -6}}
    deep = {"tag": "iframe", "role": "iframe", "attrs": {"title": '"frame":{"key":7'},
            "frame": {"key": 3, "cx": 40, "cy": 300.5}}
    data = {**VALID, "iframes": 2, "root": {"tag": "body", "children": [
        {"text": "a"}, frame, {"tag": "div", "role": "group", "children": [
            {"text": "b"}, deep]}]}}
    text = json.dumps(data, separators=(",", ":"))
    assert quick_read(text) is None  # iframe nodes: only for a caller that hangs frames
    quick = quick_read(text, frames_ok=True)
    assert quick is not None
    # the names and attributes that look like frame objects are strings, escaped: not matched
    assert quick.hosts == [((1,), 2, 15.0, -6.0), ((2, 1), 3, 40.0, 300.5)]
    assert quick.tree.root.children[1].name == frame["name"]
    # a count that does not match the nodes found leaves the output to the general path
    assert quick_read(json.dumps({**data, "iframes": 3}, separators=(",", ":")),
                      frames_ok=True) is None
    unkeyed = json.dumps({**data, "root": {"tag": "body", "children": [
        {**frame, "frame": {"key": None}}, deep]}}, separators=(",", ":"))
    assert quick_read(unkeyed, frames_ok=True) is None


def _rescrolled(**over: object) -> str:
    answer = {"version": 2, "rescrolled": "w1.abc", "scroll": {"x": 0, "y": 900},
              "document": {"width": 1280, "height": 2100}, "flips": [[0], [1]],
              "boxes": [[[1], [0, 900, 200, 20]]],
              "jsTimeMs": 0.4, "watch": "w2.def"}
    answer.update(over)
    return json.dumps(answer, separators=(",", ":"))


def test_a_read_after_a_scroll_alone_moves_the_kept_tree() -> None:
    kept = quick_read(json.dumps({**VALID, "nextRef": 4}))
    assert kept is not None
    moved = rescrolled_since(_rescrolled(), "w1.abc", kept)
    assert moved is not None
    quick, token = moved
    assert token == "w2.def" and quick.next_ref == 4
    tree = quick.tree
    assert tree.scroll.y == 900 and tree.document.height == 2100
    assert tree.stats.js_time_ms == 0.4 and tree.stats.emitted_nodes == 3
    link, field, select, text = tree.root.children
    assert not link.in_viewport and field.in_viewport  # turned over
    assert field.box == (0, 900, 200, 20) and link.box == (1, 2, 30, 10)
    # the rest is the kept tree's own: same nodes, same refs
    assert select is kept.tree.root.children[2] and text is kept.tree.root.children[3]
    assert link.model_copy(update={"in_viewport": True}) == kept.tree.root.children[0]
    assert kept.tree.scroll.y == 40 and kept.tree.root.children[0].in_viewport


@pytest.mark.parametrize("text", [
    _rescrolled(rescrolled="w0.old"),  # not the kept read's token
    _rescrolled(flips=[[4]]),  # no such node
    _rescrolled(flips=[[0, 0]]),
    _rescrolled(flips=[["0"]]),
    _rescrolled(boxes=[[[9], [0, 0, 1, 1]]]),
    _rescrolled(boxes=[[[1], [0, 0, 1]]]),
    _rescrolled(watch="not a token!"),
    _rescrolled(extra=1),
    _rescrolled()[:-10],
])
def test_a_rescroll_answer_that_does_not_fit_the_kept_read_is_refused(text: str) -> None:
    kept = quick_read(json.dumps({**VALID, "nextRef": 4}))
    assert kept is not None and is_rescrolled(text)
    assert rescrolled_since(text, "w1.abc", kept) is None


def test_only_a_rescroll_answer_is_one() -> None:
    assert not is_rescrolled(json.dumps(VALID)) and not is_rescrolled(None)
    assert not is_rescrolled('{"version":2,"unchanged":"w1.abc","jsTimeMs":0.1}')


def _retexted(**over: object) -> str:
    answer = {"version": 2, "retexted": "w1.abc",
              "nodes": [[[3], {"text": "hello again"}],
                        [[0], {"tag": "a", "role": "link", "name": "Home page", "ref": "e1",
                               "attrs": {"href": "/"}, "box": [1, 2, 60, 10],
                               "inViewport": True, "children": [{"tag": "b", "ref": "e4"}]}]],
              "splices": [], "names": [], "flips": [[1]], "boxes": [[[2], [5, 60, 90, 20]]],
              "document": {"width": 1280, "height": 2020}, "focusedRef": "e4", "nextRef": 5,
              "stats": {**VALID["stats"], "emittedNodes": 4, "visitedNodes": 11},
              "jsTimeMs": 0.7, "watch": "w2.def"}
    answer.update(over)
    return json.dumps(answer, separators=(",", ":"))


def test_a_read_after_a_text_edit_replaces_only_the_subtrees_walked_again() -> None:
    kept = quick_read(json.dumps(VALID))
    assert kept is not None
    edited = retexted_since(_retexted(), "w1.abc", kept)
    assert edited is not None
    quick, token = edited
    assert token == "w2.def" and quick.next_ref == 5
    tree = quick.tree
    assert tree.document.height == 2020 and tree.stats.emitted_nodes == 4
    assert tree.stats.visited_nodes == 11 and tree.stats.js_time_ms == 0.7
    assert tree.focused_ref == "e4" and kept.tree.focused_ref != "e4"  # (focus moved)
    link, field, select, text = tree.root.children
    assert link.name == "Home page" and link.children[0].ref == "e4" and link.box.w == 60
    assert text.text == "hello again"
    assert field.in_viewport and select.box == (5, 60, 90, 20)  # moved by the edit
    assert field.model_copy(update={"in_viewport": False}) == kept.tree.root.children[1]
    assert kept.tree.root.children[0].name == "Home"  # the kept tree is not changed
    # names above a walked subtree
    named = retexted_since(_retexted(nodes=[], names=[[[2], "Colour"]]), "w1.abc", kept)
    assert named is not None and named[0].tree.root.children[2].name == "Colour"


def _kept_with_frame() -> QuickRead:
    frame = {"tag": "iframe", "role": "iframe", "frame": {"key": 7, "cx": 5, "cy": 6}}
    kept = quick_read(json.dumps({**VALID, "iframes": 1, "root": {
        "tag": "body", "children": [*VALID["root"]["children"], frame]}},
        separators=(",", ":")), frames_ok=True)
    assert kept is not None and kept.hosts == [((4,), 7, 5.0, 6.0)]
    return kept


def test_what_a_wrapper_gives_now_takes_the_place_of_what_it_gave() -> None:
    """Splices: ranges of a node's children (as the kept read has them) replaced, in the
    order given, after the other updates; an iframe node after them is found where it went."""
    kept = _kept_with_frame()
    para = {"tag": "p", "role": "paragraph", "text": "Now"}
    text = _retexted(nodes=[], flips=[], boxes=[[[3], [0, 0, 9, 9]], [[0], [1, 2, 30, 12]]],
                     names=[[[], "Page"]],
                     splices=[[[], 3, 3, [{"text": "new"}, {"tag": "h2", "role": "heading"}]],
                              [[], 1, 3, [para]]])
    edited = retexted_since(text, "w1.abc", kept)
    assert edited is not None
    tree, hosts = edited[0].tree, edited[0].hosts
    assert [(k.role, k.text) for k in tree.root.children] == [
        ("link", ""), ("paragraph", "Now"), (None, "new"), ("heading", ""), (None, "hello"),
        ("iframe", "")]
    assert tree.root.children[0].box.h == 12 and tree.root.name == "Page"
    assert tree.root.children[4].box == (0, 0, 9, 9)  # (the old text run's box, where it went)
    assert [h[:2] for h in hosts] == [((5,), 7)]
    assert len(kept.tree.root.children) == 5  # the kept tree is not changed


def test_an_iframe_the_change_moved_takes_its_new_content_origin() -> None:
    """The content origin of an iframe node the change moved is the answer's (the host
    hangs the frame's content there), at the node's place once the splices are applied."""
    kept = _kept_with_frame()
    text = _retexted(nodes=[], flips=[], boxes=[[[4], [0, 40, 300, 150]]],
                     frames=[[[4], 5, 46]], splices=[[[], 3, 3, [{"text": "new"}]]])
    edited = retexted_since(text, "w1.abc", kept)
    assert edited is not None
    assert edited[0].hosts == [((5,), 7, 5.0, 46.0)]
    assert edited[0].tree.root.children[5].box == (0, 40, 300, 150)
    assert kept.hosts == [((4,), 7, 5.0, 6.0)]  # what was kept is not changed
    still = retexted_since(_retexted(nodes=[], flips=[], boxes=[]), "w1.abc", kept)
    assert still is not None and still[0].hosts == kept.hosts


@pytest.mark.parametrize("frames", [
    [[[3], 5, 46]],  # a node that is no iframe
    [[[9], 5, 46]],  # no such node
    [[[4], 5, 46], [[4], 6, 47]],  # the same iframe twice
    [[[4], "5", 46]],  # not a number
])
def test_a_moved_origin_that_does_not_fit_the_kept_read_is_refused(frames: list[object]) -> None:
    text = _retexted(nodes=[], flips=[], boxes=[], frames=frames)
    assert retexted_since(text, "w1.abc", _kept_with_frame()) is None


def _iframe(key: int) -> dict[str, object]:
    return {"tag": "iframe", "role": "iframe", "frame": {"key": key, "cx": 0, "cy": 0}}


def test_an_iframe_walked_again_is_hung_where_the_answer_puts_it() -> None:
    """An iframe node in a subtree walked again (a node replaced, or a spliced range) is
    no longer the kept one: the answer lists each iframe node of the new subtrees with its
    path once applied, key and origin, and the hosts are those, with the kept ones that
    were not walked again, in document order."""
    kept = _kept_with_frame()
    replaced = retexted_since(_retexted(nodes=[[[4], _iframe(7)]], flips=[], boxes=[],
                                        hosted=[[[4], 7, 5, 80]]), "w1.abc", kept)
    assert replaced is not None and replaced[0].hosts == [((4,), 7, 5.0, 80.0)]
    spliced = retexted_since(_retexted(
        nodes=[], flips=[], boxes=[],
        splices=[[[], 3, 5, [{"tag": "div", "children": [_iframe(9)]}, _iframe(7)]],
                 [[], 1, 1, [{"text": "new"}]]],
        hosted=[[[5], 7, 5, 90], [[4, 0], 9, 10, 20]]), "w1.abc", kept)
    assert spliced is not None
    assert spliced[0].hosts == [((4, 0), 9, 10.0, 20.0), ((5,), 7, 5.0, 90.0)]
    assert [k.tag for k in spliced[0].tree.root.children][3:] == ["select", "div", "iframe"]
    kept_out = retexted_since(_retexted(nodes=[], flips=[], boxes=[],
                                        splices=[[[], 4, 5, []]]), "w1.abc", kept)
    assert kept_out is not None and kept_out[0].hosts == []  # (taken out with its range)


@pytest.mark.parametrize(("over", "why"), [
    ({"nodes": [[[4], _iframe(7)]]}, "an iframe walked again and not listed"),
    ({"hosted": [[[4], 7, 5, 6]]}, "a listed iframe that was not walked again"),
    ({"nodes": [[[4], _iframe(7)]], "hosted": [[[4], 7, 5, 6], [[4], 7, 5, 6]]}, "listed twice"),
    ({"nodes": [[[3], {"text": "x"}]], "hosted": [[[3], 7, 5, 6]]}, "a node that is no iframe"),
    ({"splices": [[[], 3, 3, [_iframe(9)]]], "hosted": [[[4], 9, 1, 1]]},
     "an iframe listed where it is not once applied"),
])
def test_iframes_listed_that_are_not_those_walked_again_are_refused(
        over: dict[str, object], why: str) -> None:
    answer = {"nodes": [], "flips": [], "boxes": [], **over}
    assert retexted_since(_retexted(**answer), "w1.abc", _kept_with_frame()) is None, why


@pytest.mark.parametrize("splices", [
    [[[], 2, 9, []]],  # past the children
    [[[], 3, 1, []]],  # backwards
    [[[], 0, 2, []], [[], 1, 3, []]],  # ranges that overlap
    [[[7], 0, 0, []]],  # no such node
    [[[], 1, 2, []], [[1], 0, 0, []]],  # a node in a range replaced
])
def test_a_splice_that_does_not_fit_the_kept_read_is_refused(splices: list[object]) -> None:
    kept = quick_read(json.dumps(VALID))
    assert kept is not None
    assert retexted_since(_retexted(nodes=[], flips=[], boxes=[], splices=splices), "w1.abc",
                          kept) is None


def test_an_update_inside_a_spliced_range_is_refused() -> None:
    kept = quick_read(json.dumps(VALID))
    assert kept is not None
    assert retexted_since(_retexted(nodes=[], flips=[[1]], boxes=[],
                                    splices=[[[], 1, 2, []]]), "w1.abc", kept) is None


@pytest.mark.parametrize("text", [
    _retexted(retexted="w0.old"),  # not the kept read's token
    _retexted(nodes=[[[7], {"text": "x"}]]),  # no such node
    _retexted(nodes=[[[0], {"text": "x"}]], flips=[[0, 0]]),  # inside a new subtree
    _retexted(names=[[[0, 0], "x"]]),
    _retexted(nodes=[[[1], {"tag": 5}]]),  # not a node
    _retexted(nextRef=2),  # the counter went back
    _retexted(focusedRef=4),  # not a ref
    _retexted(stats={"domNodes": "many"}),
    _retexted(watch="not a token!"),
    _retexted(extra=1),
    _retexted()[:-10],
])
def test_a_retext_answer_that_does_not_fit_the_kept_read_is_refused(text: str) -> None:
    kept = quick_read(json.dumps(VALID))
    assert kept is not None and is_retexted(text)
    assert retexted_since(text, "w1.abc", kept) is None


def test_only_a_retext_answer_is_one() -> None:
    assert not is_retexted(json.dumps(VALID)) and not is_retexted(_rescrolled())
    assert not is_retexted(None)


def _deep_tree(rng: random.Random, depth: int = 0) -> Node:
    kids = [] if depth == 4 else [_deep_tree(rng, depth + 1) for _ in range(rng.randint(1, 4))]
    return Node(tag="div", text=f"d{depth}", box=Box(0, 0, 1, 1), children=kids)


def _paths(node: Node, at: tuple[int, ...] = ()) -> list[tuple[int, ...]]:
    return [at, *(p for i, k in enumerate(node.children) for p in _paths(k, (*at, i)))]


@pytest.mark.parametrize("seed", range(8))
def test_many_updates_into_the_same_subtrees_are_each_where_their_path_says(seed: int) -> None:
    """Boxes and viewport flags of many nodes that share their paths' beginnings (as after
    content put in above them), given in any order: each lands on its own node, as if
    applied one by one, and the tree they were given for is not changed."""
    rng = random.Random(seed)
    root = _deep_tree(rng)
    paths = [p for p in _paths(root) if p]
    picked = rng.sample(paths, min(len(paths), 40))
    boxes = [(list(p), "box", Box(k, k, 2, 2)) for k, p in enumerate(picked)]
    flips = [list(p) for p in rng.sample(paths, min(len(paths), 10))]
    rng.shuffle(boxes)
    updates = _updates(root, flips, list(boxes))
    assert updates is not None
    got = with_updates(root, updates)
    one_by_one = root
    for path, _, box in boxes:
        one_by_one = with_updates(one_by_one, {tuple(path): {"box": box}})
    for path in flips:
        node = one_by_one
        for i in path:
            node = node.children[i]
        one_by_one = with_updates(one_by_one, {tuple(path): {"in_viewport": not node.in_viewport}})
    assert got == one_by_one
    assert all(n.box == Box(0, 0, 1, 1) for n in _nodes(root))  # (nothing kept was changed)
    assert _updates(root, [], [([*picked[0], 9], "box", Box(0, 0, 3, 3))]) is None


def _nodes(node: Node) -> list[Node]:
    return [node, *(n for k in node.children for n in _nodes(k))]


def _moved_tree() -> QuickRead:
    """A kept read whose body holds a section of three boxes (one with no box of its own)
    above a footer, and the text run of VALID."""
    section = {"tag": "section", "role": "region", "box": [0, 100, 800, 300], "children": [
        {"tag": "a", "role": "link", "name": "One", "ref": "e1", "box": [10, 110, 50, 20]},
        {"tag": "div", "children": [
            {"tag": "a", "role": "link", "name": "Two", "ref": "e2", "box": [10, 140, 50, 20],
             "inViewport": True}]},
        {"text": "note"}]}
    footer = {"tag": "footer", "role": "contentinfo", "box": [0, 400, 800, 60]}
    kept = quick_read(json.dumps({**VALID, "root": {"tag": "body", "children": [
        section, footer, {"text": "hello"}]}}))
    assert kept is not None
    return kept


def test_a_subtree_that_moved_as_one_moves_every_box_it_holds() -> None:
    """A shift names a subtree once: every box in it, its root's included, moves by dx, dy;
    flips, names and boxes set in it still apply; the new subtrees of the answer and boxes
    outside the subtree stay as given."""
    kept = _moved_tree()
    text = _retexted(nodes=[], flips=[[0, 1, 0]], boxes=[[[1], [0, 460, 800, 60]]],
                     names=[[[0, 0], "One more"]], shifts=[[[0], 0, 25]],
                     splices=[[[0], 2, 3, [{"tag": "p", "role": "paragraph", "text": "new note",
                                            "box": [10, 190, 200, 20]}]]])
    edited = retexted_since(text, "w1.abc", kept)
    assert edited is not None
    section, footer, run = edited[0].tree.root.children
    one, holder, note = section.children
    assert section.box == (0, 125, 800, 300) and one.box == (10, 135, 50, 20)
    assert holder.box is None and holder.children[0].box == (10, 165, 50, 20)
    assert not holder.children[0].in_viewport and one.name == "One more"
    assert note.text == "new note" and note.box == (10, 190, 200, 20)  # (this read's: kept)
    assert footer.box == (0, 460, 800, 60)  # (a box of its own: not in the subtree moved)
    assert run is kept.tree.root.children[2]  # untouched nodes are shared, not copied
    assert kept.tree.root.children[0].box == (0, 100, 800, 300)  # the kept tree stays
    # the same through a read after the page's own scroll
    scrolled = rescrolled_since(_rescrolled(flips=[], boxes=[], shifts=[[[1], -4, 8]]),
                                "w1.abc", kept)
    assert scrolled is not None
    assert scrolled[0].tree.root.children[1].box == (-4, 408, 800, 60)
    assert scrolled[0].tree.root.children[0] is kept.tree.root.children[0]


@pytest.mark.parametrize("shifts", [
    [[[5], 0, 25]],  # no such node
    [[[0, 0, 0], 0, 25]],  # below a leaf
    [[["0"], 0, 25]],  # not a path
    [[[0], 0.5, 25]],  # not whole pixels
    [[[0], 0]],  # no dy
])
def test_a_shift_that_does_not_fit_the_kept_read_is_refused(shifts: list[object]) -> None:
    assert retexted_since(_retexted(nodes=[], flips=[], boxes=[], shifts=shifts), "w1.abc",
                          _moved_tree()) is None


def test_a_shift_inside_a_new_subtree_or_of_a_replaced_node_is_refused() -> None:
    kept = _moved_tree()
    new_section = {"tag": "section", "role": "region", "box": [0, 100, 800, 300]}
    for shifts in ([[[0], 0, 25]], [[[0, 1], 0, 25]]):
        assert retexted_since(_retexted(nodes=[[[0], new_section]], flips=[], boxes=[],
                                        shifts=shifts), "w1.abc", kept) is None
    assert retexted_since(_retexted(nodes=[], flips=[], boxes=[], shifts=[[[0, 2], 0, 9]],
                                    splices=[[[0], 1, 3, []]]), "w1.abc", kept) is None


def test_the_refs_checked_after_a_partial_read_are_those_of_its_new_subtrees() -> None:
    """A read that replaced parts of a kept one names its new subtrees (``fresh``): the
    host checks their refs (a ref another frame gave is refused), not the kept rest's again."""
    from webrefs.snapshot.extract import _foreign_ref_in

    kept = quick_read(json.dumps(VALID))
    assert kept is not None
    edited = retexted_since(_retexted(), "w1.abc", kept)
    assert edited is not None and edited[0].fresh is not None
    assert [n.ref for n in edited[0].fresh] == [None, "e1"]
    assert _foreign_ref_in(edited[0], "", 3) is None
    other = retexted_since(_retexted(nodes=[[[3], {"tag": "a", "role": "link", "ref": "f2e1"}]]),
                           "w1.abc", kept)
    assert other is not None and _foreign_ref_in(other[0], "", 3) == "f2e1"


def test_the_last_hung_tree_is_taken_again_only_for_the_very_same_main_tree() -> None:
    """What the ref book keeps of the last tree hung with frames is taken again only for the
    very same main tree: the same root object (a read that found nothing changed keeps it)
    and every other field equal, the in-page time aside. A read that kept the root but
    measured a longer document (an edit that moved no node) hangs the frames again."""
    from webrefs.models import PageTree, Size
    from webrefs.snapshot.extract import _hang_inputs
    from webrefs.snapshot.script import QuickRead

    root = Node(tag="body", children=[Node(tag="iframe")])
    tree = PageTree(root=root, document=Size(width=1280, height=720))
    hosts: list[tuple[list[int], int, float, float]] = [([0], 1, 0.0, 0.0)]

    def inputs(**update: object) -> object:
        return _hang_inputs([], QuickRead(tree.model_copy(update=update), 1, False,
                                          list(hosts)))

    kept = inputs()
    assert inputs(stats=tree.stats.model_copy(update={"js_time_ms": 7.5})) == kept
    assert inputs(document=Size(width=1280, height=3000)) != kept
    assert inputs(title="Another") != kept
    assert inputs(root=root.model_copy()) != kept  # an equal root, but not the same one
