"""The small consent page every emulated provider shows (approve or deny)."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

from starlette.responses import HTMLResponse

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>body{{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;}}
button{{padding:.5rem 1.2rem;margin-right:.5rem}}</style></head>
<body><h1>{title}</h1>
<p><strong>{client}</strong> asks to access your {label} data.</p>
<p>Scopes: <code>{scope}</code></p>
<form method="post" action="{action}">
{hidden}
<label>Sandbox athlete id <input name="athlete_id" type="number" min="1" value="1"></label>
<p><button name="decision" value="approve" type="submit">Approve</button>
<button name="decision" value="deny" type="submit">Deny</button></p>
</form>
<p><small>Pacekeeper provider sandbox: no real {label} account is involved.</small></p>
</body></html>"""


def consent_page(
    label: str, client: str, scope: str, action: str, fields: Mapping[str, str]
) -> HTMLResponse:
    hidden = "\n".join(
        f'<input type="hidden" name="{escape(k)}" value="{escape(v)}">' for k, v in fields.items()
    )
    html = _PAGE.format(
        title=f"Authorize with {escape(label)} (sandbox)",
        label=escape(label),
        client=escape(client),
        scope=escape(scope),
        action=escape(action),
        hidden=hidden,
    )
    return HTMLResponse(html, headers={"Cache-Control": "no-store", "X-Frame-Options": "DENY"})


def error_page(message: str, status: int = 400) -> HTMLResponse:
    body = f"<!doctype html><title>Sandbox error</title><h1>Error</h1><p>{escape(message)}</p>"
    return HTMLResponse(body, status_code=status)
