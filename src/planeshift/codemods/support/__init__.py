"""What every codemod leans on and none owns: reading and writing files exactly, names and imports
of a module, positions, the target's style and layout, settings files, diffs.
"""
