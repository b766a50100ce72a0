"""Activity import of hostile and wrapped input: gzip, zip bulk exports, bombs, XML
entity attacks, damaged bytes.

Rules under test (the importer issue's, in words):
- gzip of an activity file gives the same activity (same SHA-256: the hash is of the
  activity file's bytes after unwrapping);
- a Strava bulk export (zip) yields one member per activities/* .fit/.gpx/.tcx[.gz];
  other members are ignored;
- decompression is bounded: a gzip or zip bomb is "too_large" with bounded memory;
  raw input over the limit is "too_large" too;
- XML with a DOCTYPE (billion laughs, external entities) is rejected without expanding
  anything; the TCX parser itself resolves no entities;
- nothing but ImportRejected escapes, whatever the bytes.
"""

from __future__ import annotations

import gzip
import io
import random
import tracemalloc
import zipfile
import zlib

import pytest

from pacekeeper.fitness.importers import (
    ArchiveMember,
    ImportRejected,
    ParsedActivity,
    is_archive,
    parse_activity,
    parse_archive,
)

from ._activity_files import activity, content


def _same(a: ParsedActivity, b: ParsedActivity) -> None:
    assert a.sha256 == b.sha256
    for field in ("format", "sport", "start", "elapsed_s", "distance_m", "avg_heartrate",
                  "moving_s", "elevation_gain_m", "calories", "device_name"):
        assert getattr(a, field) == getattr(b, field), field
    assert len(a.laps) == len(b.laps)
    assert a.streams.keys == b.streams.keys and len(a.streams) == len(b.streams)


@pytest.mark.parametrize(
    "name", ["fit/garmin-fenix-5-bike.fit", "gpx/track-with-empty-segment.gpx",
             "tcx/stravalib-sample.tcx"]
)
def test_gzip_gives_the_same_activity(name: str) -> None:
    plain = parse_activity(content(name))
    packed = parse_activity(gzip.compress(content(name)), name.rsplit("/", 1)[1] + ".gz")
    _same(plain, packed)


def _bulk_export() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("activities.csv", "Activity ID,Activity Name\n123,Ride\n456,Run\n")
        z.writestr("activities/123.fit.gz", gzip.compress(content("fit/garmin-fenix-5-bike.fit")))
        z.writestr("activities/456.gpx", content("gpx/track-with-empty-segment.gpx"))
        z.writestr("activities/789.tcx", content("tcx/stravalib-sample.tcx"))
        # Cut before its first complete message: nothing readable, so truncated.
        z.writestr("activities/999.fit", content("corrupt/activity-unexpected-eof.fit")[:40])
        z.writestr("activities/notes.txt", "not an activity")
        z.writestr("media/photo.jpg", b"\xff\xd8\xff\xe0 not really")
        z.writestr("profile.csv", "name\nme\n")
    return buf.getvalue()


def test_strava_bulk_export_yields_its_activity_members() -> None:
    data = _bulk_export()
    assert is_archive(data)
    members = parse_archive(data)
    assert [m.name for m in members] == [
        "activities/123.fit.gz", "activities/456.gpx", "activities/789.tcx", "activities/999.fit",
    ]
    by_name = {m.name: m.result for m in members}
    fit = by_name["activities/123.fit.gz"]
    assert isinstance(fit, ParsedActivity)
    _same(fit, activity("fit/garmin-fenix-5-bike.fit"))
    assert isinstance(by_name["activities/456.gpx"], ParsedActivity)
    assert isinstance(by_name["activities/789.tcx"], ParsedActivity)
    bad = by_name["activities/999.fit"]
    assert isinstance(bad, ImportRejected) and bad.reason == "truncated"
    assert all(isinstance(m, ArchiveMember) for m in members)


