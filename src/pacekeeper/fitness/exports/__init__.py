"""Whole-account exports (issue 31 item 3): Strava, Garmin Connect, Google Takeout for
Fitbit and Apple Health archives, imported in a background job (docs/import.md)."""

from pacekeeper.fitness.exports._layout import KINDS, Kind, detect
from pacekeeper.fitness.exports._records import HistoryImport, SqlHistoryImports
from pacekeeper.fitness.exports._service import ExportImports, ImportNotFound, status_json

__all__ = ["KINDS", "ExportImports", "HistoryImport", "ImportNotFound", "Kind",
           "SqlHistoryImports", "detect", "status_json"]
