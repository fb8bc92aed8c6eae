"""The science, in pure numpy: no bpy, no mathutils. Inputs and outputs are arrays and dataclasses."""
