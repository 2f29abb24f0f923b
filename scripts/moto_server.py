"""Starts moto's server (the local AWS emulator of the test suite): moto's own WSGI application, with S3's
conditional writes made atomic, served by Granian instead of the Werkzeug development server.

Conditional writes: moto checks `If-Match` / `If-None-Match` and then writes with no lock in between, so two
writers racing on one version can both be accepted. S3 itself serializes conditional writes per key. One
process-wide lock around moto's object put and delete gives the emulator that guarantee, so the store's
compare-and-swap race can be held to an exact count against it.

Serving: `moto_server` runs Werkzeug's development server, which answers every request with
`Connection: close`, starts a thread per connection, writes an access-log line per request, and spends most
of its Python time outside moto's S3 code. The emulator is bound by Python CPU under the GIL, so that
overhead is what a client waits for. Here the same application (`DomainDispatcherApplication`, the one
`moto_server` builds) is served by Granian, whose HTTP/1.1 handling (parsing, keep-alive, writing) is Rust
that runs without the GIL, with no access log. Two pure functions that moto runs on every request or every
listed object are made cheaper with the same results: which backend serves a host name (moto lists its
package directory and tries every service's URL patterns each time; the answer depends on the host name
alone, so it is remembered), and reading back the timestamps moto itself wrote as `...T12:34:56.000Z` before
serializing them (a direct parse instead of dateutil's general one; anything else still goes to botocore).
Moto's browser CORS headers are off (`MOTO_DISABLE_GLOBAL_CORS`; no client here is a browser; bucket CORS
rules are S3's own and unaffected). Moto's responses, state and S3 semantics are otherwise unchanged, and
all state lives in the one worker process.

One difference from `moto_server`: Werkzeug's handler let moto see user-metadata header names with
underscores (`x-amz-meta-my_key`) as sent; through Granian they arrive with dashes (`my-key`), as behind most
proxies. Nothing in the product writes user metadata.

Granian runs the application in one worker process forked from this one; SIGTERM or SIGINT to this process
stops the worker and then this process. The worker imports this file as the module `moto_server` and calls
`application()`.

Usage: python moto_server.py -H 127.0.0.1 -p PORT
"""

import argparse
import datetime
import functools
import os
import re
import sys
import threading

# Python threads the worker runs moto in. Moto is CPU-bound under the GIL, so more threads only add
# switching; more than one keeps a slow request (a large listing) from holding up every other client, and
# keeps moto itself exercised concurrently, as the conditional-write lock expects.
BLOCKING_THREADS = 4


def _serialized(method, lock):
    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        with lock:
            return method(*args, **kwargs)

    return wrapper


# The timestamps moto's models hand its serializer as text (`FakeKey.last_modified_ISO8601` and the like).
_MOTO_TIMESTAMP = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?Z")


def _fast_aware_datetime(parse_to_aware_datetime, utc):
    """`botocore.utils.parse_to_aware_datetime`, with moto's own UTC text parsed directly.

    For `YYYY-MM-DDTHH:MM:SS[.ffffff]Z` botocore (through dateutil) returns that instant with `tzutc()`;
    this returns the same value without the general parser. Any other input, or a date that does not
    exist, goes to botocore, so results and errors are botocore's.
    """

    @functools.wraps(parse_to_aware_datetime)
    def parse(value):
        if isinstance(value, str):
            found = _MOTO_TIMESTAMP.fullmatch(value)
            if found:
                year, month, day, hour, minute, second, fraction = found.groups()
                try:
                    return datetime.datetime(
                        int(year),
                        int(month),
                        int(day),
                        int(hour),
                        int(minute),
                        int(second),
                        int((fraction or "0").ljust(6, "0")),
                        tzinfo=utc,
                    )
                except ValueError:
                    pass
        return parse_to_aware_datetime(value)

    return parse


def application():
    """Moto's WSGI application (all services, as `moto_server` serves them), patched as described above."""
    os.environ.setdefault("MOTO_DISABLE_GLOBAL_CORS", "true")

    from dateutil.tz import tzutc
    import moto.core.serialize
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
    from moto.s3.responses import S3Response

    moto.core.serialize.parse_to_aware_datetime = _fast_aware_datetime(
        moto.core.serialize.parse_to_aware_datetime, tzutc()
    )

    conditional_write = threading.Lock()
    S3Response.put_object = _serialized(S3Response.put_object, conditional_write)
    S3Response.delete_object = _serialized(S3Response.delete_object, conditional_write)

    backend_for_host = DomainDispatcherApplication.get_backend_for_host
    backends = {}

    @functools.wraps(backend_for_host)
    def memoized_backend_for_host(self, host):
        # Called under the dispatcher's own lock. Only found backends are kept: an unknown host keeps
        # taking moto's path (which reports it) every time.
        try:
            return backends[host]
        except KeyError:
            backend = backend_for_host(self, host)
            if backend is not None:
                backends[host] = backend
            return backend

    DomainDispatcherApplication.get_backend_for_host = memoized_backend_for_host
    app = DomainDispatcherApplication(create_backend_app)
    app.debug = True  # as moto_server sets it

    # Granian starts every request's WSGI environ from a copy of this process's environment (taken after
    # this returns): variables named like request fields (HTTP_PROXY and the like) would reach moto as if
    # the client had sent them. Moto has read its settings by now.
    for name in [n for n in os.environ if n.startswith("HTTP_") or n in ("CONTENT_TYPE", "CONTENT_LENGTH")]:
        del os.environ[name]
    return app


def main(argv=None):
    parser = argparse.ArgumentParser(description="moto's server, served by Granian")
    parser.add_argument("-H", "--host", default="127.0.0.1", help="address to bind")
    parser.add_argument("-p", "--port", type=int, default=5000, help="port to bind")
    args = parser.parse_args(argv)

    # moto_server sets this for services that build URLs back to the emulator; the worker inherits it.
    os.environ.setdefault("MOTO_PORT", str(args.port))

    from granian import Granian
    from granian.constants import HTTPModes, Interfaces

    Granian(
        # The worker imports this file by its path, whatever the working directory.
        f"{os.path.abspath(__file__)}:application",
        address=args.host,
        port=args.port,
        interface=Interfaces.WSGI,
        http=HTTPModes.http1,
        workers=1,
        blocking_threads=BLOCKING_THREADS,
        websockets=False,
        log_access=False,
        factory=True,
    ).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
