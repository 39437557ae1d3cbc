"""Gullhouse Admin (``/admin/``): a settings page of switches and selects saved by a script
(``fetch`` + JSON, validated on the server; nothing changes until "Save changes"), a users
table whose delete buttons open an in-page confirmation dialog, and projects whose archive
button stays disabled until the project's name is typed (checked again by the server).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .core import Request, Response, Session, h, html_page, json_response, redirect

__all__ = ["AdminState", "handle", "state"]

LANGUAGES = ("English", "Deutsch", "Español", "Français", "Norsk")
TIMEZONES = ("UTC", "Europe/Lisbon", "Europe/London", "Europe/Oslo", "America/Halifax")
DIGESTS = ("Off", "Daily", "Weekly")
SWITCHES = (("dark_mode", "Dark mode"), ("email_comments", "Email me about comments"),
            ("email_mentions", "Email me about mentions"))
USERS = (("Ana Souza", "ana@gullhouse.test", "Editor"),
         ("Bruna Keller", "bruna@gullhouse.test", "Admin"),
         ("Bruno Keller", "bruno@gullhouse.test", "Viewer"),
         ("Dev Patel", "dev@gullhouse.test", "Editor"),
         ("Ines Moreau", "ines@gullhouse.test", "Viewer"))
PROJECTS = ("Gull", "Gullwing", "Harbour lights", "Tern")


def _settings() -> dict[str, Any]:
    return {"display_name": "Harbour team", "dark_mode": False, "email_comments": True,
            "email_mentions": True, "digest": "Daily", "language": "English",
            "timezone": "UTC"}


@dataclass
class AdminState:
    settings: dict[str, Any] = field(default_factory=_settings)
    saves: int = 0
    users: list[dict[str, str]] = field(
        default_factory=lambda: [{"name": n, "email": e, "role": r} for n, e, r in USERS])
    deleted: list[str] = field(default_factory=list)
    archived: list[str] = field(default_factory=list)
    refused: int = 0

    def to_json(self) -> Any:
        return {"settings": self.settings, "saves": self.saves, "users": self.users,
                "deleted": self.deleted, "archived": self.archived, "refused": self.refused}


def state(session: Session) -> AdminState:
    return session.get("admin", AdminState)


NAV = ('<nav><a href="/admin/">Settings</a><a href="/admin/users">Users</a>'
       '<a href="/admin/projects">Projects</a></nav>')


def _page(title: str, body: str, script: str = "", status: int = 200) -> Response:
    return html_page(f"{title} - Gullhouse Admin", body, site="admin", nav=NAV, script=script,
                     status=status)


def _options(values: tuple[str, ...], current: str) -> str:
    return "".join(f'<option{" selected" if v == current else ""}>{h(v)}</option>'
                   for v in values)


SETTINGS_JS = """
document.addEventListener('DOMContentLoaded', () => {
  const status = document.getElementById('status');
  const dirty = () => { status.textContent = 'You have unsaved changes.'; };
  document.querySelectorAll('[role=switch]').forEach(b => b.addEventListener('click', () => {
    b.setAttribute('aria-checked', b.getAttribute('aria-checked') === 'true' ? 'false' : 'true');
    dirty();
  }));
  document.querySelectorAll('select, input').forEach(e => e.addEventListener('change', dirty));
  document.getElementById('save').addEventListener('click', async () => {
    const body = {display_name: document.getElementById('display_name').value};
    document.querySelectorAll('[role=switch]').forEach(b => {
      body[b.dataset.key] = b.getAttribute('aria-checked') === 'true'; });
    document.querySelectorAll('select').forEach(s => { body[s.name] = s.value; });
    const r = await fetch('/admin/api/settings', {method: 'POST',
      headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)});
    const out = await r.json();
    status.textContent = out.ok ? 'Settings saved.' : 'Not saved: ' + out.errors.join(' ');
    document.body.classList.toggle('dark', !!out.settings.dark_mode);
  });
});
"""


def _settings_page(st: AdminState) -> Response:
    s = st.settings
    switches = "".join(
        f'<p><button type="button" role="switch" id="{k}" data-key="{k}" '
        f'aria-checked="{"true" if s[k] else "false"}">{t}</button></p>' for k, t in SWITCHES)
    body = (f"<h1>Workspace settings</h1>"
            f'<p><label for="display_name">Display name</label> <input id="display_name" '
            f'value="{h(s["display_name"])}"></p>{switches}'
            f'<p><label for="digest">Email digest</label> <select id="digest" name="digest">'
            f'{_options(DIGESTS, s["digest"])}</select></p>'
            f'<p><label for="language">Language</label> <select id="language" name="language">'
            f'{_options(LANGUAGES, s["language"])}</select></p>'
            f'<p><label for="timezone">Time zone</label> <select id="timezone" name="timezone">'
            f'{_options(TIMEZONES, s["timezone"])}</select></p>'
            '<p><button type="button" id="save">Save changes</button> '
            '<a href="/admin/">Discard changes</a></p>'
            '<p id="status" role="status"></p>')
    page = _page("Settings", body, SETTINGS_JS)
    if s["dark_mode"]:
        page.body = page.body.replace(b"<body>", b'<body class="dark">', 1)
    return page


def _save(st: AdminState, data: Any) -> Response:
    if not isinstance(data, dict):
        return json_response({"ok": False, "errors": ["Bad request."], "settings": st.settings},
                             400)
    new = dict(st.settings)
    errors = []
    name = data.get("display_name", new["display_name"])
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > 30:
        errors.append("Display name must be 1 to 30 characters.")
    else:
        new["display_name"] = name.strip()
    for key, _ in SWITCHES:
        if key in data:
            new[key] = bool(data[key])
    for key, allowed in (("digest", DIGESTS), ("language", LANGUAGES),
                         ("timezone", TIMEZONES)):
        if key in data:
            if data[key] not in allowed:
                errors.append(f"Unknown {key}.")
            else:
                new[key] = data[key]
    if errors:
        st.refused += 1
        return json_response({"ok": False, "errors": errors, "settings": st.settings}, 422)
    st.settings = new
    st.saves += 1
    return json_response({"ok": True, "errors": [], "settings": st.settings})


USERS_JS = """
document.addEventListener('DOMContentLoaded', () => {
  const dlg = document.getElementById('confirm');
  const text = document.getElementById('confirm-text');
  const field = document.getElementById('confirm-email');
  document.querySelectorAll('button[data-email]').forEach(b => b.addEventListener('click', () => {
    text.textContent = 'Delete ' + b.dataset.name + ' (' + b.dataset.email + ')? ' +
      'This cannot be undone.';
    field.value = b.dataset.email;
    dlg.showModal();
  }));
  document.getElementById('cancel').addEventListener('click', () => dlg.close());
});
"""


def _users(st: AdminState, note: str = "") -> Response:
    rows = "".join(
        f"<tr><td>{h(u['name'])}</td><td>{h(u['email'])}</td><td>{h(u['role'])}</td>"
        f'<td><button type="button" data-email="{h(u["email"])}" data-name="{h(u["name"])}" '
        f'aria-label="Delete {h(u["name"])}">Delete</button></td></tr>' for u in st.users)
    body = (f"<h1>Users</h1>{note}<table><thead><tr><th>Name</th><th>Email</th><th>Role</th>"
            f"<th>Actions</th></tr></thead><tbody>{rows}</tbody></table>"
            '<dialog id="confirm" aria-labelledby="confirm-title">'
            '<h2 id="confirm-title">Delete user</h2><p id="confirm-text"></p>'
            '<form action="/admin/users/delete" method="post">'
            '<input type="hidden" name="email" id="confirm-email">'
            '<button type="button" id="cancel">Cancel</button> '
            '<button type="submit">Yes, delete user</button></form></dialog>')
    return _page("Users", body, USERS_JS)


PROJECTS_JS = """
document.addEventListener('DOMContentLoaded', () => {
  document.querySelectorAll('form.archive').forEach(f => {
    const input = f.querySelector('input[name=confirm]');
    const button = f.querySelector('button');
    input.addEventListener('input', () => { button.disabled = input.value !== f.dataset.name; });
  });
});
"""


def _projects(st: AdminState, error: str = "", status: int = 200) -> Response:
    items = []
    for p in PROJECTS:
        if p in st.archived:
            items.append(f"<li><h2>{h(p)}</h2><p>Archived.</p></li>")
            continue
        items.append(
            f"<li><h2>{h(p)}</h2>"
            f'<form class="archive" data-name="{h(p)}" action="/admin/projects/archive" '
            f'method="post"><input type="hidden" name="project" value="{h(p)}">'
            f'<label for="c-{h(p)}">Type {h(p)} to confirm</label> '
            f'<input id="c-{h(p)}" name="confirm" aria-label="Type the name of {h(p)} to confirm"> '
            f'<button type="submit" disabled>Archive {h(p)}</button></form></li>')
    err = f'<p class="errors" role="alert">{h(error)}</p>' if error else ""
    body = (f"<h1>Projects</h1>{err}<p>Archiving a project hides it from everyone. "
            f"Type the project's exact name to enable its archive button.</p>"
            f'<ul>{"".join(items)}</ul>')
    return _page("Projects", body, PROJECTS_JS, status)


def handle(req: Request, session: Session) -> Response | None:
    st = state(session)
    path, post = req.path, req.method == "POST"
    if path == "/" and not post:
        return _settings_page(st)
    if path == "/api/settings":
        return _save(st, req.body_json) if post else json_response(st.settings)
    if path == "/users" and not post:
        note = (f'<p class="notice" role="status">Deleted {h(req.arg("deleted"))}.</p>'
                if req.arg("deleted") else "")
        return _users(st, note)
    if path == "/users/delete" and post:
        email = req.arg("email")
        user = next((u for u in st.users if u["email"] == email), None)
        if user is None:
            st.refused += 1
            return _page("Users", "<h1>No such user</h1>", status=404)
        st.users.remove(user)
        st.deleted.append(email)
        return redirect("/admin/users", {"deleted": user["name"]})
    if path == "/projects" and not post:
        return _projects(st)
    if path == "/projects/archive" and post:
        project = req.arg("project")
        if project not in PROJECTS or req.arg("confirm") != project:
            st.refused += 1
            return _projects(st, "The confirmation did not match the project name.", 422)
        if project not in st.archived:
            st.archived.append(project)
        return redirect("/admin/projects")
    return None
