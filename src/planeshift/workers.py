"""A map over items shared by this process and forked helpers, with no process pool.

A pool pickles every item to a worker and every result back, starts a feeder thread and its
processes (with 20 ms of imports), and leaves the parent idle or, on a two-core machine, competing
with its workers while it decodes what they send. Here the parent forks ``jobs - 1`` helpers,
which inherit the items, and works too:

- every process takes the next item, largest first, from one queue they all read (a pipe
  written full before the fork: a pipe read of one record is atomic), so no process idles while
  another is left holding the large files;
- a helper sends each result back as it makes it, framed on a pipe of its own, and the parent
  drains those pipes between its own items (the ``done`` callback sees every result as it comes);
- a helper that fails, for any reason, costs time, never a result: the parent does whatever it
  took and did not deliver.
"""

from __future__ import annotations

import gc
import os
import select
import signal
import struct
from collections.abc import Callable, Iterator, Sequence

_RECORD = struct.Struct("<I")  # a position in the order of items, largest first
_FRAME = struct.Struct("<II")  # an item's index and the length of its bytes, which follow
_MAX_RECORDS = 1024  # 4 KiB: the queue fits any pipe's buffer, so writing it cannot block
_PIPE_SIZE = 1 << 20  # a helper's result pipe, where the system allows it (Linux)


def shared_map(work: Callable[[int], bytes], sizes: Sequence[int], jobs: int,
               done: Callable[[int, bytes], None] | None = None,
               note: Callable[[], bytes | None] | None = None,
               noted: Callable[[bytes], None] | None = None) -> list[bytes]:
    """``[work(k) for k in range(len(sizes))]`` on *jobs* processes (this one and forked
    helpers), *sizes* ordering the items largest first. *done* is called once per item, in the
    parent, as its result arrives. A helper's *note* (say, a warning it met) is passed, after its
    last item, to the parent's *noted*."""
    n = len(sizes)
    results: dict[int, bytes] = {}

    def deliver(k: int, blob: bytes) -> None:
        if k not in results:
            results[k] = blob
            if done is not None:
                done(k, blob)

    helpers = min(jobs, n) - 1 if hasattr(os, "fork") else 0
    queue = _queue(sorted(range(n), key=lambda k: -sizes[k])) if helpers > 0 else None
    if queue is not None:
        read_queue, order, per = queue
        streams: dict[int, tuple[int, bytearray]] = {}  # read end -> (pid, bytes not framed yet)
        try:
            for _ in range(helpers):
                fd, pid = _fork_helper(work, read_queue, order, per, n, note, list(streams))
                streams[fd] = (pid, bytearray())
            for k in _take(read_queue, order, per):
                deliver(k, work(k))
                _drain(streams, n, deliver, noted, wait=False)
            while streams:
                _drain(streams, n, deliver, noted, wait=True)
        finally:
            os.close(read_queue)
            for fd, (pid, _) in streams.items():  # only left when this process failed: stop them
                os.close(fd)
                _stop(pid)
    for k in range(n):
        if k not in results:  # no helpers, or one failed after taking it: done here
            deliver(k, work(k))
    return [results[k] for k in range(n)]


def _queue(order: list[int]) -> tuple[int, list[int], int] | None:
    """A pipe holding the queue's records, its write end closed; None if it cannot be made."""
    per = -(-len(order) // _MAX_RECORDS)  # items per record
    payload = b"".join(_RECORD.pack(start) for start in range(0, len(order), per))
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return None
    try:
        os.set_blocking(write_end, False)
        written = os.write(write_end, payload)
    except OSError:
        written = -1
    os.close(write_end)
    if written != len(payload):
        os.close(read_end)
        return None
    return read_end, order, per


def _take(read_queue: int, order: list[int], per: int) -> Iterator[int]:
    """The items of the records this process reads, until the queue is empty."""
    while True:
        record = os.read(read_queue, _RECORD.size)
        if len(record) < _RECORD.size:
            return
        (start,) = _RECORD.unpack(record)
        yield from order[start : start + per]


def _fork_helper(work: Callable[[int], bytes], read_queue: int, order: list[int], per: int,
                 n: int, note: Callable[[], bytes | None] | None,
                 siblings: list[int]) -> tuple[int, int]:
    read_end, write_end = os.pipe()
    try:
        import fcntl

        fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, _PIPE_SIZE)
    except (ImportError, AttributeError, OSError):
        pass  # the default buffer: a helper may wait for the parent to drain it
    pid = os.fork()
    if pid == 0:  # the helper: work, send each result, leave at once
        status = 1
        try:
            gc.disable()  # it frees what it makes by reference counting, and then exits
            os.close(read_end)
            for fd in siblings:
                os.close(fd)
            for k in _take(read_queue, order, per):
                _send(write_end, k, work(k))
            message = note() if note is not None else None
            if message:
                _send(write_end, n, message)
            status = 0
        finally:
            os._exit(status)  # no atexit handlers, no buffered output of the parent's
    os.close(write_end)
    os.set_blocking(read_end, False)
    return read_end, pid


def _send(fd: int, k: int, blob: bytes) -> None:
    data = memoryview(_FRAME.pack(k, len(blob)) + blob)
    while data:
        data = data[os.write(fd, data):]


def _drain(streams: dict[int, tuple[int, bytearray]], n: int,
           deliver: Callable[[int, bytes], None], noted: Callable[[bytes], None] | None,
           wait: bool) -> None:
    """Read what the helpers have sent (with *wait*, block until one of them sends or ends);
    a helper whose pipe ends is reaped."""
    ready = select.select(list(streams), [], [])[0] if wait else list(streams)
    for fd in ready:
        pid, buffer = streams[fd]
        ended = False
        while True:
            try:
                chunk = os.read(fd, 1 << 20)
            except BlockingIOError:
                break
            if not chunk:
                ended = True
                break
            buffer += chunk
        offset = 0
        while len(buffer) - offset >= _FRAME.size:
            k, size = _FRAME.unpack_from(buffer, offset)
            end = offset + _FRAME.size + size
            if len(buffer) < end:
                break
            blob = bytes(buffer[offset + _FRAME.size : end])
            if k < n:
                deliver(k, blob)
            elif noted is not None:
                noted(blob)
            offset = end
        del buffer[:offset]
        if ended:  # a frame cut short (a helper killed mid-write) is dropped with it
            os.close(fd)
            del streams[fd]
            os.waitpid(pid, 0)


def _stop(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except OSError:
        pass
