"""Portlow Wiki (``/wiki/``): server-side search over articles, long articles in sections,
and a news feed that loads ten more items each time its end scrolls into view (40 in all).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .core import Request, Response, Session, h, html_page, json_response

__all__ = ["ARTICLES", "NEWS", "WikiState", "handle", "state"]

# slug -> (title, summary, [(section heading, text), ...])
ARTICLES: dict[str, tuple[str, str, list[tuple[str, str]]]] = {
    "portlow-tide-mill": ("Portlow tide mill", "A mill on the east creek driven by the tide.", [
        ("Overview", "The Portlow tide mill stands where the east creek meets the harbour. A "
         "dam holds back the water of each high tide, and as the tide falls the water is let "
         "out under a wheel five metres across."),
        ("History", "The mill was built in 1742 for the Varga family and ground grain for the "
         "town until 1931, when a steam mill on the quay took its trade. It stood empty for "
         "sixty years and lost its roof in the storm of 1987."),
        ("Restoration", "The Portlow Mill Trust bought the building for one crown in 1989. "
         "After five years of work the mill was restored in 1994 and ground flour again that "
         "summer. It now opens to visitors on Saturdays from April to October."),
    ]),
    "veld-lighthouse": ("Veld lighthouse", "The lighthouse on Veld Point, west of Portlow.", [
        ("Overview", "Veld lighthouse is a round tower of grey granite on Veld Point. The tower "
         "is 38 metres tall and its light can be seen 21 nautical miles out."),
        ("History", "The light was first lit in 1891. Its keepers lived in two cottages at the "
         "foot of the tower until the light was automated in 1979."),
    ]),
    "karsk-lighthouse": ("Karsk lighthouse", "The lighthouse on the Karsk skerry.", [
        ("Overview", "Karsk lighthouse stands on a bare skerry four miles north of Portlow. "
         "Built of cast-iron plates on a stone base, the tower is 44 metres tall, the tallest "
         "on this coast."),
        ("History", "It was lit in 1903 after the loss of the steamer Aurora on the skerry. "
         "Supplies reached the keepers by boat when the weather allowed."),
    ]),
    "iron-heron": ("The Iron Heron (harbour crane)", "The old steam crane on the north quay.", [
        ("Overview", "The Iron Heron is the steam crane on the north quay of Portlow harbour. "
         "It could lift 40 tonnes and unloaded timber, coal and, in its last years, yachts."),
        ("History", "The crane was built in 1911 by a Glasgow works and shipped to Portlow in "
         "pieces. It was last used in 1972 and was listed as a monument in 1988."),
    ]),
    "portlow-regatta": ("Portlow regatta", "The sailing race held every August.", [
        ("Overview", "The Portlow regatta is a sailing race held on the second weekend of "
         "August. Boats race from the harbour mouth round the Karsk skerry and back."),
        ("History", "The first regatta was held in 1868 with eleven boats. It was cancelled "
         "only in the war years and once, in 1953, for fog."),
    ]),
    "history-of-portlow-harbour": (
        "History of Portlow harbour", "From a fishing beach to a ferry port, in nine parts.", [
            ("Beginnings", "Before there was a harbour there was a beach. Fishing boats were "
             "hauled up the shingle below the church, and the first stone jetty, built by the "
             "parish around 1610, was little more than a line of boulders that broke the "
             "swell on the worst days. Records of the time speak of boats lost within sight "
             "of the houses."),
            ("The merchants' quay", "In 1702 a group of merchants paid for a proper quay of "
             "dressed stone along the north side of the bay. Ships of up to two hundred tons "
             "could now tie up at any tide, and the town began to trade salt fish, wool and, "
             "later, timber brought down from the valleys."),
            ("The tide mill and the creek", "The east creek was dammed for the tide mill in "
             "1742, which silted the upper creek but gave the town its own flour. Small craft "
             "still used the lower creek as a refuge in westerly gales."),
            ("Steam and the railway", "The railway reached Portlow in 1869, and with it came "
             "coal and a steam packet to the islands. The north quay was lengthened twice and "
             "the Iron Heron crane arrived in 1911 to unload colliers."),
            ("The fishing boom", "Between the wars the herring fleet grew to over ninety "
             "boats. Curing sheds lined the south beach and the harbour was so crowded on "
             "Saturdays that one could cross it from deck to deck."),
            ("Decline", "The herring left after 1950, the railway closed in 1964 and the last "
             "collier called in 1972. Many of the sheds were pulled down and the quay walls "
             "began to crumble."),
            ("The ferry", "A car ferry to the islands began in 1977 from a new slipway on the "
             "south side. Within ten years it was the harbour's main business, and the "
             "timetable set the rhythm of the town."),
            ("Storms and repairs", "The storm of 1987 breached the old breakwater in two "
             "places and sank eleven boats at their moorings. Repairs took four years and "
             "were never quite finished."),
            ("The harbour today", "A new breakwater, finished in 2019, now shelters the whole "
             "bay; it is 610 metres long and carries a walkway to a small light at its end. "
             "The harbour handles about two thousand ferry crossings a year, a marina of "
             "three hundred berths and a small fishing fleet of fourteen boats."),
        ]),
}

_TOPICS = (
    ("Council approves bike racks on Quay Street", "Forty new racks go in before summer."),
    ("Library extends Saturday hours", "The library now opens until 17:00 on Saturdays."),
    ("Regatta entries open", "Entries for the August regatta open on the first of June."),
    ("Road works on Mill Lane", "Mill Lane is closed to cars for three weeks."),
    ("School choir wins county prize", "The choir sang three songs about the sea."),
    ("New bakery opens by the church", "Its first loaf sold out before nine."),
    ("Harbour dredging planned", "The channel will be dredged in the autumn."),
    ("Market moves to the north quay", "The Thursday market moves for the summer."),
)
NEWS: tuple[dict[str, str], ...] = tuple(
    {"date": f"{28 - (i % 27)} {'September' if i < 20 else 'August'}",
     "title": (f"{_TOPICS[i % len(_TOPICS)][0]}" if i != 26 else
               "Ferry timetable change announced"),
     "text": (_TOPICS[i % len(_TOPICS)][1] if i != 26 else
              "The winter ferry timetable takes effect on 3 November; the first sailing "
              "leaves at 07:10 instead of 06:40.")}
    for i in range(40))


@dataclass
class WikiState:
    searches: list[str] = field(default_factory=list)

    def to_json(self) -> Any:
        return {"searches": self.searches}


def state(session: Session) -> WikiState:
    return session.get("wiki", WikiState)


def _search_form(q: str = "") -> str:
    return ('<form role="search" action="/wiki/search" method="get">'
            f'<input type="search" name="q" aria-label="Search the wiki" value="{h(q)}">'
            '<button type="submit">Search</button></form>')


def _page(title: str, body: str, script: str = "") -> Response:
    nav = '<nav><a href="/wiki/">Articles</a><a href="/wiki/news">News</a></nav>'
    return html_page(f"{title} - Portlow Wiki", body, site="wiki", nav=nav, script=script)


def _home() -> Response:
    items = "".join(f'<li><a href="/wiki/a/{s}">{h(t)}</a>: {h(summary)}</li>'
                    for s, (t, summary, _) in sorted(ARTICLES.items(), key=lambda kv: kv[1][0]))
    return _page("Portlow Wiki", f"<h1>Portlow Wiki</h1>{_search_form()}"
                 f"<h2>All articles</h2><ul>{items}</ul>")


def _search(st: WikiState, q: str) -> Response:
    st.searches.append(q)
    words = q.lower().split()
    hits = [(s, t, summary) for s, (t, summary, sections) in ARTICLES.items()
            if words and all(w in (t + " " + summary + " " + " ".join(
                x for sec in sections for x in sec)).lower() for w in words)]
    items = "".join(f'<li><a href="/wiki/a/{s}">{h(t)}</a><p>{h(summary)}</p></li>'
                    for s, t, summary in hits)
    body = (f"<h1>Search results</h1>{_search_form(q)}"
            f"<p>{len(hits)} article{'s' if len(hits) != 1 else ''} found for {h(q)!s}.</p>"
            f"<ul>{items}</ul>")
    return _page("Search", body)


def _article(slug: str) -> Response:
    found = ARTICLES.get(slug)
    if found is None:
        return html_page("Not found - Portlow Wiki", "<h1>No such article</h1>", site="wiki",
                         status=404)
    title, summary, sections = found
    toc = "".join(f'<li><a href="#s{i}">{h(head)}</a></li>' for i, (head, _) in
                  enumerate(sections))
    secs = "".join(f'<section id="s{i}" aria-labelledby="h{i}"><h2 id="h{i}">{h(head)}</h2>'
                   f"<p>{h(text)}</p></section>" for i, (head, text) in enumerate(sections))
    body = (f"<article><h1>{h(title)}</h1><p><i>{h(summary)}</i></p>"
            f'<nav aria-label="Contents"><ol>{toc}</ol></nav>{secs}</article>')
    return _page(title, body)


NEWS_JS = """
let offset = 0, busy = false;
async function more() {
  if (busy || offset >= 40) return; busy = true;
  const items = await (await fetch('/wiki/api/news?offset=' + offset)).json();
  const list = document.getElementById('feed');
  for (const n of items) {
    const li = document.createElement('li');
    li.innerHTML = '<article><h2></h2><p class="date"></p><p class="text"></p></article>';
    li.querySelector('h2').textContent = n.title;
    li.querySelector('.date').textContent = n.date;
    li.querySelector('.text').textContent = n.text;
    list.appendChild(li);
  }
  offset += items.length; busy = false;
  document.getElementById('end').textContent = offset >= 40 ? 'No more news.' : 'Loading more…';
}
document.addEventListener('DOMContentLoaded', () => {
  new IntersectionObserver(es => { if (es.some(e => e.isIntersecting)) more(); })
    .observe(document.getElementById('end'));
});
"""


def handle(req: Request, session: Session) -> Response | None:
    st = state(session)
    if req.method == "POST":
        return None
    if req.path == "/":
        return _home()
    if req.path == "/search":
        return _search(st, req.arg("q"))
    if req.path.startswith("/a/"):
        return _article(req.path[3:])
    if req.path == "/news":
        return _page("News", '<h1>Portlow news</h1><ul id="feed" aria-label="News feed"></ul>'
                     '<p id="end">Loading more…</p>', NEWS_JS)
    if req.path == "/api/news":
        try:
            offset = max(0, int(req.arg("offset", "0")))
        except ValueError:
            offset = 0
        return json_response(list(NEWS[offset: offset + 10]))
    return None
