"""The snapshot layer: reading a live page into a :class:`~webrefs.PageTree`.

- ``extractor.js``: the one in-page script (walk, roles, names, hidden-content rules, refs);
- :mod:`.script`: loading it and parsing its JSON (also for hosts other than Playwright);
- :mod:`.extract`: reading every frame of a page and stitching the frames together;
- :mod:`.refs`: the ref book of a tab and resolving a ref to its element;
- :mod:`.world`: where page-side code runs: an isolated JavaScript world of each frame that
  page scripts cannot reach (the page's own world only for wrapped pages).

Functions take a Playwright page and a ref book, never a tab. This layer does not import
:mod:`webrefs.render` (and the renderer never touches a browser).
"""
