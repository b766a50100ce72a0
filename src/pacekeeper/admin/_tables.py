"""The service-wide settings an admin changes at run time (migration 0012 mirrors it)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from pacekeeper.db import Base
from pacekeeper.db._models import UtcDateTime


class SiteSettingRow(Base):
    """One named setting (today only `registration`); absent means the environment's."""

    __tablename__ = "site_settings"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(200))
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


__all__ = ["SiteSettingRow"]
