"""A deadline for one HTTP(S) request: a timer that ends a blocked read by shutting the socket down.

A socket timeout bounds each read, not a request: a server that sends one byte a second (in its
headers or its body) never trips it. :class:`Watchdog` gives an opener whose connections report their
socket to it; when the armed timer fires, it shuts that socket down (``shutdown(SHUT_RDWR)`` on a
duplicate of its descriptor, which also works under TLS), so the read blocked in the caller's thread
returns at once, and the caller sees :attr:`Watchdog.fired` set to the reason it armed the timer with.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import urllib.request


class Watchdog:
    """Shuts down the socket of the requests made through :meth:`opener` when the armed timer fires.

    Attributes:
        fired: the ``reason`` of the timer that fired, or None.
    """

    def __init__(self) -> None:
        self.fired: str | None = None
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None
        self._timer: threading.Timer | None = None

    def opener(self) -> urllib.request.OpenerDirector:
        """A urllib opener (proxies, redirects, file:// as usual) whose HTTP and HTTPS connections are watched."""
        watchdog = self

        class Watched(http.client.HTTPConnection):
            def connect(self) -> None:
                super().connect()
                watchdog.attach(self.sock)

        class WatchedTLS(http.client.HTTPSConnection, Watched):
            """``HTTPSConnection.connect`` calls the watched plain connect, so the TLS handshake is watched too."""

        class HTTPHandler(urllib.request.HTTPHandler):
            def http_open(self, req):
                return self.do_open(Watched, req)

        class HTTPSHandler(urllib.request.HTTPSHandler):
            def https_open(self, req):
                return self.do_open(WatchedTLS, req)

        return urllib.request.build_opener(HTTPHandler(), HTTPSHandler())

    def arm(self, seconds: float, reason: str) -> None:
        """Fire in ``seconds`` (replacing any armed timer), recording ``reason``."""
        self.disarm()
        self._timer = threading.Timer(max(seconds, 0.0), self._fire, (reason,))
        self._timer.daemon = True
        self._timer.start()

    def disarm(self) -> None:
        """Cancel the armed timer, if any."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def close(self) -> None:
        """Cancel the timer and let go of the socket (the request's own close then ends the connection)."""
        self.disarm()
        with self._lock:
            if self._sock is not None:
                self._sock.close()
                self._sock = None

    def attach(self, sock: socket.socket) -> None:
        """Watch ``sock`` (a connection just made); shut it down at once if the timer has fired already."""
        with self._lock:
            if self._sock is not None:
                self._sock.close()
            self._sock = sock.dup()  # the TLS wrapper detaches ``sock``; the duplicate stays usable
            if self.fired is not None:
                self._shutdown()

    def _fire(self, reason: str) -> None:
        with self._lock:
            self.fired = reason
            self._shutdown()

    def _shutdown(self) -> None:
        if self._sock is not None:
            with contextlib.suppress(OSError):  # already closed by the peer
                self._sock.shutdown(socket.SHUT_RDWR)

