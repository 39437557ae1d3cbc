"""Quaymail (``/mail/``): folders, reading (which marks read), archive and delete, contacts,
and a compose form whose recipients and subject are validated on the server.

Every sent message is recorded with its exact To and Cc lists, so a message sent to the wrong
person (or with the right person in the wrong field) is recorded as exactly that. The account
site delivers its sign-in codes here (:meth:`MailState.deliver`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .core import Request, Response, Session, h, html_page, redirect

__all__ = ["CONTACTS", "MailState", "handle", "state"]

EMAIL = re.compile(r"^[^@\s,;]+@[^@\s,;]+\.[A-Za-z]{2,}$")

CONTACTS: tuple[tuple[str, str], ...] = (
    ("Jonas Berg", "jonas.berg@tern.test"),
    ("Olu Adebayo", "olu@tern.test"),
    ("Priya Raman", "priya.raman@tern.test"),
    ("Rhea Castell", "rhea.castell@tern.test"),
    ("Tomas Wrenn", "tomas.wrenn@gullmail.test"),
    ("Tomasz Wren", "t.wren@tern.test"),
)


@dataclass
class Message:
    id: int
    folder: str
    sender: str
    address: str
    subject: str
    date: str
    body: str
    unread: bool = True


def _inbox() -> list[Message]:
    return [
        Message(1, "inbox", "Building management", "desk@quayhouse.test",
                "New door code for the bike room", "12 May",
                "Hello all,\n\nFrom Monday the door code for the bike room is 4817. The old "
                "code 2290 stops working on Sunday night. Please do not share the code with "
                "visitors.\n\nThe building desk"),
        Message(2, "inbox", "Priya Raman", "priya.raman@tern.test",
                "Team offsite: which day?", "11 May",
                "Hi,\n\nWould Wednesday or Thursday suit you for the team offsite at the "
                "boathouse? Reply and let me know which day works.\n\nPriya"),
        Message(3, "inbox", "Harbour Weekly", "news@harbourweekly.test",
                "Harbour Weekly: the regatta issue", "10 May",
                "This week: the regatta route, a profile of the harbour pilot, and the tide "
                "tables for June. Unsubscribe at any time."),
        Message(4, "inbox", "Jonas Berg", "jonas.berg@tern.test", "Figures for Q3?", "9 May",
                "Could you send me the quarterly numbers before Friday? Thanks, Jonas"),
        Message(5, "inbox", "Island Ferry", "tickets@islandferry.test",
                "Your ferry booking FX-2291", "8 May",
                "Booking FX-2291 is confirmed: departure 07:40 on 14 June from Portlow, car "
                "deck, lane 3. Please be at the terminal 30 minutes before departure."),
        Message(6, "inbox", "Harbour Weekly", "news@harbourweekly.test",
                "Harbour Weekly: reader survey", "3 May",
                "Tell us what you would like to read about. The survey takes five minutes."),
        Message(7, "archive", "Portlow Chandlery", "accounts@chandlery.test",
                "Invoice 5521", "28 April",
                "Invoice 5521 for rope, shackles and varnish. Amount due: €318.40, payable "
                "by 30 June to the account on the invoice."),
        Message(8, "archive", "Portlow Chandlery", "accounts@chandlery.test",
                "Receipt for invoice 5388", "2 March",
                "Thank you: we received €92.10 for invoice 5388. Nothing is due."),
        Message(9, "spam", "Prize Desk", "win@prize-desk.test", "You have won a yacht!",
                "1 May", "Click here to claim your yacht. Send your bank details."),
    ]


@dataclass
class MailState:
    messages: list[Message] = field(default_factory=_inbox)
    sent: list[dict[str, Any]] = field(default_factory=list)
    drafts: list[dict[str, Any]] = field(default_factory=list)
    refused: int = 0

    def deliver(self, sender: str, address: str, subject: str, body: str) -> None:
        """Put a new message at the top of the inbox."""
        new_id = max(m.id for m in self.messages) + 1
        self.messages.insert(0, Message(new_id, "inbox", sender, address, subject, "Today",
                                        body))

    def to_json(self) -> Any:
        return {"sent": self.sent, "drafts": self.drafts, "refused": self.refused,
                "folders": {str(m.id): m.folder for m in self.messages},
                "unread": [m.id for m in self.messages if m.unread]}


def state(session: Session) -> MailState:
    return session.get("mail", MailState)


FOLDERS = (("inbox", "Inbox"), ("sent", "Sent"), ("archive", "Archive"), ("spam", "Spam"),
           ("trash", "Trash"))


def _page(title: str, body: str, status: int = 200) -> Response:
    nav = ('<nav aria-label="Folders">'
           + "".join(f'<a href="/mail/folder/{k}">{t}</a>' for k, t in FOLDERS)
           + '<a href="/mail/contacts">Contacts</a><a href="/mail/compose">Compose</a></nav>')
    return html_page(f"{title} - Quaymail", body, site="mail", nav=nav, status=status)


def _list(st: MailState, folder: str, note: str = "", query: str = "") -> Response:
    if folder == "sent":
        rows = "".join(
            f"<tr><td>{h(', '.join(s['to']))}</td><td>{h(s['subject'])}</td></tr>"
            for s in reversed(st.sent)) or '<tr><td colspan="2">No sent messages.</td></tr>'
        body = (f"<h1>Sent</h1>{note}<table><thead><tr><th>To</th><th>Subject</th></tr>"
                f"</thead><tbody>{rows}</tbody></table>")
        return _page("Sent", body)
    if query:
        words = query.lower().split()
        shown = [m for m in st.messages if m.folder != "trash" and all(
            w in f"{m.sender} {m.subject} {m.body}".lower() for w in words)]
        title = f"Search: {query}"
    else:
        shown = [m for m in st.messages if m.folder == folder]
        title = dict(FOLDERS).get(folder, folder)
    rows = "".join(
        f"<tr><td>{'<b>New</b> ' if m.unread else ''}{h(m.sender)}</td>"
        f'<td><a href="/mail/m/{m.id}">{h(m.subject)}</a></td><td>{h(m.date)}</td></tr>'
        for m in shown) or '<tr><td colspan="3">No messages.</td></tr>'
    body = (f"<h1>{h(title)}</h1>{note}"
            '<form role="search" action="/mail/search" method="get">'
            f'<input type="search" name="q" aria-label="Search mail" value="{h(query)}">'
            '<button type="submit">Search mail</button></form>'
            f"<table><thead><tr><th>From</th><th>Subject</th><th>Date</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>")
    return _page(title, body)


def _find(st: MailState, text: str) -> Message | None:
    return next((m for m in st.messages if str(m.id) == text), None)


def _read(st: MailState, m: Message) -> Response:
    m.unread = False
    paras = "".join(f"<p>{h(p)}</p>" for p in m.body.split("\n\n"))
    actions = "".join(
        f'<form action="/mail/m/{m.id}/move" method="post" style="display:inline">'
        f'<input type="hidden" name="folder" value="{k}"><button type="submit">{t}</button>'
        "</form> " for k, t in (("archive", "Archive"), ("trash", "Delete")) if m.folder != k)
    body = (f"<h1>{h(m.subject)}</h1><p>From: {h(m.sender)} &lt;{h(m.address)}&gt; · "
            f"{h(m.date)}</p><article>{paras}</article>"
            f'<p><a href="/mail/compose?reply={m.id}">Reply</a> '
            f'<a href="/mail/compose?forward={m.id}">Forward</a> {actions}'
            f'<form action="/mail/m/{m.id}/unread" method="post" style="display:inline">'
            '<button type="submit">Mark as unread</button></form></p>')
    return _page(m.subject, body)


def _compose(st: MailState, req: Request, values: dict[str, str] | None = None,
             errors: list[str] | None = None) -> Response:
    if values is None:
        values = {"to": "", "cc": "", "subject": "", "body": "", "reply": ""}
        src = _find(st, req.arg("reply") or req.arg("forward"))
        if src is not None and req.arg("reply"):
            values.update(to=src.address, reply=str(src.id),
                          subject=src.subject if src.subject.startswith("Re:")
                          else f"Re: {src.subject}")
        elif src is not None:
            values.update(subject=f"Fwd: {src.subject}",
                          body=f"\n\n---- Forwarded message from {src.sender} ----\n{src.body}")
    errs = ('<div class="errors" role="alert"><p>The message was not sent:</p><ul>'
            + "".join(f"<li>{h(e)}</li>" for e in errors) + "</ul></div>") if errors else ""
    body = (f"<h1>New message</h1>{errs}"
            '<form action="/mail/send" method="post" novalidate>'
            f'<input type="hidden" name="reply" value="{h(values["reply"])}">'
            f'<p><label for="to">To</label> <input id="to" name="to" value="{h(values["to"])}">'
            "</p>"
            f'<p><label for="cc">Cc</label> <input id="cc" name="cc" value="{h(values["cc"])}">'
            "</p>"
            f'<p><label for="subject">Subject</label> <input id="subject" name="subject" '
            f'value="{h(values["subject"])}"></p>'
            f'<p><label for="body">Message</label><br><textarea id="body" name="body" rows="8" '
            f'cols="60">{h(values["body"])}</textarea></p>'
            '<p><button type="submit">Send</button> '
            '<button type="submit" formaction="/mail/draft">Save draft</button></p></form>')
    return _page("Compose", body, 422 if errors else 200)


def _addresses(text: str) -> list[str]:
    return [a.strip() for a in re.split(r"[,;]", text) if a.strip()]


def _send(st: MailState, req: Request) -> Response:
    values = {k: req.arg(k) for k in ("to", "cc", "subject", "reply")}
    values["body"] = req.form.get("body", [""])[-1]
    to, cc = _addresses(values["to"]), _addresses(values["cc"])
    errors = []
    if not to:
        errors.append("Add at least one recipient in To.")
    bad = [a for a in to + cc if not EMAIL.match(a)]
    if bad:
        errors.append("Not a valid email address: " + ", ".join(bad) + ".")
    if not values["subject"]:
        errors.append("Add a subject.")
    if errors:
        st.refused += 1
        return _compose(st, req, values, errors)
    st.sent.append({"to": to, "cc": cc, "subject": values["subject"],
                    "body": values["body"].strip(), "in_reply_to": values["reply"] or None})
    return redirect("/mail/folder/sent", {"sent": "1"})


def handle(req: Request, session: Session) -> Response | None:
    st = state(session)
    path, post = req.path, req.method == "POST"
    if path == "/" and not post:
        return _list(st, "inbox")
    if path.startswith("/folder/") and not post:
        folder = path[8:]
        if folder not in dict(FOLDERS):
            return _page("Not found", "<h1>No such folder</h1>", 404)
        note = ('<p class="notice" role="status">Message sent.</p>'
                if req.arg("sent") else "")
        if req.arg("moved"):
            note = f'<p class="notice" role="status">Moved to {h(req.arg("moved"))}.</p>'
        return _list(st, folder, note)
    if path == "/search" and not post:
        return _list(st, "inbox", query=req.arg("q"))
    if path.startswith("/m/"):
        ident, _, action = path[3:].partition("/")
        m = _find(st, ident)
        if m is None:
            return _page("Not found", "<h1>No such message</h1>", 404)
        if not post and not action:
            return _read(st, m)
        if post and action == "move" and req.arg("folder") in dict(FOLDERS):
            back = m.folder
            m.folder = req.arg("folder")
            return redirect(f"/mail/folder/{back}", {"moved": dict(FOLDERS)[m.folder]})
        if post and action == "unread":
            m.unread = True
            return redirect(f"/mail/folder/{m.folder}")
        return None
    if path == "/compose" and not post:
        return _compose(st, req)
    if path == "/send" and post:
        return _send(st, req)
    if path == "/draft" and post:
        st.drafts.append({"to": _addresses(req.arg("to")), "subject": req.arg("subject")})
        return _page("Draft saved", "<h1>Draft saved</h1><p>The message was saved as a draft "
                     "and not sent.</p>")
    if path == "/contacts" and not post:
        rows = "".join(f"<tr><td>{h(n)}</td><td>{h(a)}</td></tr>" for n, a in CONTACTS)
        return _page("Contacts", "<h1>Contacts</h1><table><thead><tr><th>Name</th>"
                     f"<th>Email</th></tr></thead><tbody>{rows}</tbody></table>")
    return None
