"""The reference policies, one per MiniWoB++ task family (see :mod:`.policy`).

Each reads the utterance and what the tools return, never the page itself. Targets are found
by role and name; where a page gives its controls no names (unlabelled text boxes, radio
buttons) by their position, which the utterance states ("the 2nd textbox").
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Generator

from .outline import Item, Outline
from .policy import Call, Play, Policy, act, click, fill, look, read, stuck

__all__ = ["POLICIES", "ended", "goal_match", "nth", "ordinal", "quoted", "submit"]

ORDINAL = re.compile(r"(\d+)(?:st|nd|rd|th)")
TEXTBOX = ("textbox", "searchbox")



def goal_match(pattern: str, goal: str, missing: str) -> re.Match[str]:
    """``pattern`` searched in the goal; a policy that cannot read its goal is stuck, with
    ``missing`` as the reason."""
    m = re.search(pattern, goal)
    if m is None:
        raise stuck(missing)
    return m

def quoted(goal: str, index: int = 0) -> str:
    found = re.findall(r'"([^"]*)"', goal)
    if len(found) <= index:
        raise stuck(f"the goal {goal!r} quotes no text")
    return str(found[index])


def ordinal(text: str, index: int = 0) -> int:
    found = ORDINAL.findall(text)
    if len(found) <= index:
        raise stuck(f"{text!r} names no position (1st, 2nd, ...)")
    return int(found[index])


def nth(items: list[Item], n: int, what: str) -> Item:
    if not 1 <= n <= len(items):
        raise stuck(f"there is no {n}th {what} ({len(items)} shown)")
    return items[n - 1]


def submit(page: Outline, name: str = "Submit") -> Play:
    button = page.first(("button", "link", "text", "tab"), name)
    if button is None:
        button = page.first(("button", "link", "text"), name, exact=False)
    yield from click(button, f"{name!r} button")
    return None


def click_named(role: str | tuple[str, ...], exact: bool = True) -> Policy:
    """Click the element the goal quotes."""
    def play(goal: str) -> Play:
        page = yield from look()
        name = quoted(goal)
        yield from click(page.first(role, name, exact=exact), f"{role} {name!r}")
        return None
    return play


def click_test(goal: str) -> Play:
    page = yield from look()
    yield from click(page.first("button"), "button")
    return None


def click_button_word(goal: str) -> Play:
    """"Click button ONE." / "Click button ONE, then click button TWO." """
    page = yield from look()
    for name in re.findall(r"button (\w+)", goal):
        yield from click(page.first("button", name), f"button {name}")
    return None


def click_dialog(goal: str) -> Play:
    page = yield from look()
    m = re.search(r'"([^"]*)"', goal)
    name = m.group(1) if m else "x"
    if name.lower() in ("x", "×"):
        name = "Close"
    dialog_buttons = [i for i in page.all("button") if i.name.lower() == name.lower()]
    yield from click(dialog_buttons[0] if dialog_buttons else None, f"button {name!r}")
    return None


def check_named(goal: str, names: list[str], page: Outline, role: str) -> Play:
    for name in names:
        box = page.first(role, name)
        if box is None:
            raise stuck(f"no {role} named {name!r}")
        yield from act("web_check", ref=box.ref, checked=True)
    return None


def click_checkboxes(goal: str) -> Play:
    page = yield from look()
    m = goal_match(r"Select (.*) and click Submit", goal,
                   f"cannot read the checkboxes to select from {goal!r}")
    listed = m.group(1).strip()
    names = [] if listed == "nothing" else [n.strip() for n in listed.split(",")]
    yield from check_named(goal, [n for n in names if n], page, "checkbox")
    yield from submit(page)
    return None


def click_option(goal: str) -> Play:
    page = yield from look()
    m = goal_match(r"Select (.*) and click Submit", goal, f"cannot read the option from {goal!r}")
    yield from check_named(goal, [m.group(1).strip()], page, "radio")
    yield from submit(page)
    return None


def click_collapsible(goal: str) -> Play:
    page = yield from look()
    section = next((t for t in page.all("tab") if t.name.startswith("Section")), None)
    yield from click(section, "section")
    page = yield from look()
    # the panel's button is read as a tab of the accordion: its name is the button's
    yield from click(page.first("button", "Submit") or page.first("tab", "Submit"),
                     "Submit button")
    return None


def ended(page: Outline) -> bool:
    """The page shows MiniWoB's start cover: the episode is over."""
    return page.first("text", "START") is not None


def find_link_in_sections(goal: str) -> Play:
    """Open sections or tabs one by one until the quoted link shows, then click it."""
    name = quoted(goal)
    page = yield from look()
    tried: set[str] = set()
    for _ in range(10):
        if ended(page):  # "no match" variants end when the right tab is opened
            return None
        link = page.first(("link", "text"), name)
        if link is not None:
            yield from click(link, f"link {name!r}")
            return None
        tabs = [t for t in page.all("tab") if t.name not in tried]
        if not tabs:
            break
        tried.add(tabs[0].name)
        if not (tabs[0].has("selected") or (tabs[0].has("expanded") and
                                            tabs[0].attrs.get("expanded") != "false")):
            yield from click(tabs[0], "tab")
            page = yield from look()
    raise stuck(f"no section shows the link {name!r}")


