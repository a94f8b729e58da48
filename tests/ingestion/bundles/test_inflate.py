"""Bounded gzip inflation (ingestion/bundles/inflate.py): exact, whatever the read size."""

from __future__ import annotations

import gzip
import io
import random

import pytest

from ingestion.bundles.archive import CHUNK
from ingestion.bundles.inflate import Inflater


@pytest.mark.parametrize("read_size", [1, 3, 258, 4096, CHUNK])
def test_it_inflates_exactly_what_gzip_does_whatever_the_read_size(read_size):
    rng = random.Random(read_size)
    data = b"".join(
        rng.choice([b"a" * rng.randrange(1, 600), rng.randbytes(50)]) for _ in range(400)
    )
    packed = gzip.compress(data[:7000]) + gzip.compress(data[7000:]) + b"\0" * 3
    inflater = Inflater(io.BytesIO(packed))
    out = []
    while not inflater.finished:
        out.append(inflater.read(read_size))
    assert b"".join(out) == data
    assert (inflater.bytes_in, inflater.bytes_out) == (len(packed) - 3, len(data))
    with pytest.raises(EOFError):
        truncated = Inflater(io.BytesIO(gzip.compress(data)[:-20]))
        while not truncated.finished:
            truncated.read(read_size)
