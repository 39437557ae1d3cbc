"""Harbour ID (``/account/``): sign-in with server-side checks, a second step
(``/account/verify``) whose six-digit code is delivered to the same session's Quaymail
inbox, a password change with rules, sign-out, and a registration form that refuses taken
usernames and weak passwords.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from . import mail
from .core import Request, Response, Session, h, html_page, redirect

__all__ = ["AccountState", "handle", "state"]

PASSWORDS = {"harbourmaster": "Gulls&Tides-42", "deckhand": "Anchor-77"}
TAKEN = ("harbourmaster", "deckhand", "pilot")


@dataclass
class AccountState:
    passwords: dict[str, str] = field(default_factory=lambda: dict(PASSWORDS))
    pending: str | None = None
    """The user who passed the password step and owes a code."""
    code: str = ""
    user: str | None = None
    failed: int = 0
    codes_sent: int = 0
    changes: list[str] = field(default_factory=list)
    registered: list[dict[str, str]] = field(default_factory=list)
    refused: int = 0

    def to_json(self) -> Any:
        return {"user": self.user, "pending": self.pending, "failed": self.failed,
                "changed_passwords": self.changes, "registered": self.registered,
                "passwords": self.passwords, "refused": self.refused}


def state(session: Session) -> AccountState:
    return session.get("account", AccountState)


def _page(title: str, body: str, status: int = 200) -> Response:
    return html_page(f"{title} - Harbour ID", body, site="account", status=status)


def _errors(errors: list[str]) -> str:
    if not errors:
        return ""
    return ('<div class="errors" role="alert"><ul>'
            + "".join(f"<li>{h(e)}</li>" for e in errors) + "</ul></div>")


def _login(errors: list[str] | None = None, username: str = "") -> Response:
    body = (f"<h1>Sign in to Harbour ID</h1>{_errors(errors or [])}"
            '<form action="/account/login" method="post" novalidate>'
            f'<p><label for="username">Username</label> <input id="username" name="username" '
            f'value="{h(username)}" autocomplete="username"></p>'
            '<p><label for="password">Password</label> <input id="password" name="password" '
            'type="password" autocomplete="current-password"></p>'
            '<p><button type="submit">Sign in</button></p></form>'
            '<p><a href="/account/register">Create an account</a> · '
            '<a href="/account/forgot">Forgot your password?</a></p>')
    return _page("Sign in", body, 401 if errors else 200)


def _verify(st: AccountState, errors: list[str] | None = None) -> Response:
    body = (f"<h1>Check your email</h1>{_errors(errors or [])}"
            "<p>We sent a six-digit sign-in code to your Quaymail inbox "
            '(<a href="/mail/">open Quaymail</a>).</p>'
            '<form action="/account/verify" method="post" novalidate>'
            '<p><label for="code">Sign-in code</label> <input id="code" name="code" '
            'inputmode="numeric" autocomplete="one-time-code"></p>'
            '<p><button type="submit">Verify</button></p></form>'
            '<form action="/account/resend" method="post"><button type="submit">'
            "Send a new code</button></form>")
    return _page("Verify", body, 401 if errors else 200)


def _send_code(st: AccountState, session: Session) -> None:
    st.codes_sent += 1
    digest = hashlib.sha256(f"harbour-id:{st.pending}:{st.codes_sent}".encode()).hexdigest()
    st.code = f"{100000 + int(digest[:8], 16) % 900000}"
    mail.state(session).deliver(
        "Harbour ID", "no-reply@harbourid.test", "Your Harbour ID sign-in code",
        f"Your sign-in code is {st.code}. It replaces any code sent before. If you did not try "
        "to sign in, change your password.")


def _dashboard(st: AccountState, note: str = "") -> Response:
    body = (f"<h1>Your account</h1>{note}<p>Signed in as {h(st.user)}.</p>"
            '<p><a href="/account/password">Change password</a></p>'
            '<form action="/account/logout" method="post"><button type="submit">Sign out'
            "</button></form>")
    return _page("Account", body)


def _password_page(errors: list[str] | None = None) -> Response:
    fields = (("current", "Current password"), ("new", "New password"),
              ("confirm", "Confirm new password"))
    body = (f"<h1>Change password</h1>{_errors(errors or [])}"
            "<p>A password needs at least 10 characters, including a digit.</p>"
            '<form action="/account/password" method="post" novalidate>'
            + "".join(f'<p><label for="{k}">{t}</label> <input id="{k}" name="{k}" '
                      'type="password"></p>' for k, t in fields)
            + '<p><button type="submit">Change password</button></p></form>')
    return _page("Change password", body, 422 if errors else 200)


def _password_rules(new: str) -> list[str]:
    errors = []
    if len(new) < 10:
        errors.append("The new password is shorter than 10 characters.")
    if not re.search(r"\d", new):
        errors.append("The new password needs a digit.")
    return errors


def _change(st: AccountState, req: Request) -> Response:
    assert st.user is not None
    current, new, confirm = req.arg("current"), req.arg("new"), req.arg("confirm")
    errors = []
    if current != st.passwords[st.user]:
        errors.append("The current password is wrong.")
    errors += _password_rules(new)
    if new == current:
        errors.append("The new password must differ from the current one.")
    if new != confirm:
        errors.append("The two new passwords do not match.")
    if errors:
        st.refused += 1
        return _password_page(errors)
    st.passwords[st.user] = new
    st.changes.append(st.user)
    return redirect("/account/home", {"changed": "1"})


def _register_page(values: dict[str, str], errors: list[str] | None = None) -> Response:
    body = (f"<h1>Create an account</h1>{_errors(errors or [])}"
            '<form action="/account/register" method="post" novalidate>'
            f'<p><label for="r-user">Username</label> <input id="r-user" name="username" '
            f'value="{h(values.get("username", ""))}"></p>'
            f'<p><label for="r-email">Email</label> <input id="r-email" name="email" '
            f'value="{h(values.get("email", ""))}"></p>'
            '<p><label for="r-pass">Password</label> <input id="r-pass" name="password" '
            'type="password"></p>'
            '<p><label><input type="checkbox" name="terms" value="yes"> I agree to the terms'
            "</label></p>"
            '<p><button type="submit">Create account</button></p></form>')
    return _page("Register", body, 422 if errors else 200)


def _register(st: AccountState, req: Request) -> Response:
    values = {k: req.arg(k) for k in ("username", "email", "password")}
    errors = []
    name = values["username"].lower()
    if not re.fullmatch(r"[a-z][a-z0-9_]{2,19}", name):
        errors.append("A username is 3 to 20 lowercase letters, digits or _.")
    elif name in TAKEN or name in st.passwords:
        errors.append(f"The username {name} is taken.")
    if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}", values["email"]):
        errors.append("Enter a valid email address.")
    errors += [e.replace("new password", "password") for e in _password_rules(values["password"])]
    if req.arg("terms") != "yes":
        errors.append("You must agree to the terms.")
    if errors:
        st.refused += 1
        return _register_page(values, errors)
    st.passwords[name] = values["password"]
    st.registered.append({"username": name, "email": values["email"]})
    return _page("Welcome", f"<h1>Welcome, {h(name)}</h1><p role=\"status\">Your account "
                 "was created. You can now sign in.</p>"
                 '<p><a href="/account/">Sign in</a></p>')


def handle(req: Request, session: Session) -> Response | None:
    st = state(session)
    path, post = req.path, req.method == "POST"
    if path == "/" and not post:
        if st.user:
            return redirect("/account/home")
        return redirect("/account/verify") if st.pending else _login()
    if path == "/home" and not post:
        if not st.user:
            return redirect("/account/")
        note = ('<p class="notice" role="status">Your password was changed.</p>'
                if req.arg("changed") else "")
        return _dashboard(st, note)
    if path == "/verify" and not post:
        return _verify(st) if st.pending else redirect("/account/")
    if path == "/login" and post:
        user, password = req.arg("username").lower(), req.arg("password")
        if st.failed >= 5:
            return _login(["Too many attempts: this account is locked."], user)
        if st.passwords.get(user) != password:
            st.failed += 1
            return _login([f"Wrong username or password ({5 - st.failed} attempts left)."],
                          user)
        st.pending = user
        _send_code(st, session)
        return redirect("/account/verify")
    if path == "/verify" and post:
        if not st.pending:
            return redirect("/account/")
        if req.arg("code") != st.code:
            st.refused += 1
            return _verify(st, ["That code is not right. Use the newest code we sent."])
        st.user, st.pending = st.pending, None
        return redirect("/account/home")
    if path == "/resend" and post and st.pending:
        _send_code(st, session)
        return redirect("/account/verify")
    if path == "/logout" and post:
        st.user = st.pending = None
        return _page("Signed out", "<h1>You are signed out</h1>"
                     '<p><a href="/account/">Sign in again</a></p>')
    if path == "/password":
        if not st.user:
            return redirect("/account/")
        return _change(st, req) if post else _password_page()
    if path == "/register":
        return _register(st, req) if post else _register_page({})
    if path == "/forgot" and not post:
        return _page("Forgot password", "<h1>Forgot your password?</h1><p>Ask the harbour "
                     "office to reset it.</p>")
    return None
