"""The pages' routes (`routes.py`: the web app, `connections.py`: the Connections page,
`connection_pages.py`: a provider's connect and result pages), their templates and
assets (shipped as package data; `pacekeeper.pages` renders them)."""