def test_a_zip_with_one_activity_parses_as_that_activity() -> None:
    """Garmin Connect's "export original" is a zip holding one .fit."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("12345_ACTIVITY.fit", content("fit/garmin-fenix-5-bike.fit"))
    _same(parse_activity(buf.getvalue()), activity("fit/garmin-fenix-5-bike.fit"))
    with pytest.raises(ImportRejected) as info:
        parse_activity(_bulk_export())
    assert info.value.reason == "unsupported_format"
    assert not is_archive(content("fit/garmin-fenix-5-bike.fit"))
    with pytest.raises(ImportRejected):
        parse_archive(content("fit/garmin-fenix-5-bike.fit"))


def _zeros_gzip(total: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(1 << 20)
    parts = [packer.compress(block) for _ in range(total >> 20)]
    parts.append(packer.flush())
    return b"".join(parts)


def test_gzip_bomb_is_too_large_with_bounded_memory() -> None:
    """200 MB of zeros in ~200 KB of gzip: stopped once the output passes max_bytes,
    holding about max_bytes (+ one 1 MiB chunk), never the 200 MB."""
    bomb = _zeros_gzip(200 << 20)
    assert len(bomb) < 1 << 20
    limit = 8 << 20
    tracemalloc.start()
    try:
        with pytest.raises(ImportRejected) as info:
            parse_activity(bomb, "ride.fit.gz", max_bytes=limit)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert info.value.reason == "too_large"
    assert peak < 3 * limit


def test_zip_bomb_member_is_too_large_with_bounded_memory() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        with z.open("activities/1.fit", "w") as member:
            block = bytes(1 << 20)
            for _ in range(200):
                member.write(block)
        z.writestr("activities/2.fit", content("fit/garmin-fenix-5-bike.fit"))
    limit = 8 << 20
    tracemalloc.start()
    try:
        members = parse_archive(buf.getvalue(), max_bytes=limit)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    first, second = (m.result for m in members)
    assert isinstance(first, ImportRejected) and first.reason == "too_large"
    assert isinstance(second, ParsedActivity)
    assert peak < 3 * limit


def test_input_over_the_limit_is_too_large() -> None:
    data = content("fit/garmin-fenix-5-bike.fit")
    with pytest.raises(ImportRejected) as info:
        parse_activity(data, max_bytes=len(data) - 1)
    assert info.value.reason == "too_large"


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE gpx [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>&lol9;</name><trkseg>
<trkpt lat="1" lon="1"><time>2020-01-01T00:00:00Z</time></trkpt>
<trkpt lat="1" lon="1.001"><time>2020-01-01T00:00:10Z</time></trkpt>
</trkseg></trk></gpx>
"""

XXE_TCX = b"""<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE TrainingCenterDatabase [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
<TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
<Activities><Activity Sport="Biking"><Id>&xxe;</Id>
<Lap StartTime="2020-01-01T00:00:00Z"><TotalTimeSeconds>10</TotalTimeSeconds><Track>
<Trackpoint><Time>2020-01-01T00:00:00Z</Time><HeartRateBpm><Value>100</Value></HeartRateBpm></Trackpoint>
<Trackpoint><Time>2020-01-01T00:00:10Z</Time><HeartRateBpm><Value>110</Value></HeartRateBpm></Trackpoint>
</Track></Lap></Activity></Activities></TrainingCenterDatabase>
"""


def test_xml_with_a_doctype_is_rejected_before_any_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    """Billion laughs (GPX) and XXE (TCX) are refused from the prolog: no XML parser runs."""
    import gpxpy
    from lxml import etree

    def must_not_run(*args: object, **kwargs: object) -> None:
        raise AssertionError("an XML parser ran on a document with a DOCTYPE")

    monkeypatch.setattr(gpxpy, "parse", must_not_run)
    monkeypatch.setattr(etree, "fromstring", must_not_run)
    for data, name in ((BILLION_LAUGHS, "laughs.gpx"), (XXE_TCX, "xxe.tcx")):
        with pytest.raises(ImportRejected) as info:
            parse_activity(data, name)
        assert info.value.reason == "corrupt"
        assert "DOCTYPE" in info.value.message
        with pytest.raises(ImportRejected):
            parse_activity(gzip.compress(data), name + ".gz")


