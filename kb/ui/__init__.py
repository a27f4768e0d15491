"""The Datasette search UI: metadata, the exportkb plugin (routes) and templates."""
