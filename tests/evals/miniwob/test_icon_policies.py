"""The icon tasks' reference policies (social-media, social-media-all, social-media-some,
order-food) on recorded tool output: the exact calls they make for each phrasing of the goal,
and that they stop with a reason when the page does not show what they need. Pure: no
browser."""

from __future__ import annotations

import pytest
from webrefs.evals.baselines.scripted import ScriptError
from webrefs.evals.miniwob.outline import parse

from tests.evals.miniwob.test_policies import play, snap

FULL = ("web_snapshot", {"interactive_only": False})


def feed(goal: str) -> str:
    """A full outline of a feed: three posts by @dis and one by @nisl, each with its icons."""
    quoted = goal.replace('"', '\\"')
    lines = [f'- text "{quoted}" [ref=e1]']
    ref = 2
    for author in ("@dis", "@nisl", "@dis", "@dis"):
        lines += [f'- text "Clark {author}" [ref=e{ref}]',
                  f'- text "Nunc tortor." [ref=e{ref + 1}]']
        ref += 2
        for hint in ("reply", "retweet", "like", "share"):
            lines.append(f'- text [hint="{hint}"] [ref=e{ref}]')
            ref += 1
    lines.append(f'- button "Submit" [ref=e{ref}]')
    return snap(*lines)


def test_the_feed_is_read_as_posts_by_author_with_their_icons() -> None:
    from webrefs.evals.miniwob.icons import posts

    goal = 'Click the "Like" button on all posts by @dis and then click Submit.'
    found = posts(parse(feed(goal)), goal)
    assert [p.author for p in found] == ["@dis", "@nisl", "@dis", "@dis"]
    assert [i.attrs["hint"] for i in found[1].icons] == ["reply", "retweet", "like", "share"]
    like = found[1].icon("like")
    assert like is not None and like.ref == "e12"


def test_social_media_all_clicks_the_icon_on_every_post_by_the_author_then_submits() -> None:
    goal = 'Click the "Like" button on all posts by @dis and then click Submit.'
    assert play("social-media-all", goal, [feed(goal)]) == [
        FULL, ("web_click", {"ref": "e6"}), ("web_click", {"ref": "e18"}),
        ("web_click", {"ref": "e24"}), ("web_click", {"ref": "e26"})]


def test_social_media_some_clicks_the_icon_on_as_many_posts_as_asked() -> None:
    goal = 'Click the "Share" button on 2 posts by @dis and then click Submit.'
    assert play("social-media-some", goal, [feed(goal)]) == [
        FULL, ("web_click", {"ref": "e7"}), ("web_click", {"ref": "e19"}),
        ("web_click", {"ref": "e26"})]
    one = 'Click the "Retweet" button on 1 post by @nisl and then click Submit.'
    assert play("social-media-some", one, [feed(one)]) == [
        FULL, ("web_click", {"ref": "e11"}), ("web_click", {"ref": "e26"})]


def test_social_media_stops_when_the_author_has_fewer_posts_than_asked() -> None:
    goal = 'Click the "Reply" button on 2 posts by @nisl and then click Submit.'
    with pytest.raises(ScriptError, match="1 posts by @nisl, not 2"):
        play("social-media-some", goal, [feed(goal)])
    gone = 'Click the "Like" button on all posts by @amet and then click Submit.'
    with pytest.raises(ScriptError, match="0 posts by @amet"):
        play("social-media-all", gone, [feed(gone)])


def menu(goal: str) -> str:
    """A full outline of the menu: two dishes per course, their type icons, - and +."""
    return snap(f'- text "{goal}" [ref=e1]', '- heading "Appetizers" [level=2] [ref=e2]',
                '- text "Caesar Salad" [ref=e3]', '- img "vegan" [ref=e4]',
                '- img "gluten-free" [ref=e5]', '- text "-" [ref=e6]', '- text "+" [ref=e7]',
                '- text "Chicken wings" [ref=e8]', '- img "meat" [ref=e9]',
                '- text "-" [ref=e10]', '- text "+" [ref=e11]',
                '- heading "Desserts" [level=2] [ref=e12]',
                '- text "Chocolate cake" [ref=e13]', '- img "dairy" [ref=e14]',
                '- text "-" [ref=e15]', '- text "+" [ref=e16]',
                '- text "Coconut mango tart" [ref=e17]', '- img "vegan" [ref=e18]',
                '- text "-" [ref=e19]', '- text "+" [ref=e20]', '- button "Order!" [ref=e21]')


