"""The builtin sites behave like real ones: the server refuses bad submissions, records
exactly what was sent (wrong recipients included), and keeps each browser session apart."""

from __future__ import annotations

from .conftest import Client

CHECKOUT = {"name": "Mira Olsen", "email": "mira@example.test", "address": "4 Quay Street",
            "city": "Portlow", "postcode": "40213", "shipping": "express", "terms": "yes"}


# -- serving ---------------------------------------------------------------------------------
def test_static_files_are_served_and_python_sources_are_not(client: Client) -> None:
    assert client.get("/static/base.css").status == 200
    assert "customElements.define" in client.get("/widgets/components.js").text
    assert client.get("/server.py").status == 404
    assert client.get("/shop/no-such-page").status == 404


def test_each_client_is_its_own_session(port: int) -> None:
    a, b = Client(port), Client(port)
    assert a.post("/shop/cart/add", {"slug": "harbour-mug", "qty": "2"}).status == 200
    assert a.state()["shop"]["cart"] == {"harbour-mug": 2}
    assert b.state()["shop"]["cart"] == {}
    assert a.get("/api/sessions").json() == {"sessions": 2}


def test_state_starts_fresh_on_every_server(port: int) -> None:
    state = Client(port).state()
    assert set(state) == {"shop", "mail", "admin", "travel", "table", "wiki", "account",
                          "widgets"}
    assert state["shop"]["orders"] == [] and state["mail"]["sent"] == []
    assert state["admin"]["settings"]["dark_mode"] is False


# -- shop --------------------------------------------------------------------------------------
def test_shop_refuses_a_bad_checkout_and_records_a_good_one(client: Client) -> None:
    client.post("/shop/cart/add", {"slug": "lighthouse-print", "qty": "1"})
    bad = client.post("/shop/checkout", {**CHECKOUT, "postcode": "40 213", "terms": ""})
    assert bad.status == 422
    assert "Postcode must be five digits." in bad.text
    assert "You must accept the terms of sale." in bad.text
    assert 'value="Mira Olsen"' in bad.text  # what was typed is kept
    state = client.state()["shop"]
    assert state["orders"] == [] and state["refused"] == 1
    assert state["cart"] == {"lighthouse-print": 1}
    good = client.post("/shop/checkout", CHECKOUT)
    assert good.status == 200 and good.url.endswith("/shop/order/W-1001")
    assert "Order W-1001 is confirmed." in good.text
    order = client.state()["shop"]["orders"][0]
    assert order["postcode"] == "40213" and order["shipping"] == "express"
    assert order["items"] == [{"slug": "lighthouse-print", "name": "Lighthouse print", "qty": 1}]
    assert order["total"] == 3000 + 1200
    assert client.state()["shop"]["cart"] == {}


def test_shop_refuses_out_of_stock_and_quantities_above_stock(client: Client) -> None:
    page = client.get("/shop/p/copper-kettle")
    assert "Out of stock" in page.text and "disabled>Add to cart" in page.text
    refused = client.post("/shop/cart/add", {"slug": "copper-kettle", "qty": "1"})
    assert "Copper kettle is out of stock." in refused.text
    too_many = client.post("/shop/cart/add", {"slug": "signal-flag-set", "qty": "3"})
    assert "Only 2 in stock" in too_many.text
    assert client.state()["shop"]["cart"] == {}


def test_shop_search_filters_sorts_and_paginates(client: Client) -> None:
    page = client.get("/shop/search", category="Kitchen", sort="price-asc", instock="yes")
    assert page.text.index("Harbour mug") < page.text.index("Tin plate set")
    assert "Driftwood" not in page.text  # out of stock, though the cheapest
    first = client.get("/shop/catalogue")
    assert "19 products found. Page 1 of 4." in first.text and "Next page" in first.text
    last = client.get("/shop/catalogue", page="4")
    assert "Wool watch cap" in last.text and "Next page" not in last.text


