#!/usr/bin/env python3
"""A loopback simple-index server for the wv_index tests (standard library only).

Serves the files under --root on 127.0.0.1 at an ephemeral port and prints `PORT <n>` on its
first stdout line. Exits when its stdin closes (the test that started it died) or on SIGTERM.

  * A folder URL (`/simple/foo/`) is a project page with content negotiation: `index.json`
    (Content-Type application/vnd.pypi.simple.v1+json) when the Accept header names it,
    else `index.html` (text/html).
  * `Range: bytes=a-b | a- | -n` gives 206 with Content-Range (416 when unsatisfiable).

Behaviours are chosen by a leading path segment, stripped before the file is looked up:
  /norange/...   ignores Range (200 with the whole body), like many simple static hosts
  /htmlonly/...  ignores Accept and always serves index.html
  /strict/...    answers 406 unless the Accept header is exactly `text/html`
  /no658/...     pages without PEP 658/714 metadata attributes and keys, `.metadata` 404s
Several may be combined (`/norange/no658/simple/...`).

Every file and page carries an ETag (its SHA-256) and answers 304 to a matching
If-None-Match. Options: `--delay-ms N` answers each request after N ms (an index a cluster is far
from); `--max-age N` sends `Cache-Control: max-age=N` on project pages, as the public index does;
`--log FILE` appends `<ms since start> <path>` per request at its arrival (which requests went
out together: the round trips a lock spent).

GET /__stats answers a JSON object {"requests", "ranged", "bytes", "not_modified", "peak"} (peak:
the most requests in flight at once); GET /__reset zeroes it.
"""

import argparse
import hashlib
import http.server
import json
import os
import re
import socket
import sys
import threading
import time

STATS = {"requests": 0, "ranged": 0, "bytes": 0, "not_modified": 0, "peak": 0}
IN_FLIGHT = [0]
LOG = [None]
START = time.monotonic()
LOCK = threading.Lock()
MODES = ("norange", "htmlonly", "strict", "no658")
JSON_TYPE = "application/vnd.pypi.simple.v1+json"


def strip_658_html(text):
    return re.sub(r'\s+data-(?:core|dist-info)-metadata="[^"]*"', "", text)


def strip_658_json(text):
    page = json.loads(text)
    for entry in page.get("files", []):
        for key in ("core-metadata", "dist-info-metadata", "data-dist-info-metadata"):
            entry.pop(key, None)
    return json.dumps(page)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    root = "."
    delay = 0.0
    max_age = None

    def log_message(self, *args):  # quiet
        pass

    def setup(self):
        super().setup()
        # Headers and body go out in two writes: without this, Nagle + delayed ACK add ~40 ms.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def send_body(self, status, body, content_type="application/octet-stream", extra=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)
        with LOCK:
            STATS["bytes"] += len(body)

    def send_validated(self, body, content_type, extra=None):
        """200 with an ETag, or 304 when the client already holds this body."""
        tag = '"%s"' % hashlib.sha256(body).hexdigest()
        headers = dict(extra or {})
        headers["ETag"] = tag
        if self.headers.get("If-None-Match") == tag:
            with LOCK:
                STATS["not_modified"] += 1
            self.send_response(304)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        return self.send_body(200, body, content_type, headers)

    def do_GET(self):
        if self.path.startswith("/__"):
            return self.answer()
        with LOCK:
            IN_FLIGHT[0] += 1
            STATS["peak"] = max(STATS["peak"], IN_FLIGHT[0])
            if LOG[0] is not None:
                LOG[0].write("%.1f %s\n" % ((time.monotonic() - START) * 1e3, self.path))
                LOG[0].flush()
        try:
            if self.delay:
                time.sleep(self.delay)
            return self.answer()
        finally:
            with LOCK:
                IN_FLIGHT[0] -= 1

    def answer(self):
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        if path == "/__stats":
            with LOCK:
                body = json.dumps(STATS).encode()
            return self.send_body(200, body, "application/json")
        if path == "/__reset":
            with LOCK:
                for key in STATS:
                    STATS[key] = 0
            return self.send_body(200, b"ok", "text/plain")
        with LOCK:
            STATS["requests"] += 1
        modes = set()
        parts = [p for p in path.split("/")]
        while len(parts) > 1 and parts[1] in MODES:
            modes.add(parts.pop(1))
        relative = "/".join(parts).lstrip("/")
        from urllib.parse import unquote
        local = os.path.normpath(os.path.join(self.root, unquote(relative)))
        if not local.startswith(os.path.abspath(self.root)):
            return self.send_body(403, b"forbidden", "text/plain")
        accept = self.headers.get("Accept", "")
        if os.path.isdir(local):
            if "strict" in modes and accept != "text/html":
                return self.send_body(406, b"not acceptable", "text/plain")
            want_json = JSON_TYPE in accept and "htmlonly" not in modes
            page = os.path.join(local, "index.json" if want_json else "index.html")
            if not os.path.isfile(page):
                return self.send_body(404, b"not found", "text/plain")
            with open(page, encoding="utf-8") as handle:
                text = handle.read()
            if "no658" in modes:
                text = strip_658_json(text) if want_json else strip_658_html(text)
            content_type = JSON_TYPE if want_json else "text/html; charset=utf-8"
            extra = {} if self.max_age is None else {"Cache-Control": "max-age=%d" % self.max_age}
            return self.send_validated(text.encode("utf-8"), content_type, extra)
        if "no658" in modes and local.endswith(".metadata"):
            return self.send_body(404, b"not found", "text/plain")
        if not os.path.isfile(local):
            return self.send_body(404, b"not found", "text/plain")
        with open(local, "rb") as handle:
            data = handle.read()
        header = self.headers.get("Range")
        if header and "norange" not in modes:
            match = re.fullmatch(r"bytes=(\d*)-(\d*)", header.strip())
            if match:
                first, last = match.groups()
                size = len(data)
                if first == "" and last != "":
                    start, end = max(0, size - int(last)), size - 1
                else:
                    start = int(first or 0)
                    end = min(int(last), size - 1) if last else size - 1
                if start >= size or start > end:
                    return self.send_body(416, b"", "text/plain",
                                          {"Content-Range": "bytes */%d" % size})
                with LOCK:
                    STATS["ranged"] += 1
                return self.send_body(206, data[start:end + 1], "application/octet-stream",
                                      {"Content-Range": "bytes %d-%d/%d" % (start, end, size),
                                       "Accept-Ranges": "bytes"})
        return self.send_validated(data, "application/octet-stream")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--delay-ms", type=int, default=0)
    parser.add_argument("--max-age", type=int, default=None)
    parser.add_argument("--log", default=None)
    args = parser.parse_args()
    if args.log:
        LOG[0] = open(args.log, "a", encoding="utf-8")
    Handler.root = os.path.abspath(args.root)
    Handler.delay = args.delay_ms / 1000.0
    Handler.max_age = args.max_age
    # The default listen backlog (5) drops the SYNs of a parallel batch: each costs a 1 s retry.
    http.server.ThreadingHTTPServer.request_queue_size = 128
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print("PORT %d" % server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        sys.stdin.read()  # returns when the parent closes the pipe or dies
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
