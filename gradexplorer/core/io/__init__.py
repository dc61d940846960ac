"""Captures in and out of files: the capture JSON, session documents, exports, autosave, the text report."""
