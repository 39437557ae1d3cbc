"""upload (files from allowed folders only) and downloads (off unless a folder is configured;
then saved there under sanitized, unique names)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

from ..errors import NotActionableError, VerificationError
from ..models import ActionResult
from .dom import inspect, run_js
from .limits import check_upload_paths
from .perform import Outcome, perform, timeout_ms
from .targets import Target

if TYPE_CHECKING:
    from ..session.tabcore import TabCore

__all__ = ["upload"]

_FILES_JS = "(el) => el.files ? Array.from(el.files).map((f) => f.name) : null"


async def upload(tab: TabCore, target: str, paths: str | Sequence[str]) -> ActionResult:
    """Put files into a file input (or the file chooser a button opens).

    Every path must be an existing file inside ``TabOptions.upload_roots``."""
    files = check_upload_paths(paths, tab.options.upload_roots)
    names = [Path(f).name for f in files]

    async def act(t: Target | None) -> Outcome:
        assert t is not None
        name = f"{t.ref} ({t.label})" if t.label else t.ref
        info = await inspect(t.spot, tab.refs.world)
        if info.get("disabled"):
            raise NotActionableError(f"Cannot upload to {name}: it is disabled.",
                                     reason="disabled")
        if info.get("tag") == "input" and info.get("type") == "file":
            await t.handle.set_input_files(files, timeout=timeout_ms(tab))
            how = ""
        else:
            try:
                async with tab.page.expect_file_chooser(timeout=timeout_ms(tab)) as chooser:
                    await t.handle.click(timeout=timeout_ms(tab))
                await (await chooser.value).set_files(files, timeout=timeout_ms(tab))
            except PlaywrightError as exc:
                if "Timeout" not in str(exc):
                    raise
                raise NotActionableError(
                    f"Cannot upload to {name}: it is not a file input and clicking it opened "
                    "no file chooser.", reason="not_file_input",
                    hint="Use the ref of the file input (or its button) from the snapshot.",
                ) from None
            how = " through the file chooser it opens"
        outcome = Outcome(f"Uploaded {', '.join(names)} to {name}{how}.", {"files": names})

        async def verify() -> None:
            if info.get("tag") != "input":
                return
            got = await run_js(t.spot, _FILES_JS, world=tab.refs.world)
            outcome.readback["files"] = got
            if got is not None and sorted(got) != sorted(names):
                raise VerificationError(
                    f"The file input {name} holds {got}, not {names}.",
                    hint="The input may accept one file only, or other file types.",
                )

        outcome.verify = verify
        return outcome

    return await perform(tab, "upload", target, act, doing=f"uploading to {str(target)[:60]}")
