"""mcpcast."""