def click_tab(goal: str) -> Play:
    page = yield from look()
    m = goal_match(r"Click on (Tab #\d+)", goal, f"cannot read the tab from {goal!r}")
    yield from click(page.first("tab", m.group(1)), m.group(1))
    return None


def click_widget(goal: str) -> Play:
    page = yield from look()
    kind = quoted(goal)
    item: Item | None
    if kind in ("radio", "checkbox", "button"):
        item = page.first(kind)
    elif kind == "text":
        item = next((i for i in page.all("textbox") if i.attrs.get("type") == "input"), None)
    else:  # textarea: the text boxes without an input type
        item = next((i for i in page.all("textbox") if "type" not in i.attrs), None)
    yield from click(item, f"{kind} widget")
    return None


def enter_value(goal: str) -> Play:
    page = yield from look()
    text = quoted(goal)
    if "lower case" in goal:
        text = text.lower()
    elif "upper case" in goal:
        text = text.upper()
    yield from fill(page.first(TEXTBOX), text)
    yield from submit(page)
    return None


def enter_password(goal: str) -> Play:
    page = yield from look()
    password = quoted(goal)
    boxes = page.all("textbox")
    if len(boxes) < 2:
        raise stuck("the page shows fewer than two password fields")
    for box in boxes[:2]:
        yield from fill(box, password)
    yield from submit(page)
    return None


def login_user(goal: str) -> Play:
    """Fill username and password; a popup that opens on focus ("Exit to home page?") is
    answered Cancel and the field filled again."""
    user, password = quoted(goal, 0), quoted(goal, 1)
    page = yield from look()
    for index, value in enumerate((user, password)):
        boxes = page.all("textbox")
        if len(boxes) < 2:
            raise stuck("the page shows no username and password fields")
        yield from act("web_fill", ref=boxes[index].ref, value=value)
        page = yield from look()
        cancel = page.first("button", "Cancel")
        if cancel is not None:
            yield from click(cancel, "popup's Cancel button")
            page = yield from look()
            yield from fill(page.all("textbox")[index], value)
    buttons = page.all("button")
    yield from click(buttons[-1] if buttons else None, "login button")
    return None


def enter_date(goal: str) -> Play:
    page = yield from look()
    m = goal_match(r"(\d\d)/(\d\d)/(\d{4})", goal, f"no date in {goal!r}")
    yield from fill(page.first("textbox"), f"{m.group(3)}-{m.group(1)}-{m.group(2)}")
    yield from submit(page)
    return None


def enter_time(goal: str) -> Play:
    page = yield from look()
    m = goal_match(r"(\d{1,2}):(\d\d) ?([AP]M)", goal, f"no time in {goal!r}")
    hour = int(m.group(1)) % 12 + (12 if m.group(3) == "PM" else 0)
    yield from fill(page.first("textbox"), f"{hour:02d}:{m.group(2)}")
    yield from submit(page)
    return None


def focus_text(goal: str) -> Play:
    page = yield from look()
    boxes = page.all("textbox")
    n = ordinal(goal) if ORDINAL.search(goal) else 1
    yield from click(nth(boxes, n, "textbox"), "textbox")
    return None


def choose_list(goal: str) -> Play:
    page = yield from look()
    m = goal_match(r"Select (.*) from the (?:scroll )?list", goal,
                   f"cannot read the items from {goal!r}")
    names = [n.strip() for n in m.group(1).split(",") if n.strip()]
    box = page.first(("combobox", "listbox"))
    if box is None:
        raise stuck("the page shows no list")
    yield from act("web_select", ref=box.ref, values=names)
    yield from submit(page)
    return None


def unicode_test(goal: str) -> Play:
    page = yield from look()
    name = quoted(goal)
    yield from click(page.first("button", name), f"button {name!r}")
    return None


def copy_paste(goal: str) -> Play:
    page = yield from look()
    boxes = page.all("textbox")
    # the text areas hold the text; the field to paste into is the empty one (before or
    # after them: the page places it either way)
    sources = [b for b in boxes if b.value]
    targets = [b for b in boxes if not b.value]
    if not sources or not targets:
        raise stuck("the page shows no text area with text and empty text input")
    target = targets[-1]
    source = nth(sources, ordinal(goal), "text area") if ORDINAL.search(goal) else sources[0]
    # copied exactly with the keyboard: the outline shows the text with its spaces collapsed
    yield from act("web_press_key", key="ControlOrMeta+A", ref=source.ref)
    yield from act("web_press_key", key="ControlOrMeta+C", ref=source.ref)
    yield from act("web_press_key", key="ControlOrMeta+V", ref=target.ref)
    yield from submit(page)
    return None


def area_text(area: Item) -> Generator[Call, str, str]:
    """A text area's whole text: its value in the outline, or ``web_get_text`` when the
    outline shortened it (ends with an ellipsis)."""
    value = area.value or ""
    if value and not value.endswith("…"):
        return value
    text = yield from read(area)
    if not text or text == "(no visible text)":
        raise stuck("the text area's text is shortened in the outline and web_get_text "
                    "shows none of it")
    return text


def _words(text: str) -> list[str]:
    return text.split()


def paragraph(page: Outline, goal: str) -> str:
    """The longest text line of a full snapshot that is not the goal or the score board."""
    texts = [i.name for i in page if i.role in ("text", "paragraph") and i.name != goal]
    return max(texts, key=len) if texts else ""


