"""Starts moto's server (the local AWS emulator of the test suite) with S3's conditional writes made atomic.

moto checks `If-Match` / `If-None-Match` and then writes with no lock in between, on a threaded server, so two
writers racing on one version can both be accepted. S3 itself serializes conditional writes per key. One
process-wide lock around moto's object put and delete gives the emulator that guarantee, so the store's
compare-and-swap race can be held to an exact count against it. Everything else is moto unchanged.

Usage (same arguments as `moto_server`): python moto_server.py -H 127.0.0.1 -p PORT
"""

import functools
import sys
import threading

from moto.s3.responses import S3Response
from moto.server import main

_conditional_write = threading.Lock()


def _serialized(method):
    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        with _conditional_write:
            return method(*args, **kwargs)

    return wrapper


S3Response.put_object = _serialized(S3Response.put_object)
S3Response.delete_object = _serialized(S3Response.delete_object)

if __name__ == "__main__":
    sys.exit(main())
