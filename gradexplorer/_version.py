"""The package version, in a module of its own.

Core modules read it from here, not from the package root: importing
``gradexplorer`` runs ``gradexplorer/__init__.py``, which imports the core, so
a core module importing the root would depend on the order of its lines.
"""

__version__ = "0.1.0"