def test_order_food_adds_one_of_each_dish_named_then_orders() -> None:
    # the page writes one dish's name with a leading space: "Chicken wings,  Coconut mango tart"
    goal = "Order one of each item: Chicken wings,  Coconut mango tart"
    assert play("order-food", goal, [menu(goal)]) == [
        FULL, ("web_click", {"ref": "e11"}), ("web_click", {"ref": "e20"}),
        ("web_click", {"ref": "e21"})]


def test_order_food_adds_that_many_of_a_dish_of_the_type_then_orders() -> None:
    goal = "Order 3 items that are vegan"
    assert play("order-food", goal, [menu(goal)]) == [
        FULL, ("web_click", {"ref": "e7"}), ("web_click", {"ref": "e7"}),
        ("web_click", {"ref": "e7"}), ("web_click", {"ref": "e21"})]
    goal = "Order 2 items that are dairy"
    assert play("order-food", goal, [menu(goal)])[1:] == [
        ("web_click", {"ref": "e16"}), ("web_click", {"ref": "e16"}),
        ("web_click", {"ref": "e21"})]


def test_order_food_stops_when_the_menu_lacks_the_dish_or_the_type() -> None:
    goal = "Order one of each item: Chicken wings, Cheese wheel"
    with pytest.raises(ScriptError, match="no dish 'Cheese wheel'"):
        play("order-food", goal, [menu(goal)])
    goal = "Order 2 items that are peanuts"
    with pytest.raises(ScriptError, match="no dish that is peanuts"):
        play("order-food", goal, [menu(goal)])
    goal = "Order 2 items that are vegan"
    with pytest.raises(ScriptError, match="no \\+ of 'Caesar Salad' to click"):
        play("order-food", goal, [menu(goal).replace('- text "+" [ref=e7]', '- text "+"')])


def posts_with_more(goal: str, menu_after: str | None = None) -> str:
    """A full outline of two posts, by @leo and @nec, each with reply, retweet, like and more
    icons; with ``menu_after`` (an author), that post's "more" menu open below its icon."""
    quoted = goal.replace('"', '\\"')
    lines = [f'- text "{quoted}" [ref=e1]']
    ref = 2
    for author in ("@leo", "@nec"):
        lines.append(f'- text "Clark {author} 10h ago" [ref=e{ref}]')
        ref += 1
        for hint in ("reply", "retweet", "like", "more"):
            lines.append(f'- text [hint="{hint}"] [ref=e{ref}]')
            ref += 1
        if author == menu_after:
            lines.append("- list:")
            for item in ("Share via DM", "Embed Tweet", f"Mute {author}", f"Block {author}"):
                lines.append(f'  - listitem "{item}" [ref=e{ref}]')
                ref += 1
    return snap(*lines)


def test_social_media_clicks_the_authors_own_icon_for_reply_retweet_and_like() -> None:
    goal = 'For the user @nec, click on the "Retweet" button.'
    assert play("social-media", goal, [posts_with_more(goal)]) == [
        FULL, ("web_click", {"ref": "e9"})]


def test_social_media_opens_the_authors_more_menu_for_the_other_buttons() -> None:
    goal = 'For the user @nec, click on the "Block" button.'
    shown = [posts_with_more(goal), "Clicked e11 (text).", posts_with_more(goal, "@nec")]
    # @nec's more icon is e11; its menu: Share via DM e12, Embed Tweet e13, Mute @nec e14,
    # Block @nec e15
    assert play("social-media", goal, shown) == [
        FULL, ("web_click", {"ref": "e11"}), FULL, ("web_click", {"ref": "e15"})]
    share = 'For the user @leo, click on the "Share via DM" button.'
    shown = [posts_with_more(share), "Clicked e6 (text).", posts_with_more(share, "@leo")]
    assert play("social-media", share, shown) == [
        FULL, ("web_click", {"ref": "e6"}), FULL, ("web_click", {"ref": "e7"})]


def test_social_media_stops_when_the_user_has_no_post_or_the_menu_lacks_the_button() -> None:
    goal = 'For the user @kasie, click on the "Like" button.'
    with pytest.raises(ScriptError, match="no post by @kasie"):
        play("social-media", goal, [posts_with_more(goal)])
    report = 'For the user @nec, click on the "Report" button.'
    with pytest.raises(ScriptError, match="Report"):
        play("social-media", report, [posts_with_more(report), "ok",
                                      posts_with_more(report, "@nec")])
