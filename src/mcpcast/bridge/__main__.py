"""``python -m mcpcast.bridge --url ...``"""

from ._cli import main

raise SystemExit(main())
