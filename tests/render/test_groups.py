"""A repeated control says which item it belongs to (issue 30, part 3): the words beside it
are a group line above it, in controls-only and full snapshots, and through budget cuts."""

from __future__ import annotations

from typing import Any

from webrefs import render
from webrefs.models import PageTree


def tree(*children: dict[str, Any]) -> PageTree:
    root = {"tag": "body", "children": list(children)}
    return PageTree.model_validate({"url": "https://t.test/", "root": root})


def lines(t: PageTree, **kw: Any) -> list[str]:
    return render(t, **kw).text.splitlines()[1:]


def word(text: str, y: int) -> dict[str, Any]:
    return {"tag": "span", "text": text, "box": [0, y, 100, 20]}


def button(name: str, ref: str, y: int) -> dict[str, Any]:
    return {"tag": "button", "role": "button", "name": name, "ref": ref, "box": [200, y, 30, 20]}


def dishes() -> PageTree:
    """A flat run, as the extractor gives it when the boxes around each dish have no role."""
    return tree({"tag": "h2", "role": "heading", "name": "Starters", "level": 2},
                word("Pea soup", 100), word("$3.50", 100), button("-", "e1", 100),
                word("0", 100), button("+", "e2", 100),
                word("Fish pie", 130), word("$9.00", 130), button("-", "e3", 130),
                word("2", 130), button("+", "e4", 130),
                {"tag": "button", "role": "button", "name": "Place order", "ref": "e5"})


def test_a_flat_run_of_items_is_cut_into_one_group_per_item() -> None:
    assert lines(dishes()) == [
        '- heading "Starters" [level=2]',
        '- group "Pea soup | $3.50 | 0":',
        '  - button "-" [ref=e1]',
        '  - button "+" [ref=e2]',
        '- group "Fish pie | $9.00 | 2":',
        '  - button "-" [ref=e3]',
        '  - button "+" [ref=e4]',
        '- button "Place order" [ref=e5]',
    ]


def test_a_full_snapshot_says_the_words_once_on_the_group_line() -> None:
    text = "\n".join(lines(dishes(), interactive_only=False))
    assert text.count("Pea soup") == 1 and '- group "Pea soup | $3.50 | 0":' in text


def test_a_budget_cut_keeps_the_group_line_with_its_control() -> None:
    many = [part for i in range(30) for part in (
        word(f"Dish {i}", 100 + 30 * i), button("-", f"e{2 * i + 1}", 100 + 30 * i),
        button("+", f"e{2 * i + 2}", 100 + 30 * i))]
    for interactive_only in (True, False):
        out = lines(tree(*many), max_tokens=300, interactive_only=interactive_only)
        kept = [i for i, line in enumerate(out) if "[ref=" in line]
        assert kept and len(kept) < 60  # cut
        for i in kept:  # each kept control sits under the line naming its dish
            above = next(out[j] for j in range(i, -1, -1) if out[j].startswith("- group"))
            assert above.startswith('- group "Dish ')


def test_controls_with_their_own_names_make_no_groups() -> None:
    t = tree(word("Pea soup", 100), button("Add pea soup", "e1", 100),
             word("Fish pie", 130), button("Add fish pie", "e2", 130))
    assert lines(t) == ['- button "Add pea soup" [ref=e1]', '- button "Add fish pie" [ref=e2]']


def test_words_far_above_or_past_a_heading_are_not_taken() -> None:
    t = tree(word("Welcome aboard, pick your lunch below.", 0),
             word("Pea soup", 400), button("+", "e1", 400),
             word("Fish pie", 430), button("+", "e2", 430))
    assert lines(t)[0] == '- group "Pea soup":'


def test_a_card_with_a_role_is_its_controls_group() -> None:
    def card(title: str, price: str, ref: str) -> dict[str, Any]:
        return {"tag": "li", "role": "listitem", "children": [
            {"tag": "h3", "role": "heading", "name": title, "level": 3},
            {"tag": "p", "role": "paragraph", "text": price},
            button("Add to cart", ref, 0)]}

    t = tree({"tag": "ul", "role": "list", "children": [
        card("Deck shoes", "$40", "e1"), card("Oilskin", "$90", "e2")]})
    assert lines(t) == [
        "- list:",
        '  - listitem "$40":',
        '    - heading "Deck shoes" [level=3]',
        '    - button "Add to cart" [ref=e1]',
        '  - listitem "$90":',
        '    - heading "Oilskin" [level=3]',
        '    - button "Add to cart" [ref=e2]',
    ]


def test_a_sentence_above_the_first_item_is_not_its_name() -> None:
    t = tree(word("Mark the numbers below as odd or even and press submit when done.", 60),
             word("-5", 100), button("Odd", "e1", 100), button("Even", "e2", 100),
             word("4", 130), button("Odd", "e3", 130), button("Even", "e4", 130))
    assert lines(t)[:2] == ['- group "-5":', '  - button "Odd" [ref=e1]']
