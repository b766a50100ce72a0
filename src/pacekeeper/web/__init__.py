"""Server-rendered pages (Jinja2 templates shipped as package data) and their assets."""

from pacekeeper.web._pages import BRAND_MARK, STYLESHEET_PATH, PageSecurity, render_page, stylesheet

__all__ = ["BRAND_MARK", "STYLESHEET_PATH", "PageSecurity", "render_page", "stylesheet"]
