#!/usr/bin/env python3
"""A receiver of platformd's completion events, with the Python standard library only.

It checks each POST's Platformd-Signature (HMAC-SHA256 under the webhook's secret of
"UNIX_SECONDS.BODY", within 5 minutes of now), handles each event once however often platformd
sends it (delivery is at least once: a receiver deduplicates by the event id), and answers 2xx
only once the event is handled, so anything else is sent again.

    STATLOCKER_HOOK_SECRET=... python3 webhooks-receiver.py --port 9000

Each new event is printed as one JSON line on stdout; everything else goes to stderr. Replace
handle() with your backend's work. `--fail-first N` makes the first N deliveries of each event
fail (HTTP 500, then a connection closed with no answer, alternately), to watch platformd retry.
"""
import argparse
import hashlib
import hmac
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOLERANCE_SECONDS = 300


def verify(secret: bytes, header: str, body: bytes, now: float) -> bool:
    """True when `header` (t=UNIX_SECONDS,v1=HEX) signs `body` and t is within 5 minutes of now."""
    timestamp, signatures = None, []
    for part in header.split(","):
        key, _, value = part.strip().partition("=")
        if key == "t":
            timestamp = value
        elif key == "v1":
            signatures.append(value)
    if timestamp is None or not timestamp.isdigit() or abs(now - int(timestamp)) > TOLERANCE_SECONDS:
        return False
    expected = hmac.new(secret, timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(expected, candidate) for candidate in signatures)


class Events:
    """The ids of events handled, and those being handled right now (two deliveries of one event
    may arrive at once). A real backend keeps the ids in its database, in the transaction that
    does the work, with a unique constraint on the id."""

    def __init__(self):
        self.lock = threading.Lock()
        self.done = set()
        self.busy = set()
        self.attempts = {}

    def begin(self, event_id):
        """True when this delivery should handle the event: not handled yet, nor being handled."""
        with self.lock:
            if event_id in self.done or event_id in self.busy:
                return False
            self.busy.add(event_id)
            return True

    def end(self, event_id, handled):
        with self.lock:
            self.busy.discard(event_id)
            if handled:
                self.done.add(event_id)

    def attempt(self, event_id):
        """How many deliveries of this event arrived, this one included."""
        with self.lock:
            self.attempts[event_id] = self.attempts.get(event_id, 0) + 1
            return self.attempts[event_id]


def handle(event):
    """The backend's work for one event, done once per event id."""
    print(json.dumps(event, sort_keys=True), flush=True)


def make_handler(secret: bytes, events: Events, fail_first: int):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def answer(self, status):
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            if not verify(secret, self.headers.get("Platformd-Signature", ""), body, time.time()):
                self.log_message("refused: bad or stale signature")
                return self.answer(401)
            try:
                event = json.loads(body)
                event_id = event["id"]
            except (ValueError, KeyError, TypeError):
                return self.answer(400)
            if event_id != self.headers.get("Platformd-Event-Id"):
                return self.answer(400)
            attempt = events.attempt(event_id)
            if attempt <= fail_first:
                self.log_message("failing delivery %d of %s on purpose", attempt, event_id)
                if attempt % 2 == 1:
                    return self.answer(500)
                self.close_connection = True  # no answer at all: the connection just closes
                return
            if not events.begin(event_id):
                self.log_message("duplicate %s: already handled", event_id)
                return self.answer(200)
            handled = False
            try:
                handle(event)
                handled = True
            finally:
                events.end(event_id, handled)
            self.answer(200 if handled else 500)

        def log_message(self, format, *args):
            sys.stderr.write("receiver: " + (format % args) + "\n")

    return Handler


def main():
    parser = argparse.ArgumentParser(description="Receive platformd's completion events.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9000, help="0 picks a free port")
    parser.add_argument("--secret-env", default="STATLOCKER_HOOK_SECRET",
                        help="the environment variable that holds the webhook's secret")
    parser.add_argument("--fail-first", type=int, default=0, metavar="N",
                        help="fail the first N deliveries of each event (to watch retries)")
    options = parser.parse_args()
    secret = os.environ.get(options.secret_env)
    if not secret:
        sys.exit(f"receiver: set {options.secret_env} to the webhook's secret")
    server = ThreadingHTTPServer((options.host, options.port),
                                 make_handler(secret.encode(), Events(), options.fail_first))
    host, port = server.server_address[:2]
    sys.stderr.write(f"receiver: listening on http://{host}:{port}/\n")
    sys.stderr.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
