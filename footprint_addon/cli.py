"""The command line, shared by `python -m footprint_locomotion` and `blender --command footprint`."""

import argparse
import sys

import bpy

from ..solver.errors import FootprintError
from ..solver.track import load_track

_handle = None


def _demo(args):
    from . import demo

    blend, png = demo.run(args.output_dir, render=not args.no_render)
    print(f"demo: saved {blend}" + (f" and {png}" if png else ""))
    return 0


def _validate(args):
    track = load_track(args.track)
    print(f"{args.track}: {len(track)} footprints, {track.contact.min():.3f} s to {track.liftoff.max():.3f} s: valid")
    return 0


def parser():
    p = argparse.ArgumentParser(prog="footprint_locomotion", description="Footprint Locomotion")
    sub = p.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="build the demo scene, save out/demo.blend, render out/demo.png")
    demo.add_argument("--output-dir", default="out")
    demo.add_argument("--no-render", action="store_true", help="skip the Workbench render")
    demo.set_defaults(run=_demo)
    check = sub.add_parser("validate", help="check a footprint track JSON file")
    check.add_argument("track")
    check.set_defaults(run=_validate)
    return p


def main(argv) -> int:
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except FootprintError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def register():
    global _handle
    _handle = bpy.utils.register_cli_command("footprint", main)


def unregister():
    global _handle
    if _handle is not None:
        bpy.utils.unregister_cli_command(_handle)
        _handle = None
