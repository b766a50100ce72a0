"""StreamSet: the codec keeps every value to its channel's resolution and every gap;
downsampling takes bucket means; resampling puts samples on the 1 Hz grid; a six-hour
ride stays well under 1 MB."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from pacekeeper.fitness.streams import CHANNELS, StreamError, StreamSet, resample_1hz

_RANGES = {"power": (0, 2500), "heartrate": (30, 230), "cadence": (0, 250),
           "speed": (0, 40), "distance": (0, 400_000), "altitude": (-400, 8000),
           "lat": (-90, 90), "lng": (-180, 180), "temperature": (-40, 60), "grade": (-40, 40)}


@st.composite
def stream_sets(draw: st.DrawFn) -> StreamSet:
    n = draw(st.integers(0, 300))
    names = draw(st.lists(st.sampled_from(list(CHANNELS)), unique=True))
    channels = {}
    for name in names:
        low, high = _RANGES[name]
        values = draw(arrays(np.float64, n, elements=st.floats(low, high)))
        gaps = draw(arrays(np.bool_, n))
        values[gaps] = np.nan
        channels[name] = values
    return StreamSet(np.arange(n, dtype=np.int64), channels)


@given(stream_sets())
@settings(max_examples=150, deadline=None)
def test_round_trip_within_resolution_and_gaps_kept(streams: StreamSet) -> None:
    back = StreamSet.from_bytes(streams.to_bytes())
    assert np.array_equal(back.time, streams.time)
    assert back.keys == streams.keys
    for name in streams.keys:
        original, decoded = streams.channels[name], back.channels[name]
        assert np.array_equal(np.isnan(original), np.isnan(decoded))
        present = ~np.isnan(original)
        # Rounding to 1/scale: at most half a step off (plus float noise).
        assert np.all(np.abs(original[present] - decoded[present])
                      <= 0.5 / CHANNELS[name].scale + 1e-9)


def _six_hour_ride() -> StreamSet:
    rng = np.random.default_rng(7)
    n = 6 * 3600
    speed = np.clip(8 + np.cumsum(rng.normal(0, 0.02, n)), 0, 20)
    heading = np.cumsum(rng.normal(0, 0.01, n))
    return StreamSet(np.arange(n), {
        "power": np.clip(np.round(200 + 60 * np.sin(np.arange(n) / 300)
                                  + rng.normal(0, 25, n)), 0, None),
        "heartrate": np.round(140 + 10 * np.sin(np.arange(n) / 900)),
        "cadence": np.round(88 + rng.normal(0, 2, n)),
        "speed": speed,
        "distance": np.cumsum(speed),
        "altitude": 300 + 50 * np.sin(np.arange(n) / 2000),
        "lat": 45 + np.cumsum(speed * np.cos(heading)) / 111_000,
        "lng": 7 + np.cumsum(speed * np.sin(heading)) / 78_000,
        "temperature": 18 + np.arange(n) / n * 6,
        "grade": 2.5 * np.cos(np.arange(n) / 2000),
    })


def test_a_six_hour_ride_fits_well_under_one_megabyte() -> None:
    """Issue 14: every channel of a six-hour 1 Hz ride in one value, well under 1 MB
    (raw float64 would be 1.7 MB)."""
    ride = _six_hour_ride()
    blob = ride.to_bytes()
    assert len(blob) < 500_000
    assert len(StreamSet.from_bytes(blob)) == 6 * 3600


def test_downsample_takes_bucket_means_and_keeps_gaps() -> None:
    power = np.array([100, 200, np.nan, np.nan, 300, 500, np.nan, np.nan, 7], dtype=float)
    distance = np.arange(9, dtype=float) * 10
    lat = np.linspace(45, 46, 9)
    s = StreamSet(np.arange(9), {"power": power, "distance": distance, "lat": lat})
    small = s.downsample(3)  # buckets of 3: [0..2], [3..5], [6..8]
    assert small.time.tolist() == [0, 3, 6]
    assert small.channels["power"].tolist() == [150.0, 400.0, 7.0]
    assert small.channels["distance"].tolist() == [20.0, 50.0, 80.0]  # the bucket's max
    assert small.channels["lat"].tolist() == [lat[0], lat[3], lat[6]]  # the first sample
    all_gap = StreamSet(np.arange(4), {"power": np.array([np.nan, np.nan, 1.0, 1.0])})
    assert np.isnan(all_gap.downsample(2).channels["power"][0])
    assert s.downsample(100) is s
    with pytest.raises(StreamError):
        s.downsample(0)


def test_resample_interpolates_short_gaps_only() -> None:
    """Smart recording (samples 1-5 s apart) is interpolated; a longer gap is a pause."""
    s = resample_1hz([10, 11, 13, 30, 31], {"power": [100, 110, 130, 200, 210],
                                            "heartrate": [np.nan, 120, 122, 140, np.nan]})
    assert s.time.tolist() == list(range(22))
    power = s.channels["power"]
    assert power[:4].tolist() == [100, 110, 120, 130]
    assert np.isnan(power[4:20]).all()  # 13 -> 30: a 17 s pause
    assert power[20:].tolist() == [200, 210]
    hr = s.channels["heartrate"]
    assert np.isnan(hr[0]) and hr[1] == 120 and hr[2] == 121
    assert len(resample_1hz([], {"power": []})) == 0


def test_unknown_channels_and_misaligned_series_are_refused() -> None:
    with pytest.raises(StreamError):
        StreamSet(np.arange(3), {"watts": np.zeros(3)})
    with pytest.raises(StreamError):
        StreamSet(np.arange(3), {"power": np.zeros(2)})
    with pytest.raises(StreamError):
        StreamSet.from_bytes(b"nonsense")
    with pytest.raises(StreamError):
        StreamSet(np.arange(2), {"power": np.array([0, 1e12])}).to_bytes()