def test_the_tcx_parser_itself_resolves_no_entities() -> None:
    """Defence in depth: the hardened lxml parser leaves &xxe; unresolved and loads no
    DTD, even when handed the document directly."""
    from lxml import etree

    from pacekeeper.fitness.importers import _tcx

    root = etree.fromstring(XXE_TCX, _tcx._parser())
    text = etree.tostring(root).decode()
    assert "root:" not in text
    # Billion laughs: libxml2 either leaves the entities unexpanded or stops at its
    # amplification limit; it never builds the gigabyte.
    try:
        laughs = etree.fromstring(BILLION_LAUGHS, _tcx._parser())
    except etree.XMLSyntaxError:
        pass
    else:
        assert len(etree.tostring(laughs)) < 10_000
    with pytest.raises(ImportRejected):
        _tcx.decode(XXE_TCX.replace(b"<Id>&xxe;</Id>", b"<Id>&xxe;</Id>x<bad"))


@pytest.mark.parametrize(
    ("data", "name", "reason"),
    [
        (b"", None, "empty"),
        (b"   \n", "x.gpx", "empty"),
        (b"hello, world", None, "unsupported_format"),
        (b"hello, world", "ride.fit", "corrupt"),
        (b"\x0e\x10", "ride.fit", "truncated"),
        (b"<?xml version='1.0'?><kml><Document/></kml>", "x.kml", "unsupported_format"),
        (b"<?xml version='1.0'?><gpx><trk><trkseg><trkpt lat='1'", "x.gpx", "corrupt"),
        (b"<TrainingCenterDatabase><Activities><Activity>", "x.tcx", "corrupt"),
        (b"<TrainingCenterDatabase><Courses><Course/></Courses></TrainingCenterDatabase>",
         "c.tcx", "not_an_activity"),
        (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage", "x.fit.gz", "corrupt"),
    ],
)
def test_bad_input_is_rejected_with_its_reason(data: bytes, name: str | None, reason: str) -> None:
    with pytest.raises(ImportRejected) as info:
        parse_activity(data, name)
    assert info.value.reason == reason


def test_truncated_gzip_is_truncated() -> None:
    packed = gzip.compress(content("fit/garmin-fenix-5-bike.fit"))
    with pytest.raises(ImportRejected) as info:
        parse_activity(packed[: len(packed) // 2])
    assert info.value.reason == "truncated"


def test_damaged_bytes_never_raise_anything_but_import_rejected() -> None:
    """Cut and flipped bytes of real files: a ParsedActivity or ImportRejected, nothing else."""
    rng = random.Random(20)
    for name in ("fit/garmin-fenix-5-bike.fit", "fit/2020-06-01-16-52-40.fit",
                 "tcx/stravalib-sample.tcx", "gpx/track-with-empty-segment.gpx"):
        original = content(name)
        for _ in range(25):
            data = bytearray(original)
            if rng.random() < 0.5:
                del data[rng.randrange(1, len(data)):]
            else:
                for _ in range(rng.randrange(1, 8)):
                    data[rng.randrange(len(data))] = rng.randrange(256)
            result: ParsedActivity | ImportRejected
            try:
                result = parse_activity(bytes(data), name.rsplit("/", 1)[1])
            except ImportRejected as rejected:
                result = rejected
            if isinstance(result, ImportRejected):
                assert result.reason in {"corrupt", "truncated", "empty", "not_an_activity",
                                         "unsupported_format"}
            else:
                assert isinstance(result, ParsedActivity)


def test_a_timestamp_weeks_away_is_corrupt_not_a_giant_grid() -> None:
    """One damaged timestamp must not make a 1 Hz grid of millions of seconds."""
    from datetime import UTC, datetime, timedelta

    from garmin_fit_sdk import Encoder, Profile

    mesg = Profile["mesg_num"]
    enc = Encoder()
    t0 = datetime(2024, 5, 1, 8, 0, tzinfo=UTC)
    enc.write_mesg({"mesg_num": mesg["FILE_ID"], "type": "activity", "manufacturer": "development",
                    "product": 1, "time_created": t0, "serial_number": 1})
    for offset in (0, 1, 2, 30 * 86_400):
        enc.write_mesg({"mesg_num": mesg["RECORD"], "timestamp": t0 + timedelta(seconds=offset),
                        "heart_rate": 120})
    with pytest.raises(ImportRejected) as info:
        parse_activity(enc.close())
    assert info.value.reason == "corrupt"