def find_word(goal: str) -> Play:
    page = yield from look(full=True)
    words = _words(paragraph(page, goal))
    word = nth([Item("word", w, None, 0) for w in words], ordinal(goal), "word").name
    yield from fill(page.first("textbox"), word.strip(".,;:!?"))
    yield from submit(page)
    return None


def scroll_text(goal: str) -> Play:
    page = yield from look()
    boxes = page.all("textbox")
    if len(boxes) < 2:
        raise stuck("the page shows no text area and text field")
    text = yield from area_text(boxes[0])
    last = text.split()[-1].strip(".,;:!?")
    yield from fill(boxes[1], last)
    yield from submit(page)
    return None


def scroll_text_2(goal: str) -> Play:
    page = yield from look()
    area = page.first("textbox")
    if area is None:
        raise stuck("the page shows no text area")
    direction = "down" if "bottom" in goal else "up"
    yield from act("web_scroll", direction=direction, amount=5000, ref=area.ref)
    yield from submit(page)
    return None


def read_table(goal: str) -> Play:
    page = yield from look(full=True)
    m = goal_match(r"value of (.*) into the text field", goal,
                   f"cannot read the label from {goal!r}")
    cells = [i for i in page if i.role == "cell"]
    for label, value in itertools.pairwise(cells):
        if label.name == m.group(1):
            yield from fill(page.first("textbox"), value.name)
            yield from submit(page)
            return None
    raise stuck(f"the table has no row {m.group(1)!r}")


def read_table_2(goal: str) -> Play:
    page = yield from look(full=True)
    cells = [i for i in page if i.role == "cell"]
    table = {a.name: b.name for a, b in zip(cells[::2], cells[1::2], strict=False)}
    label = None
    for item in page:
        if item.role == "textbox" and item.ref is not None:
            if label is None or label not in table:
                raise stuck(f"no table row for the field labelled {label!r}")
            yield from fill(item, table[label])
            label = None
        elif item.name:
            label = item.name.rstrip(":").strip()
    yield from submit(page)
    return None


def _number(text: str) -> float:
    return float(text.replace("$", "").replace(",", ""))


