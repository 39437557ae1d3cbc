"""The email-inbox reference policies on recorded tool output: how they read each phrasing of
the goal, which calls they make, and that they stop with a reason when the inbox lacks the
sender. Pure: no browser."""

from __future__ import annotations

from typing import Any

import pytest
from webrefs.evals.baselines.scripted import ScriptError
from webrefs.evals.miniwob.email import Order, inbox, read_order
from webrefs.evals.miniwob.outline import parse

from tests.evals.miniwob.test_policies import play, snap

SENDERS = ("Audrey", "Cora", "Bobine", "Jo Ann")
FULL = {"interactive_only": False}
CONTROLS = {"interactive_only": True}


def inbox_page(goal: str, senders: tuple[str, ...] = SENDERS) -> str:
    """A full snapshot of the inbox: row ``row<i>`` holds the sender's text, the subject, the
    body's start and the icons ``trash<i>`` and ``star<i>``."""
    shown = goal.replace('"', '\\"')
    lines = [f'- text "{shown}" [ref=e90]', '- heading "Primary" [level=2] [ref=e91]',
             '- text [hint="open-search"] [ref=e92]']
    for i, sender in enumerate(senders, 1):
        lines += [f'- text "{sender} Lorem ipsum.. Dolor sit.." [ref=row{i}]:',
                  f'  - text "{sender}" [ref=name{i}]', '  - text "Lorem ipsum.."',
                  '  - text "Dolor sit.."', f'  - text [hint="trash"] [ref=trash{i}]',
                  f'  - text [hint="star"] [ref=star{i}]']
    return snap(*lines)


OPENED = snap('- text [hint="close-email"] [ref=e14]', '- text [hint="trash"] [ref=e15]',
              '- text [hint="star"] [ref=e16]', '- text "Reply" [ref=e18]',
              '- text "Forward" [ref=e19]')
FORWARD = snap('- text [hint="close-forward"] [ref=e20]', '- text [hint="send-forward"] [ref=e21]',
               '- textbox [hint="to:"] [ref=e22]',
               '- textbox [hint="Lorem ipsum."] [value="Dolor sit amet."] [ref=e23]')
REPLY = snap('- text [hint="close-reply"] [ref=e20]', '- text [hint="send-reply"] [ref=e21]',
             '- textbox [hint="Re: Lorem ipsum."] [ref=e22]')


def forwarded(task: str, goal: str) -> list[tuple[str, dict[str, Any]]]:
    return play(task, goal, [inbox_page(goal), "Clicked", OPENED, "Clicked", FORWARD,
                             "Filled", "Clicked"])


def test_the_inbox_rows_are_read_with_their_sender_and_icons() -> None:
    rows = inbox(parse(inbox_page("x")))
    assert [(r.sender, r.item.ref) for r in rows] == [
        ("Audrey", "row1"), ("Cora", "row2"), ("Bobine", "row3"), ("Jo Ann", "row4")]
    assert rows[1].trash is not None and rows[1].trash.ref == "trash2"
    assert rows[1].star is not None and rows[1].star.ref == "star2"


def test_forward_opens_the_senders_email_and_sends_it_to_the_recipient() -> None:
    calls = forwarded("email-inbox-forward",
                      "Find the email by Cora and forward that email to Hedy.")
    assert calls == [("web_snapshot", FULL), ("web_click", {"ref": "row2"}),
                     ("web_snapshot", CONTROLS), ("web_click", {"ref": "e19"}),
                     ("web_snapshot", CONTROLS), ("web_fill", {"ref": "e22", "value": "Hedy"}),
                     ("web_click", {"ref": "e21"})]


def test_reply_opens_the_email_and_sends_the_quoted_text() -> None:
    goal = 'Find the email by Bobine and reply to them with the text "Amet, a. Nunc.".'
    calls = play("email-inbox-reply", goal, [inbox_page(goal), "Clicked", OPENED, "Clicked",
                                             REPLY, "Filled", "Clicked"])
    assert calls == [("web_snapshot", FULL), ("web_click", {"ref": "row3"}),
                     ("web_snapshot", CONTROLS), ("web_click", {"ref": "e18"}),
                     ("web_snapshot", CONTROLS),
                     ("web_fill", {"ref": "e22", "value": "Amet, a. Nunc."}),
                     ("web_click", {"ref": "e21"})]


