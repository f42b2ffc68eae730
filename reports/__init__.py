"""Bulletins: Jinja templates (one per family + base), the renderer, chart and table helpers."""
