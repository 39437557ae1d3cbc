"""Northwind Air (``/travel/``): a flight search form with custom div-based comboboxes (type,
then pick an option; typed text alone is not an airport), a date field, passenger steppers
and a cabin choice; server-side validation; results whose flights and fares follow from the
route and date; and a booking form that records the booking.

"Today" is fixed at 2025-06-01 so that dates validate the same in every run.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from .core import Request, Response, Session, h, html_page, redirect

__all__ = ["AIRPORTS", "TODAY", "TravelState", "flights", "handle", "state"]

TODAY = "2025-06-01"
AIRPORTS: dict[str, str] = {
    "LIS": "Lisbon", "OPO": "Porto", "MAD": "Madrid", "OSL": "Oslo Gardermoen",
    "TRF": "Oslo Torp Sandefjord", "BGO": "Bergen", "KEF": "Reykjavik", "DUB": "Dublin",
    "EDI": "Edinburgh", "CPH": "Copenhagen",
}
CABINS = ("Economy", "Premium", "Business")
CABIN_FACTOR = {"Economy": 1.0, "Premium": 1.6, "Business": 2.8}


@dataclass
class TravelState:
    searches: list[dict[str, Any]] = field(default_factory=list)
    bookings: list[dict[str, Any]] = field(default_factory=list)
    refused: int = 0

    def to_json(self) -> Any:
        return {"searches": self.searches, "bookings": self.bookings, "refused": self.refused}


def state(session: Session) -> TravelState:
    return session.get("travel", TravelState)


def flights(origin: str, dest: str, date: str, cabin: str) -> list[dict[str, Any]]:
    """The flights of a route on a date: three to four, fixed by the route and date."""
    seed = hashlib.sha256(f"{origin}-{dest}-{date}".encode()).digest()
    out = []
    for i in range(3 + seed[0] % 2):
        hour = 6 + (seed[1 + i] % 14)
        minute = (seed[5 + i] % 4) * 15
        length = 90 + seed[9 + i] % 150
        base = 59 + seed[13 + i] % 180 + i * 7
        arr = hour * 60 + minute + length
        out.append({"number": f"NW {100 + (seed[17 + i] % 800)}",
                    "depart": f"{hour:02d}:{minute:02d}",
                    "arrive": f"{arr // 60 % 24:02d}:{arr % 60:02d}",
                    "price": round(base * CABIN_FACTOR.get(cabin, 1.0))})
    out.sort(key=lambda f: str(f["depart"]))
    return out


def _page(title: str, body: str, script: str = "", status: int = 200) -> Response:
    nav = '<nav><a href="/travel/">Book a flight</a><a href="/travel/trips">My trips</a></nav>'
    return html_page(f"{title} - Northwind Air", body, site="travel", nav=nav, script=script,
                     status=status)


COMBO_JS = """
document.addEventListener('DOMContentLoaded', () => {
  document.querySelectorAll('.combo').forEach(box => {
    const input = box.querySelector('[role=combobox]');
    const list = box.querySelector('[role=listbox]');
    const hidden = box.querySelector('input[type=hidden]');
    const options = Array.from(list.querySelectorAll('[role=option]'));
    const show = open => {
      list.hidden = !open; input.setAttribute('aria-expanded', String(open)); };
    input.addEventListener('input', () => {
      hidden.value = '';
      const q = input.value.trim().toLowerCase();
      let any = false;
      options.forEach(o => { const hit = q.length > 0 && o.textContent.toLowerCase().includes(q);
        o.hidden = !hit; any = any || hit; });
      show(any);
    });
    options.forEach(o => o.addEventListener('click', () => {
      input.value = o.dataset.name; hidden.value = o.dataset.code;
      options.forEach(x => x.setAttribute('aria-selected', String(x === o)));
      show(false);
    }));
  });
  document.querySelectorAll('.stepper').forEach(st => {
    const hidden = st.querySelector('input[type=hidden]');
    const out = st.querySelector('output');
    const [min, max] = [Number(st.dataset.min), Number(st.dataset.max)];
    const set = v => { v = Math.max(min, Math.min(max, v)); hidden.value = String(v);
      out.textContent = st.dataset.label + ': ' + v; };
    st.querySelector('.less').addEventListener('click', () => set(Number(hidden.value) - 1));
    st.querySelector('.more').addEventListener('click', () => set(Number(hidden.value) + 1));
  });
});
"""


def _combo(key: str, label: str, code: str) -> str:
    options = "".join(
        f'<div role="option" id="{key}-{c}" data-code="{c}" data-name="{h(n)}" '
        f'aria-selected="{"true" if c == code else "false"}" hidden>{h(n)} ({c})</div>'
        for c, n in AIRPORTS.items())
    name = AIRPORTS.get(code, "")
    return (f'<div class="combo"><label for="{key}-input">{label}</label> '
            f'<input id="{key}-input" role="combobox" aria-expanded="false" '
            f'aria-autocomplete="list" aria-controls="{key}-list" autocomplete="off" '
            f'value="{h(name)}">'
            f'<input type="hidden" name="{key}" value="{h(code)}">'
            f'<div role="listbox" id="{key}-list" aria-label="{label} airports" hidden>'
            f"{options}</div></div>")


def _stepper(key: str, label: str, value: int, low: int, high: int) -> str:
    return (f'<div class="stepper" data-min="{low}" data-max="{high}" data-label="{label}">'
            f'<input type="hidden" name="{key}" value="{value}">'
            f'<button type="button" class="less">Fewer {label.lower()}</button> '
            f'<output aria-live="polite">{label}: {value}</output> '
            f'<button type="button" class="more">More {label.lower()}</button></div>')


def _search_page(values: dict[str, str], errors: list[str] | None = None) -> Response:
    errs = ('<div class="errors" role="alert"><ul>'
            + "".join(f"<li>{h(e)}</li>" for e in errors) + "</ul></div>") if errors else ""
    cabin = values.get("cabin", "Economy")
    radios = "".join(f'<label><input type="radio" name="cabin" value="{c}"'
                     f'{" checked" if c == cabin else ""}> {c}</label> ' for c in CABINS)
    body = (f"<h1>Book a flight</h1>{errs}"
            '<form action="/travel/results" method="get" novalidate>'
            f'{_combo("from", "From", values.get("from", ""))}'
            f'{_combo("to", "To", values.get("to", ""))}'
            f'<p><label for="date">Departure date</label> <input type="date" id="date" '
            f'name="date" value="{h(values.get("date", ""))}"></p>'
            f'{_stepper("adults", "Adults", int(values.get("adults") or 1), 1, 6)}'
            f'{_stepper("children", "Children", int(values.get("children") or 0), 0, 4)}'
            f'<fieldset><legend>Cabin</legend>{radios}</fieldset>'
            '<p><button type="submit">Search flights</button></p></form>')
    return _page("Book a flight", body, COMBO_JS, 422 if errors else 200)


def _validate(req: Request) -> tuple[dict[str, str], list[str]]:
    v = {k: req.arg(k) for k in ("from", "to", "date", "adults", "children", "cabin")}
    errors = []
    if v["from"] not in AIRPORTS:
        errors.append("Choose a departure airport from the list.")
    if v["to"] not in AIRPORTS:
        errors.append("Choose a destination airport from the list.")
    if v["from"] and v["from"] == v["to"]:
        errors.append("Departure and destination must differ.")
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", v["date"]):
        errors.append("Enter a departure date.")
    elif v["date"] < TODAY:
        errors.append("The departure date is in the past.")
    if not re.fullmatch(r"[1-6]", v["adults"] or "1"):
        errors.append("Between 1 and 6 adults can travel on one booking.")
    if not re.fullmatch(r"[0-4]", v["children"] or "0"):
        errors.append("Up to 4 children can travel on one booking.")
    if v["cabin"] not in CABINS:
        errors.append("Choose a cabin.")
    v["adults"] = v["adults"] or "1"
    v["children"] = v["children"] or "0"
    return v, errors


def _results(st: TravelState, req: Request) -> Response:
    v, errors = _validate(req)
    if errors:
        st.refused += 1
        return _search_page(v, errors)
    st.searches.append(dict(v))
    people = int(v["adults"]) + int(v["children"])
    rows = "".join(
        f"<tr><td>{f['number']}</td><td>{f['depart']}</td><td>{f['arrive']}</td>"
        f"<td>€{f['price']} per person</td><td>"
        f'<form action="/travel/passengers" method="get">'
        + "".join(f'<input type="hidden" name="{k}" value="{h(x)}">' for k, x in v.items())
        + f'<input type="hidden" name="flight" value="{f["number"]}">'
        f'<button type="submit">Select {f["number"]}</button></form></td></tr>'
        for f in flights(v["from"], v["to"], v["date"], v["cabin"]))
    body = (f"<h1>Flights from {h(AIRPORTS[v['from']])} to {h(AIRPORTS[v['to']])}</h1>"
            f"<p>{v['date']}, {people} passenger{'s' if people > 1 else ''}, {v['cabin']}.</p>"
            "<table><thead><tr><th>Flight</th><th>Departs</th><th>Arrives</th><th>Fare</th>"
            f"<th></th></tr></thead><tbody>{rows}</tbody></table>"
            '<p><a href="/travel/">Change search</a></p>')
    return _page("Flights", body)


def _passengers(req: Request, errors: list[str] | None = None) -> Response:
    v, problems = _validate(req)
    flight = next((f for f in flights(v["from"], v["to"], v["date"], v["cabin"])
                   if f["number"] == req.arg("flight")), None) if not problems else None
    if flight is None:
        return _page("Booking", "<h1>That flight is not available</h1>", status=404)
    people = int(v["adults"]) + int(v["children"])
    fields = "".join(
        f'<p><label for="p{i}">Passenger {i} full name</label> <input id="p{i}" name="p{i}" '
        f'value="{h(req.arg(f"p{i}"))}"></p>' for i in range(1, people + 1))
    errs = ('<div class="errors" role="alert"><ul>'
            + "".join(f"<li>{h(e)}</li>" for e in errors) + "</ul></div>") if errors else ""
    hidden = "".join(f'<input type="hidden" name="{k}" value="{h(x)}">'
                     for k, x in [*v.items(), ("flight", flight["number"])])
    body = (f"<h1>Passengers for {flight['number']}</h1>{errs}"
            f"<p>{h(AIRPORTS[v['from']])} to {h(AIRPORTS[v['to']])} on {v['date']} at "
            f"{flight['depart']}. Total €{flight['price'] * people}.</p>"
            f'<form action="/travel/book" method="post" novalidate>{hidden}{fields}'
            f'<p><label for="email">Contact email</label> <input id="email" name="email" '
            f'value="{h(req.arg("email"))}"></p>'
            '<p><button type="submit">Confirm booking</button></p></form>')
    return _page("Passengers", body, status=422 if errors else 200)


def _book(st: TravelState, req: Request) -> Response:
    v, problems = _validate(req)
    flight = next((f for f in flights(v["from"], v["to"], v["date"], v["cabin"])
                   if f["number"] == req.arg("flight")), None) if not problems else None
    if flight is None:
        st.refused += 1
        return _page("Booking", "<h1>That flight is not available</h1>", status=404)
    people = int(v["adults"]) + int(v["children"])
    names = [req.arg(f"p{i}") for i in range(1, people + 1)]
    errors = [f"Enter the full name of passenger {i}." for i, n in enumerate(names, 1)
              if len(n.split()) < 2]
    if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}", req.arg("email")):
        errors.append("Enter a valid contact email.")
    if errors:
        st.refused += 1
        return _passengers(req, errors)
    ref = f"NW{hashlib.sha256(repr((v, names)).encode()).hexdigest()[:6].upper()}"
    st.bookings.append({"reference": ref, **v, "flight": flight["number"],
                        "price": flight["price"], "passengers": names,
                        "email": req.arg("email")})
    return redirect("/travel/trips", {"booked": ref})


def _trips(st: TravelState, req: Request) -> Response:
    note = (f'<p class="notice" role="status">Booking {h(req.arg("booked"))} is confirmed.</p>'
            if req.arg("booked") else "")
    items = "".join(
        f"<li>{b['reference']}: {b['flight']} {h(AIRPORTS[b['from']])} to "
        f"{h(AIRPORTS[b['to']])} on {b['date']} for {h(', '.join(b['passengers']))}</li>"
        for b in st.bookings) or "<li>No trips booked yet.</li>"
    return _page("My trips", f"<h1>My trips</h1>{note}<ul>{items}</ul>")


def handle(req: Request, session: Session) -> Response | None:
    st = state(session)
    path, post = req.path, req.method == "POST"
    if path == "/" and not post:
        return _search_page({})
    if path == "/results" and not post:
        return _results(st, req)
    if path == "/passengers" and not post:
        return _passengers(req)
    if path == "/book" and post:
        return _book(st, req)
    if path == "/trips" and not post:
        return _trips(st, req)
    return None
