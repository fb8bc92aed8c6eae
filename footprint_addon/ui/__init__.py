"""Panels (and, later, viewport overlays)."""

from . import overlay, panels

classes = panels.classes


def register():
    for menu, draw in panels.MENU_HOOKS:
        menu.append(draw)
    overlay.register()


def unregister():
    overlay.unregister()
    for menu, draw in panels.MENU_HOOKS:
        menu.remove(draw)
