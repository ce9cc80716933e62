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
  latency_ms=M  every hit waits M milliseconds first (a long round trip, for benchmarks)
  changing=1    the body gains a line with the hit number, so it (and its ETag) changes
  tamper=1      one byte of the body is flipped (a wrong hash), headers unchanged
  norange=1     Range is ignored (200 with the whole body)
  noetag=1      no ETag (Last-Modified only)
  auth=U:P      requires `Authorization: Basic base64(U:P)`, else 401
  redirect=URL  answers 302 with `Location: URL`
A request in absolute form (`GET http://host/path`) is served as a forward proxy would, and counted.

GET /__stats/<path> answers text lines `hits N`, `conditional N`, `not_modified N`,
`authorized N`, `proxied N`, `ranged N` and `user_agent TEXT` (of the latest hit) for that path
(query ignored); GET /__stats/__server answers `connections N`, the TCP connections accepted.
With --tls CERT KEY it speaks HTTPS instead.
"""

import base64
import os
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

    def send(self, status, body=b"", headers=(), length=None):
        """Writes one response in a single send; returns True to keep the connection."""
        lines = [f"HTTP/1.1 {status} {REASONS.get(status, 'Status')}"]
        lines += [f"{name}: {value}" for name, value in headers]
        if status != 304:
            lines.append(f"Content-Length: {len(body) if length is None else length}")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        self.wfile.write(head if self.method == "HEAD" or status == 304 else head + body)
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

        hit = bump(path, "hits")
        with STATS_LOCK:
            STATS[path]["user_agent"] = self.headers.get("user-agent", "")
        if proxied:
            bump(path, "proxied")

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
        if not local.startswith(self.server.root + os.sep) or not os.path.isfile(local):
            return self.send(404, b"not found\n")
        with open(local, "rb") as handle:
            body = handle.read()
        last_modified = http_date(os.path.getmtime(local))
        if query.get("changing") == "1":
            body += f"hit {hit}\n".encode()
        etag = '"%08x-%x"' % (zlib.crc32(body), len(body))
        if query.get("tamper") == "1" and body:
            body = bytes([body[0] ^ 0x01]) + body[1:]
        headers = [("Content-Type", "application/octet-stream"), ("Last-Modified", last_modified),
                   ("Accept-Ranges", "bytes")]
        if query.get("noetag") != "1":
            headers.append(("ETag", etag))

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
                bump(path, "not_modified")
                return self.send(304, b"", [h for h in headers if h[0] != "Content-Type"])

        if hit <= int(query.get("truncate", "0")):
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
            return self.send(206, body[start:end + 1], headers)

        return self.send(200, body, headers)


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256

    def handle_error(self, request, client_address):  # resets and client timeouts are expected
        pass


def main():
    arguments = sys.argv[1:]
    if len(arguments) not in (2, 5) or arguments[0] != "--root" or (
            len(arguments) == 5 and arguments[2] != "--tls"):
        sys.exit("usage: fault_server.py --root DIR [--tls CERT KEY]")
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
