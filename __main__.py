"""python -m footprint_locomotion ...: the same command line as `blender --command footprint ...`."""

import sys


def main(argv=None) -> int:
    import bpy  # noqa: F401  (Blender as a Python module)

    from . import register
    from .footprint_addon import cli

    register()
    try:
        return cli.main(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:  # argparse: --help, usage errors
        return int(exc.code or 0)


def exit_process(code: int):
    """Exit; on Blender 4.2 as a module skip its exit handler, which crashes once any Python property
    callback was registered (a Blender bug fixed in 4.3), so the exit status stays the command's."""
    import bpy

    if bpy.app.version < (4, 3, 0):
        import os

        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    exit_process(main())