def test_shop_wishlist_decoy_leaves_the_cart_alone(client: Client) -> None:
    client.post("/shop/wishlist", {"slug": "harbour-mug", "qty": "1"})
    assert client.state()["shop"]["cart"] == {}


# -- mail --------------------------------------------------------------------------------------
def test_mail_refuses_invalid_recipients_and_a_missing_subject(client: Client) -> None:
    reply = client.post("/mail/send", {"to": "olu@tern", "cc": "", "subject": "", "body": "x"})
    assert reply.status == 422
    assert "Not a valid email address: olu@tern." in reply.text and "Add a subject." in reply.text
    assert client.state()["mail"]["sent"] == []


def test_mail_records_a_wrong_recipient_as_wrong(client: Client) -> None:
    client.post("/mail/send", {"to": "tomas.wrenn@gullmail.test", "cc": "t.wren@tern.test",
                               "subject": "Keys", "body": "The keys are at the front desk."})
    sent = client.state()["mail"]["sent"]
    assert sent == [{"to": ["tomas.wrenn@gullmail.test"], "cc": ["t.wren@tern.test"],
                     "subject": "Keys", "body": "The keys are at the front desk.",
                     "in_reply_to": None}]


def test_mail_reading_archiving_and_replying(client: Client) -> None:
    assert 2 in client.state()["mail"]["unread"]
    message = client.get("/mail/m/2")
    assert "Wednesday or Thursday" in message.text
    assert 2 not in client.state()["mail"]["unread"]
    compose = client.get("/mail/compose", reply="2")
    assert 'value="priya.raman@tern.test"' in compose.text
    assert 'value="Re: Team offsite: which day?"' in compose.text
    client.post("/mail/m/3/move", {"folder": "archive"})
    folders = client.state()["mail"]["folders"]
    assert folders["3"] == "archive" and folders["6"] == "inbox"
    assert "Harbour Weekly: the regatta issue" in client.get("/mail/folder/archive").text


def test_mail_draft_is_not_sent(client: Client) -> None:
    client.post("/mail/draft", {"to": "olu@tern.test", "subject": "Later"})
    state = client.state()["mail"]
    assert state["sent"] == [] and state["drafts"] == [{"to": ["olu@tern.test"],
                                                        "subject": "Later"}]


# -- admin -------------------------------------------------------------------------------------
def test_admin_settings_are_validated_and_saved_only_on_save(client: Client) -> None:
    assert "Harbour team" in client.get("/admin/").text
    refused = client.post("/admin/api/settings", json_body={"display_name": "x" * 31,
                                                            "dark_mode": True})
    assert refused.status == 422 and refused.json()["ok"] is False
    state = client.state()["admin"]
    assert state["settings"]["dark_mode"] is False and state["refused"] == 1
    bad_zone = client.post("/admin/api/settings", json_body={"timezone": "Mars/Olympus"})
    assert bad_zone.status == 422
    ok = client.post("/admin/api/settings", json_body={"display_name": "Crew", "dark_mode": True,
                                                       "digest": "Weekly"})
    assert ok.json()["ok"] is True
    settings = client.state()["admin"]["settings"]
    assert settings["dark_mode"] is True and settings["digest"] == "Weekly"
    assert 'class="dark"' in client.get("/admin/").text


def test_admin_deletes_only_the_user_posted_and_archives_only_on_a_matching_name(
        client: Client) -> None:
    client.post("/admin/users/delete", {"email": "bruno@gullhouse.test"})
    state = client.state()["admin"]
    assert state["deleted"] == ["bruno@gullhouse.test"]
    assert "bruna@gullhouse.test" in [u["email"] for u in state["users"]]
    assert client.post("/admin/users/delete", {"email": "nobody@x.test"}).status == 404
    refused = client.post("/admin/projects/archive", {"project": "Gull", "confirm": "Gullwing"})
    assert refused.status == 422 and client.state()["admin"]["archived"] == []
    client.post("/admin/projects/archive", {"project": "Gull", "confirm": "Gull"})
    assert client.state()["admin"]["archived"] == ["Gull"]