def simple_arithmetic(goal: str) -> Play:
    page = yield from look(full=True)
    for text in page.texts():
        m = re.fullmatch(r"\s*(-?\d+)\s*([-+x*/])\s*(-?\d+)\s*=?\s*", text)
        if m:
            a, op, b = int(m.group(1)), m.group(2), int(m.group(3))
            value = {"+": a + b, "-": a - b, "x": a * b, "*": a * b,
                     "/": a // b if b else 0}[op]
            yield from fill(page.first("textbox"), str(value))
            yield from submit(page)
            return None
    raise stuck("the page shows no arithmetic problem")


def simple_algebra(goal: str) -> Play:
    page = yield from look(full=True)
    for text in page.texts():
        t = text.replace(" ", "").replace("−", "-")
        m = re.fullmatch(r"(?:(-?\d+)([-+]))?x(?:([-+])(\d+))?=(-?\d+)", t)
        m2 = re.fullmatch(r"(-?\d+)([-+])x=(-?\d+)", t)
        value: int | None = None
        if m:
            result = int(m.group(5))
            if m.group(1) is not None:  # a + x = r  /  a - x = r
                value = result - int(m.group(1)) if m.group(2) == "+" else int(m.group(1)) - result
            elif m.group(3) is not None:  # x + b = r / x - b = r
                b = int(m.group(4))
                value = result - b if m.group(3) == "+" else result + b
            else:
                value = result
        elif m2:
            a, r = int(m2.group(1)), int(m2.group(3))
            value = r - a if m2.group(2) == "+" else a - r
        if value is not None:
            yield from fill(page.first("textbox"), str(value))
            yield from submit(page)
            return None
    raise stuck("the page shows no equation in x")


def text_transform(goal: str) -> Play:
    """The text is drawn letter by letter: the text lines between the goal and the field."""
    page = yield from look(full=True)
    letters: list[str] = []
    for item in page:
        if item.role == "textbox":
            break
        if item.role == "text" and item.name != goal:
            letters.append(item.name)
    if not letters:
        raise stuck("the page shows no text to type")
    yield from fill(page.first("textbox"), "".join(letters))
    yield from submit(page)
    return None


def use_spinner(goal: str) -> Play:
    page = yield from look()
    m = goal_match(r"Select (-?\d+)", goal, f"no number in {goal!r}")
    yield from fill(page.first("spinbutton"), m.group(1))
    yield from submit(page)
    return None


def _sliders(page: Outline) -> list[tuple[Item, Item]]:
    """Each slider's handle (the nameless control under a box hinted "slider", "slider-2"...)
    and the number shown after it."""
    items = page.items
    found: list[tuple[Item, Item]] = []
    for i, box in enumerate(items):
        if not re.fullmatch(r"slider(-\d+)?", box.attrs.get("hint", "")):
            continue
        handle = next((it for it in items[i + 1:] if it.ref and it.depth > box.depth), None)
        shown = next((it for it in items[i + 1:]
                      if it.depth <= box.depth and re.fullmatch(r"-?\d+", it.name)), None)
        if handle is not None and shown is not None:
            found.append((handle, shown))
    return found


def set_slider(handle: Item, shown: Item, target: int) -> Generator[Call, str, None]:
    """Move a slider with its keys until the number it shows is ``target``: page keys while
    a page step fits (its size is learnt from the first), then arrow keys, reading back."""
    value = int(shown.name)
    page_step: int | None = None
    for _ in range(40):
        diff = target - value
        if diff == 0:
            return
        if (page_step is None and abs(diff) >= 2) or (page_step and abs(diff) >= page_step):
            key = "PageUp" if diff > 0 else "PageDown"
        else:
            key = "ArrowRight" if diff > 0 else "ArrowLeft"
        yield from act("web_press_key", key=key, ref=handle.ref)
        now = int((yield from read(shown)).strip() or value)
        if key.startswith("Page") and page_step is None:
            page_step = max(abs(now - value), 1)
        value = now
    raise stuck(f"the slider did not reach {target}")


def use_slider(goal: str) -> Play:
    m = goal_match(r"Select (-?\d+)", goal, f"no number in {goal!r}")
    page = yield from look(full=True)
    sliders = _sliders(page)
    if not sliders:
        raise stuck("the page shows no slider")
    yield from set_slider(*sliders[0], int(m.group(1)))
    yield from submit(page)
    return None


def use_slider_2(goal: str) -> Play:
    m = goal_match(r"combination \[([-\d, ]+)\]", goal, f"no combination in {goal!r}")
    targets = [int(n) for n in m.group(1).split(",")]
    page = yield from look(full=True)
    sliders = _sliders(page)
    if len(sliders) != len(targets):
        raise stuck(f"{len(sliders)} sliders on the page for {len(targets)} numbers")
    for (handle, shown), target in zip(sliders, targets, strict=True):
        yield from set_slider(handle, shown, target)
    yield from submit(page)
    return None


def form_sequence(goal: str) -> Play:
    m = goal_match(r"Select (-?\d+) with the slider, click the (\d)\w\w checkbox", goal,
                   f"no number and checkbox in {goal!r}")
    page = yield from look(full=True)
    sliders = _sliders(page)
    boxes = page.all("checkbox")
    position = int(m.group(2))
    if not sliders or len(boxes) < position:
        raise stuck("the page shows no slider or too few checkboxes")
    yield from set_slider(*sliders[0], int(m.group(1)))
    yield from act("web_check", ref=boxes[position - 1].ref, checked=True)
    yield from submit(page)
    return None


def odd_or_even(goal: str) -> Play:
    page = yield from look(full=True)
    items = page.items
    for i, item in enumerate(items):
        # each number is the group line of its own "Odd" and "Even" buttons
        number = item.name.split(" | ")[-1]  # the number is the last of the group's words
        if item.role == "group" and re.fullmatch(r"-?\d+", number):
            under = {it.name: it for it in items[i + 1:i + 3] if it.depth > item.depth}
            if "Odd" in under and "Even" in under:
                yield from click(under["Odd" if int(number) % 2 else "Even"],
                                 "Odd/Even button")
    yield from submit(page)
    return None


def generate_number(goal: str) -> Play:
    """Press Generate until the number shown meets the goal, then Submit."""
    def fits(n: int) -> bool:
        if m := re.search(r"less than (-?\d+)", goal):
            return n < int(m.group(1))
        if m := re.search(r"greater than (-?\d+)", goal):
            return n > int(m.group(1))
        return n % 2 == (1 if "odd" in goal else 0)

    page = yield from look(full=True)
    for _ in range(8):
        yield from click(page.first("button", "Generate"), "Generate button")
        page = yield from look(full=True)
        shown = [int(i.name) for i in page if i.role == "text"
                 and re.fullmatch(r"-?\d+", i.name)]
        if shown and fits(shown[0]):
            yield from submit(page)
            return None
    raise stuck("no generated number met the goal in 8 tries")


def guess_number(goal: str) -> Play:
    """Binary search on the page's "higher than" / "lower than" feedback."""
    low, high = 0, 9
    page = yield from look()
    for _ in range(6):
        guess = (low + high) // 2
        yield from fill(page.first("spinbutton") or page.first("textbox"), str(guess),
                        "number field")
        yield from submit(page)
        page = yield from look(full=True)
        said = " ".join(page.texts())
        if ended(page) or "Correct" in said:
            return None
        if "higher than" in said:
            low = guess + 1
        elif "lower than" in said:
            high = guess - 1
        else:
            raise stuck("the page gave no feedback on the guess")
    raise stuck("the number was not found in 6 guesses")


def find_greatest(goal: str) -> Play:
    page = yield from look(full=True)
    cards = [i for i in page.all("text") if re.fullmatch(r"-?\d+", i.name)]
    submit_at = next((k for k, i in enumerate(page.items) if i.name == "Submit"), None)
    if submit_at is not None:  # the cards come before the Submit button
        before = {id(i) for i in page.items[:submit_at]}
        cards = [c for c in cards if id(c) in before]
    if not cards:
        raise stuck("the page shows no cards")
    best = max(cards, key=lambda c: int(c.name))
    yield from click(best, "card")
    yield from submit(page)
    return None


def form_sequence_2(goal: str) -> Play:
    """"Check the 2nd radio button and enter the number "-5" into the 3rd textbox." """
    page = yield from look()
    radio = nth(page.all("radio"), ordinal(goal, 0), "radio button")
    yield from act("web_check", ref=radio.ref, checked=True)
    box = nth(page.all("textbox"), ordinal(goal, 1), "textbox")
    yield from fill(box, quoted(goal))
    yield from submit(page)
    return None


def search_engine(goal: str) -> Play:
    """Search, then page through three results a page to the n-th and click it."""
    page = yield from look()
    yield from fill(page.first("textbox"), quoted(goal))
    yield from click(page.first("button", "Search"), "Search button")
    n = ordinal(goal)
    wanted_page = (n - 1) // 3 + 1
    page = yield from look()
    if wanted_page > 1:
        yield from click(page.first("link", str(wanted_page)), f"page {wanted_page} link")
        page = yield from look()
    results = [i for i in page.all("link") if not re.fullmatch(r"\d+|[<>«»]|Next|Prev.*",
                                                                i.name)]
    yield from click(nth(results, (n - 1) % 3 + 1, "search result"), "search result")
    return None


def sign_agreement(goal: str) -> Play:
    page = yield from look()
    if goal.startswith("Click the cancel"):
        yield from click(page.first("button", "Cancel"), "Cancel button")
        return None
    area = page.first("textbox")
    if area is None:
        raise stuck("the page shows no agreement text")
    yield from act("web_scroll", direction="down", amount=5000, ref=area.ref)
    page = yield from look()
    yield from fill(page.first("textbox", "Name"), quoted(goal), "Name field")
    page = yield from look()
    last = quoted(goal, 1) if goal.count('"') >= 4 else "Agree"
    yield from click(page.first("button", last), f"{last} button")
    return None


def use_autocomplete(goal: str) -> Play:
    """Type the start, then pick the suggestion that also ends right."""
    start = quoted(goal, 0)
    end = quoted(goal, 1) if goal.count('"') >= 4 else ""
    page = yield from look()
    field = page.first("textbox")
    yield from fill(field, start)
    for _ in range(3):
        page = yield from look(full=True)
        items = page.items
        options = [k for k, i in enumerate(items)
                   if i.role in ("option", "menuitem", "listitem", "text")
                   and i.name.startswith(start) and i.name.endswith(end) and i.name != goal]
        if options:
            k = options[0]
            # the suggestion's text, or the nameless list item that holds it
            target = items[k] if items[k].ref else next(
                (i for i in reversed(items[:k]) if i.ref and i.role == "listitem"), None)
            yield from click(target, "suggestion")
            page = yield from look()
            yield from submit(page)
            return None
    raise stuck(f"no suggestion starts with {start!r} and ends with {end!r}")


def click_menu(goal: str) -> Play:
    """"Select A>B>C": open each level by hovering it, then click the last. (A submenu opens
    on hover only and a click on its parent ends the task, so this needs ``web_hover``, an
    optional tool the harness does not offer by default.)"""
    path = goal.split("Select ", 1)[-1].strip().split(">")
    page = yield from look()
    for level, name in enumerate(path):
        item = page.first("menuitem", name.strip())
        if level < len(path) - 1:
            if item is None or item.ref is None:
                raise stuck(f"the menu shows no item {name!r}")
            yield from act("web_hover", ref=item.ref)
            page = yield from look()
        else:
            yield from click(item, f"menu item {name!r}")
    return None


def priced(page: Outline, duration: re.Pattern[str], what: str,
           ) -> list[tuple[float, float, Item]]:
    """``(price, minutes, button)`` of each offer listed: a line whose name matches
    ``duration`` (hours, then minutes) gives the duration of the next button showing a
    ``$`` price. A price without a duration before it, or no offer at all, is stuck."""
    offers: list[tuple[float, float, Item]] = []
    minutes: float | None = None
    for item in page:
        if d := duration.search(item.name):
            minutes = int(d.group(1)) * 60 + int(d.group(2) or 0)
        if item.role == "button" and (p := re.search(r"\$([\d,.]+)", item.name)):
            if minutes is None:
                raise stuck(f"a {what} shows no duration")
            offers.append((_number(p.group(1)), minutes, item))
            minutes = None
    if not offers:
        raise stuck(f"the page shows no {what}s")
    return offers


def buy_ticket(goal: str) -> Play:
    """Read each ticket's price and duration from a full snapshot; book the best."""
    page = yield from look(full=True)
    tickets = priced(page, re.compile(r"(\d+)h(?:\s*(\d+)m)?"), "ticket")
    criteria = {"cheapest": lambda t: t[0], "most expensive": lambda t: -t[0],
                "shortest": lambda t: t[1], "longest": lambda t: -t[1]}
    key = next((f for word, f in criteria.items() if word in goal), None)
    if key is None:
        raise stuck(f"cannot read what to buy from {goal!r}")
    yield from click(min(tickets, key=key)[2], "ticket")
    return None


LABELS = {"genre": ("genre",), "director": ("director",), "year": ("year", "released")}


def multi_layouts(goal: str) -> Play:
    """Fill the movie search form whatever its layout: each field's label is the text just
    before it, or (when the form starts with a field) just after it."""
    m = goal_match(r"Search for (.+) movies directed by (.+) from year (\d+)", goal,
                   f"cannot read the search from {goal!r}")
    wanted = {"genre": m.group(1), "director": m.group(2), "year": m.group(3)}
    page = yield from look(full=True)
    items = [i for i in page if i.name != goal and (i.role == "textbox" or i.name)]
    fields = [k for k, i in enumerate(items) if i.role == "textbox"]
    if not fields:
        raise stuck("the page shows no form fields")
    after = fields[0] == 0 or items[fields[0] - 1].role == "textbox"
    labels: list[Item] = []
    for k in fields:
        near = items[k + 1] if after and k + 1 < len(items) else items[k - 1]
        labels.append(near)
        label = (items[k].name or near.name).strip().rstrip(":").lower()
        key = next((k for k, words in LABELS.items() if any(w in label for w in words)), None)
        if key is None:
            raise stuck(f"a form field is labelled {label!r}")
        yield from fill(items[k], wanted[key])
    # the form's button (Submit, Search, Go!...) is the first control after its last field
    last = max(fields)
    button = next((i for i in items[last + 1:] if i.ref and i.role in ("button", "text")
                   and i not in labels and not i.name.endswith(":")), None)
    yield from click(button, "the form's button")
    return None


def stock_margin(ticks: int, moves: list[float]) -> float:
    """How far below the limit the price must be to buy, ``ticks`` price changes into the
    episode (the price changes every 100 ms for 10 s: its changes are the policy's clock).
    The price moves up to $1.50 a tick and keeps moving between a look and the click landing
    (a click takes about as long as a look, longer on a busy machine), so a price just under
    the limit is often above it by then: the margin is what the price moved between recent
    looks, at least $1.50 early and $0.60 later, and nothing in the last seconds."""
    recent = moves[-8:]
    moved = sum(recent) / len(recent) if recent else 0.0
    if ticks < 40:
        return max(1.5, 2 * moved)
    return max(0.6, moved) if ticks < 70 else 0.0


def stock_market(goal: str) -> Play:
    """Watch the price in snapshots until it stops (after 10 s); buy when it is below the
    limit by :func:`stock_margin`."""
    m = goal_match(r"less than \$(\d+(?:\.\d+)?)", goal, f"no price limit in {goal!r}")
    limit = float(m.group(1))
    moves: list[float] = []
    last: float | None = None
    ticks = 0
    for _ in range(STOCK_LOOKS):
        page = yield from look(full=True)
        prices = [float(i.name[1:]) for i in page if re.fullmatch(r"\$\d+(?:\.\d+)?", i.name)]
        if not prices:
            continue
        if last is not None:
            moves.append(abs(prices[0] - last))
            ticks += prices[0] != last
        last = prices[0]
        if prices[0] <= limit - stock_margin(ticks, moves):
            yield from click(page.first("button", "Buy"), "Buy button")
            return None
    raise stuck("the price never fell below the limit")


STOCK_LOOKS = 990
"""Snapshots stock-market may take (its ``max_steps`` is 1000): on an idle machine a snapshot
of this page takes about 20 ms, so the price's 10 s need about 500."""


def phone_book(goal: str) -> Play:
    """Page through the contacts to the one named, then click the field asked for."""
    m = goal_match(r"Find (.+) in the contact book and click on their (\w+)", goal,
                   f"cannot read the contact from {goal!r}")
    name, field = m.group(1), m.group(2).lower()
    for _ in range(12):
        page = yield from look(full=True)
        if page.first("heading", name) is not None:
            items = page.items
            for label, value in itertools.pairwise(items):
                if label.name.rstrip(":").lower() == field or (
                        field == "number" and label.name.startswith("Phone")):
                    yield from click(value, f"{field} of {name}")
                    return None
            raise stuck(f"{name}'s card shows no {field}")
        yield from click(page.first("link", ">"), "next page link")
    raise stuck(f"no contact named {name!r}")


MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August",
               "September", "October", "November", "December")


