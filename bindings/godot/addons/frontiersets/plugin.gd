# The editor plugin of the addon: nothing to add to the editor; the
# addon's API is FrontierSets (frontiersets.gd).
tool
extends EditorPlugin
