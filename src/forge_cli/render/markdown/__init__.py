"""The direct Markdown renderer (ADR-0016): paragraphs, code and tables drawn as rich's
Markdown draws them."""
