"""The safety layer (empty for now): pure rules on actions, navigation and secrets, with no
browser, enforced by the layers above it (the one action path and the context's routing).
"""
