"""A small OpenAI-compatible chat server on 127.0.0.1 that answers with scripted tool calls.

It plays each task's reference solution (found by the task's goal in the first user message)
the way a model would: it reads the tool results in the conversation, finds refs in them by
role and name, and answers ``/v1/chat/completions`` with the next tool call, then with the
final answer. Stateless per request (the conversation is replayed into a fresh script), so
the same conversation always gets the same reply. Usage is reported deterministically.

Without ``tools`` in the request it answers in text, with JSON actions in markdown (the
fallback for models without tool calling). ``fail_first`` answers that many requests with
HTTP 429 first, to exercise retries (with a ``retry-after-ms`` header when ``retry_after_ms``
is given).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from webrefs.evals.baselines.scripted import ScriptedModel
from webrefs.evals.suite.tasks import Task

__all__ = ["ScriptedOpenAIServer"]


def _content(message: dict[str, Any]) -> str:
    content = message.get("content") or ""
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content)


class ScriptedOpenAIServer:
    def __init__(self, tasks: Sequence[Task], *, fail_first: int = 0,
                 retry_after_ms: int | None = None) -> None:
        self.tasks = {t.goal: t for t in tasks}
        self.fail_first = fail_first
        self.retry_after_ms = retry_after_ms
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                owner.headers.append(dict(self.headers))
                if owner.fail_first > 0:
                    owner.fail_first -= 1
                    wait = owner.retry_after_ms
                    self._send(429, {"error": {"message": "Rate limit reached (test)",
                                               "type": "rate_limit_error"}},
                               {} if wait is None else {"retry-after-ms": str(wait)})
                    return
                request = json.loads(body)
                owner.requests.append(request)
                self._send(200, owner.answer(request))

            def _send(self, code: int, data: dict[str, Any],
                      headers: dict[str, str] | None = None) -> None:
                raw = json.dumps(data).encode()
                self.send_response(code)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> ScriptedOpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        messages: list[dict[str, Any]] = request["messages"]
        goal = next(_content(m) for m in messages if m["role"] == "user")
        script = ScriptedModel(self.tasks[goal])
        text_mode = not request.get("tools")
        turn = 0
        for m in messages:
            if m["role"] == "tool":
                script.observe(_content(m))
            elif m["role"] == "user" and _content(m).startswith("Result of "):
                script.observe(_content(m).split("\n", 1)[-1])
            elif m["role"] == "assistant":
                turn += 1
                script.next_call(None)
        call = script.next_call(None)
        message: dict[str, Any] = {"role": "assistant", "content": None}
        finish = "stop"
        if call is None:
            message["content"] = script.answer()
        elif text_mode:
            name, args = call
            message["content"] = f"Next I call {name}.\n```json\n" + json.dumps(
                {"tool": name, "args": args}) + "\n```"
        else:
            name, args = call
            message["tool_calls"] = [{"id": f"call_{turn + 1}", "type": "function",
                                      "function": {"name": name, "arguments": json.dumps(args)}}]
            finish = "tool_calls"
        prompt = len(json.dumps(messages)) // 4
        completion = len(json.dumps(message)) // 4
        return {"id": f"chatcmpl-{turn + 1}", "object": "chat.completion", "created": 0,
                "model": request.get("model", "scripted"),
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                          "total_tokens": prompt + completion}}
