// Package integrations holds what gatedexec's agent front ends share: the
// Claude Code and Codex hook (integrations/hook), the installer of that
// hook into an agent's settings (integrations/hooks) and the MCP server
// (integrations/mcp). They are callers of the engine (package gate), like
// the CLI's run and check: the rules, the approval and the sandbox are the
// engine's, so every front end reaches the same decision for a command.
package integrations