def choose_date(goal: str) -> Play:
    """Open the date picker, go back to the month with the picker's PageUp key (its Prev
    control has no name in the outline, so no ref), click the day, submit."""
    m = goal_match(r"(\d\d)/(\d\d)/(\d{4})", goal, f"no date in {goal!r}")
    month, day, year = int(m.group(1)), int(m.group(2)), m.group(3)
    title = f"{MONTH_NAMES[month - 1]} {year}"
    page = yield from look()
    field = page.first("textbox")
    yield from click(field, "date field")
    page = yield from look(full=True)
    shown = next((i.name for i in page if re.fullmatch(r"[A-Z][a-z]+ \d{4}", i.name)), "")
    if not shown:
        raise stuck("the date picker did not open")
    name, shown_year = shown.split()
    back = (int(shown_year) - int(year)) * 12 + MONTH_NAMES.index(name) - (month - 1)
    if field is None or back < 0:
        raise stuck(f"the date picker shows {shown}, after {title}")
    for _ in range(back):
        yield from act("web_press_key", key="PageUp", ref=field.ref)
    page = yield from look(full=True)
    if page.first("text", title) is None:
        raise stuck(f"the date picker does not show {title}")
    yield from click(page.first("link", str(day)), f"day {day}")
    page = yield from look()
    yield from submit(page)
    return None


