"""``--browser-endpoint`` per worker: one address for all, a template naming ``{worker}``, or
a list with an address per worker, and clear words for the forms that are not."""

from __future__ import annotations

import pytest
from webrefs.errors import InvalidArgumentError
from webrefs.evals.running.endpoints import worker_endpoints


def test_no_endpoint_means_each_worker_launches_its_own() -> None:
    assert worker_endpoints(None, 3) == [None, None, None]
    assert worker_endpoints("  ", 2) == [None, None]


def test_one_address_is_shared_by_every_worker() -> None:
    assert worker_endpoints("http://h:9222", 2) == ["http://h:9222", "http://h:9222"]


def test_a_template_numbers_the_workers_from_zero() -> None:
    assert worker_endpoints("http://browser-{worker}:9222", 3) == [
        "http://browser-0:9222", "http://browser-1:9222", "http://browser-2:9222"]
    assert worker_endpoints("ws://b{worker:02d}.pool:9222", 2) == [
        "ws://b00.pool:9222", "ws://b01.pool:9222"]


def test_a_list_gives_each_worker_its_address() -> None:
    assert worker_endpoints("http://a:1, http://b:2,http://c:3", 2) == ["http://a:1",
                                                                         "http://b:2"]
    assert worker_endpoints("http://a:1,http://b:2", 2) == ["http://a:1", "http://b:2"]


@pytest.mark.parametrize(("spec", "workers", "says", "hint"), [
    ("http://a:1,http://b:2", 3, "lists 2 browsers for 3 workers", "--workers 2"),
    ("http://a:1,,http://b:2", 2, "has an empty address", "{worker}"),
    ("http://a:1,http://b-{worker}:2", 2, "mixes a list with a template", "{worker}"),
    ("http://b-{n}:9222", 2, "names {n}; a template may name only {worker}", "{worker}"),
    ("http://b-{0}:9222", 2, "names {0}", "{worker}"),
    ("http://b-{worker:9222", 1, "is not a valid template", "{worker}"),
    ("http://b-{worker!z}:9222", 1, "is not a valid template", "{worker}"),
])
def test_a_form_that_does_not_work_says_why(spec: str, workers: int, says: str,
                                            hint: str) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        worker_endpoints(spec, workers)
    assert says in caught.value.message
    assert caught.value.hint is not None and hint in caught.value.hint


def test_workers_must_be_at_least_one() -> None:
    with pytest.raises(InvalidArgumentError, match="at least 1"):
        worker_endpoints("http://a:1", 0)
