"""Running episodes: a suite's site served on loopback (:mod:`.sites`), one episode
(:mod:`.episode`, with its agent loops in :mod:`.loop` and :mod:`.llamaindex_loop`), and a
suite × providers run (:mod:`.runner`). Every other group of the harness is below it."""
