"""A WSGI application (gunicorn, uWSGI): ``GET /task?index=N`` runs the task, answers JSON.

``GET /ping`` answers without touching crypto or the agent.
"""

from __future__ import annotations

import json
from urllib.parse import parse_qs

import prefork
import workload

prefork.prepare_master()


def application(environ, start_response):
    if environ.get("PATH_INFO") == "/ping":  # up: no crypto, no agent
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"pong"]
    query = parse_qs(environ.get("QUERY_STRING", ""))
    index = int(query.get("index", ["0"])[0])
    body = json.dumps(prefork.with_master(workload.task(index))).encode()
    start_response(
        "200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
    )
    return [body]
