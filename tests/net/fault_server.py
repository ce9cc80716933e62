#!/usr/bin/env python3
"""A loopback HTTP/1.1 server for the wv_net tests (standard library only).

Serves the files under --root on 127.0.0.1 at an ephemeral port and prints `PORT <n>` on its
first stdout line. It exits when its stdin closes (the test that started it died) or on SIGTERM.
It speaks just enough HTTP/1.1 itself (keep-alive, GET/HEAD, no request bodies) instead of using
http.server, whose imports would double the start-up time every test case pays.

Every file response carries an ETag (a checksum of the body) and a Last-Modified date, and answers
If-None-Match (a listed ETag) or If-Modified-Since (the current Last-Modified, verbatim) with 304.
Range (`bytes=a-b`, `bytes=a-`, `bytes=-n`) gives 206, or 416 when unsatisfiable.

Faults are chosen per request by query parameters (N counts hits of the same path, from 1):
  fail=N        the first N hits answer 500
  reset=N       the first N hits reset the connection (RST, no response)
  truncate=N    the first N hits announce a Content-Length 100 bytes larger than they send
  stall=N       the first N hits sleep `stall_s` seconds (default 5) before answering
  trickle=B     the body is sent alive but slowly: B bytes a second, in pieces of B/10 bytes
  latency_ms=M  every hit waits M milliseconds first (a long round trip, for benchmarks)
  changing=1    the body gains a line with the hit number, so it (and its ETag) changes
  tamper=1      one byte of the body is flipped (a wrong hash), headers unchanged
  norange=1     Range is ignored (200 with the whole body)
  noetag=1      no ETag (Last-Modified only)
  cache_control=V  sends `Cache-Control: V` (on 200 and 304 answers)
  auth=U:P      requires `Authorization: Basic base64(U:P)`, else 401
  redirect=URL  answers 302 with `Location: URL`
A request in absolute form (`GET http://host/path`) is served as a forward proxy would, and counted.

GET /__stats/<path> answers text lines `hits N`, `conditional N`, `not_modified N`,
`authorized N`, `proxied N`, `ranged N` and `user_agent TEXT` (of the latest hit) for that path
(query ignored); GET /__stats/__server answers `connections N`, the TCP connections accepted.
With --tls CERT KEY it speaks HTTPS instead.

Chaos mode (`--chaos SEED [--chaos-rate R] [--chaos-stall-s S] [--chaos-log FILE]`, for
tests/fault) adds server-wide random faults on top of the above, and serves the root as a simple
index: a folder URL answers its `index.json` (when Accept names json) or `index.html`, with the
matching Content-Type, and the pages of about a third of the projects (a fixed set: crc32 of
the name) lose their PEP 658 attributes, so the client reads those wheels' METADATA by range
requests. Each request (path, its hit number since the last reseed, and SEED) draws, with
probability R, one fault that fits it:
  reset     the connection is reset (RST, no response)
  stall     the answer waits S seconds (default 3: longer than the client's timeout in tests)
  short     Content-Length is 100 bytes more than the body sent, then the connection closes
  status    500, 503 or 429 (the last two with `Retry-After: 1`)
  changing  the body gains a line with the hit number (a new ETag: the server changed it)
  tamper    one byte in the middle is flipped, ETag of the good body (wheels, .metadata,
            *-variants.json only: pages carry no hash the client could check them against)
  metadata  a .metadata file gets an extra `Requires-Dist` line (ETag of the good body)
Every applied fault is counted by kind and by what was asked for (page, metadata, variants,
wheel, range) and, with --chaos-log, appended to FILE as `KIND CLASS PATH`.
GET /__chaos/seed?seed=N&rate=R sets a new seed and rate, zeroes the hit counts (so a run is
reproducible) and the tally; optional `kinds=a,b` limits the faults to those kinds, `only=TEXT`
to paths containing TEXT, `max_hit=N` to the first N hits of each path (for regression tests);
`strip658=0` serves every page with its PEP 658 attributes (no range reads: all cacheable).
GET /__chaos/tally answers `requests N` and `KIND CLASS N` lines.
Without --chaos nothing of this is active.
"""

import base64
import json
import os
import random
import re
import socket
import socketserver
import struct
import sys
import threading
import time
import urllib.parse
import zlib

STATS = {}
STATS_LOCK = threading.Lock()
REASONS = {200: "OK", 206: "Partial Content", 302: "Found", 304: "Not Modified",
           400: "Bad Request", 401: "Unauthorized", 404: "Not Found",
           416: "Range Not Satisfiable", 500: "Internal Server Error"}