@pytest.mark.parametrize(("task", "goal", "icon"), [
    ("email-inbox-important",
     "Find the email by Audrey and click the star icon to mark it as important.", "star1"),
    ("email-inbox-delete", "Find the email by Jo Ann and click the trash icon to delete it.",
     "trash4"),
    ("email-inbox-nl-turk", "Bobine's email should be deleted from the inbox.", "trash3"),
    ("email-inbox-nl-turk", "Delete all messages from Cora.", "trash2"),
    ("email-inbox-nl-turk", "Please find the email Audrey sent me and file it as important",
     "star1"),
    ("email-inbox-nl-turk", "put a star on Bobine's email", "star3"),
    ("email-inbox-nl-turk", "Throw away Jo Ann's email.", "trash4"),
])
def test_star_and_trash_click_the_icon_in_the_senders_row(task: str, goal: str,
                                                           icon: str) -> None:
    assert play(task, goal, [inbox_page(goal), "Clicked"]) == [
        ("web_snapshot", FULL), ("web_click", {"ref": icon})]


@pytest.mark.parametrize(("goal", "sender", "to"), [
    ("Give Bobine the message you received from Cora,", "Cora", "Bobine"),
    ("Forward to Cora the email from Audrey.", "Audrey", "Cora"),
    ("Send Bobine the information Cora sent to you.", "Cora", "Bobine"),
    ("Audrey is waiting for the email by Jo Ann.", "Jo Ann", "Audrey"),
    ("Cora wants his or her message to be sent to Audrey.", "Cora", "Audrey"),
    ("Look for the email that Bobine wrote in this email app and forward it to Cora",
     "Bobine", "Cora"),
    ("Find Audrey's email and send it to Jo Ann.", "Audrey", "Jo Ann"),
    ("Foward the email by Cora to Bobine please.", "Cora", "Bobine"),
    ("Forward Bobine Audrey's latest email.", "Audrey", "Bobine"),
    ("Please locate Cora's email and put a copy in Audrey's inbox.", "Cora", "Audrey"),
    ("please forward Bobines last email to Cora", "Bobine", "Cora"),
    ("Get Audrey email and then forward it to Cora please.", "Audrey", "Cora"),
])
def test_free_phrasings_of_a_forward_name_who_wrote_it_and_who_gets_it(
        goal: str, sender: str, to: str) -> None:
    assert read_order(goal, list(SENDERS)) == Order("forward", sender, to=to)


def test_a_natural_language_forward_is_carried_out_like_the_fixed_one() -> None:
    calls = forwarded("email-inbox-forward-nl-turk", "Forward to Cora the email from Bobine.")
    assert [c for c in calls if c[0] != "web_snapshot"] == [
        ("web_click", {"ref": "row3"}), ("web_click", {"ref": "e19"}),
        ("web_fill", {"ref": "e22", "value": "Cora"}), ("web_click", {"ref": "e21"})]


@pytest.mark.parametrize(("goal", "sender", "text"), [
    ('Email Cora the message, "Amet, a. Malesuada. Nunc."', "Cora",
     "Amet, a. Malesuada. Nunc."),
    ('"Sed." is my reply to Bobine\'s most recent email.', "Bobine", "Sed."),
    ('AnswerAudrey\'s email with "Justo odio."', "Audrey", "Justo odio."),
    ('please send a reply email to Jo Ann with ""Nisl." "', "Jo Ann", "Nisl."),
])
def test_free_phrasings_of_a_reply_give_the_sender_and_the_quoted_text(
        goal: str, sender: str, text: str) -> None:
    assert read_order(goal, list(SENDERS)) == Order("reply", sender, text=text)


def test_a_name_inside_a_longer_sender_is_not_taken_for_another_sender() -> None:
    assert read_order("Delete the email from Jo Ann.", ["Ann", "Jo Ann"]) == Order(
        "delete", "Jo Ann")


HIDDEN = ("web_click failed: [not_actionable] Cannot click trash3 (text): it is not visible. "
          "Open the menu or section that contains it, then take a new snapshot.")


def test_an_icon_still_loading_is_clicked_again_after_a_new_snapshot() -> None:
    goal = "Delete the email from Bobine."
    page = inbox_page(goal)
    assert play("email-inbox-nl-turk", goal, [page, HIDDEN, page, "Clicked"]) == [
        ("web_snapshot", FULL), ("web_click", {"ref": "trash3"}),
        ("web_snapshot", FULL), ("web_click", {"ref": "trash3"})]
    with pytest.raises(ScriptError, match="stayed without a visible box"):
        play("email-inbox-nl-turk", goal, [page, HIDDEN, page, HIDDEN, page, HIDDEN])


def test_the_policy_stops_with_a_reason_when_the_sender_is_not_in_the_inbox() -> None:
    goal = "Find the email by Hedy and click the trash icon to delete it."
    with pytest.raises(ScriptError, match="no email from 'Hedy'"):
        play("email-inbox", goal, [inbox_page(goal)])
    nl_goal = "Forward to Cora the email from Hedy."
    with pytest.raises(ScriptError, match="names one sender and no recipient"):
        play("email-inbox-forward-nl", nl_goal, [inbox_page(nl_goal)])
    with pytest.raises(ScriptError, match="names none of the inbox's senders"):
        play("email-inbox-nl-turk", "Delete Hedy's email.", [inbox_page("x")])
