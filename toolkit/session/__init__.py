"""The session layer: the engines of a browser and its tabs, on the Browser's event loop.

- :mod:`.browsercore`: :class:`BrowserCore`, Playwright's lifecycle, one context, the tabs and
  the active one;
- :mod:`.tabcore`: :class:`TabCore`, one page with its ref book, dialogs, downloads, crash
  recovery and lock;
- :mod:`.launcher`: finding Chromium and the flags it is started with;
- :mod:`.downloads`: saving what a page downloads.

Nothing here knows actions or tools; the public front-ends (:mod:`webrefs.tab`,
:mod:`webrefs.browser`) sit above this layer.
"""
