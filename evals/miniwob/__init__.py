"""MiniWoB++ (the ``miniwob`` package's task pages) as an eval suite, run through the webrefs
tools: ``webrefs eval run --suite miniwob``.

- :mod:`.catalog`: the benchmark's tasks, which the tools can express and why the rest cannot,
  and the suite file built from them (``evals/suites/miniwob.json``).
- :mod:`.site`: serving the package's pages under ``http://miniwob.webrefs.test``, and the
  JavaScript that starts an episode the way MiniWoB's own environment does (seeded) and reads
  its reward.
- :mod:`.outline`, :mod:`.policy`: reading the outline and stepping a scripted policy;
  :mod:`.families`, :mod:`.email`, :mod:`.icons`: the policies, one per task family, that read
  the utterance and what the tools return (never the page itself); :mod:`.reference`: all of
  them, and the model factory the suite names.
- :mod:`.seeds`: runs over several seeds and the per-task table (``python -m
  webrefs.evals.miniwob``).

Needs the ``miniwob`` extra (``pip install 'webrefs[miniwob]'``).
"""
