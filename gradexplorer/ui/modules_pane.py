"""The nn.Module placement audit as a tree, warnings highlighted."""

from __future__ import annotations

from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QHeaderView, QTreeWidget, QTreeWidgetItem

__all__ = ["ModulesPane"]


class ModulesPane(QTreeWidget):
    """Modules, their parameters / buffers / plain tensor attributes, and warnings."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Modules")
        self.setColumnCount(5)
        self.setHeaderLabels(["Path", "Kind", "Shape / dtype", "Device", "Notes"])
        self.header().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.items_by_path: dict[str, QTreeWidgetItem] = {}

    def show_audits(self, audits) -> None:
        self.clear()
        self.items_by_path = {}
        warn_brush = QBrush(QColor("#b3261e"))
        info_brush = QBrush(QColor("#6e7781"))
        for audit in audits:
            warned = {}
            for warning in audit.warnings:
                warned.setdefault(warning.path, []).append(warning)
            stack = [(audit, None)]
            while stack:
                module, parent = stack.pop()
                devices = ", ".join(audit.devices) if parent is None else ""
                item = QTreeWidgetItem([module.path, module.type_name, "", devices, ""])
                (self.addTopLevelItem(item) if parent is None else parent.addChild(item))
                self.items_by_path[module.path] = item
                for entry in module.entries:
                    rec = entry.record
                    notes = []
                    if entry.kind == "parameter":
                        notes.append("requires grad" if entry.requires_grad else "frozen")
                        notes.append("has .grad" if entry.has_grad else "no .grad")
                    elif entry.kind == "buffer":
                        notes.append("persistent" if entry.persistent else "not in state_dict")
                    else:
                        notes.append("not registered: does not follow .to(), not in state_dict")
                    child = QTreeWidgetItem([entry.path, entry.kind,
                                             f"{'×'.join(map(str, rec.shape)) or 'scalar'} {rec.dtype}",
                                             rec.device, "; ".join(notes)])
                    item.addChild(child)
                    self.items_by_path[entry.path] = child
                    for warning in warned.get(entry.path, ()):
                        note = QTreeWidgetItem([f"⚠ {warning.code}", "", "", "", warning.message +
                                                (f"  Fix: {warning.fix}" if warning.fix else "")])
                        brush = warn_brush if warning.severity == "warning" else info_brush
                        for column in (0, 4):
                            note.setForeground(column, brush)
                            child.setForeground(column, brush)
                        note.setToolTip(4, warning.message)
                        child.addChild(note)
                for warning in warned.get(module.path, ()):
                    note = QTreeWidgetItem([f"⚠ {warning.code}", "", "", "", warning.message +
                                            (f"  Fix: {warning.fix}" if warning.fix else "")])
                    note.setForeground(0, warn_brush)
                    note.setForeground(4, warn_brush)
                    item.addChild(note)
                for child_module in reversed(module.children):
                    stack.append((child_module, item))
            self.expandAll()

    def warning_texts(self) -> list[str]:
        """Every warning row's text, for tests and accessibility."""
        texts = []
        stack = [self.topLevelItem(i) for i in range(self.topLevelItemCount())]
        while stack:
            item = stack.pop()
            if item.text(0).startswith("⚠"):
                texts.append(f"{item.text(0)} {item.text(4)}")
            stack.extend(item.child(i) for i in range(item.childCount()))
        return texts
