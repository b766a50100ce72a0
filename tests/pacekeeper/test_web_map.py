"""The activity page's map tiles: one setting, checked at start-up, and the one image host
the page's Content-Security-Policy lets in (issue 33)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from pacekeeper.config import Settings
from pacekeeper.pages import PageSecurity
from pacekeeper.web.routes import tile_source


def test_the_default_tiles_are_openstreetmaps() -> None:
    settings = Settings()
    assert settings.map_tile_url == "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    assert "OpenStreetMap" in settings.map_tile_attribution
    assert tile_source(settings.map_tile_url) == "https://tile.openstreetmap.org"


@pytest.mark.parametrize(("url", "source"), [
    ("https://{s}.tile.example.org/{z}/{x}/{y}.png", "https://*.tile.example.org"),
    ("http://127.0.0.1:8123/tiles/{z}/{x}/{y}.png?key=k", "http://127.0.0.1:8123"),
])  # fmt: skip
def test_the_image_source_is_the_tile_servers_host_only(url: str, source: str) -> None:
    assert tile_source(url) == source


@pytest.mark.parametrize("url", [
    "ftp://tiles.example.org/{z}/{x}/{y}.png",  # not http(s)
    "https://tiles.example.org/{z}/{x}.png",  # no {y}
    "tiles.example.org/{z}/{x}/{y}.png",  # no scheme
])  # fmt: skip
def test_a_tile_url_that_is_not_a_template_fails_at_start_up(url: str) -> None:
    with pytest.raises(ValidationError, match="MAP_TILE_URL"):
        Settings(map_tile_url=url)


def test_only_the_page_that_asks_lets_the_tile_host_in() -> None:
    plain = PageSecurity().headers()["Content-Security-Policy"]
    mapped = PageSecurity(image_sources=("https://tile.openstreetmap.org",)).headers()[
        "Content-Security-Policy"]
    assert "img-src 'self' data:;" in plain
    assert "img-src 'self' data: https://tile.openstreetmap.org;" in mapped
    assert plain.replace("img-src 'self' data:;", "") == mapped.replace(
        "img-src 'self' data: https://tile.openstreetmap.org;", "")
