#!/usr/bin/env python3
"""Serve a built site (default site/) on 127.0.0.1: python3 web/serve_site.py PORT [DIR].

Text files are sent with charset=utf-8 (the recorded runs under perf/ hold "—", "µs", "×"; without
the charset a browser reads them as Latin-1 and shows "â€”"). web/site.sh serve and the site's
browser tests (web/tests/test_site.py) use it.
"""

import functools
import http.server
import os
import sys


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".html": "text/html; charset=utf-8",
        ".txt": "text/plain; charset=utf-8",
        ".csv": "text/csv; charset=utf-8",
        ".md": "text/markdown; charset=utf-8",
        ".css": "text/css; charset=utf-8",
        ".js": "text/javascript; charset=utf-8",
        ".json": "application/json",
        ".wasm": "application/wasm",
    }

    def log_message(self, *args):
        if os.environ.get("RENDERMM_SERVE_LOG"):
            super().log_message(*args)


def server(port, directory):
    """A threading HTTP server for `directory` on 127.0.0.1:`port` (0: any free port)."""
    handler = functools.partial(Handler, directory=directory)
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8000
    directory = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "site")
    server(port, directory).serve_forever()
