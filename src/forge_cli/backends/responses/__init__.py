"""The Responses / Knowledge Forge backend: request body, the SSE stream, Knowledge Forge events."""