def form_sequence_3(goal: str) -> Play:
    """"Choose 5ft 9in from the dropdown, then click the button labeled "Yes"." """
    m = goal_match(r"Choose (.+) from the dropdown", goal, f"cannot read the choice from {goal!r}")
    page = yield from look()
    yield from click(page.first("text", "▾") or page.first("combobox"), "dropdown")
    page = yield from look(full=True)
    choices = [i.name for i in page.all(("listitem", "option"))]
    if m.group(1) not in choices:
        raise stuck(f"the dropdown has no choice {m.group(1)!r}")
    # (an item below the open list's visible edge is refused as covered: see the report)
    yield from click(page.first(("listitem", "option"), m.group(1)), f"choice {m.group(1)!r}")
    page = yield from look()
    if page.first("text", m.group(1)) is None:
        raise stuck(f"the dropdown does not show {m.group(1)!r} chosen")
    name = quoted(goal)
    yield from click(page.first("button", name), f"button {name!r}")
    return None


SYNONYMS: tuple[frozenset[str], ...] = tuple(frozenset(group.split()) for group in (
    "big large huge enormous gigantic", "small tiny little mini petite",
    "red scarlet crimson vermillion", "happy cheerful joyful gleeful delighted",
    "sad unhappy sorrowful miserable tragic", "angry mad furious irritated",
    "evil wicked immoral sinful corrupt depraved", "wrong incorrect mistaken erroneous",
    "real genuine actual", "strange odd peculiar unusual weird",
    "stop cease halt end finish", "scared terrified panicked fearful frightened afraid",
    "quiet calm peaceful serene mild", "old aged archaic", "love like adore favor",
    "kill murder assassinate", "keep retain preserve sustain maintain",
    "hide conceal camouflage", "hate despise loathe detest dislike",
    "funny humorous amusing comical laughable", "fat fleshy plump chubby",
    "stupid dumb dull unwise", "delicious savory delectable appetizing",
    "cut slice carve chop", "brave courageous fearless", "begin start initiate launch",
    "answer reply response", "television televisions TV TVs", "house home houses homes",
    "fire flame fires flames", "pig pork swine", "rabbit rabbits bunny bunnies",
    "car cars automobile automobiles vehicle vehicles", "water",
))
"""English synonyms (the vocabulary of click-checkboxes-soft): what any reader knows."""