CHAOS = {"seed": None, "rate": 0.3, "stall_s": 3.0, "log": None, "tally": {}, "requests": 0,
         "kinds": None, "only": "", "max_hit": 0, "strip658": True}
CHAOS_KINDS = ["reset", "stall", "short", "status", "changing", "tamper", "metadata"]
FIELDS = ["hits", "conditional", "not_modified", "authorized", "proxied", "ranged", "connections"]


def bump(path, field):
    with STATS_LOCK:
        entry = STATS.setdefault(path, {})
        entry[field] = entry.get(field, 0) + 1
        return entry[field]


def stat_of(path, field):
    with STATS_LOCK:
        return STATS.get(path, {}).get(field, 0)


def http_date(seconds):
    # Python never calls setlocale, so %a and %b are the C locale's English names.
    return time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(seconds))


def chaos_class(path, ranged):
    if ranged:
        return "range"
    if path.endswith("/") or path.endswith("/index.json") or path.endswith("/index.html"):
        return "page"
    if path.endswith(".metadata"):
        return "metadata"
    if path.endswith("-variants.json"):
        return "variants"
    return "wheel"


def chaos_draw(path, hit, kind_class):
    """The fault for this request, or None: a pure function of the seed, path and hit number."""
    with STATS_LOCK:
        seed, rate, allowed = CHAOS["seed"], CHAOS["rate"], CHAOS["kinds"]
        only, max_hit = CHAOS["only"], CHAOS["max_hit"]
    if only not in path or (max_hit and hit > max_hit):
        return None
    rng = random.Random(f"{seed}/{path}/{hit}")
    if rng.random() >= rate:
        return None
    kinds = ["reset", "stall", "short", "status", "changing"]
    if kind_class in ("wheel", "metadata", "variants", "range"):
        kinds.append("tamper")
    if kind_class == "metadata":
        kinds.append("metadata")
    if allowed is not None:
        kinds = [kind for kind in kinds if kind in allowed]
    return (rng.choice(kinds), rng) if kinds else None


def chaos_record(kind, kind_class, path):
    with STATS_LOCK:
        key = f"{kind} {kind_class}"
        CHAOS["tally"][key] = CHAOS["tally"].get(key, 0) + 1
        if CHAOS["log"]:
            with open(CHAOS["log"], "a") as log:
                log.write(f"{kind} {kind_class} {path}\n")


def strips_658(project):
    return zlib.crc32(project.encode()) % 3 == 0


def strip_658(body, is_json):
    if is_json:
        page = json.loads(body)
        for entry in page.get("files", []):
            entry.pop("core-metadata", None)
            entry.pop("dist-info-metadata", None)
        return (json.dumps(page, sort_keys=True, indent=1) + "\n").encode()
    return re.sub(rb'\s+data-(?:core|dist-info)-metadata="[^"]*"', b"", body)


def chaos_control(path, query):
    """The /__chaos/... endpoints: the answer text."""
    with STATS_LOCK:
        if path == "/__chaos/seed":
            CHAOS["seed"] = query.get("seed", "0")
            CHAOS["rate"] = float(query.get("rate", CHAOS["rate"]))
            CHAOS["kinds"] = query["kinds"].split(",") if "kinds" in query else None
            CHAOS["only"] = query.get("only", "")
            CHAOS["max_hit"] = int(query.get("max_hit", "0"))
            CHAOS["strip658"] = query.get("strip658", "1") != "0"
            CHAOS["tally"] = {}
            CHAOS["requests"] = 0
            for entry in STATS.values():
                entry["hits"] = 0
            return f"seed {CHAOS['seed']} rate {CHAOS['rate']}\n"
        lines = [f"requests {CHAOS['requests']}"]
        lines += [f"{key} {count}" for key, count in sorted(CHAOS["tally"].items())]
        return "\n".join(lines) + "\n"


