"""Administration: users across tenants (disable, enable), tenants and plans, the
registration mode (stored). The routes are in `pacekeeper.http.admin`."""

from pacekeeper.admin._service import MAX_RATE_LIMIT, AdminService, RegistrationSetting
from pacekeeper.admin._store import SqlAdminStore, TenantListing, UserListing
from pacekeeper.admin._tables import SiteSettingRow

__all__ = [
    "MAX_RATE_LIMIT",
    "AdminService",
    "RegistrationSetting",
    "SiteSettingRow",
    "SqlAdminStore",
    "TenantListing",
    "UserListing",
]
