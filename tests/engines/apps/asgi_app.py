"""An ASGI application (uvicorn): ``GET /task?index=N`` runs the task, answers JSON."""

from __future__ import annotations

import json
from urllib.parse import parse_qs

import workload


async def application(scope, receive, send):
    if scope["type"] != "http":  # lifespan: nothing to set up
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
            message = await receive()
        if message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
        return
    query = parse_qs(scope.get("query_string", b"").decode())
    index = int(query.get("index", ["0"])[0])
    body = json.dumps(workload.task(index)).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body})