# -- travel ------------------------------------------------------------------------------------
SEARCH = {"from": "OPO", "to": "BGO", "date": "2025-08-02", "adults": "1", "children": "0",
          "cabin": "Economy"}


def test_travel_search_is_validated(client: Client) -> None:
    typed_only = client.get("/travel/results", **{**SEARCH, "from": ""})
    assert typed_only.status == 422
    assert "Choose a departure airport from the list." in typed_only.text
    same = client.get("/travel/results", **{**SEARCH, "to": "OPO"})
    assert "Departure and destination must differ." in same.text
    past = client.get("/travel/results", **{**SEARCH, "date": "2025-05-20"})
    assert "The departure date is in the past." in past.text
    assert client.state()["travel"]["searches"] == []
    ok = client.get("/travel/results", **SEARCH)
    assert ok.status == 200 and "Flights from Porto to Bergen" in ok.text
    assert client.state()["travel"]["searches"] == [SEARCH]


def test_travel_booking_needs_full_names_and_a_real_flight(client: Client) -> None:
    from webrefs.evals.builtin.travel import flights

    flight = flights("OPO", "BGO", "2025-08-02", "Economy")[0]["number"]
    refused = client.post("/travel/book", {**SEARCH, "flight": flight, "p1": "Nina",
                                           "email": "nina@x.test"})
    assert refused.status == 422 and "full name of passenger 1" in refused.text
    assert client.post("/travel/book", {**SEARCH, "flight": "NW 999", "p1": "Nina Falk",
                                        "email": "nina@x.test"}).status == 404
    client.post("/travel/book", {**SEARCH, "flight": flight, "p1": "Nina Falk",
                                 "email": "nina@x.test"})
    booking = client.state()["travel"]["bookings"][0]
    assert booking["flight"] == flight and booking["passengers"] == ["Nina Falk"]


# -- table -------------------------------------------------------------------------------------
def test_table_edits_are_validated(client: Client) -> None:
    assert len(client.get("/table/api/items").json()) == 27
    for body in ({"stock": "-1", "price": "3.10"}, {"stock": "5", "price": "13,90"},
                 {"stock": "lots", "price": "1.00"}):
        assert client.post("/table/api/items/M-201", json_body=body).status == 422
    assert client.post("/table/api/items/X-1", json_body={"stock": "1",
                                                          "price": "1.00"}).status == 404
    items = client.state()["table"]["items"]
    assert items["M-201"] == {"stock": 44, "price": "3.10"}
    assert client.post("/table/api/items/M-201",
                       json_body={"stock": "40", "price": "3"}).json()["ok"] is True
    assert client.state()["table"]["items"]["M-201"] == {"stock": 40, "price": "3.00"}


# -- wiki --------------------------------------------------------------------------------------
def test_wiki_search_and_news_pages(client: Client) -> None:
    found = client.get("/wiki/search", q="crane")
    assert "The Iron Heron (harbour crane)" in found.text
    assert "0 articles found" in client.get("/wiki/search", q="zeppelin").text
    news = [client.get("/wiki/api/news", offset=str(o)).json() for o in (0, 10, 20, 30, 40)]
    assert [len(n) for n in news] == [10, 10, 10, 10, 0]
    assert any("3 November" in n["text"] for n in news[2])
    assert not any("ferry" in n["title"].lower() for n in news[0] + news[1])


