"""Dockside Inventory (``/table/``): a table drawn by a script from ``/table/api/items``, with
sortable columns, a text filter, a category filter, pages of eight rows, and inline row
editing saved with ``fetch``; the server refuses a negative or non-numeric stock and a badly
formatted price, and keeps every accepted edit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .core import Request, Response, Session, html_page, json_response

__all__ = ["ITEMS", "TableState", "handle", "state"]

_RAW = """\
R-101|Manila rope 12 mm, 50 m|Rope|A1|14|64.00
R-102|Nylon rope 8 mm, 30 m|Rope|A1|31|22.50
R-118|Polyester mooring line 16 mm|Rope|A2|9|48.00
R-1180|Polyester mooring line 18 mm|Rope|A2|6|56.00
R-120|Whipping twine, waxed|Rope|A3|80|4.20
R-131|Dyneema halyard 6 mm|Rope|A3|12|39.90
M-201|Anchor shackle 8 mm|Metal|B1|44|3.10
M-202|Anchor shackle 10 mm|Metal|B1|27|4.40
M-203|Anchor shackle 12 mm|Metal|B1|18|6.90
M-207|Swivel, galvanised|Metal|B2|15|11.00
M-210|Cleat, stainless 150 mm|Metal|B2|22|17.50
M-214|Thimble 10 mm|Metal|B3|60|1.20
M-220|Turnbuckle, closed body|Metal|B3|7|23.00
P-301|Teak oil, 1 l|Paint|C1|19|15.80
P-302|Antifouling, red, 2.5 l|Paint|C1|5|89.00
P-305|Varnish, gloss, 750 ml|Paint|C2|23|21.00
P-309|Deck paint, grey, 2.5 l|Paint|C2|11|46.50
S-401|Fender, cylindrical 15 cm|Safety|D1|16|19.90
S-402|Life jacket 150 N|Safety|D1|10|74.00
S-405|Throw line bag|Safety|D2|8|29.00
S-408|Flare pack, coastal|Safety|D2|4|52.00
S-411|First aid kit, marine|Safety|D3|13|33.00
T-501|Marlinspike|Tools|E1|21|12.50
T-502|Sail needle set|Tools|E1|35|6.40
T-507|Rigging knife|Tools|E2|17|26.00
T-510|Hand fid 20 cm|Tools|E2|9|9.80
T-512|Crimping tool|Tools|E3|3|118.00
"""
ITEMS: tuple[dict[str, Any], ...] = tuple(
    {"sku": s, "name": n, "category": c, "location": loc, "stock": int(q), "price": p}
    for s, n, c, loc, q, p in (line.split("|") for line in _RAW.splitlines()))


@dataclass
class TableState:
    items: list[dict[str, Any]] = field(default_factory=lambda: [dict(i) for i in ITEMS])
    edits: list[dict[str, Any]] = field(default_factory=list)
    refused: int = 0

    def to_json(self) -> Any:
        return {"items": {i["sku"]: {"stock": i["stock"], "price": i["price"]}
                          for i in self.items}, "edits": self.edits, "refused": self.refused}


def state(session: Session) -> TableState:
    return session.get("table", TableState)



COLUMNS = (("sku", "SKU"), ("name", "Item"), ("category", "Category"),
           ("location", "Location"), ("stock", "Stock"), ("price", "Price"))


def _page() -> Response:
    heads = "".join(f'<th aria-sort="none"><button type="button" data-key="{k}">{t}</button>'
                    "</th>" for k, t in COLUMNS)
    cats = '<option value="">All categories</option>' + "".join(
        f"<option>{c}</option>" for c in sorted({str(i["category"]) for i in ITEMS}))
    body = ("<h1>Inventory</h1>"
            '<p><label for="filter">Filter items</label> <input id="filter" type="search"> '
            f'<label for="category">Category</label> <select id="category">{cats}</select></p>'
            '<p id="count" role="status"></p><p id="msg" role="alert"></p>'
            f'<table><thead><tr>{heads}<th>Actions</th></tr></thead><tbody id="rows"></tbody>'
            '</table><p><button type="button" id="prev">Previous page</button> '
            '<button type="button" id="next">Next page</button></p>')
    page = html_page("Inventory - Dockside Inventory", body, site="table")
    page.body = page.body.replace(b"</head>", b'<script src="/table/table.js"></script></head>', 1)
    return page


def _save(st: TableState, sku: str, data: Any) -> Response:
    item = next((i for i in st.items if i["sku"] == sku), None)
    if item is None:
        return json_response({"ok": False, "error": f"No item {sku}."}, 404)
    if not isinstance(data, dict):
        return json_response({"ok": False, "error": "Bad request."}, 400)
    stock, price = str(data.get("stock", "")).strip(), str(data.get("price", "")).strip()
    error = ""
    if not re.fullmatch(r"\d{1,4}", stock):
        error = "Stock must be a whole number from 0 to 9999."
    elif not re.fullmatch(r"\d{1,5}(\.\d{2})?", price):
        error = "Price must be a number with two decimals, like 12.50."
    if error:
        st.refused += 1
        return json_response({"ok": False, "error": error}, 422)
    new_price = f"{float(price):.2f}"
    st.edits.append({"sku": sku, "stock": int(stock), "price": new_price})
    item.update(stock=int(stock), price=new_price)
    return json_response({"ok": True, "item": item})


def handle(req: Request, session: Session) -> Response | None:
    st = state(session)
    if req.path == "/" and req.method != "POST":
        return _page()
    if req.path == "/api/items" and req.method != "POST":
        return json_response(st.items)
    if req.path.startswith("/api/items/") and req.method == "POST":
        return _save(st, req.path[len("/api/items/"):], req.body_json)
    return None
