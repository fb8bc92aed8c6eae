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


if __name__ == "__main__":
    sys.exit(main())
