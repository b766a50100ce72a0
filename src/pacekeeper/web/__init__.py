"""Server-rendered pages (Jinja2 templates shipped as package data) and their assets."""

from pacekeeper.web._pages import STYLESHEET_PATH, PageSecurity, render_page, stylesheet

__all__ = ["STYLESHEET_PATH", "PageSecurity", "render_page", "stylesheet"]
