package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestEveryCommandHasExamples walks the whole command tree: every command
// (groups, cobra's help and completion included) has a short description
// and an Examples section in its --help.
func TestEveryCommandHasExamples(t *testing.T) {
	a := &app{}
	var walk func(c *cobra.Command, path []string)
	n := 0
	walk = func(c *cobra.Command, path []string) {
		if c.Hidden {
			return
		}
		n++
		name := strings.Join(append([]string{"loopx"}, path...), " ")
		if c.Short == "" {
			t.Errorf("%s: no Short description", name)
		}
		var out, errb bytes.Buffer
		code := Run(context.Background(), append(append([]string{}, path...), "--help"), strings.NewReader(""), &out, &errb)
		if code != ExitOK {
			t.Errorf("%s --help: exit %d: %s", name, code, errb.String())
		}
		_, ex, ok := strings.Cut(out.String(), "\nExamples:\n  ")
		if !ok || strings.TrimSpace(strings.SplitN(ex, "\n", 2)[0]) == "" {
			t.Errorf("%s --help has no Examples section:\n%s", name, out.String())
		}
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string{}, path...), sub.Name()))
		}
	}
	walk(a.rootCmd(), nil)
	if n < 40 {
		t.Errorf("walked only %d commands", n)
	}
}