def similar(a: str, b: str) -> bool:
    return a.lower() == b.lower() or any(a in g and b in g for g in SYNONYMS)


def click_checkboxes_soft(goal: str) -> Play:
    """"Select words similar to brave, chubby and click Submit.": check each box whose word
    means the same as one of the words (one box per word)."""
    m = goal_match(r"Select words similar to (.*) and click Submit", goal,
                   f"cannot read the words from {goal!r}")
    listed = m.group(1).strip()
    words = [] if listed == "nothing" else [w.strip() for w in listed.split(",") if w.strip()]
    page = yield from look()
    boxes = page.all("checkbox")
    for word in words:
        box = next((b for b in boxes if similar(b.name, word)), None)
        if box is None:
            raise stuck(f"no checkbox means {word!r}")
        yield from act("web_check", ref=box.ref, checked=True)
    yield from submit(page)
    return None


KEY_NAMES = {" ": "Space"}


def terminal(goal: str) -> Play:
    """Type ``ls`` in the terminal (clicking it focuses its hidden input; keys go to the
    focused element), read the listing, then ``rm`` the file with the extension asked for."""
    m = re.search(r"ending with the extension \.?(\S+?)\.?$", goal)
    bare = "no file extension" in goal
    if m is None and not bare:
        raise stuck(f"cannot read the extension from {goal!r}")
    page = yield from look(full=True)
    yield from click(page.first("text", "terminal"), "terminal")

    def command(text: str) -> Generator[Call, str, None]:
        for char in text:
            yield from act("web_press_key", key=KEY_NAMES.get(char, char))
        yield from act("web_press_key", key="Enter")

    yield from command("ls")
    page = yield from look(full=True)
    lines = [i.name for i in page.all("text", refs=False)]
    at = max((k for k, line in enumerate(lines) if re.fullmatch(r"(?:\S*\$\s*)?ls", line)),
             default=-1)
    if at < 0 or at + 1 >= len(lines):
        raise stuck("the terminal shows no listing after ls")
    files = lines[at + 1].split()
    if m is not None:
        wanted = [f for f in files if f.endswith("." + m.group(1))]
    else:
        wanted = [f for f in files if "." not in f]
    if not wanted:
        raise stuck(f"the listing {files} has no file to delete")
    yield from command(f"rm {wanted[0]}")
    return None


def pick_suggestion(field: Item | None, typed: str, what: str) -> Play:
    """Type into an autocomplete field, then click the suggestion that contains the text."""
    yield from fill(field, typed, what)
    for _ in range(3):
        page = yield from look(full=True)
        items = page.items
        # a suggestion: an option, or a list item that says its text (or holds it)
        found = [i for k, i in enumerate(items) if i.ref and typed.lower() in i.name.lower()
                 and (i.role in ("option", "menuitem", "listitem")
                      or (k > 0 and i.role == "text" and items[k - 1].role == "listitem"))]
        if found:  # best: the airport code itself, then a name that starts with the text
            best = min(found, key=lambda i: (f"({typed})" not in i.name,
                                             not i.name.startswith(typed), typed not in i.name))
            yield from click(best, f"suggestion for {typed!r}")
            return None
    raise stuck(f"the {what} suggests nothing for {typed!r}")


