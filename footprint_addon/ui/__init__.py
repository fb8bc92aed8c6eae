"""Panels (and, later, viewport overlays)."""

from . import panels

classes = panels.classes


def register():
    for menu, draw in panels.MENU_HOOKS:
        menu.append(draw)


def unregister():
    for menu, draw in panels.MENU_HOOKS:
        menu.remove(draw)
