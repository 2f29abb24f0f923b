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
that runs without the GIL, with no access log. Pure functions that moto runs on every request or every listed
object are made cheaper with the same results:
- which backend serves a host name (moto lists its package directory and tries every service's URL
  patterns each time; the answer depends on the host name alone, so it is remembered);
- whether S3 reads the bucket from the host name or from the path (a handful of regular expressions over
  the `Host` header, three times per S3 request; the answer depends on that header and on settings the
  worker reads from its environment, which nothing changes after start, so it is remembered per host);
- the request's root URL (`scheme://host/root/`, which Werkzeug rebuilds and IRI-decodes for every request
  moto reads `url_root` of; remembered per scheme, host and root path; full URLs are still built each time);
- moto's search for an AWS access key id in the `Authorization` header (a backtracking expression, about
  15 µs on a SigV4 header, run twice per request) is preceded by one linear scan for the 20-character key id
  the expression needs: without one it cannot match; with one, moto's own expression answers;
- reading back the timestamps moto itself wrote as `...T12:34:56.000Z` before serializing them (a direct
  parse instead of dateutil's general one; anything else still goes to botocore).
Moto's Flask applications run without Flask's debug mode, whose per-request cost here was building a new
class for every request (a debugging aid for misused file uploads); the two debug behaviours a client can
see are kept: an exception in moto still reaches the server (a 500), and so does a missing request key
(`BadRequestKeyError`, a 500 rather than a 400). The objects built at start-up (moto's and botocore's
modules and models, about 60,000) are moved out of the garbage collector's reach (`gc.freeze`), and the
youngest generation is collected every 50,000 allocations rather than 700, so requests stop paying for
scans of what lives as long as the process. Moto's browser CORS headers are off
(`MOTO_DISABLE_GLOBAL_CORS`; no client here is a browser; bucket CORS rules are S3's own and unaffected).
AWS-managed IAM policies (`arn:aws:iam::aws:policy/...`, which `data "aws_iam_policy"` reads) are loaded
into every account, as AWS serves them (`MOTO_IAM_LOAD_MANAGED_POLICIES`; moto ships them but leaves them
out by default).
Tagging pages: moto's `GetResources` keeps a lazy generator over each backend's live dictionaries between
pages, so a resource created or deleted by another client between two pages ends the generator with
`dictionary changed size during iteration`: the page answers 500 and its retry returns what was left over,
silently dropping the rest. AWS's listing does not lose resources that way. Here the generator is read to the
end when the first page is asked (a snapshot at that moment), and later pages serve that snapshot.
Moto's responses, state and S3 semantics are otherwise unchanged, and all state lives in the one worker
process.

One difference from `moto_server`: Werkzeug's handler let moto see user-metadata header names with
underscores (`x-amz-meta-my_key`) as sent; through Granian they arrive with dashes (`my-key`), as behind most
proxies. Nothing in the product writes user metadata.

Moto runs on one Python thread of that worker (`BLOCKING_THREADS`, with the reasons and the one cost).
Granian runs the application in one worker process forked from this one; SIGTERM or SIGINT to this process
stops the worker and then this process. The worker imports this file as the module `moto_server` and calls
`application()`.

Usage: python moto_server.py -H 127.0.0.1 -p PORT
"""

import argparse
import datetime
import functools
import gc
import os
import re
import sys
import threading

# Python threads the worker runs moto in. Moto is CPU-bound under the GIL, so a second thread adds no
# throughput, only GIL hand-offs between threads on every request: measured on GetObject at 16 requests in
# flight, one thread answers about 20% more requests per second than four. Granian still accepts and reads
# every connection concurrently in Rust; requests wait in its queue instead of for the GIL. The cost: a large
# listing holds up requests queued behind it, and a moto feature that calls the emulator back from inside a
# request (Lambda, CloudFormation custom resources, Step Functions, Batch) would wait on itself; the product
# uses none of them. The conditional-write lock stays, so raising this keeps S3's guarantee.
BLOCKING_THREADS = 1


def _serialized(method, lock):
    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        with lock:
            return method(*args, **kwargs)

    return wrapper


# Collect the youngest generation every this many net allocations (CPython's default is 700). A moto request
# allocates thousands of short-lived objects; most are freed by reference counting long before a collection.
GC_THRESHOLD = (50_000, 50, 100)


def _memoized_by_host(subdomain_based_buckets):
    """`S3Response.subdomain_based_buckets`, remembered per `Host` header.

    Moto's answer depends on the host name and on `S3_IGNORE_SUBDOMAIN_BUCKETNAME` and
    `MOTO_S3_CUSTOM_ENDPOINTS`, which the worker reads from an environment nothing changes after start.
    A request without a `Host` header takes moto's path (which looks at the URL instead) every time.
    """
    answers = {}

    @functools.wraps(subdomain_based_buckets)
    def memoized(request):
        host = request.headers.get("host", request.headers.get("Host"))
        if not host:
            return subdomain_based_buckets(request)
        try:
            return answers[host]
        except KeyError:
            answer = subdomain_based_buckets(request)
            # A dict write is atomic under the GIL; a race only computes the same answer twice. Bounded,
            # so clients inventing host names cannot grow it without limit.
            if len(answers) < 1024:
                answers[host] = answer
            return answer

    return memoized


def _memoized_root_url(get_current_url):
    """Werkzeug's `get_current_url`, remembered when it builds a root or host URL (no path)."""
    roots = {}

    @functools.wraps(get_current_url)
    def current_url(scheme, host, root_path=None, path=None, query_string=None):
        if path is not None:
            return get_current_url(scheme, host, root_path, path, query_string)
        key = (scheme, host, root_path)
        try:
            return roots[key]
        except KeyError:
            url = get_current_url(scheme, host, root_path)
            if len(roots) < 1024:
                roots[key] = url
            return url

    return current_url


class _KeyIdSearch:
    """Moto's access-key-id expression, run only when the text holds the key id it needs.

    Moto's expression `AWS.*(?P<access_key>(?<![A-Z0-9])[A-Z0-9]{20}(?![A-Z0-9]))[:/]` backtracks over
    the whole header. Any match of it contains a match of `_KEY_ID` at the same place, with the same
    neighbouring characters checked, so when `_KEY_ID` finds nothing moto's expression finds nothing
    either; otherwise moto's expression answers.
    """

    _KEY_ID = re.compile(r"(?<![A-Z0-9])[A-Z0-9]{20}(?![A-Z0-9])[:/]")

    def __init__(self, expression):
        self.expression = expression
        self.pattern = expression.pattern

    def search(self, string, *args):
        if self._KEY_ID.search(string, *args) is None:
            return None
        return self.expression.search(string, *args)

    def __getattr__(self, name):
        return getattr(self.expression, name)


def _without_debug_mode(create_backend_app):
    """Moto's `create_backend_app`, with Flask's debug mode off and its visible error behaviour kept."""

    from werkzeug.exceptions import BadRequestKeyError

    @functools.wraps(create_backend_app)
    def create(service):
        app = create_backend_app(service)
        app.debug = False
        # What debug mode did that a client can see: an exception in a handler reaches the server, which
        # answers 500, and so does a missing request key (`BadRequestKeyError`) instead of a 400.
        app.config["PROPAGATE_EXCEPTIONS"] = True
        trap_http_exception = app.trap_http_exception
        app.trap_http_exception = lambda error: isinstance(error, BadRequestKeyError) or trap_http_exception(
            error
        )
        return app

    return create


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


def _snapshot(generator_method):
    """A backend's page generator, read to the end at once so later changes cannot break its iteration."""

    @functools.wraps(generator_method)
    def snapshot(*args, **kwargs):
        return iter(list(generator_method(*args, **kwargs)))

    return snapshot


def application():
    """Moto's WSGI application (all services, as `moto_server` serves them), patched as described above."""
    os.environ.setdefault("MOTO_DISABLE_GLOBAL_CORS", "true")
    os.environ.setdefault("MOTO_IAM_LOAD_MANAGED_POLICIES", "true")

    from dateutil.tz import tzutc
    import moto.core.serialize
    from moto.core.responses import BaseResponse
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
    from moto.resourcegroupstaggingapi.models import ResourceGroupsTaggingAPIBackend
    from moto.s3.responses import S3Response
    import werkzeug.sansio.request

    moto.core.serialize.parse_to_aware_datetime = _fast_aware_datetime(
        moto.core.serialize.parse_to_aware_datetime, tzutc()
    )
    S3Response.subdomain_based_buckets = staticmethod(
        _memoized_by_host(S3Response.subdomain_based_buckets)
    )
    werkzeug.sansio.request.get_current_url = _memoized_root_url(
        werkzeug.sansio.request.get_current_url
    )
    BaseResponse.access_key_regex = _KeyIdSearch(BaseResponse.access_key_regex)

    ResourceGroupsTaggingAPIBackend._get_resources_generator = _snapshot(
        ResourceGroupsTaggingAPIBackend._get_resources_generator
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
    app = DomainDispatcherApplication(_without_debug_mode(create_backend_app))

    # Granian starts every request's WSGI environ from a copy of this process's environment (taken after
    # this returns): variables named like request fields (HTTP_PROXY and the like) would reach moto as if
    # the client had sent them. Moto has read its settings by now.
    for name in [n for n in os.environ if n.startswith("HTTP_") or n in ("CONTENT_TYPE", "CONTENT_LENGTH")]:
        del os.environ[name]

    # Everything imported and built so far lives as long as the process: leave it out of collections.
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)
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