class Handler(socketserver.StreamRequestHandler):
    disable_nagle_algorithm = True

    def handle(self):
        bump("/__server", "connections")
        while True:
            line = self.rfile.readline(65537)
            if not line:
                return
            parts = line.decode("latin-1").split()
            if len(parts) != 3:
                return
            self.method, target = parts[0], parts[1]
            self.headers = {}
            while True:
                header = self.rfile.readline(65537)
                if header in (b"\r\n", b"\n", b""):
                    break
                name, _, value = header.decode("latin-1").partition(":")
                self.headers[name.strip().lower()] = value.strip()
            if not self.respond(target):
                return

    def send(self, status, body=b"", headers=(), length=None, trickle=0):
        """Writes one response, in a single send unless `trickle` (bytes a second) spreads the
        body over time; returns True to keep the connection."""
        lines = [f"HTTP/1.1 {status} {REASONS.get(status, 'Status')}"]
        lines += [f"{name}: {value}" for name, value in headers]
        if status != 304:
            lines.append(f"Content-Length: {len(body) if length is None else length}")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        if self.method == "HEAD" or status == 304:
            self.wfile.write(head)
            return True
        if trickle <= 0:
            self.wfile.write(head + body)
            return True
        self.wfile.write(head)
        piece = max(1, trickle // 10)
        try:
            for start in range(0, len(body), piece):
                self.wfile.write(body[start:start + piece])
                self.wfile.flush()
                time.sleep(0.1)
        except OSError:  # the client gave up
            return False
        return True

    def reset_connection(self):
        # SO_LINGER with a zero timeout makes close() send RST instead of FIN.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        return False

    def respond(self, target):
        proxied = False
        if target.startswith("http://") or target.startswith("https://"):
            proxied = True
            split = urllib.parse.urlsplit(target)
            target = split.path + ("?" + split.query if split.query else "")
        split = urllib.parse.urlsplit(target)
        path = urllib.parse.unquote(split.path)
        query = {k: v[-1] for k, v in urllib.parse.parse_qs(split.query).items()}

        if path.startswith("/__stats/"):
            key = "/" + path[len("/__stats/"):]
            text = "".join(f"{field} {stat_of(key, field)}\n" for field in FIELDS)
            text += f"user_agent {stat_of(key, 'user_agent') or ''}\n"
            return self.send(200, text.encode(), [("Content-Type", "text/plain")])

        chaos = None
        if CHAOS["seed"] is not None:
            if path.startswith("/__chaos/"):
                return self.send(200, chaos_control(path, query).encode(),
                                 [("Content-Type", "text/plain")])

        hit = bump(path, "hits")
        with STATS_LOCK:
            STATS[path]["user_agent"] = self.headers.get("user-agent", "")
        if proxied:
            bump(path, "proxied")

        if CHAOS["seed"] is not None:
            with STATS_LOCK:
                CHAOS["requests"] += 1
            kind_class = chaos_class(path, "range" in self.headers)
            drawn = chaos_draw(path, hit, kind_class)
            if drawn is not None:
                chaos = (drawn[0], kind_class, drawn[1])
                kind = drawn[0]
                if kind in ("reset", "stall", "status"):
                    chaos_record(kind, kind_class, path)
                if kind == "reset":
                    return self.reset_connection()
                if kind == "stall":
                    time.sleep(CHAOS["stall_s"])
                if kind == "status":
                    status = drawn[1].choice([500, 503, 429])
                    extra = [] if status == 500 else [("Retry-After", "1")]
                    return self.send(status, b"injected by chaos\n", extra)

        if "auth" in query:
            expected = "Basic " + base64.b64encode(query["auth"].encode()).decode()
            if self.headers.get("authorization") != expected:
                return self.send(401, b"unauthorized\n", [("WWW-Authenticate", 'Basic realm="t"')])
            bump(path, "authorized")
        if "redirect" in query:
            return self.send(302, b"", [("Location", query["redirect"])])
        if hit <= int(query.get("fail", "0")):
            return self.send(500, b"injected failure\n")
        if hit <= int(query.get("reset", "0")):
            return self.reset_connection()
        if "latency_ms" in query:
            time.sleep(int(query["latency_ms"]) / 1000.0)
        if hit <= int(query.get("stall", "0")):
            time.sleep(float(query.get("stall_s", "5")))

        local = os.path.normpath(os.path.join(self.server.root, path.lstrip("/")))
        content_type = "application/octet-stream"
        page_project = None
        if CHAOS["seed"] is not None and os.path.isdir(local):
            # A simple index: content negotiation between the page's two spellings.
            json_page = "json" in self.headers.get("accept", "")
            local = os.path.join(local, "index.json" if json_page else "index.html")
            content_type = "application/vnd.pypi.simple.v1+json" if json_page else "text/html"
            page_project = os.path.basename(os.path.dirname(local))
        if not local.startswith(self.server.root + os.sep) or not os.path.isfile(local):
            return self.send(404, b"not found\n")
        with open(local, "rb") as handle:
            body = handle.read()
        if page_project is not None and CHAOS["strip658"] and strips_658(page_project):
            body = strip_658(body, content_type != "text/html")
        last_modified = http_date(os.path.getmtime(local))
        if query.get("changing") == "1":
            body += f"hit {hit}\n".encode()
        if chaos is not None and chaos[0] == "changing":
            chaos_record("changing", chaos[1], path)
            body += f"hit {hit}\n".encode()
        etag = '"%08x-%x"' % (zlib.crc32(body), len(body))
        if query.get("tamper") == "1" and body:
            body = bytes([body[0] ^ 0x01]) + body[1:]
        good_body = body
        if chaos is not None and chaos[0] == "tamper" and body and chaos[1] != "range":
            middle = len(body) // 2
            body = body[:middle] + bytes([body[middle] ^ 0x20]) + body[middle + 1:]
        if chaos is not None and chaos[0] == "metadata":
            body = body.replace(b"\n", b"\nRequires-Dist: chaos-injected\n", 1)
        headers = [("Content-Type", content_type), ("Last-Modified", last_modified),
                   ("Accept-Ranges", "bytes")]
        if query.get("noetag") != "1":
            headers.append(("ETag", etag))
        if "cache_control" in query:
            headers.append(("Cache-Control", query["cache_control"]))

        if_none_match = self.headers.get("if-none-match")
        if_modified_since = self.headers.get("if-modified-since")
        if if_none_match is not None or if_modified_since is not None:
            bump(path, "conditional")
            if if_none_match is not None:
                tags = [tag.strip() for tag in if_none_match.split(",")]
                fresh = query.get("noetag") != "1" and etag in tags
            else:
                fresh = if_modified_since == last_modified and query.get("changing") != "1"
            if fresh:
                if chaos is not None and chaos[0] in ("tamper", "metadata"):
                    chaos = None  # not applied: a 304 has no body
                bump(path, "not_modified")
                return self.send(304, b"", [h for h in headers if h[0] != "Content-Type"])

        if chaos is not None and chaos[0] in ("short", "tamper", "metadata"):
            if chaos[0] != "tamper" or body != good_body or chaos[1] == "range":
                chaos_record(chaos[0], chaos[1], path)
        if hit <= int(query.get("truncate", "0")) or (chaos is not None and chaos[0] == "short"):
            self.send(200, body, headers, length=len(body) + 100)
            return False  # close: the client is left waiting for 100 bytes that never come

        range_header = self.headers.get("range")
        if range_header and query.get("norange") != "1" and range_header.startswith("bytes="):
            bump(path, "ranged")
            first, _, last = range_header[len("bytes="):].partition("-")
            size = len(body)
            try:
                if first == "":
                    start, end = max(0, size - int(last)), size - 1
                else:
                    start = int(first)
                    end = min(int(last), size - 1) if last else size - 1
            except ValueError:
                return self.send(400, b"bad range\n")
            if start >= size or start > end:
                return self.send(416, b"", [("Content-Range", f"bytes */{size}")])
            headers.append(("Content-Range", f"bytes {start}-{end}/{size}"))
            part = body[start:end + 1]
            if chaos is not None and chaos[0] == "tamper" and part:
                middle = len(part) // 2
                part = part[:middle] + bytes([part[middle] ^ 0x20]) + part[middle + 1:]
            return self.send(206, part, headers)

        return self.send(200, body, headers, trickle=int(query.get("trickle", "0")))


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256

    def handle_error(self, request, client_address):  # resets and client timeouts are expected
        pass


def main():
    arguments = sys.argv[1:]
    chaos_flags = {"--chaos": "seed", "--chaos-rate": "rate", "--chaos-stall-s": "stall_s",
                   "--chaos-log": "log"}
    while len(arguments) >= 2 and arguments[-2] in chaos_flags:
        CHAOS[chaos_flags[arguments[-2]]] = arguments[-1]
        arguments = arguments[:-2]
    CHAOS["rate"], CHAOS["stall_s"] = float(CHAOS["rate"]), float(CHAOS["stall_s"])
    if len(arguments) not in (2, 5) or arguments[0] != "--root" or (
            len(arguments) == 5 and arguments[2] != "--tls"):
        sys.exit("usage: fault_server.py --root DIR [--tls CERT KEY] [--chaos SEED "
                 "[--chaos-rate R] [--chaos-stall-s S] [--chaos-log FILE]]")
    server = Server(("127.0.0.1", 0), Handler)
    server.root = os.path.realpath(arguments[1])
    if len(arguments) == 5:
        import ssl
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(arguments[3], arguments[4])
        server.socket = context.wrap_socket(server.socket, server_side=True)

    def watch_stdin():  # the parent died or closed the pipe: stop
        try:
            sys.stdin.buffer.read()
        finally:
            os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever(poll_interval=0.05)


if __name__ == "__main__":
    main()
