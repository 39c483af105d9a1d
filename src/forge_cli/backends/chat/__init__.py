"""The Chat Completions backend: request body, stream reader, think-tag splitting, errors."""
