#!/usr/bin/env python3
"""A loopback HTTP server for the wv_net tests (standard library only).

Serves the files under --root on 127.0.0.1 at an ephemeral port and prints `PORT <n>` on its
first stdout line. It exits when its stdin closes (the test that started it died) or on SIGTERM.

Every file response carries an ETag (a digest of the body) and a Last-Modified date and answers
If-None-Match / If-Modified-Since with 304. Range (`bytes=a-b`, `bytes=a-`, `bytes=-n`) gives 206.

Faults are chosen per request by query parameters (N counts hits of the same path, from 1):
  fail=N        the first N hits answer 500
  reset=N       the first N hits reset the connection (RST, no response)
  truncate=N    the first N hits announce a Content-Length 100 bytes larger than they send
  stall=N       the first N hits sleep `stall_s` seconds (default 5) before answering
  changing=1    the body gains a line with the hit number, so it (and its ETag) changes
  tamper=1      one byte of the body is flipped (a wrong hash), headers unchanged
  norange=1     Range is ignored (200 with the whole body)
  noetag=1      no ETag (Last-Modified only)
  auth=U:P      requires `Authorization: Basic base64(U:P)`, else 401
  redirect=URL  answers 302 with `Location: URL`
  latency_ms=M  every hit waits M milliseconds first (a long round trip, for benchmarks)
A request in absolute form (`GET http://host/path`) is served as a proxy would and counted.

GET /__stats/<path> answers text lines `hits N`, `conditional N`, `not_modified N`,
`authorized N`, `proxied N`, `ranged N` and `user_agent TEXT` (of the latest hit) for that
path (query ignored); GET /__stats/__server answers `connections N`, the TCP connections accepted.
With --tls CERT KEY it speaks HTTPS instead.
"""

import argparse
import base64
import email.utils
import hashlib
import http.server
import os
import socket
import struct
import sys
import threading
import time
import urllib.parse

STATS = {}
STATS_LOCK = threading.Lock()


def bump(path, field):
    with STATS_LOCK:
        entry = STATS.setdefault(path, {})
        entry[field] = entry.get(field, 0) + 1
        return entry[field]


def stat_of(path, field):
    with STATS_LOCK:
        return STATS.get(path, {}).get(field, 0)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are separate writes: avoid 40 ms stalls
    server_version = "wv-fault-server"
    sys_version = ""

    def log_message(self, format, *args):  # quiet
        pass

    def setup(self):
        super().setup()
        bump("/__server", "connections")

    def send_body(self, status, body, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def reset_connection(self):
        # SO_LINGER with a zero timeout makes close() send RST instead of FIN.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        target = self.path
        proxied = False
        if target.startswith("http://") or target.startswith("https://"):
            proxied = True
            parts = urllib.parse.urlsplit(target)
            target = parts.path + ("?" + parts.query if parts.query else "")
        split = urllib.parse.urlsplit(target)
        path = urllib.parse.unquote(split.path)
        query = {k: v[-1] for k, v in urllib.parse.parse_qs(split.query).items()}

        if path.startswith("/__stats/"):
            key = "/" + path[len("/__stats/"):]
            fields = ["hits", "conditional", "not_modified", "authorized", "proxied", "ranged",
                      "connections"]
            text = "".join(f"{f} {stat_of(key, f)}\n" for f in fields)
            text += f"user_agent {stat_of(key, 'user_agent') or ''}\n"
            self.send_body(200, text.encode(), [("Content-Type", "text/plain")])
            return

        hit = bump(path, "hits")
        with STATS_LOCK:
            STATS[path]["user_agent"] = self.headers.get("User-Agent", "")
        if proxied:
            bump(path, "proxied")

        if "auth" in query:
            expected = "Basic " + base64.b64encode(query["auth"].encode()).decode()
            if self.headers.get("Authorization") != expected:
                self.send_body(401, b"unauthorized\n", [("WWW-Authenticate", 'Basic realm="t"')])
                return
            bump(path, "authorized")

        if "redirect" in query:
            self.send_body(302, b"", [("Location", query["redirect"])])
            return
        if hit <= int(query.get("fail", "0")):
            self.send_body(500, b"injected failure\n")
            return
        if hit <= int(query.get("reset", "0")):
            self.reset_connection()
            return
        if "latency_ms" in query:  # every hit: a slow network's round trip
            time.sleep(int(query["latency_ms"]) / 1000.0)
        if hit <= int(query.get("stall", "0")):
            time.sleep(float(query.get("stall_s", "5")))

        local = os.path.normpath(os.path.join(self.server.root, path.lstrip("/")))
        if not local.startswith(self.server.root) or not os.path.isfile(local):
            self.send_body(404, b"not found\n")
            return
        with open(local, "rb") as handle:
            body = handle.read()
        mtime = os.path.getmtime(local)
        if query.get("changing") == "1":
            body += f"hit {hit}\n".encode()
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        if query.get("tamper") == "1" and body:
            body = bytes([body[0] ^ 0x01]) + body[1:]
        headers = [("Content-Type", "application/octet-stream"),
                   ("Last-Modified", email.utils.formatdate(mtime, usegmt=True)),
                   ("Accept-Ranges", "bytes")]
        if query.get("noetag") != "1":
            headers.append(("ETag", etag))

        if_none_match = self.headers.get("If-None-Match")
        if_modified_since = self.headers.get("If-Modified-Since")
        if if_none_match is not None or if_modified_since is not None:
            bump(path, "conditional")
            fresh = False
            if if_none_match is not None:
                fresh = query.get("noetag") != "1" and etag in [t.strip() for t in if_none_match.split(",")]
            else:
                since = email.utils.parsedate_to_datetime(if_modified_since).timestamp()
                fresh = int(mtime) <= since and query.get("changing") != "1"
            if fresh:
                bump(path, "not_modified")
                self.send_response(304)
                for name, value in headers:
                    if name != "Content-Type":
                        self.send_header(name, value)
                self.end_headers()
                return

        if hit <= int(query.get("truncate", "0")):
            self.send_response(200)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body) + 100))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
            self.close_connection = True
            return

        range_header = self.headers.get("Range")
        if range_header and query.get("norange") != "1" and range_header.startswith("bytes="):
            bump(path, "ranged")
            first, _, last = range_header[len("bytes="):].partition("-")
            size = len(body)
            if first == "":
                start, end = max(0, size - int(last)), size - 1
            else:
                start = int(first)
                end = min(int(last), size - 1) if last else size - 1
            if start >= size or start > end:
                self.send_body(416, b"", [("Content-Range", f"bytes */{size}")])
                return
            headers.append(("Content-Range", f"bytes {start}-{end}/{size}"))
            self.send_body(206, body[start:end + 1], headers)
            return

        self.send_body(200, body, headers)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def handle_error(self, request, client_address):  # resets and client timeouts are expected
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    arguments = parser.parse_args()
    server = Server(("127.0.0.1", 0), Handler)
    if arguments.tls:
        import ssl
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(arguments.tls[0], arguments.tls[1])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    server.root = os.path.realpath(arguments.root)

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
