"""Frozen plain-data records of a run: tensor records and their statistics, errors."""
