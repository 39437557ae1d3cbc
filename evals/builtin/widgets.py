"""Widget Pier (``/widgets/``): a cookie-consent modal, a same-origin iframe form, a sandboxed
(opaque-origin, so cross-origin to its parent) iframe donation form, shadow-DOM web components,
a controlled form, tabs and a popup window. Every submission is validated on the server.

The sandboxed frame cannot send the session cookie (its origin is opaque), so the page hands
it the session in a token, as payment frames do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .core import Request, Response, Session, h, html_page, json_response

__all__ = ["WidgetState", "handle", "luhn", "state"]


@dataclass
class WidgetState:
    consent: str | None = None
    subscriptions: list[dict[str, str]] = field(default_factory=list)
    donations: list[dict[str, Any]] = field(default_factory=list)
    reviews: list[dict[str, Any]] = field(default_factory=list)
    feedback: list[dict[str, str]] = field(default_factory=list)
    refused: int = 0

    def to_json(self) -> Any:
        return {"consent": self.consent, "subscriptions": self.subscriptions,
                "donations": self.donations, "reviews": self.reviews,
                "feedback": self.feedback, "refused": self.refused}


def state(session: Session) -> WidgetState:
    return session.get("widgets", WidgetState)


def luhn(number: str) -> bool:
    """The card-number checksum."""
    digits = [int(c) for c in number]
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2:
            d *= 2
            d -= 9 if d > 9 else 0
        total += d
    return total % 10 == 0


INDEX_JS = """
document.addEventListener('DOMContentLoaded', () => {
  const dlg = document.getElementById('consent');
  if (!dlg) return;
  dlg.showModal();
  dlg.addEventListener('cancel', e => e.preventDefault());
  dlg.querySelectorAll('button[data-choice]').forEach(b => b.addEventListener('click', async () => {
    await fetch('/widgets/api/consent', {method: 'POST',
      headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({choice: b.dataset.choice})});
    dlg.close();
    document.getElementById('consent-note').textContent = 'Your cookie choice was saved.';
  }));
});
"""


def _index(st: WidgetState) -> Response:
    modal = "" if st.consent else (
        '<dialog id="consent" aria-labelledby="consent-title">'
        '<h2 id="consent-title">We use cookies</h2>'
        "<p>Necessary cookies keep you signed in. Optional cookies measure visits and show "
        "offers from partners.</p>"
        '<p><button type="button" data-choice="all">Accept all cookies</button> '
        '<button type="button" data-choice="necessary">Reject optional cookies</button></p>'
        "</dialog>")
    body = ("<h1>Widget Pier</h1><p>Small tools for people who work on the water.</p>"
            '<p id="consent-note" role="status"></p><ul>'
            '<li><a href="/widgets/frames">Newsletter and donations</a></li>'
            '<li><a href="/widgets/review.html">Review the deck lamp</a></li>'
            '<li><a href="/widgets/feedback.html">Send feedback</a></li>'
            '<li><a href="/widgets/tools.html">Deck lamp details and shipping</a></li>'
            f"</ul>{modal}")
    return html_page("Widget Pier", body, script=INDEX_JS)


def _frames(session: Session) -> Response:
    body = ("<h1>Newsletter and donations</h1>"
            "<p>Sign up for our letter in the first panel; support the lifeboat fund in the "
            "second.</p>"
            '<iframe src="/widgets/newsletter-frame.html" title="Newsletter signup" '
            'width="500" height="220"></iframe>'
            f'<iframe src="/widgets/donate-frame?token={h(session.sid)}" '
            'title="Lifeboat fund donation" sandbox="allow-forms allow-scripts" width="500" '
            'height="300"></iframe>')
    return html_page("Newsletter and donations - Widget Pier", body, site="widgets")


def _donate_frame(token: str, errors: list[str] | None = None, done: str = "") -> Response:
    if done:
        return html_page("Donation", f'<p role="status">{h(done)}</p>')
    errs = ('<div class="errors" role="alert"><ul>'
            + "".join(f"<li>{h(e)}</li>" for e in errors) + "</ul></div>") if errors else ""
    body = (f"<h2>Lifeboat fund</h2>{errs}"
            '<form action="/widgets/donate" method="post" novalidate>'
            f'<input type="hidden" name="token" value="{h(token)}">'
            '<p><label for="amount">Amount</label> <select id="amount" name="amount">'
            '<option value="5">€5</option><option value="15">€15</option>'
            '<option value="50">€50</option></select></p>'
            '<p><label for="holder">Name on card</label> <input id="holder" name="holder"></p>'
            '<p><label for="card">Card number</label> <input id="card" name="card" '
            'inputmode="numeric"></p>'
            '<p><button type="submit">Donate</button></p></form>')
    return html_page("Donation", body, status=422 if errors else 200)


def _json_ok(ok: bool, error: str = "") -> Response:
    return json_response({"ok": ok, "error": error}, 200 if ok else 422)


def handle(req: Request, session: Session) -> Response | None:
    st = state(session)
    path, post = req.path, req.method == "POST"
    if path == "/" and not post:
        return _index(st)
    if path == "/frames" and not post:
        return _frames(session)
    if path == "/api/consent" and post:
        choice = req.body_json.get("choice") if isinstance(req.body_json, dict) else None
        if choice not in ("all", "necessary"):
            return _json_ok(False, "Unknown choice.")
        st.consent = str(choice)
        return _json_ok(True)
    if path == "/subscribe" and post:
        email, freq = req.arg("email"), req.arg("frequency")
        if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}", email) or \
                freq not in ("weekly", "monthly"):
            st.refused += 1
            return html_page("Newsletter", '<p class="errors" role="alert">Enter a valid email '
                             'address.</p><p><a href="/widgets/newsletter-frame.html">Try again'
                             "</a></p>", status=422)
        st.subscriptions.append({"email": email, "frequency": freq})
        return html_page("Newsletter", f'<p role="status">{h(email)} is subscribed '
                         f"({h(freq)}).</p>")
    if path == "/donate-frame" and not post:
        return _donate_frame(req.arg("token"))
    if path == "/donate" and post:
        return _donate(req, session)
    if path == "/api/review" and post:
        data = req.body_json if isinstance(req.body_json, dict) else {}
        stars, text, name = data.get("stars"), str(data.get("text", "")).strip(), \
            str(data.get("name", "")).strip()
        if stars not in (1, 2, 3, 4, 5):
            st.refused += 1
            return _json_ok(False, "Choose a rating from 1 to 5 stars.")
        if not text or not name:
            st.refused += 1
            return _json_ok(False, "Write a review and give your name.")
        st.reviews.append({"stars": stars, "text": text, "name": name})
        return _json_ok(True)
    if path == "/api/feedback" and post:
        data = req.body_json if isinstance(req.body_json, dict) else {}
        fields = {k: str(data.get(k, "")).strip() for k in ("email", "topic", "message")}
        if fields["topic"] not in ("general", "delivery", "product", "website") or \
                len(fields["message"]) < 10 or "@" not in fields["email"]:
            st.refused += 1
            return _json_ok(False, "Check the fields.")
        st.feedback.append(fields)
        return _json_ok(True)
    return None


def _donate(req: Request, session: Session) -> Response:
    # The frame's origin is opaque: its session comes from the token, not a cookie.
    token = req.arg("token")
    owner = session.find(token)
    if owner is None:
        return _donate_frame(token, ["This donation form has expired. Reload the page."])
    st = state(owner)
    amount, holder = req.arg("amount"), req.arg("holder")
    card = re.sub(r"[\s-]", "", req.arg("card"))
    errors = []
    if amount not in ("5", "15", "50"):
        errors.append("Choose an amount.")
    if len(holder.split()) < 2:
        errors.append("Enter the full name on the card.")
    if not re.fullmatch(r"\d{16}", card) or not luhn(card):
        errors.append("The card number is not valid.")
    if errors:
        st.refused += 1
        return _donate_frame(token, errors)
    st.donations.append({"amount": int(amount), "holder": holder, "card_last4": card[-4:]})
    return _donate_frame(token, done=f"Thank you, {holder}: your €{amount} donation was received.")

