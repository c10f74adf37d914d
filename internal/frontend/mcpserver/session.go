package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/loopx-dev/loopx/engine"
	"github.com/loopx-dev/loopx/engine/trust"
)

// CheckTools checks a --tools list alone, before a project is opened.
// Errors: as New's (errs.Usage unknown_tool or no_tools).
func CheckTools(tools []string) error {
	_, err := selectTools(tools)
	return err
}

// ProjectRoot is the project root a session serves: root made absolute.
// Errors: the root does not exist (wrapping os.ErrNotExist).
func ProjectRoot(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("project %s: %w", abs, os.ErrNotExist)
	}
	return abs, nil
}

// Bind is the agent a session acts as (Options.Agent), decided by the
// identity rule (engine.ActAs mode "bind", data.loopx.identity.acting) on the
// project eo opens: flag when given, else the one agent the caller's
// ancestor processes run as ("" when none). The engine is closed before
// it returns. Errors (errs.No agent_mismatch, audited): flag names
// another agent than the ancestors run as, or the ancestors run as
// several.
func Bind(ctx context.Context, eo engine.Options, flag string) (string, error) {
	e := engine.New(eo)
	defer e.Close()
	_ = e.AdoptTightening() // as every command does first
	return e.ActAs(ctx, trust.ActRequest{Agent: flag, Mode: "bind", What: "mcp"})
}
