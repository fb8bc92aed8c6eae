"""Panels (and, later, viewport overlays)."""

from . import overlay, panels, planning_panel, stepping_panel

classes = panels.classes + stepping_panel.classes + planning_panel.classes


def register():
    for menu, draw in panels.MENU_HOOKS:
        menu.append(draw)
    overlay.register()


def unregister():
    overlay.unregister()
    for menu, draw in panels.MENU_HOOKS:
        menu.remove(draw)
