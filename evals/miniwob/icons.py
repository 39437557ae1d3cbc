"""Reference policies for tasks whose controls are icons or unnamed (see :mod:`.policy`).

- social-media-all, social-media-some: the full outline lists each post as a line with its
  author's ``@name`` followed by its icon controls, which have no name but a hint (``reply``,
  ``retweet``, ``like``, ``share``); the policy clicks the icon the goal names on all (or the
  first N) posts of that author, then Submit.
- social-media: the icon the goal names on the author's post, or for the other buttons the
  post's ``more`` icon, then the item of the menu it opens.
- order-food: the full outline lists each dish as its name, its type icons (images named
  ``vegan``, ``meat``...) and its ``-`` / ``+`` controls; the policy presses ``+`` once on each
  dish the goal names, or N times on one dish of the type it names, then ``Order!``.

The other icon tasks (click-pie, text-editor) are not expressible: see
:data:`~.catalog.NOT_EXPRESSIBLE`. Like every policy, these read only the goal and what the
tools return.
"""

from __future__ import annotations

import re
from collections.abc import Generator
from dataclasses import dataclass, field

from .families import goal_match, submit
from .outline import Item, Outline
from .policy import Call, Play, Policy, click, look, stuck

__all__ = ["POLICIES", "Dish", "Post", "dishes", "posts", "social_media"]

AUTHOR = re.compile(r"(?:^|\s)(@[\w.-]+)(?:\s|$)")
"""The ``@name`` in the line that opens a post."""


@dataclass
class Post:
    """One post of a feed: its author and its icon controls, in order."""

    author: str
    icons: list[Item] = field(default_factory=list)

    def icon(self, hint: str) -> Item | None:
        return next((i for i in self.icons if i.attrs.get("hint") == hint), None)


def posts(page: Outline, goal: str) -> list[Post]:
    """The posts of a full outline: a line naming an ``@author`` opens one; the hinted controls
    after it are its icons (the goal's own line, which names the author too, is skipped)."""
    found: list[Post] = []
    for item in page:
        if item.name == goal:
            continue
        if item.ref is not None and "hint" in item.attrs:
            if found:
                found[-1].icons.append(item)
        elif item.role == "text" and (m := AUTHOR.search(item.name)):
            found.append(Post(m.group(1)))
    return found


def social_media_posts(goal: str) -> Play:
    """"Click the "Like" button on all posts by @nisl and then click Submit." /
    "... on 2 posts by @nisl ...": click that icon on those posts, then Submit."""
    m = goal_match(r'Click the "(\w+)" button on (all|\d+) posts? by (@\S+) and then click Submit',
                   goal, f"cannot read the button, posts and author from {goal!r}")
    hint, count, author = m.group(1).lower(), m.group(2), m.group(3)
    page = yield from look(full=True)
    mine = [p for p in posts(page, goal) if p.author == author]
    wanted = len(mine) if count == "all" else int(count)
    if not mine or len(mine) < wanted:
        raise stuck(f"the page shows {len(mine)} posts by {author}, not {count}")
    for post in mine[:wanted]:
        yield from click(post.icon(hint), f"{hint} icon of a post by {author}")
    yield from submit(page)
    return None


ICON_BUTTONS = ("Reply", "Retweet", "Like")
"""The buttons of a post that are icons of their own; the others are items of its "more"
menu."""


def social_media(goal: str) -> Play:
    """"For the user @nec, click on the "Share via DM" button.": the post's own icon for
    Reply, Retweet and Like; else the item of the post's "more" menu (items such as
    "Block @nec" carry the author)."""
    m = goal_match(r'For the user (@\S+), click on the "([^"]+)" button', goal,
                   f"cannot read the user and button from {goal!r}")
    author, button = m.group(1), m.group(2)
    page = yield from look(full=True)
    post = next((p for p in posts(page, goal) if p.author == author), None)
    if post is None:
        raise stuck(f"the page shows no post by {author}")
    if button in ICON_BUTTONS:
        yield from click(post.icon(button.lower()), f"{button} icon of the post by {author}")
        return None
    yield from click(post.icon("more"), f"more icon of the post by {author}")
    menu = yield from look(full=True)
    item = next((i for i in menu.all("listitem")
                 if i.name == button or i.name == f"{button} {author}"), None)
    yield from click(item, f"menu item {button!r}")
    return None


@dataclass
class Dish:
    """One dish of the menu: its name, its types (the names of its icons) and its ``+``."""

    name: str
    types: list[str] = field(default_factory=list)
    plus: Item | None = None


def dishes(page: Outline, goal: str) -> list[Dish]:
    """The dishes of a full outline: a group line (``group "Garlic bread | vegan":``) or a
    text line that is not a control's sign or a number opens one; the words after its name
    on a group line, or the images after it, are its types; the ``+`` after it adds one."""
    found: list[Dish] = []
    for item in page:
        if item.name == goal or item.role == "heading":
            continue
        if item.role == "group" and item.name:
            name, *types = [part.strip() for part in item.name.split(" | ")]
            found.append(Dish(name, [t for t in types if not t.isdigit()]))
            continue
        if item.role == "img" and found:
            found[-1].types.append(item.name)
        elif item.role == "text" and item.name == "+" and found:
            found[-1].plus = item
        elif item.role == "text" and item.name and item.name != "-" and not item.name.isdigit():
            found.append(Dish(item.name.strip()))
    return found


def add(dish: Dish, times: int) -> Generator[Call, str, None]:
    for _ in range(times):
        yield from click(dish.plus, f"+ of {dish.name!r}")


def order_food(goal: str) -> Play:
    """"Order one of each item: Garlic bread, Chocolate cake" / "Order 3 items that are
    vegan": one of each dish named, or that many of the first dish of the type; then Order!."""
    page = yield from look(full=True)
    menu = dishes(page, goal)
    if m := re.search(r"Order one of each item: (.+)", goal):
        names = [n.strip() for n in m.group(1).split(",") if n.strip()]
        for name in names:
            dish = next((d for d in menu if d.name == name), None)
            if dish is None:
                raise stuck(f"the menu shows no dish {name!r}")
            yield from add(dish, 1)
    else:
        m = goal_match(r"Order (\d+) items that are ([\w-]+)", goal,
                       f"cannot read what to order from {goal!r}")
        kind = m.group(2)
        dish = next((d for d in menu if kind in d.types), None)
        if dish is None:
            raise stuck(f"the menu shows no dish that is {kind}")
        yield from add(dish, int(m.group(1)))
    yield from submit(page, "Order!")
    return None


POLICIES: dict[str, Policy] = {
    "social-media": social_media,
    "social-media-all": social_media_posts,
    "social-media-some": social_media_posts,
    "order-food": order_food,
}
"""The reference policy of each of these tasks (by task name)."""
