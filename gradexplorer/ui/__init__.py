"""The desktop app (PySide6). The only package of gradexplorer that imports Qt."""
