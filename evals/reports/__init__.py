"""What a run produces and how it is read: ``results.json`` (:mod:`.results`), two runs side by
side (:mod:`.compare`) and the reports (:mod:`.report`). Pure code over the suite group's
check results; no browser."""