def pick_date(field: Item | None, month: int, day: int, year: int) -> Play:
    """Open a jQuery UI date picker, page to the month (PageUp/PageDown in the field: its
    Prev/Next controls have no name), click the day."""
    yield from click(field, "date field")
    if field is None:
        return None
    page = yield from look(full=True)
    shown = next((i.name for i in page if re.fullmatch(r"[A-Z][a-z]+ \d{4}", i.name)), "")
    if not shown:
        raise stuck("the date picker did not open")
    name, shown_year = shown.split()
    moves = (int(shown_year) - year) * 12 + MONTH_NAMES.index(name) - (month - 1)
    for _ in range(abs(moves)):
        yield from act("web_press_key", key="PageUp" if moves > 0 else "PageDown",
                       ref=field.ref)
    title = f"{MONTH_NAMES[month - 1]} {year}"
    page = yield from look(full=True)
    if not any(title in text for text in page.texts()):
        raise stuck(f"the date picker does not show {title}")
    yield from click(page.first("link", str(day)), f"day {day}")
    return None


def book_flight(goal: str) -> Play:
    """From and To through their autocompletes, the date through its picker, Search, then
    book the cheapest or shortest of the flights listed."""
    m = goal_match(r"Book the (cheapest|shortest) one-way flight from: (.+?) to: (.+?) on "
                   r"(\d\d)/(\d\d)/(\d{4})", goal, f"cannot read the flight from {goal!r}")
    want, origin, destination = m.group(1), m.group(2).strip(), m.group(3).strip()
    month, day, year = int(m.group(4)), int(m.group(5)), int(m.group(6))
    page = yield from look()
    yield from pick_suggestion(page.first("textbox", "From:"), origin, "From field")
    page = yield from look()
    yield from pick_suggestion(page.first("textbox", "To:"), destination, "To field")
    page = yield from look()
    dates = [i for i in page.all("textbox") if i.name not in ("From:", "To:")]
    yield from pick_date(dates[0] if dates else None, month, day, year)
    page = yield from look()
    yield from click(page.first("button", "Search"), "Search button")
    page = yield from look(full=True)
    flights = priced(page, re.compile(r"^(\d+)h (\d+)m$"), "flight")
    best = min(flights, key=(lambda f: f[0]) if want == "cheapest" else (lambda f: f[1]))
    yield from click(best[2], f"the {want} flight")
    return None


POLICIES: dict[str, Policy] = {
    "click-test": click_test,
    "click-test-2": click_button_word,
    "click-test-transfer": click_button_word,
    "click-button-sequence": click_button_word,
    "click-button": click_named("button"),
    "click-link": click_named(("link", "text")),
    "click-dialog": click_dialog,
    "click-dialog-2": click_dialog,
    "click-checkboxes": click_checkboxes,
    "click-checkboxes-large": click_checkboxes,
    "click-checkboxes-transfer": click_checkboxes,
    "click-option": click_option,
    "click-collapsible": click_collapsible,
    "click-collapsible-nodelay": click_collapsible,
    "click-collapsible-2": find_link_in_sections,
    "click-collapsible-2-nodelay": find_link_in_sections,
    "click-tab": click_tab,
    "click-tab-2": find_link_in_sections,
    "click-tab-2-easy": find_link_in_sections,
    "click-tab-2-hard": find_link_in_sections,
    "click-tab-2-medium": find_link_in_sections,
    "click-widget": click_widget,
    "choose-list": choose_list,
    "click-scroll-list": choose_list,
    "copy-paste": copy_paste,
    "copy-paste-2": copy_paste,
    "enter-text": enter_value,
    "enter-text-2": enter_value,
    "enter-text-dynamic": enter_value,
    "enter-password": enter_password,
    "enter-date": enter_date,
    "enter-time": enter_time,
    "login-user": login_user,
    "login-user-popup": login_user,
    "focus-text": focus_text,
    "focus-text-2": focus_text,
    "find-word": find_word,
    "scroll-text": scroll_text,
    "scroll-text-2": scroll_text_2,
    "read-table": read_table,
    "read-table-2": read_table_2,
    "simple-arithmetic": simple_arithmetic,
    "simple-algebra": simple_algebra,
    "text-transform": text_transform,
    "unicode-test": unicode_test,
    "use-spinner": use_spinner,
    "use-slider": use_slider,
    "use-slider-2": use_slider_2,
    "form-sequence": form_sequence,
    "odd-or-even": odd_or_even,
    "generate-number": generate_number,
    "guess-number": guess_number,
    "find-greatest": find_greatest,
    "form-sequence-2": form_sequence_2,
    "search-engine": search_engine,
    "sign-agreement": sign_agreement,
    "use-autocomplete": use_autocomplete,
    "use-autocomplete-nodelay": use_autocomplete,
    "click-menu": click_menu,
    "buy-ticket": buy_ticket,
    "multi-layouts": multi_layouts,
    "multi-orderings": multi_layouts,
    "stock-market": stock_market,
    "phone-book": phone_book,
    "choose-date": choose_date,
    "choose-date-easy": choose_date,
    "choose-date-medium": choose_date,
    "choose-date-nodelay": choose_date,
    "form-sequence-3": form_sequence_3,
    "click-checkboxes-soft": click_checkboxes_soft,
    "terminal": terminal,
    "book-flight": book_flight,
    "book-flight-nodelay": book_flight,
}
"""The reference policy of each task of these families (by task name); :mod:`.reference`
adds the other families' modules."""
