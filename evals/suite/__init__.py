"""What a task is and how its end is judged: the suite format (:mod:`.tasks`), the success
checks (:mod:`.checks`), eval inputs read as data (:mod:`.inputs`), which code a suite may
name (:mod:`.codescope`) and credentials out of every URL recorded (:mod:`.redact`). The
lowest group of the harness: it imports nothing else of it."""