# -- account -----------------------------------------------------------------------------------
def test_account_sign_in_needs_the_emailed_code(client: Client) -> None:
    wrong = client.post("/account/login", {"username": "harbourmaster", "password": "nope"})
    assert wrong.status == 401 and "4 attempts left" in wrong.text
    step = client.post("/account/login", {"username": "harbourmaster",
                                          "password": "Gulls&Tides-42"})
    assert "We sent a six-digit sign-in code" in step.text
    inbox = client.get("/mail/")
    assert "Your Harbour ID sign-in code" in inbox.text
    assert client.post("/account/verify", {"code": "000000"}).status == 401
    assert client.state()["account"]["user"] is None
    code_mail = client.get("/mail/m/10").text
    code = code_mail.split("Your sign-in code is ")[1][:6]
    done = client.post("/account/verify", {"code": code})
    assert "Signed in as harbourmaster." in done.text
    assert client.state()["account"]["user"] == "harbourmaster"


def test_account_locks_after_five_wrong_passwords(client: Client) -> None:
    for _ in range(5):
        client.post("/account/login", {"username": "deckhand", "password": "x"})
    locked = client.post("/account/login", {"username": "deckhand", "password": "Anchor-77"})
    assert "locked" in locked.text and client.state()["account"]["pending"] is None


def test_account_password_rules_and_taken_usernames(client: Client) -> None:
    assert client.get("/account/password").url.endswith("/account/")  # signed out: refused
    refused = client.post("/account/register", {"username": "pilot", "email": "p@x.test",
                                                "password": "short", "terms": "yes"})
    assert refused.status == 422
    assert "The username pilot is taken." in refused.text
    assert "shorter than 10 characters" in refused.text
    client.post("/account/register", {"username": "pilot2", "email": "p@x.test",
                                       "password": "Lanterns-2025", "terms": "yes"})
    assert client.state()["account"]["registered"] == [{"username": "pilot2",
                                                        "email": "p@x.test"}]


# -- widgets -----------------------------------------------------------------------------------
def test_widgets_validate_every_submission(client: Client) -> None:
    page = client.get("/widgets/frames")
    token = page.text.split("donate-frame?token=")[1].split('"')[0]
    bad = client.post("/widgets/donate", {"token": token, "amount": "15",
                                          "holder": "Grace Hopper",
                                          "card": "4539 1488 0343 6468"})
    assert bad.status == 422 and "The card number is not valid." in bad.text
    unknown = client.post("/widgets/donate", {"token": "s999", "amount": "15",
                                              "holder": "Grace Hopper",
                                              "card": "4539 1488 0343 6467"})
    assert "expired" in unknown.text
    client.post("/widgets/donate", {"token": token, "amount": "15", "holder": "Grace Hopper",
                                    "card": "4539 1488 0343 6467"})
    assert client.post("/widgets/api/review", json_body={"stars": 0, "text": "x",
                                                         "name": "y"}).status == 422
    assert client.post("/widgets/subscribe", {"email": "ada@", "frequency": "weekly"}
                       ).status == 422
    assert client.post("/widgets/api/consent", json_body={"choice": "maybe"}).status == 422
    state = client.state()["widgets"]
    assert state["donations"] == [{"amount": 15, "holder": "Grace Hopper",
                                   "card_last4": "6467"}]
    assert state["reviews"] == [] and state["subscriptions"] == [] and state["consent"] is None
    assert state["refused"] == 3


def test_donation_token_reaches_the_session_that_rendered_the_frame(port: int) -> None:
    owner, frame = Client(port), Client(port)  # the sandboxed frame sends no cookie
    token = owner.get("/widgets/frames").text.split("donate-frame?token=")[1].split('"')[0]
    frame.post("/widgets/donate", {"token": token, "amount": "5", "holder": "Ada Byron",
                                   "card": "4539148803436467"})
    assert owner.state()["widgets"]["donations"][0]["holder"] == "Ada Byron"
    assert frame.state()["widgets"]["donations"] == []


def test_consent_modal_is_shown_until_a_choice_is_saved(client: Client) -> None:
    assert 'id="consent"' in client.get("/widgets/").text
    client.post("/widgets/api/consent", json_body={"choice": "necessary"})
    assert 'id="consent"' not in client.get("/widgets/").text
