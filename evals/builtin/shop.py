"""Tidewater Outfitters (``/shop/``): search with filters, sorting and pagination, product
pages with stock, a cart, and a checkout form validated on the server.

Behaviour a wrong action can fail against: quantities above stock are refused, out-of-stock
products cannot be added (their button is disabled and the server refuses them anyway), and
an order is recorded only when every checkout field is valid and the terms are accepted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

from .core import Request, Response, Session, h, html_page, json_response, redirect

__all__ = ["PRODUCTS", "Product", "ShopState", "handle", "state"]


@dataclass(frozen=True)
class Product:
    slug: str
    name: str
    category: str
    price: int
    """In cents."""
    stock: int
    blurb: str


PRODUCTS: tuple[Product, ...] = (
    Product("tidewater-rain-jacket", "Tidewater rain jacket", "Clothing", 8900, 7,
            "A long waxed-cotton jacket with a storm hood and two deep pockets."),
    Product("tidewater-rain-trousers", "Tidewater rain trousers", "Clothing", 5400, 3,
            "Overtrousers that match the jacket; a zip on each leg."),
    Product("wool-watch-cap", "Wool watch cap", "Clothing", 1900, 20,
            "A ribbed cap of undyed wool, one size."),
    Product("deck-boots", "Deck boots", "Clothing", 6200, 0,
            "Non-slip rubber boots with a felt lining."),
    Product("fisherman-sweater", "Fisherman sweater", "Clothing", 7400, 4,
            "A heavy knit with a roll neck, made on the island."),
    Product("harbour-mug", "Harbour mug", "Kitchen", 1200, 12,
            "A stoneware mug glazed the grey-blue of the harbour at dawn."),
    Product("copper-kettle", "Copper kettle", "Kitchen", 6800, 0,
            "A stovetop kettle of hammered copper, 1.5 litres."),
    Product("enamel-kettle", "Enamel kettle", "Kitchen", 3600, 5,
            "A white enamel kettle with a black handle, 1.2 litres."),
    Product("galley-knife", "Galley knife", "Kitchen", 2900, 9,
            "A short stainless knife with a cork handle that floats."),
    Product("tin-plate-set", "Tin plate set", "Kitchen", 2200, 6,
            "Four enamelled tin plates that survive any crossing."),
    Product("driftwood-board", "Driftwood cutting board", "Kitchen", 900, 0,
            "A board cut from salvaged oak."),
    Product("storm-lantern", "Storm lantern", "Outdoor", 3400, 8,
            "A paraffin lantern with a glass globe; burns 20 hours on one filling."),
    Product("signal-flag-set", "Signal flag set", "Outdoor", 4800, 2,
            "The full set of forty signal flags in a canvas roll."),
    Product("dry-bag", "Dry bag 20 litres", "Outdoor", 2100, 15,
            "A roll-top bag that keeps a change of clothes dry."),
    Product("folding-stool", "Folding deck stool", "Outdoor", 3900, 1,
            "A teak stool that folds flat."),
    Product("lighthouse-print", "Lighthouse print", "Home", 3000, 10,
            "A print of Veld lighthouse in a storm, 30 by 40 cm."),
    Product("rope-doorstop", "Rope doorstop", "Home", 1600, 11,
            "A doorstop of tarred rope around a weight."),
    Product("brass-barometer", "Brass barometer", "Home", 11500, 2,
            "A wall barometer in a brass case."),
    Product("tide-clock", "Tide clock", "Home", 4400, 6,
            "A clock that shows the hours to high water."),
)
BY_SLUG = {p.slug: p for p in PRODUCTS}
CATEGORIES = ("Clothing", "Kitchen", "Outdoor", "Home")
PER_PAGE = 6
SHIPPING = {"standard": ("Standard delivery", 400), "express": ("Express delivery", 1200)}
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")


def money(cents: int) -> str:
    return f"€{cents // 100}.{cents % 100:02d}"


@dataclass
class ShopState:
    cart: dict[str, int] = field(default_factory=dict)
    orders: list[dict[str, Any]] = field(default_factory=list)
    refused: int = 0
    """Checkout submissions the server refused."""

    def to_json(self) -> Any:
        return {"cart": dict(self.cart), "orders": self.orders, "refused": self.refused}


def state(session: Session) -> ShopState:
    return session.get("shop", ShopState)


def _nav(st: ShopState) -> str:
    count = sum(st.cart.values())
    return ('<nav><a href="/shop/catalogue">Catalogue</a>'
            f'<a href="/shop/cart">Cart ({count})</a></nav>')


def _page(st: ShopState, title: str, body: str, status: int = 200) -> Response:
    return html_page(f"{title} - Tidewater Outfitters", body, site="shop", nav=_nav(st),
                     status=status)


def _search_form(q: str = "") -> str:
    return ('<form role="search" action="/shop/search" method="get">'
            f'<input type="search" name="q" aria-label="Search products" value="{h(q)}">'
            '<button type="submit">Search</button></form>')


def _home(st: ShopState) -> Response:
    cats = "".join(f'<li><a href="/shop/search?category={c}">{c}</a></li>' for c in CATEGORIES)
    body = (f"<h1>Tidewater Outfitters</h1>{_search_form()}"
            "<p>Gear for wet weather and long crossings, sent from Portlow.</p>"
            f"<h2>Shop by category</h2><ul>{cats}</ul>"
            '<p><a href="/shop/catalogue">Browse the whole catalogue</a></p>')
    return _page(st, "Home", body)


def _results(req: Request, st: ShopState, *, catalogue: bool = False) -> Response:
    q = req.arg("q").lower()
    category = req.arg("category")
    sort = req.arg("sort", "name")
    instock = req.arg("instock") == "yes"
    try:
        page = max(1, int(req.arg("page", "1")))
    except ValueError:
        page = 1
    found = [p for p in PRODUCTS
             if (not q or all(w in (p.name + " " + p.blurb).lower() for w in q.split()))
             and (not category or p.category == category) and (not instock or p.stock > 0)]
    if sort == "price-asc":
        found.sort(key=lambda p: (p.price, p.name))
    elif sort == "price-desc":
        found.sort(key=lambda p: (-p.price, p.name))
    elif not catalogue or sort == "name":
        found.sort(key=lambda p: p.name)
    pages = max(1, -(-len(found) // PER_PAGE))
    page = min(page, pages)
    shown = found[(page - 1) * PER_PAGE: page * PER_PAGE]
    items = "".join(
        f'<li><a href="/shop/p/{p.slug}">{h(p.name)}</a> {money(p.price)}'
        + (" <em>Out of stock</em>" if p.stock == 0 else "") + "</li>" for p in shown)
    cat_opts = '<option value="">All categories</option>' + "".join(
        f'<option value="{c}"{" selected" if c == category else ""}>{c}</option>'
        for c in CATEGORIES)
    sorts = (("name", "Name"), ("price-asc", "Price: low to high"),
             ("price-desc", "Price: high to low"))
    sort_opts = "".join(f'<option value="{v}"{" selected" if v == sort else ""}>{t}</option>'
                        for v, t in sorts)
    base = {"q": req.arg("q"), "category": category, "sort": sort,
            "instock": "yes" if instock else ""}
    links = []
    path = "/shop/catalogue" if catalogue else "/shop/search"
    if page > 1:
        links.append(f'<a href="{path}?{urlencode({**base, "page": page - 1})}">Previous page</a>')
    if page < pages:
        links.append(f'<a href="{path}?{urlencode({**base, "page": page + 1})}">Next page</a>')
    title = "Catalogue" if catalogue else "Search results"
    body = (f"<h1>{title}</h1>"
            f'<form action="{path}" method="get" aria-label="Filters">'
            f'<p><label for="q">Search</label> <input id="q" name="q" '
            f'value="{h(req.arg("q"))}"></p>'
            f'<p><label for="category">Category</label> <select id="category" name="category">'
            f"{cat_opts}</select></p>"
            f'<p><label for="sort">Sort by</label> <select id="sort" name="sort">{sort_opts}'
            "</select></p>"
            f'<p><label><input type="checkbox" name="instock" value="yes"'
            f'{" checked" if instock else ""}> In stock only</label></p>'
            '<p><button type="submit">Apply filters</button></p></form>'
            f"<p>{len(found)} products found. Page {page} of {pages}.</p>"
            f'<ul aria-label="Products">{items}</ul>'
            f'<nav aria-label="Pages">{" ".join(links)}</nav>')
    return _page(st, title, body)


def _product(st: ShopState, slug: str, error: str = "") -> Response:
    p = BY_SLUG.get(slug)
    if p is None:
        return _page(st, "Not found", "<h1>Product not found</h1>", 404)
    stock = "Out of stock" if p.stock == 0 else f"{p.stock} in stock"
    disabled = " disabled" if p.stock == 0 else ""
    err = f'<p class="errors" role="alert">{h(error)}</p>' if error else ""
    body = (f"<h1>{h(p.name)}</h1><p>Price: {money(p.price)}</p><p>{h(p.blurb)}</p>"
            f"<p>Category: {p.category}. {stock}.</p>{err}"
            f'<form action="/shop/cart/add" method="post">'
            f'<input type="hidden" name="slug" value="{p.slug}">'
            f'<p><label for="qty">Quantity</label> <input id="qty" name="qty" type="number" '
            f'min="1" value="1"></p>'
            f'<p><button type="submit"{disabled}>Add to cart</button> '
            f'<button type="submit" formaction="/shop/wishlist">Save to wishlist</button></p>'
            "</form>")
    return _page(st, p.name, body)


def _int(text: str) -> int | None:
    return int(text) if re.fullmatch(r"\d{1,4}", text) else None


def _add(req: Request, st: ShopState) -> Response:
    p = BY_SLUG.get(req.arg("slug"))
    if p is None:
        return _page(st, "Not found", "<h1>Product not found</h1>", 404)
    qty = _int(req.arg("qty"))
    have = st.cart.get(p.slug, 0)
    if p.stock == 0:
        return _product(st, p.slug, f"{p.name} is out of stock.")
    if qty is None or qty < 1:
        return _product(st, p.slug, "Enter a quantity of at least 1.")
    if have + qty > p.stock:
        return _product(st, p.slug, f"Only {p.stock} in stock; your cart would hold {have + qty}.")
    st.cart[p.slug] = have + qty
    return redirect("/shop/cart", {"added": p.slug})


def _cart(req: Request, st: ShopState, error: str = "") -> Response:
    added = BY_SLUG.get(req.arg("added"))
    note = (f'<p class="notice" role="status">Added {h(added.name)} to your cart.</p>'
            if added else "")
    if error:
        note = f'<p class="errors" role="alert">{h(error)}</p>'
    if not st.cart:
        return _page(st, "Cart", f'<h1>Your cart</h1>{note}<p>Your cart is empty.</p>'
                     '<p><a href="/shop/catalogue">Browse the catalogue</a></p>')
    rows = []
    total = 0
    for slug, qty in st.cart.items():
        p = BY_SLUG[slug]
        total += p.price * qty
        rows.append(
            f"<tr><td>{h(p.name)}</td><td>{money(p.price)}</td><td>"
            f'<form action="/shop/cart/update" method="post">'
            f'<input type="hidden" name="slug" value="{slug}">'
            f'<input name="qty" type="number" min="0" value="{qty}" '
            f'aria-label="Quantity of {h(p.name)}"> '
            f'<button type="submit">Update {h(p.name)}</button></form></td><td>'
            f'<form action="/shop/cart/remove" method="post">'
            f'<input type="hidden" name="slug" value="{slug}">'
            f'<button type="submit">Remove {h(p.name)}</button></form></td></tr>')
    body = (f"<h1>Your cart</h1>{note}<table><thead><tr><th>Product</th><th>Price</th>"
            f"<th>Quantity</th><th></th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
            f"<p>Subtotal: {money(total)}</p>"
            '<p><a href="/shop/checkout">Proceed to checkout</a></p>')
    return _page(st, "Cart", body)


def _update(req: Request, st: ShopState, remove: bool) -> Response:
    slug = req.arg("slug")
    p = BY_SLUG.get(slug)
    if p is None or slug not in st.cart:
        return _cart(req, st, "That product is not in your cart.")
    qty = 0 if remove else _int(req.arg("qty"))
    if qty is None:
        return _cart(req, st, "Enter a whole number.")
    if qty > p.stock:
        return _cart(req, st, f"Only {p.stock} of {p.name} in stock.")
    if qty == 0:
        del st.cart[slug]
    else:
        st.cart[slug] = qty
    return redirect("/shop/cart")


_FIELDS = (("name", "Full name"), ("email", "Email"), ("address", "Street address"),
           ("city", "City"), ("postcode", "Postcode"))


def _checkout(st: ShopState, values: dict[str, str] | None = None,
              errors: list[str] | None = None) -> Response:
    if not st.cart:
        return _page(st, "Checkout", "<h1>Checkout</h1><p>Your cart is empty.</p>")
    values = values or {}
    errs = ('<div class="errors" role="alert"><p>Please correct the following:</p><ul>'
            + "".join(f"<li>{h(e)}</li>" for e in errors) + "</ul></div>") if errors else ""
    fields = "".join(
        f'<p><label for="{k}">{t}</label> <input id="{k}" name="{k}" '
        f'value="{h(values.get(k, ""))}"></p>' for k, t in _FIELDS)
    ship = values.get("shipping", "standard")
    radios = "".join(
        f'<label><input type="radio" name="shipping" value="{k}"'
        f'{" checked" if k == ship else ""}> {t} ({money(c)})</label><br>'
        for k, (t, c) in SHIPPING.items())
    lines = "".join(f"<li>{q} × {h(BY_SLUG[s].name)}</li>" for s, q in st.cart.items())
    body = (f"<h1>Checkout</h1>{errs}<h2>Order</h2><ul>{lines}</ul>"
            f'<form action="/shop/checkout" method="post" novalidate>{fields}'
            f'<fieldset><legend>Shipping</legend>{radios}</fieldset>'
            '<p><label><input type="checkbox" name="terms" value="yes"> '
            "I accept the terms of sale</label></p>"
            '<p><button type="submit">Place order</button></p></form>')
    return _page(st, "Checkout", body, 422 if errors else 200)


def _place(req: Request, st: ShopState) -> Response:
    if not st.cart:
        return _checkout(st)
    values = {k: req.arg(k) for k, _ in _FIELDS}
    values["shipping"] = req.arg("shipping")
    errors = [f"{t} is required." for k, t in _FIELDS if not values[k]]
    if values["email"] and not EMAIL.match(values["email"]):
        errors.append("Email is not a valid address.")
    if values["postcode"] and not re.fullmatch(r"\d{5}", values["postcode"]):
        errors.append("Postcode must be five digits.")
    if values["shipping"] not in SHIPPING:
        errors.append("Choose a shipping method.")
    if req.arg("terms") != "yes":
        errors.append("You must accept the terms of sale.")
    if errors:
        st.refused += 1
        return _checkout(st, values, errors)
    number = f"W-{1001 + len(st.orders)}"
    items = [{"slug": s, "name": BY_SLUG[s].name, "qty": q} for s, q in st.cart.items()]
    total = sum(BY_SLUG[s].price * q for s, q in st.cart.items()) + SHIPPING[values["shipping"]][1]
    st.orders.append({"number": number, **values, "items": items, "total": total})
    st.cart.clear()
    return redirect(f"/shop/order/{quote(number)}")


def _order(st: ShopState, number: str) -> Response:
    order = next((o for o in st.orders if o["number"] == number), None)
    if order is None:
        return _page(st, "Not found", "<h1>No such order</h1>", 404)
    lines = "".join(f"<li>{i['qty']} × {h(i['name'])}</li>" for i in order["items"])
    body = (f"<h1>Thank you!</h1><p role=\"status\">Order {number} is confirmed.</p>"
            f"<ul>{lines}</ul><p>Total paid: {money(order['total'])}, "
            f"{SHIPPING[order['shipping']][0].lower()} to {h(order['name'])}.</p>")
    return _page(st, "Order confirmed", body)


def handle(req: Request, session: Session) -> Response | None:
    st = state(session)
    path, post = req.path, req.method == "POST"
    if path == "/" and not post:
        return _home(st)
    if path == "/search" and not post:
        return _results(req, st)
    if path == "/catalogue" and not post:
        return _results(req, st, catalogue=True)
    if path.startswith("/p/") and not post:
        return _product(st, path[3:])
    if path == "/cart/add" and post:
        return _add(req, st)
    if path == "/cart" and not post:
        return _cart(req, st)
    if path in ("/cart/update", "/cart/remove") and post:
        return _update(req, st, remove=path.endswith("remove"))
    if path == "/checkout":
        return _place(req, st) if post else _checkout(st)
    if path.startswith("/order/") and not post:
        return _order(st, path[7:])
    if path == "/wishlist" and post:
        p = BY_SLUG.get(req.arg("slug"))
        return _page(st, "Wishlist", f"<h1>Wishlist</h1><p>Saved {h(p.name if p else '')} "
                     "to your wishlist. (Your cart is unchanged.)</p>")
    if path == "/api/cart":
        return json_response(st.to_json())
    return None
