"""The YAML of a cassette, read as data whatever vcrpy version is installed.

A cassette may come from someone else's run (``--replay DIR``), and YAML can name Python
objects to build (``!!python/object/apply:...``), which some vcrpy versions this package
admits read with PyYAML's full loader, running what the file names. Cassettes are read here
with PyYAML's safe loader instead, which builds only plain data (plus tuples and strings
written with Python tags, which vcrpy has written); writing is vcrpy's own.
"""

from __future__ import annotations

from functools import cache
from typing import Any

__all__ = ["CassetteYaml"]


@cache
def _loader() -> Any:
    import yaml

    base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class Loader(base):  # type: ignore[misc]
        """PyYAML's safe loader, plus the tuples and strings vcrpy writes with Python tags."""

    Loader.add_constructor("tag:yaml.org,2002:python/tuple",
                           lambda loader, node: tuple(loader.construct_sequence(node)))
    for tag in ("tag:yaml.org,2002:python/str", "tag:yaml.org,2002:python/unicode"):
        Loader.add_constructor(tag, lambda loader, node: loader.construct_scalar(node))
    return Loader


class CassetteYaml:
    """A vcrpy serializer (``VCR.register_serializer``) that reads with the safe loader."""

    @staticmethod
    def deserialize(cassette_string: str) -> Any:
        import yaml

        return yaml.load(cassette_string, Loader=_loader())  # a safe loader

    @staticmethod
    def serialize(cassette_dict: dict[str, Any]) -> str:
        from vcr.serializers import yamlserializer

        return str(yamlserializer.serialize(cassette_dict))
